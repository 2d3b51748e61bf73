"""The found-window read (``CubeConfig.found_read``, session 7): when the re-centred chosen window
leaves the face unsure, the window as the search found it may give the face, under every guard a
read of the top has."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, cast

import numpy as np
import pytest

from tests.vision.test_cube import _frame, _golden_cube_painted, needs_model
from vision.cube import CubeBlob, CubeConfig, CubeNumeral, CubeSampler, NumeralRead, cube_position, read_cube
from vision.cube import _found_read as found_read
from vision.observation import CubePosition


class _ByDistance:
    """Reads a window by its distance (cube sides) beyond a base window, away from the camera."""

    def __init__(self, base: CubeBlob, reads: dict[float, NumeralRead]) -> None:
        self.base, self.reads = base, reads
        self.asked = 0

    def patches(self, image: Any, profile: Any, blobs: list[CubeBlob]) -> list[float]:
        return [round(math.dist(b.center_mm, self.base.center_mm) / b.side_mm, 2) for b in blobs]

    def cube_probabilities(self, dists: list[float]) -> list[float]:
        self.asked += 1
        return dists

    def decide(self, dist: float) -> NumeralRead:
        return self.reads[dist]


BG = NumeralRead(None, 1.0, 0, 0.0)
TOP16 = NumeralRead(16, 0.99, 1, 1.0)


@pytest.mark.parametrize(("window", "half", "whole", "own", "expected"), [
    (TOP16, BG, BG, NumeralRead(None, 0.9, 0, 0.1), 16),
    (TOP16, TOP16, BG, NumeralRead(None, 0.9, 0, 0.1), 16),  # the same top half a side beyond
    # the re-centred window named another face surely enough: no read; below 0.7 it is noise
    (TOP16, BG, BG, NumeralRead(64, 0.8, 0, 1.0), None),
    (TOP16, BG, BG, NumeralRead(64, 0.6, 0, 1.0), 16),
    (TOP16, BG, BG, NumeralRead(16, 0.6, 1, 1.0), 16),
    (replace(TOP16, cube_probability=0.98), BG, BG, NumeralRead(None, 0.9, 0, 0.1), None),  # not cube-like enough
    (replace(TOP16, confidence=0.89), BG, BG, NumeralRead(None, 0.9, 0, 0.1), None),  # not sure
    (NumeralRead(2, 0.93, 0, 1.0), BG, BG, NumeralRead(None, 0.9, 0, 0.1), None),  # 2 and 8 need 0.95
    (NumeralRead(2, 0.96, 0, 1.0), BG, BG, NumeralRead(None, 0.9, 0, 0.1), 2),
    (TOP16, BG, NumeralRead(8, 0.7, 0, 0.99), NumeralRead(None, 0.9, 0, 0.1), None),  # the top a side beyond
    (TOP16, NumeralRead(8, 0.95, 1, 1.0), BG, NumeralRead(None, 0.9, 0, 0.1), None),  # another face half a side beyond
    (TOP16, replace(TOP16, quarter_turns=2), BG, NumeralRead(None, 0.9, 0, 0.1), None),  # turned otherwise
])
def test_found_read_stands_only_as_a_read_of_the_top_would(window: NumeralRead, half: NumeralRead,
                                                          whole: NumeralRead, own: NumeralRead,
                                                          expected: int | None) -> None:
    _, prof, _ = _frame(900023)
    sampler = CubeSampler(prof)
    size = prof.spec.cube_size_mm
    blob = CubeBlob((300.0, 120.0), size, 10.0, 1.0, z_mm=size)
    num = _ByDistance(blob, {0.0: window, 0.5: half, 1.0: whole})
    flat = np.zeros((prof.image_size[1], prof.image_size[0]), np.uint8)  # aligned: no edges to be off
    pos = cube_position(prof, blob.center_mm, CubeConfig())[0]
    cfg = replace(CubeConfig(), half_turn_check=False, look_alike_turns_below=0.0)  # the turn checks have their own tests
    got = found_read(flat, sampler, blob, cast(CubeNumeral, num), cfg, own, pos)
    assert (None if got is None else got.face) == expected
    assert num.asked == 1  # one model pass: the window and its two probes
    other = next(p for p in CubePosition if p is not pos)
    assert found_read(flat, sampler, blob, cast(CubeNumeral, num), cfg, own, other) is None


@needs_model
def test_a_re_centring_that_slides_off_the_top_is_undone_by_the_found_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A 16 painted on the golden frame's cube; re-centring made to slide every window 0.6 side off
    the top (as on a side face or a shadow's edge): the re-centred read is unsure, the found
    window's read gives the face (and without ``found_read`` the face stays unsure)."""
    import vision.cube as cube_mod

    img, prof, tc = _golden_cube_painted(16)
    sampler = CubeSampler(prof)
    assert read_cube(img, sampler, CubeConfig()).face == 16  # type: ignore[union-attr]

    def slid(image: Any, profile: Any, blobs: list[CubeBlob], reach: float = 0.45, **_: Any) -> list[CubeBlob]:
        return [replace(b, center_mm=(b.center_mm[0] + 0.6 * b.side_mm, b.center_mm[1])) for b in blobs]

    monkeypatch.setattr(cube_mod, "refine_blobs", slid)
    off = read_cube(img, sampler, replace(CubeConfig(), found_read=False))
    assert off is not None and off.face is None
    on = read_cube(img, sampler, CubeConfig())
    assert on is not None and on.face == 16 and on.position.value == tc["position"]
    assert on.position_confidence >= CubeConfig().min_position_confidence
