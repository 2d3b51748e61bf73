"""Finding dice on a board: the re-centring of a candidate the up-face reading rejects but not outright."""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import numpy as np
import pytest

from vision.dice import board
from vision.dice.classify import FaceGuess
from vision.dice.config import DiceConfig
from vision.dice.pose import PoseGuess

DIE = (100.0, 100.0)
Z = 16.0


def _stub_read(gray: Any, profile: Any, centres: Any, z: float, model: Any, dcfg: DiceConfig) -> tuple[Any, list[FaceGuess]]:
    """A die at DIE: a centre within 1 mm reads face 5 surely, within 6 mm doubtfully, else not a die."""
    mm = np.asarray(centres, np.float64).reshape(-1, 2)
    out = []
    for x, y in mm:
        d = math.hypot(x - DIE[0], y - DIE[1])
        out.append(FaceGuess(5, 0.99, 0.001) if d < 1 else FaceGuess(5, 0.6, 0.3) if d < 6 else FaceGuess(2, 0.4, 0.97))
    return mm.copy(), out


FULL_READS: list[int] = []
"""How many centres each full (stubbed) reading was given."""


def _stub_full(gray: Any, profile: Any, centres: Any, z: float, model: Any, dcfg: DiceConfig) -> tuple[Any, list[FaceGuess]]:
    FULL_READS.append(len(np.asarray(centres).reshape(-1, 2)))
    return _stub_read(gray, profile, centres, z, model, dcfg)


@pytest.fixture
def stubbed(monkeypatch: pytest.MonkeyPatch) -> None:
    FULL_READS.clear()
    monkeypatch.setattr(board, "read_top_faces", _stub_full)
    monkeypatch.setattr(board, "first_readings", lambda g, p, c, z, m: _stub_read(g, p, c, z, m, DiceConfig())[1])


def _recentre(start: list[tuple[float, float]], dcfg: DiceConfig) -> tuple[Any, list[FaceGuess]]:
    mm, g = _stub_read(None, None, np.array(start), Z, None, dcfg)
    gray = np.zeros((20, 20), np.uint8)
    return board.recentre(gray, None, mm, g, Z, None, dcfg)  # type: ignore[arg-type]


@pytest.mark.usefixtures("stubbed")
def test_a_rejected_candidate_beside_a_die_moves_onto_it() -> None:
    dcfg = dataclasses.replace(DiceConfig(), recentre_edges=0.25)
    start = (DIE[0] - 0.25 * Z, DIE[1])  # 4 mm off: P(not a die) 0.3, rejected
    mm, g = _recentre([start], dcfg)
    assert g[0].not_die < dcfg.top_notdie_max and g[0].face == 5
    assert math.hypot(mm[0, 0] - DIE[0], mm[0, 1] - DIE[1]) < 1


@pytest.mark.usefixtures("stubbed")
def test_an_outright_rejection_and_a_found_die_are_not_moved() -> None:
    dcfg = dataclasses.replace(DiceConfig(), recentre_edges=0.25)
    far, sure = (DIE[0] + 40, DIE[1]), DIE  # not a die at 0.97 (above recentre_max_notdie); a sure die
    mm, g = _recentre([far, sure], dcfg)
    assert mm.tolist() == [list(far), list(sure)]
    assert g[0].not_die == 0.97 and g[1].not_die == 0.001


@pytest.mark.usefixtures("stubbed")
def test_a_move_is_adopted_only_when_its_face_stands() -> None:
    # the moved centres land 4 mm off the die (doubtful face): the candidate stays rejected
    dcfg = dataclasses.replace(DiceConfig(), recentre_edges=0.5)
    start = (DIE[0] - 4.0, DIE[1])
    mm, g = _recentre([start], dcfg)
    assert g[0].not_die == 0.3 and mm[0].tolist() == list(start)


def test_the_moved_reading_must_be_surer_than_a_first_reading() -> None:
    d = DiceConfig()
    assert d.recentre_edges == 0 or 0 < d.recentre_edges < 0.5  # half an edge would leave the die's up face
    assert d.recentre_moved_max_notdie <= d.top_notdie_max and d.recentre_max_notdie < 1


@pytest.mark.usefixtures("stubbed")
def test_only_the_most_die_like_moved_centres_are_read_in_full() -> None:
    # 5 mm left of the die: of the 8 moved centres (0.3 edges = 4.8 mm) the one to the right lands
    # on the die, its neighbours above and below-right 3.4 mm off (doubtful), the rest are no die
    start = (DIE[0] - 5.0, DIE[1])
    for climbers, full in ((1, 1), (2, 2), (0, 3)):  # 0: all
        FULL_READS.clear()
        dcfg = dataclasses.replace(DiceConfig(), recentre_climbers=climbers, recentre_edges=0.3)
        mm, g = _recentre([start], dcfg)
        assert [full] == FULL_READS  # one full reading of the moved centres that may be a die
        assert g[0].face == 5 and g[0].not_die < dcfg.top_notdie_max
        assert math.hypot(mm[0, 0] - DIE[0], mm[0, 1] - DIE[1]) < 1


class _Shift:
    """A centre model that sees the die at DIE from anywhere."""

    def offsets(self, gray: Any, profile: Any, centres: Any, z: float) -> Any:
        return np.array(DIE)[None, :] - np.asarray(centres, np.float64)[:, :2]


def test_the_centre_model_moves_candidates_onto_the_die_but_not_far(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(board, "centre_refiner", lambda: _Shift())
    dcfg = DiceConfig(centre_passes=1)
    near, far = (DIE[0] - 6.0, DIE[1] + 3.0), (DIE[0] + 0.8 * Z, DIE[1])  # 0.8 edges: beyond the limit
    gray = np.zeros((20, 20), np.uint8)
    out = board.refine_centres(gray, None, np.array([near, far]), Z, dcfg)
    assert out[0].tolist() == list(DIE) and out[1].tolist() == list(far)
    near2 = (DIE[0] + 2.0, DIE[1] - 5.0)
    first = board.refine_centres(gray, None, np.array([near, near2]), Z, dataclasses.replace(dcfg, centre_peaks=1))
    assert first.tolist() == [list(DIE), list(near2)]  # only the best peak is moved
    monkeypatch.setattr(board, "centre_refiner", lambda: None)  # no model: unchanged
    assert board.refine_centres(gray, None, np.array([near]), Z, dcfg).tolist() == [list(near)]


def test_a_die_called_cocked_has_no_face_unless_cocked_faces_are_on(monkeypatch: pytest.MonkeyPatch) -> None:
    from vision.config import VisionConfig
    from vision.dice.classify import FaceClassifier
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import profile_for

    scene = random_scene(700001, SimConfig().with_overrides(hands_p=0.0, cup_p=0.0, tilt_deg=(0.0, 20.0), cocked_p=0.0,
                                                           on_die_p=0.0), width=1280, height=720)
    img, info = render(scene)
    prof = profile_for(build_truth(scene, info))
    clf = FaceClassifier()
    plain = board.read_dice(img, prof, clf, VisionConfig())
    assert sum(d.face is not None for d in plain) >= 1
    # the pose model (stubbed) calls every die cocked and surely not flat
    monkeypatch.setattr(board, "pose_guesses", lambda g, p, c: [PoseGuess(0.0005, 0.9995, 0.0, (0.5, 0.5, 0.0))] * len(c))
    kept = board.read_dice(img, prof, clf, VisionConfig(), dcfg=dataclasses.replace(DiceConfig(), cocked_face=True))
    assert [d.face for d in kept] == [d.face for d in plain] and all(d.cocked for d in kept)
    off = board.read_dice(img, prof, clf, VisionConfig(), dcfg=dataclasses.replace(DiceConfig(), cocked_face=False))
    assert [d.center_mm for d in off] == [d.center_mm for d in plain] and all(d.face is None for d in off)


@pytest.mark.parametrize(("guess", "found"), [
    (FaceGuess(3, 0.5, 0.01), True),  # surely a die, face unsure: found (unsure)
    (FaceGuess(3, 0.95, 0.08), True),  # half doubted, face read surely: found
    (FaceGuess(3, 0.5, 0.08), False),  # half doubted, face unsure: not a die
    (FaceGuess(3, 0.99, 0.2), False),  # doubted beyond the limit: not a die whatever its face
])
def test_a_half_doubted_reading_is_a_die_only_with_a_sure_face(guess: FaceGuess, found: bool) -> None:
    dcfg = DiceConfig(top_notdie_max=0.05, sure_face_max_notdie=0.12, sure_face_min_probability=0.9)
    assert board.is_found(guess, dcfg) is found
    assert board.is_found(guess, dataclasses.replace(dcfg, sure_face_max_notdie=0.05)) is (guess.not_die < 0.05)


@pytest.mark.usefixtures("stubbed")
def test_a_second_look_keeps_only_sure_dice_and_reads_in_full_only_plausible_peaks(monkeypatch: pytest.MonkeyPatch) -> None:
    """The peaks the first look left (board mm): one on the die, one 3 mm off it (read doubtfully),
    one far from it (not a die at its first reading: never read in full); only the sure die is kept."""
    monkeypatch.setattr(board, "centre_refiner", lambda: None)
    peaks = np.array([DIE, (DIE[0] + 3.0, DIE[1]), (DIE[0] + 60.0, DIE[1])])
    gray = np.zeros((20, 20), np.uint8)
    mm, g = board.second_look(gray, None, peaks, Z, None, DiceConfig(second_look_first_max_notdie=0.5))  # type: ignore[arg-type]
    assert mm.tolist() == [list(DIE)] and [x.face for x in g] == [5]
    assert FULL_READS == [2]
    # the default bar of a first reading (0.05): only the die-like peak is read in full
    FULL_READS.clear()
    mm, g = board.second_look(gray, None, peaks, Z, None, DiceConfig())  # type: ignore[arg-type]
    assert mm.tolist() == [list(DIE)] and FULL_READS == [1]
    # a stricter bar than the stub's sure reading (P(not a die) 0.001): nothing kept
    mm, g = board.second_look(gray, None, peaks, Z, None, DiceConfig(second_look_max_notdie=0.0005))  # type: ignore[arg-type]
    assert len(mm) == 0 and g == []
