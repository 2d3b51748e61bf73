"""A die's side face read alone, where its top was not found (``board.unread_tops``)."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from tests.vision.renders import rendered_frames
from vision.config import VisionConfig
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier
from vision.dice.config import DiceConfig


@pytest.fixture(scope="module")
def frame_902793(tmp_path_factory: pytest.TempPathFactory) -> tuple[object, object, dict[str, object]]:
    """Rendered seed 902793 (1280x720, ~3 s to render): two green dice, a flat 2 and a 5, a hand
    elsewhere on the board.  The detector finds the 2's side face toward the camera (18 mm off the
    die, on the plane of its top), not its top; that side reads 4 at 0.99."""
    return rendered_frames(tmp_path_factory.mktemp("renders"), (902793,))[902793]


def _near(found: tuple[object, ...], x: float, y: float, r: float) -> list[object]:
    return [d for d in found if math.hypot(d.center_mm[0] - x, d.center_mm[1] - y) < r]  # type: ignore[attr-defined]


def test_a_side_face_read_alone_is_not_a_face(frame_902793: tuple[object, object, dict[str, object]]) -> None:
    img, prof, truth = frame_902793
    two = next(d for d in truth["dice"] if d["face"] == 2)  # type: ignore[attr-defined]
    x, y = two["center_mm"][:2]
    clf = FaceClassifier()
    search = DiceSearch(prof)
    found = read_dice(img, prof, clf, VisionConfig(), search)  # type: ignore[arg-type]
    near = _near(found, x, y, 1.5 * two["size_mm"])
    assert near, found
    assert all(d.face in (2, None) for d in near), near  # type: ignore[attr-defined]
    # the 5 beside it stays read
    five = next(d for d in truth["dice"] if d["face"] == 5)  # type: ignore[attr-defined]
    assert [d.face for d in _near(found, *five["center_mm"][:2], five["size_mm"])] == [5]  # type: ignore[attr-defined]
    # without the check, the side reads 4: the test sees the fault it guards against
    off = read_dice(img, prof, clf, VisionConfig(), search, DiceConfig(side_face_away_edges=0.0))  # type: ignore[arg-type]
    assert 4 in [d.face for d in _near(off, x, y, 1.5 * two["size_mm"])]  # type: ignore[attr-defined]


def _game_frame(seed: int, seq: int, every: bool = False) -> tuple[object, object, dict[str, object]]:
    """Frame ``seq`` of rendered game ``seed`` as ``python -m referee.recorded record`` plays it
    (1280x720, the recordings' pace); only that frame is rasterised (~2-10 s) unless ``every``
    (every frame from 0, so the sensor noise is the recording's)."""
    from referee.recorded import PACE
    from referee.rendered import schedule
    from vision.sim.game import GameDirector, GameScript
    from vision.training.rendered import profile_for

    d = GameDirector(seed, script=GameScript(schedule(2, 1), max_turns=40), width=1280, height=720, timing=PACE,
                     pixels=every or seq == 0)
    for img, truth in d.frames():
        if int(truth["seq"]) == seq:
            assert truth["still"], f"game {seed} frame {seq} is not still"
            return img, profile_for(truth), truth
        d.pixels = every or int(truth["seq"]) + 1 == seq
    raise AssertionError(f"game {seed} ended before frame {seq}")


@pytest.mark.parametrize(("seed", "seq", "at", "face", "side", "off"), [
    # a flat 1 (green, camera 45 deg): its side toward the camera read alone, 15 mm off, as 4 at
    # 0.972 with the pose model's P(flat) 0.89 (not doubted): the check ran only below P(flat) 0.5
    # (since session 15 the second look of a frame that found a pair also reads its top, 1, which
    # drops the side: off here, as before, to see the check's own fault)
    (7446, 114, (250, 307), 1, 4, {"side_face_check_below": 0.0, "second_look_found_below": 0}),
    # a flat 5 (black on cork, 15 px): its side read 1 at 0.991, 19 mm off; one edge farther from
    # the camera the up face reads 5 at P(not a die) 0.059, above top_notdie_max's 0.05
    (7448, 114, (669, 267), 5, 1, {"side_face_away_max_notdie": 0.05}),
    # a flat 3 (black on tan, camera 43 deg): its side 21 mm off read 1 at 0.9725, P(flat) 0.13: the
    # tilted tier's bar (was 0.97) holds it; its top reads 3 at P(not a die) 0.39 (no check sees it)
    (7441, 1045, (517, 413), 3, 1, {"tilted_face_min_probability": 0.97}),
    # a flat 5 (ivory on green felt, camera 44 deg): its side 15 mm off read 4 at 0.993; its top one
    # edge on reads 4 too (0.70, P(not a die) 0.018); this frame needs the game's sensor noise
    # from frame 0 (every frame rasterised, ~60 s)
    pytest.param(7457, 913, (396, 231), 5, 4, {"side_face_away_any_face": False}, marks=pytest.mark.slow),
])
def test_a_side_face_read_alone_on_a_game_frame(seed: int, seq: int, at: tuple[int, int], face: int, side: int,
                                                off: dict[str, float]) -> None:
    img, prof, truth = _game_frame(seed, seq, every=seed == 7457)
    die = next(d for d in truth["dice"]  # type: ignore[attr-defined]
               if math.hypot(d["center_mm"][0] - at[0], d["center_mm"][1] - at[1]) < 2)
    assert die["face"] == face and not die["cocked"], die
    x, y = die["center_mm"][:2]
    clf = FaceClassifier()
    search = DiceSearch(prof)
    found = read_dice(img, prof, clf, VisionConfig(), search)  # type: ignore[arg-type]
    near = _near(found, x, y, 1.5 * die["size_mm"])
    assert near and all(d.face in (face, None) for d in near), near  # type: ignore[attr-defined]
    # without the wider check the side face stands: the test sees the fault it guards against
    wrong = read_dice(img, prof, clf, VisionConfig(), search, replace(DiceConfig(), **off))  # type: ignore[arg-type]
    assert side in [d.face for d in _near(wrong, x, y, 1.5 * die["size_mm"])]  # type: ignore[attr-defined]
