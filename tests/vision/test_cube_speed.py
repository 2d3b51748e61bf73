"""The cube stage's cheaper forms compute exactly what the plain ones did (session 7 speed work):
one-pass gradients, batched normalisation, and a search that measures only the windows it returns."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from tests.vision.test_cube import _frame
from vision.cube import (
    CubeConfig,
    CubeSampler,
    _gradients,
    find_cube_candidates,
    normalise_cube_patch,
    normalise_cube_patches,
)


def test_batched_normalisation_is_the_per_crop_one() -> None:
    """Element for element equal, a flat crop (spread below the floor of 8) included."""
    rng = np.random.default_rng(3)
    crops = [(rng.random((48, 48)) * 255 * k).astype(np.uint8) for k in (0.01, 0.5, 1.0, 0.2)]
    crops.append(np.full((48, 48), 77, np.uint8))
    want = np.stack([normalise_cube_patch(c) for c in crops])[:, None]
    got = normalise_cube_patches(crops)
    assert got.dtype == np.float32 and got.shape == (5, 1, 48, 48)
    assert np.array_equal(got, want)


@pytest.mark.parametrize("shape", [(345, 42), (81, 81), (5, 9)])
def test_one_pass_gradients_are_the_sobel_ones(shape: tuple[int, int]) -> None:
    rng = np.random.default_rng(shape[0])
    view = (rng.random(shape) * 255).astype(np.uint8)
    gx, gy = _gradients(view)
    f = view.astype(np.float32)
    assert gx.dtype == np.float32 and gy.dtype == np.float32
    assert np.array_equal(gx, cv2.Sobel(f, cv2.CV_32F, 1, 0, ksize=3))
    assert np.array_equal(gy, cv2.Sobel(f, cv2.CV_32F, 0, 1, ksize=3))
    fx, fy = _gradients(f)  # a float view takes the plain path
    assert np.array_equal(fx, gx) and np.array_equal(fy, gy)


@pytest.mark.parametrize("seed", [900006, 900023])
def test_a_limited_search_returns_the_first_windows_of_the_full_one(seed: int) -> None:
    img, prof, _ = _frame(seed)
    sampler = CubeSampler(prof)
    cfg = CubeConfig()
    full = find_cube_candidates(img, sampler, cfg)
    assert len(full) > 2
    for n in (1, 2, 4):
        assert find_cube_candidates(img, sampler, cfg, limit=n) == full[:n]


@pytest.mark.parametrize("white", ["NEAR", "FAR"])
def test_the_samplers_position_frame_reads_positions_as_the_layout_says(white: str) -> None:
    """``CubeSampler.frame`` (computed once per profile) gives what the plain rule gives on a grid
    over the board and beyond: MIDDLE on the bar, else the side of whoever sits on that long
    side (both seatings), with the confidence ramping from the long centre line."""
    from dataclasses import replace

    from rules.position import Side
    from vision.cube import cube_position
    from vision.geometry import LongSide, Seating
    from vision.observation import CubePosition

    _, prof, _ = _frame(900006)
    prof = replace(prof, seating=Seating(white=LongSide[white]))
    layout = prof.layout
    assert layout.seating.white is LongSide[white]
    frame = CubeSampler(prof).frame
    cfg = CubeConfig()
    s = prof.spec
    bar = layout.bar_region()
    seen = set()
    for x in [*np.linspace(-20, s.width_mm + 20, 41), bar.x0, bar.x1]:
        for y in [*np.linspace(-20, s.depth_mm + 20, 41), s.depth_mm / 2, bar.y0, bar.y1]:
            c = (float(x), float(y))
            if bar.contains(*c):
                want = (CubePosition.MIDDLE, 1.0)
            else:
                long_side = LongSide.NEAR if y > s.depth_mm / 2 else LongSide.FAR
                sits = Side.WHITE if layout.seating.side_of(Side.WHITE) is long_side else Side.BLACK
                want = (CubePosition.WHITE_SIDE if sits is Side.WHITE else CubePosition.BLACK_SIDE,
                        min(1.0, abs(y - s.depth_mm / 2) / cfg.middle_band_mm))
            assert frame.position(c, cfg) == want == cube_position(prof, c, cfg), c
            seen.add(want[0])
    assert seen == set(CubePosition)


def test_the_decisive_read_judges_the_best_windows_at_most_two_of_a_place() -> None:
    """Most contrasted first, at most ``decisive_per_place`` of a place, ``decisive_candidates`` in
    all; the session-7 choice (4 windows, 3 a place) passes the search's windows through."""
    from dataclasses import replace

    from vision.cube import CubeBlob, decisive_windows

    def w(place: int, contrast: float) -> CubeBlob:
        return CubeBlob((contrast, 0.0), 25.0, 0.0, contrast, place=place)

    cfg = CubeConfig()
    bar3 = [w(0, 214), w(0, 180), w(0, 163), w(1, 31)]  # the bar's third window was the cube (700021_3)
    assert decisive_windows(bar3, cfg) == [bar3[0], bar3[1], bar3[3]]
    mixed = [w(1, 90), w(0, 80), w(1, 70), w(1, 60)]
    assert decisive_windows(mixed, cfg) == mixed[:3]
    assert decisive_windows(mixed[:2], cfg) == mixed[:2]
    assert decisive_windows([], cfg) == []
    old = replace(cfg, decisive_candidates=4, decisive_per_place=3)
    assert decisive_windows(bar3, old) == bar3 and decisive_windows(mixed, old) == mixed
