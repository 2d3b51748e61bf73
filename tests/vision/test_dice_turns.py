"""A face every turn of the check reads the same stands at the bar (``DiceConfig.top_unanimous_*``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from tests.vision.renders import rendered_frames
from vision.config import VisionConfig
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier
from vision.dice.config import DiceConfig
from vision.dice.faceread import _turns_reading

OFF = DiceConfig(top_unanimous_min_mean=1.01)


def _probs(*rows: tuple[int, float]) -> np.ndarray:
    """(views, 7) probabilities: each view gives its face ``p`` and spreads the rest evenly."""
    out = np.zeros((len(rows), 7), np.float32)
    for v, (face, p) in enumerate(rows):
        out[v, 1:] = (1 - p - 0.01) / 5
        out[v, face] = p
        out[v, 0] = 0.01
    return out


def test_the_least_view_counts_only_when_every_view_reads_the_face() -> None:
    g, least = _turns_reading(_probs((5, 0.89), (5, 0.76), (5, 0.85), (5, 0.85)))
    assert g.face == 5 and 0.83 < g.probability < 0.86 and abs(least - 0.76 / 0.99) < 1e-3
    g, least = _turns_reading(_probs((2, 0.76), (2, 0.75), (2, 0.45), (1, 0.5)))
    assert g.face == 2 and least == 0.0  # one turn reads a 1: no unanimity


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[object, object, dict[str, object]]]:
    """Rendered seen seeds (1280x720, ~3 s each).  900069 (defocus sigma 0.67): a flat 4 whose four
    turns all read 4 (0.99, 0.85, 0.82, 0.51; face-check P(flat) 0.99), and a flat 1 read surely.  900044
    (sigma 1.05): a flat 5 whose turns read 5, 4, 5, 5, and a flat 1 whose turns read 2, 2, 2, 1."""
    return rendered_frames(tmp_path_factory.mktemp("renders"), (900044, 900069))


def _read(frame: tuple[object, object, dict[str, object]], dcfg: DiceConfig) -> dict[int, object]:
    """Each flat true die's reading (None: missed)."""
    img, prof, truth = frame
    found = read_dice(img, prof, FaceClassifier(), VisionConfig(), DiceSearch(prof), dcfg)  # type: ignore[arg-type]
    out: dict[int, object] = {}
    for d in truth["dice"]:  # type: ignore[attr-defined]
        if d["cocked"]:
            continue
        near = [o for o in found if math.hypot(o.center_mm[0] - d["center_mm"][0], o.center_mm[1] - d["center_mm"][1]) < d["size_mm"]]
        out[d["face"]] = near[0] if near else None
    return out


def _faces(frame: tuple[object, object, dict[str, object]], dcfg: DiceConfig) -> dict[int, object]:
    return {k: "missed" if o is None else o.face for k, o in _read(frame, dcfg).items()}  # type: ignore[attr-defined]


def test_a_face_every_turn_reads_stands_at_the_bar(frames: dict[int, tuple[object, object, dict[str, object]]]) -> None:
    assert _faces(frames[900069], OFF) == {1: 1, 4: None}  # before: the turns' mean 0.79 is under 0.9
    four = _read(frames[900069], DiceConfig())[4]
    assert _faces(frames[900069], DiceConfig())[1] == 1
    assert four.face == 4 and four.face_confidence == 0.9  # type: ignore[attr-defined]  # the bar, below any call's


def test_a_face_at_the_bar_needs_a_die_the_pose_model_finds_flat(frames: dict[int, tuple[object, object, dict[str, object]]]) -> None:
    # 900069's 4: face-check P(flat) 0.99; a bar above it leaves the face unsure
    assert _faces(frames[900069], DiceConfig(top_unanimous_min_flat=0.995)) == {1: 1, 4: None}


def test_turns_that_disagree_stay_unsure(frames: dict[int, tuple[object, object, dict[str, object]]]) -> None:
    assert _faces(frames[900044], DiceConfig()) == {5: None, 1: None} == _faces(frames[900044], OFF)
