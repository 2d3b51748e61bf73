"""The whole-frame hand model's word on the slot models' "hand", and the totals' blame."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rules.position import Side
from tests.vision.synth import slot_onehot
from vision.checkers import (
    HAND,
    SLOT_CLASSES,
    TRAY_CLASSES,
    TRAY_HAND,
    blamed,
    board_slots,
    counts_from_slot_probs,
    slot_labels,
    without_hands,
)
from vision.config import VisionConfig
from vision.geometry import BoardLayout, BoardSpec, Seating
from vision.hands import HAND_MODEL, THUMB_SIZE, HandClassifier, thumbnail
from vision.observation import CountReading
from vision.preprocess import ModelError

LAYOUT = BoardLayout(BoardSpec.tournament(), Seating())
SLOTS = board_slots(LAYOUT)


def _onehot(labels: list[int], p: float = 0.9999) -> np.ndarray:
    return slot_onehot(labels, p)


def _false_hand() -> tuple[np.ndarray, list[tuple[int, int]]]:
    """p3 holds 2 white, p9 4 black; an empty slot of p4 looks like a hand (0.9), and otherwise empty (the rest of
    its probability mostly on "empty", as the slot model gives it: a uniform rest would be no evidence, and since
    session 12 a lone checker off the rail is a pattern the decoder weighs)."""
    points = [(0, 0)] * 24
    points[2], points[8] = (2, 0), (0, 4)
    labels = slot_labels(LAYOUT, SLOTS, points, (0, 0))
    probs = _onehot(labels)
    k = next(i for i, s in enumerate(SLOTS) if s.region == "p4" and s.index == 1)
    probs[k] = 0.001 / (len(SLOT_CLASSES) - 2)
    probs[k, labels[k]] = 0.099
    probs[k, HAND] = 0.9
    return probs, points


def test_without_hands_renormalises_and_an_all_hand_row_becomes_uniform() -> None:
    p = np.array([[0.2, 0.3, 0.5], [0.0, 0.0, 1.0]])
    out = without_hands(p, 2)
    assert np.allclose(out, [[0.4, 0.6, 0.0], [0.5, 0.5, 0.0]])


def test_a_false_hand_slot_counts_unless_the_hand_model_sees_no_hand() -> None:
    probs, points = _false_hand()
    alone = counts_from_slot_probs(SLOTS, probs, hand_max=0.5)
    assert alone.points[3].confidence == 0.0 and alone.points[2].confidence == 0.0  # p4 and its neighbour p3
    free = VisionConfig().hand_free_max
    asked: list[int] = []

    def no_hand() -> float:
        asked.append(1)
        return free / 2

    read = counts_from_slot_probs(SLOTS, probs, hand_max=0.5, hand_probability=no_hand)
    assert [(r.white, r.black) for r in read.points] == points
    assert min(r.confidence for r in read.points) > 0.99 and asked == [1]
    # the hand model unsure: every hand guard stands
    maybe = counts_from_slot_probs(SLOTS, probs, hand_max=0.5, hand_probability=lambda: free * 2)
    assert maybe.points[3].confidence == 0.0 and maybe.points[2].confidence == 0.0
    # the gate's covered regions are never read, whatever the hand model says
    cov = counts_from_slot_probs(SLOTS, probs, frozenset({"p9"}), hand_max=0.5, hand_probability=no_hand)
    assert cov.points[8].confidence == 0.0


def test_the_hand_model_is_asked_only_when_a_hand_could_count() -> None:
    points = [(0, 0)] * 24
    points[0] = (3, 0)
    probs = _onehot(slot_labels(LAYOUT, SLOTS, points, (0, 0)))

    def never() -> float:
        raise AssertionError("asked on a frame with no hand-like slot")

    assert counts_from_slot_probs(SLOTS, probs, hand_probability=never).points[0].confidence > 0.99
    # one weak "hand" slot (under slot_hand_max, alone on its point) caps nothing: not asked either
    k = next(i for i, s in enumerate(SLOTS) if s.region == "p7" and s.index == 0)
    weak = probs.copy()
    weak[k, HAND], weak[k, 0] = 0.3, weak[k, 0] - 0.3
    assert counts_from_slot_probs(SLOTS, weak, hand_max=0.5, hand_probability=never).points[6].confidence > 0.99
    weak[k + 1, HAND], weak[k + 1, 0] = 0.3, weak[k + 1, 0] - 0.3  # a pair on one point: asked
    asked: list[int] = []

    def some_hand() -> float:
        asked.append(1)
        return 1.0

    counts_from_slot_probs(SLOTS, weak, hand_max=0.5, hand_probability=some_hand)
    assert asked == [1]


def test_a_tray_hand_does_not_count_on_a_hand_free_frame() -> None:
    points = [(0, 0)] * 24
    points[0], points[23] = (15, 0), (0, 15)
    probs = _onehot(slot_labels(LAYOUT, SLOTS, points, (0, 0)))
    trays = np.full((2, len(TRAY_CLASSES)), 1e-4)
    trays[:, 0] = 0.4
    trays[0, TRAY_HAND] = 0.6
    trays /= trays.sum(axis=1, keepdims=True)
    assert counts_from_slot_probs(SLOTS, probs, trays=trays).trays[0].confidence == 0.0
    read = counts_from_slot_probs(SLOTS, probs, trays=trays, hand_probability=lambda: 0.0)
    assert read.trays[0].white == 0 and read.trays[0].confidence > 0.99


def test_an_unsure_point_that_explains_a_total_over_fifteen_takes_the_blame() -> None:
    """The demo's set-up (session 9): one black 5-stack read 6 at 0.51 (5 at 0.49) makes 16 black;
    the other black points, read surely, stay sure; with no likelier culprit all are doubted."""
    board = [CountReading(0, 0, 1.0)] * 25
    board[0] = CountReading(0, 2, 1.0)
    board[11] = CountReading(0, 6, 0.51, ((0, 5, 0.49),))
    board[16] = CountReading(0, 3, 0.9999)
    board[18] = CountReading(0, 5, 0.9998, ((0, 6, 0.0002),))
    out = blamed(tuple(board), Side.BLACK, -1)
    assert out[11].confidence < 0.01
    assert all(out[i].confidence >= 0.99 for i in (0, 16, 18))
    sure = list(board)
    sure[11] = CountReading(0, 6, 0.9999)
    out = blamed(tuple(sure), Side.BLACK, -1)
    assert all(out[i].confidence < 0.99 for i in (0, 11, 16, 18)) and out[5] == sure[5]


def test_the_whole_frame_thumbnail() -> None:
    img = np.zeros((720, 1280, 3), np.uint8)
    assert thumbnail(img).shape == (THUMB_SIZE[1], THUMB_SIZE[0], 3)
    assert thumbnail(np.zeros((1080, 1920, 3), np.uint8)).dtype == np.uint8


@pytest.mark.skipif(not HAND_MODEL.is_file(), reason="no committed hand model")
def test_the_committed_hand_model_never_calls_a_frame_with_a_hand_hand_free() -> None:
    """Rendered scenes (seeds outside the training and evaluation ranges, a small frame) that all hold a
    hand and its arm: none at or below ``hand_free_max`` (what would let the slot model's "hand" go)."""
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene

    clf = HandClassifier()
    for seed in (1, 2, 3, 4):
        img, _ = render(random_scene(seed, SimConfig(hands_p=1.0), width=640, height=360))
        assert clf.probability(img) > VisionConfig().hand_free_max, seed
    assert 0.0 <= clf.probability(np.full((720, 1280, 3), 90, np.uint8)) <= 1.0


def test_the_hand_trainer_figures_and_net() -> None:
    from vision.training.hands import margins

    p = np.array([0.001, 0.02, 0.5, 0.9])
    y = np.array([0, 0, 1, 1])
    m = margins(p, y)
    assert m["highest_p_without_hand"] == 0.02 and m["lowest_p_with_hand"] == 0.5
    assert m["free_frames_below"]["0.01"] == 1 and m["hand_frames_below"]["0.1"] == 0
    torch = pytest.importorskip("torch")
    from vision.training.hands import augment, hand_net

    x = torch.randint(0, 256, (3, THUMB_SIZE[1], THUMB_SIZE[0], 3), dtype=torch.uint8)
    xb = augment(x, torch.Generator().manual_seed(0))
    assert xb.shape == x.shape and hand_net()(xb).shape == (3, 2)


def test_a_corrupt_hand_model_file_is_a_clear_error_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "checker_hand.onnx"
    bad.write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match=r"hand model .*checker_hand.onnx.* cannot be loaded.*vision.training.hands"):
        HandClassifier(bad)
    with pytest.raises(ModelError, match=r"hand model .*missing.onnx.* not found"):
        HandClassifier(tmp_path / "missing.onnx")


def test_hand_renders_refuse_a_seed_that_is_not_a_training_seed() -> None:
    from vision.training.hands import render

    with pytest.raises(ValueError, match=r"hand renders take training seeds .* not 900000"):
        render(900_000, 1)
