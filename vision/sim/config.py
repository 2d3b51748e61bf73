"""One typed config for the simulator: every random parameter is sampled from a range here.

>>> import random
>>> Range(1.0, 2.0).sample(random.Random(0))
1.8444218515250481
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, fields, replace
from typing import Any


class SimConfigError(ValueError):
    """A config value or override that cannot be used."""


@dataclass(frozen=True, slots=True)
class Range:
    """A closed interval sampled uniformly."""

    lo: float
    hi: float

    def __post_init__(self) -> None:
        if self.hi < self.lo:
            raise SimConfigError(f"range ({self.lo}, {self.hi}) is empty")

    def sample(self, rng: random.Random) -> float:
        return self.lo if self.hi == self.lo else rng.uniform(self.lo, self.hi)

    @classmethod
    def fixed(cls, v: float) -> Range:
        return cls(v, v)


@dataclass(frozen=True, slots=True)
class SimConfig:
    """Ranges for everything the simulator samples.  Override with :meth:`with_overrides`."""

    # board and style
    boards: tuple[str, ...] = ("tournament", "tournament", "tournament", "travel")
    schemes: tuple[str, ...] = ()  # empty = all colour schemes
    # camera
    tilt_deg: Range = field(default_factory=lambda: Range(0.0, 45.0))
    azimuth_sides: tuple[float, ...] = (0.0, 0.0, 90.0, 180.0, 270.0)  # camera beside a side (0 = NEAR)
    azimuth_deg: Range = field(default_factory=lambda: Range(-15.0, 15.0))  # turned off that side
    roll_deg: Range = field(default_factory=lambda: Range(-8.0, 8.0))
    hfov_deg: Range = field(default_factory=lambda: Range(48.0, 78.0))
    fill: Range = field(default_factory=lambda: Range(0.80, 0.96))
    target_jitter_mm: Range = field(default_factory=lambda: Range(0.0, 30.0))
    k1: Range = field(default_factory=lambda: Range(-0.22, 0.04))
    k2: Range = field(default_factory=lambda: Range(-0.02, 0.06))
    tangential: Range = field(default_factory=lambda: Range(-0.0015, 0.0015))
    # light
    light_elevation_deg: Range = field(default_factory=lambda: Range(35.0, 80.0))
    light_azimuth_deg: Range = field(default_factory=lambda: Range(0.0, 360.0))
    ambient: Range = field(default_factory=lambda: Range(0.40, 0.62))
    key: Range = field(default_factory=lambda: Range(0.40, 0.75))
    color_temp_k: Range = field(default_factory=lambda: Range(2900.0, 6500.0))
    uneven: Range = field(default_factory=lambda: Range(0.0, 0.40))
    vignette: Range = field(default_factory=lambda: Range(0.0, 0.35))
    glare: Range = field(default_factory=lambda: Range(0.0, 0.55))
    shadow_strength: Range = field(default_factory=lambda: Range(0.35, 0.65))
    shadow_blur_px: Range = field(default_factory=lambda: Range(1.0, 4.0))
    # sensor
    noise_sigma: Range = field(default_factory=lambda: Range(1.0, 5.0))
    defocus_sigma: Range = field(default_factory=lambda: Range(0.0, 1.1))
    jpeg_quality: Range = field(default_factory=lambda: Range(60.0, 95.0))
    exposure_drift: Range = field(default_factory=lambda: Range(0.0, 0.06))
    wb_drift: Range = field(default_factory=lambda: Range(0.0, 0.04))
    motion_blur_px: Range = field(default_factory=lambda: Range(4.0, 14.0))
    # pieces
    checker_jitter_mm: Range = field(default_factory=lambda: Range(0.3, 2.5))
    die_yaw_deg: Range = field(default_factory=lambda: Range(0.0, 360.0))
    cocked_p: float = 0.15
    on_die_p: float = 0.03
    tray_lying_p: float = 0.3
    hands_p: float = 0.2
    cup_p: float = 0.35
    cube_offset_p: float = 0.25  # cube on a player's side rather than the middle

    def with_overrides(self, **kw: Any) -> SimConfig:
        """A copy with some fields replaced; numbers become fixed ranges.

        >>> SimConfig().with_overrides(tilt_deg=30).tilt_deg
        Range(lo=30.0, hi=30.0)
        """
        names = {f.name: f for f in fields(self)}
        clean: dict[str, Any] = {}
        for k, v in kw.items():
            if k not in names:
                raise SimConfigError(f"unknown simulator setting {k!r}")
            cur = getattr(self, k)
            if isinstance(cur, Range) and isinstance(v, int | float):
                v = Range.fixed(float(v))
            elif isinstance(cur, Range) and isinstance(v, tuple | list) and len(v) == 2:
                v = Range(float(v[0]), float(v[1]))
            clean[k] = v
        return replace(self, **clean)

    @classmethod
    def clean(cls) -> SimConfig:
        """Easy conditions (overhead-ish, no noise, no blur, no hands): for tests and debugging."""
        return cls().with_overrides(
            tilt_deg=(0.0, 15.0), noise_sigma=0.5, defocus_sigma=0.0, jpeg_quality=95, hands_p=0.0,
            cocked_p=0.0, on_die_p=0.0, exposure_drift=0.0, wb_drift=0.0, k1=(-0.05, 0.0),
            uneven=(0.0, 0.1), glare=(0.0, 0.1), vignette=(0.0, 0.1),
        )
