"""The motion/hand gate: a cheap per-frame test of which board regions move or are covered.

The frame is shrunk (``VisionConfig.motion_scale``), differenced against the previous shrunk frame
and tested for skin colour; each region of the board ("p1".."p24", "bar", "tray_w", "tray_b")
is a label in a precomputed map, so per-region fractions are one ``np.bincount``.  Full reading
runs only when nothing has moved for ``still_frames`` frames, and covered regions are never read.

>>> import numpy as np
>>> from calibration.profile import CalibrationProfile
>>> from calibration.camera import CameraModel
>>> from vision.geometry import BoardSpec
>>> prof = CalibrationProfile.from_corners([(1500, 250), (420, 250), (300, 900), (1620, 900)],
...     CameraModel.default_for_size(1920, 1080), BoardSpec.tournament(), method="manual")
>>> gate = MotionGate(RegionMap.build(prof))
>>> frame = np.full((1080, 1920, 3), 90, np.uint8)
>>> [gate.update(frame).still for _ in range(6)][-1]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.config import VisionConfig
from vision.observation import REGION_NAMES

Image = npt.NDArray[Any]


@dataclass(frozen=True, slots=True)
class RegionMap:
    """A label image at gate resolution: 0 = elsewhere, i+1 = REGION_NAMES[i]."""

    labels: npt.NDArray[np.int32]
    scale: float
    sizes: npt.NDArray[np.int64]
    image_size: tuple[int, int]
    cube: npt.NDArray[np.bool_] | None = None
    """The places a cube rests (the bar and the tray column beside the players, on the plane of
    a cube's top) at gate resolution: the tray column is no region of its own, so a hand there
    would otherwise not stop the cube from being read."""

    @classmethod
    def build(cls, profile: object, config: VisionConfig | None = None) -> RegionMap:
        """Rasterise the profile's region polygons (points as full columns) at gate resolution."""
        cfg = config or VisionConfig()
        w, h = profile.image_size  # type: ignore[attr-defined]
        s = cfg.motion_scale
        sw, sh = max(1, round(w * s)), max(1, round(h * s))
        labels = np.zeros((sh, sw), np.int32)
        layout = profile.layout  # type: ignore[attr-defined]
        polys = profile.region_polygons_mm()  # type: ignore[attr-defined]
        for i, name in enumerate(REGION_NAMES):
            if name.startswith("p"):
                quad = np.array(layout.point_polygon(int(name[1:])), np.float64)[:, :2]
                poly_mm = _rect(quad[:, 0].min(), quad[:, 1].min(), quad[:, 0].max(), quad[:, 1].max())
            else:
                poly_mm = np.asarray(polys[name], np.float64)
            _fill(labels, profile, poly_mm, s, i + 1)
        sizes = np.bincount(labels.ravel(), minlength=len(REGION_NAMES) + 1).astype(np.int64)
        from vision.cube import cube_places

        cube = np.zeros((sh, sw), np.uint8)
        for rect, z in cube_places(profile):
            _fill(cube, profile, _rect(rect.x0, rect.y0, rect.x1, rect.y1), s, 1, z)
        return cls(labels, s, sizes, (int(w), int(h)), cube.astype(bool) if cube.any() else None)


def _rect(x0: float, y0: float, x1: float, y1: float) -> npt.NDArray[np.float64]:
    return np.array([(x0, y0), (x1, y0), (x1, y1), (x0, y1)], np.float64)


def _fill(mask: npt.NDArray[Any], profile: object, poly_mm: npt.NDArray[np.float64], scale: float, value: int,
          z: float | None = None) -> None:
    """Fill the board polygon ``poly_mm`` (on the board's surface, or on the plane at height ``z``)
    into ``mask`` at gate resolution; its edges are densified so lens distortion bends them."""
    dense = _densify(poly_mm)
    pts = dense if z is None else np.column_stack([dense, np.full(len(dense), z)])
    img = profile.board_to_image(pts)  # type: ignore[attr-defined]
    cv2.fillPoly(mask, [np.round(np.asarray(img) * scale).astype(np.int32)], value)


def _densify(poly: npt.NDArray[np.float64], step: float = 20.0) -> npt.NDArray[np.float64]:
    out: list[npt.NDArray[np.float64]] = []
    for a, b in zip(poly, np.roll(poly, -1, axis=0), strict=True):
        n = max(1, int(np.hypot(*(b - a)) / step))
        out.extend(a + (b - a) * t for t in np.linspace(0, 1, n, endpoint=False))
    return np.array(out)


@dataclass(frozen=True, slots=True)
class MotionReport:
    """One frame's gate result."""

    moving: frozenset[str]
    covered: frozenset[str]
    still_frames: int
    still: bool
    motion_fraction: float
    cube_covered: bool = False
    """The places a cube rests move or show a hand (``RegionMap.cube``): the cube is not read."""


def shrink(image: Image, scale: float) -> Image:
    """The gate's small copy of a frame (bilinear: samples, does not average; cheap at 1080p)."""
    h, w = image.shape[:2]
    small = cv2.resize(image, (max(1, round(w * scale)), max(1, round(h * scale))), interpolation=cv2.INTER_LINEAR)
    return small


def skin_mask(small_bgr: Image) -> npt.NDArray[np.bool_]:
    """Skin-coloured pixels (YCrCb box, robust across skin tones under white-ish light)."""
    ycc = cv2.cvtColor(small_bgr, cv2.COLOR_BGR2YCrCb)
    cr = ycc[:, :, 1]
    cb = ycc[:, :, 2]
    y = ycc[:, :, 0]
    return (cr >= 138) & (cr <= 173) & (cb >= 77) & (cb <= 127) & (y >= 40)


def region_hits(mask: npt.NDArray[np.bool_], regions: RegionMap) -> npt.NDArray[np.int64]:
    """How many of each region's gate pixels are set in ``mask`` (index i+1 = REGION_NAMES[i])."""
    return np.bincount(regions.labels[mask], minlength=len(regions.sizes))


def region_fractions(mask: npt.NDArray[np.bool_], regions: RegionMap) -> npt.NDArray[np.float64]:
    """Fraction of each region's gate pixels set in ``mask`` (index i+1 = REGION_NAMES[i])."""
    hits = np.bincount(regions.labels[mask], minlength=len(regions.sizes))
    return hits / np.maximum(regions.sizes, 1)


class MotionGate:
    """Stateful wrapper: feed every frame; it says whether the scene is still and what is covered.

    Skin is judged against a reference (the last still frame without new skin): only skin-coloured
    pixels that differ from the reference count, so a burgundy or tan board is not a hand, while a
    hand resting motionless over the board still is.  Until the scene has first been still, there is
    no reference and every skin-coloured pixel counts; the first still run becomes the reference
    (a hand already on the board when the camera starts is not kept as "covered" for ever).
    """

    def __init__(self, regions: RegionMap, config: VisionConfig | None = None) -> None:
        self.regions = regions
        self.config = config or VisionConfig()
        self._previous: Image | None = None
        self._reference: Image | None = None
        self._still = 0

    def update(self, image: Image) -> MotionReport:
        cfg = self.config
        small = shrink(image, self.regions.scale)
        if small.shape[:2] != self.regions.labels.shape:
            small = cv2.resize(small, self.regions.labels.shape[::-1], interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        if self._previous is None:
            changed = np.ones(grey.shape, np.bool_)
        else:
            changed = cv2.absdiff(grey, self._previous) > cfg.motion_threshold
        self._previous = grey
        move_hits = region_hits(changed, self.regions)
        moving = frozenset(n for i, n in enumerate(REGION_NAMES)
                           if move_hits[i + 1] > cfg.motion_fraction * self.regions.sizes[i + 1]
                           and move_hits[i + 1] >= cfg.motion_min_pixels)
        total_changed = float(changed.mean())
        cube_mask = self.regions.cube
        cube_px = 0 if cube_mask is None else int(np.count_nonzero(cube_mask))
        cube_moving = False
        if cube_mask is not None and cube_px:
            hits = int(np.count_nonzero(changed & cube_mask))
            cube_moving = hits > cfg.motion_fraction * cube_px and hits >= cfg.motion_min_pixels
        any_motion = bool(moving) or total_changed > cfg.motion_fraction or cube_moving
        self._still = 0 if any_motion else self._still + 1
        if self._reference is None and self._still >= cfg.still_frames:
            self._reference = grey  # the first still scene, whatever lies on it
        skin = skin_mask(small) if small.ndim == 3 else np.zeros(grey.shape, np.bool_)
        if self._reference is not None:
            skin = skin & (cv2.absdiff(grey, self._reference) > cfg.motion_threshold)
        skin_frac = region_fractions(skin, self.regions)
        covered = frozenset(n for i, n in enumerate(REGION_NAMES) if skin_frac[i + 1] > cfg.skin_fraction)
        cube_skin = (cube_mask is not None and cube_px > 0
                     and int(np.count_nonzero(skin & cube_mask)) > cfg.skin_fraction * cube_px)
        still = self._still >= cfg.still_frames and not covered and not cube_skin
        if still:
            self._reference = grey
        return MotionReport(
            moving=moving,
            covered=covered | moving,
            still_frames=self._still,
            still=still,
            motion_fraction=total_changed,
            cube_covered=cube_moving or cube_skin,
        )
