"""The gate's guarantees, region by region, through the whole live reader: a hand resting over any
region (every point, the bar, each tray) or over a place the cube rests is never read (no full
reading runs, the region reads with confidence 0, nothing is confident), and neither is a region
where something keeps moving; once the hand is gone the board is read in full again."""

from __future__ import annotations

import json
import math
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from rules.position import Side
from vision.camera import Frame
from vision.config import VisionConfig
from vision.cube import cube_places
from vision.observation import REGION_NAMES, DieReading
from vision.reader import BoardReader

DATA = Path(__file__).parent / "data"
SEED = 900023
SKIN = (120, 150, 210)  # a skin tone (BGR)


def _load() -> tuple[np.ndarray, dict, CalibrationProfile]:
    img = cv2.imread(str(DATA / f"board_{SEED}.jpg"))
    truth = json.loads((DATA / f"board_{SEED}.truth.json").read_text())
    return img, truth, CalibrationProfile.load(DATA / f"board_{SEED}.profile.json")


def _region_mask(profile: CalibrationProfile, name: str, shape: tuple[int, int]) -> np.ndarray:
    """The image pixels of a named region (a point as its whole column, as the referee sees it) or,
    for "cube_<k>", of the k-th place a cube rests, on the plane of its top; shrunk by a fifth
    toward its middle, so a hand over it does not reach its neighbours."""
    layout = profile.layout
    if name.startswith("cube_"):
        rect, z = cube_places(profile)[int(name[5:])]
        quad, height = [(rect.x0, rect.y0), (rect.x1, rect.y0), (rect.x1, rect.y1), (rect.x0, rect.y1)], z
    elif name.startswith("p"):
        q = np.array(layout.point_polygon(int(name[1:])), np.float64)[:, :2]
        x0, y0, x1, y1 = q[:, 0].min(), q[:, 1].min(), q[:, 0].max(), q[:, 1].max()
        quad, height = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)], 0.0
    else:
        quad, height = [tuple(p) for p in profile.region_polygons_mm()[name]], 0.0
    poly = np.array(quad, np.float64)
    mid = poly.mean(axis=0)
    poly = mid + 0.8 * (poly - mid)
    # densified edges, so lens distortion bends them as the gate's own map does
    dense = np.concatenate([a + (b - a) * t[:, None] for a, b in zip(poly, np.roll(poly, -1, 0), strict=True)
                            for t in [np.linspace(0, 1, 12, endpoint=False)]])
    pts = profile.board_to_image(np.column_stack([dense, np.full(len(dense), height)]))
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(np.asarray(pts)).astype(np.int32)], 1)
    return mask.astype(bool)


@pytest.fixture(scope="module")
def scene() -> tuple[np.ndarray, CalibrationProfile]:
    img, _, prof = _load()
    return img, prof


TARGETS = (*REGION_NAMES, "cube_0", "cube_1")


def test_every_covered_or_moving_region_is_never_read(scene: tuple[np.ndarray, CalibrationProfile]) -> None:
    img, prof = scene
    cfg = VisionConfig(still_frames=2)
    rd = BoardReader(cfg)
    seq = 0

    def feed(image: np.ndarray) -> object:
        nonlocal seq
        seq += 1
        return rd.read(Frame(image, seq / 30, seq), prof)

    settled = [feed(img) for _ in range(4)]
    assert settled[-1].still and any("checkers" in dict(o.timings_ms) for o in settled)
    for name in TARGETS:
        mask = _region_mask(prof, name, img.shape[:2])
        assert mask.any(), name
        hand = img.copy()
        hand[mask] = SKIN
        # a hand comes in and rests there, motionless, for many frames
        for k in range(8):
            obs = feed(hand)
            assert not obs.still and not obs.confident, (name, k)
            assert set(dict(obs.timings_ms)) == {"gate"}, (name, k)  # no reading of the covered frame
            assert obs.position(Side.WHITE) is None
            if name in REGION_NAMES:
                assert name in obs.covered and obs.reading(name).confidence == 0.0, (name, k)
        # something (not skin) keeps moving there: never read either
        flicker = img.copy()
        flicker[mask] = 255 - flicker[mask]
        for k in range(6):
            obs = feed(flicker if k % 2 == 0 else img)
            assert not obs.still and set(dict(obs.timings_ms)) == {"gate"}, (name, k)
            if name in REGION_NAMES:
                assert obs.reading(name).confidence == 0.0, (name, k)
        # gone: still again after ``still_frames`` frames, and read in full
        after = [feed(img) for _ in range(cfg.still_frames + 1)]
        assert after[-1].still and not after[-1].covered, name
        assert any("checkers" in dict(o.timings_ms) for o in after), name


def test_a_die_in_a_region_named_covered_is_not_reported(scene: tuple[np.ndarray, CalibrationProfile]) -> None:
    """``read_image(covered=...)`` (a still image whose hands are known): a die lying in a covered region is
    not reported, as no count there is; the other die still is."""
    img, prof = scene
    truth = json.loads((DATA / f"board_{SEED}.truth.json").read_text())
    rd = BoardReader()
    on_point, in_gap = truth["dice"][1], truth["dice"][0]  # the 5 lies on point 21, the 1 between the rows
    point = prof.layout.point_at(*on_point["center_mm"][:2])
    assert point == 21 and prof.layout.point_at(*in_gap["center_mm"][:2]) is None

    def which(dice: tuple[DieReading, ...]) -> list[tuple[int, int | None]]:
        """Each die found as (the truth's face at its place, its face read: None when unsure, never another)."""
        out = []
        for d in dice:
            near = min(truth["dice"], key=lambda t: math.dist(t["center_mm"][:2], d.center_mm))
            assert math.dist(near["center_mm"][:2], d.center_mm) < 8.0
            assert d.face in (None, near["face"])
            out.append((near["face"], d.face))
        return sorted(out, key=lambda f: f[0])

    assert [t for t, _ in which(rd.read_image(img, prof).dice)] == [in_gap["face"], on_point["face"]]
    kept = which(rd.read_image(img, prof, covered=frozenset({f"p{point}"})).dice)
    assert kept == [(in_gap["face"], in_gap["face"])]
    assert rd.read_image(img, prof, covered=frozenset({"bar", "tray_w"})).dice != ()


def test_covered_naming_no_region_is_a_clear_error(scene: tuple[np.ndarray, CalibrationProfile]) -> None:
    img, prof = scene
    with pytest.raises(ValueError, match=r"covered names no board region: 'p30', 'table'"):
        BoardReader().read_image(img, prof, covered=frozenset({"p30", "table", "bar"}))
