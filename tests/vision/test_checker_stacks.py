"""The stack model's second look at tall stacks (vision/stacks.py) and how it joins the slot decoder."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rules.position import Side
from tests.vision.synth import slot_onehot
from vision.checkers import board_slots, counts_from_slot_probs, slot_labels
from vision.config import VisionConfig
from vision.geometry import BoardLayout, BoardSpec, Seating
from vision.observation import CountReading
from vision.stacks import (
    STACK_CLASSES,
    STACK_HAND,
    STACK_LENGTH,
    STACK_WIDTH,
    StackSampler,
    class_counts,
    combine,
    hypothesis_classes,
    stack_class,
)

LAYOUT = BoardLayout(BoardSpec.tournament(), Seating())
SLOTS = board_slots(LAYOUT)


def _onehot(labels: list[int], p: float = 0.999) -> np.ndarray:
    return slot_onehot(labels, p)


def _stack(white: int, black: int, p: float = 0.999) -> np.ndarray:
    q = np.full(len(STACK_CLASSES), (1 - p) / (len(STACK_CLASSES) - 1))
    q[stack_class(white, black)] = p
    return q


def test_stack_classes_round_trip() -> None:
    for w, b in ((0, 0), (1, 0), (15, 0), (0, 1), (0, 15), (6, 0)):
        assert class_counts(stack_class(w, b)) == (w, b)
    assert STACK_CLASSES[STACK_HAND] == "hand" and len(STACK_CLASSES) == 32
    with pytest.raises(ValueError, match="one colour"):
        stack_class(2, 3)
    with pytest.raises(ValueError, match="16"):
        stack_class(16, 0)
    with pytest.raises(ValueError, match="31"):
        class_counts(STACK_HAND)



def test_hypothesis_classes_are_cached_read_only() -> None:
    """The decoder's hypotheses map to their stack classes; the cached array cannot be altered."""
    hyps = ((Side.WHITE, 0), (Side.WHITE, 6), (Side.BLACK, 1), (Side.BLACK, 15))
    cls = hypothesis_classes(hyps)
    assert cls.tolist() == [0, 6, 16, 30] and hypothesis_classes(hyps) is cls
    with pytest.raises(ValueError, match="read-only"):
        cls[0] = 1

def _six_read_as_five() -> np.ndarray:
    """Slot probabilities of a 6-stack on point 1 whose second layer the slot model all but missed."""
    labels = slot_labels(LAYOUT, SLOTS, [(5, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels)
    k0 = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 0)
    probs[k0, 1], probs[k0, 2] = 0.9, 0.09  # white1 0.9, white2 0.09
    return probs


def test_the_stack_model_corrects_a_missed_second_layer() -> None:
    probs = _six_read_as_five()
    alone = counts_from_slot_probs(SLOTS, probs).points[0]
    assert (alone.white, alone.black) == (5, 0) and alone.confidence < 0.99
    asked: list[list[int]] = []

    def stack(points: list[int]) -> np.ndarray:
        asked.append(points)
        return np.stack([_stack(6, 0, 0.99) if p == 1 else _stack(0, 0) for p in points])

    both = counts_from_slot_probs(SLOTS, probs, stack_probs=stack).points[0]
    assert asked == [[1]]  # only the tall stack is looked at again
    assert (both.white, both.black) == (6, 0)
    assert both.confidence > 0.99
    assert both.alternatives[0][:2] == (5, 0)



def test_the_stack_settings_come_from_the_config_given() -> None:
    """``stack_config`` reaches the stack look: a minimum count above the stack keeps the model away, a lower
    disagreement cap caps the point there."""
    probs = _six_read_as_five()
    asked: list[list[int]] = []

    def stack(points: list[int]) -> np.ndarray:
        asked.append(points)
        return np.stack([_stack(7, 0, 0.6) for _ in points])

    counts_from_slot_probs(SLOTS, probs, stack_probs=stack, stack_config=VisionConfig(stack_min_count=6))
    assert asked == []
    r = counts_from_slot_probs(SLOTS, probs, stack_probs=stack, stack_config=VisionConfig(stack_disagree_cap=0.3))
    assert asked == [[1]] and r.points[0].confidence <= 0.3

def test_two_models_that_disagree_leave_the_point_unsure() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(6, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels, 0.9999)

    def stack(points: list[int]) -> np.ndarray:
        return np.stack([_stack(7, 0, 0.6) for _ in points])

    r = counts_from_slot_probs(SLOTS, probs, stack_probs=stack).points[0]
    assert (r.white, r.black) == (6, 0)  # the slot decoder is surer, but ...
    assert r.confidence <= VisionConfig().stack_disagree_cap < 0.99  # ... the stack model's best is another count
    assert (7, 0) in [a[:2] for a in r.alternatives]


def test_agreeing_models_confirm_a_full_row() -> None:
    """A full row alone stays unsure (the capped full-row weight); the stack model's agreement
    confirms it."""
    labels = slot_labels(LAYOUT, SLOTS, [(0, 5)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels)
    alone = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0).points[0]
    assert alone.confidence < 0.99
    r = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, stack_probs=lambda pts: np.stack([_stack(0, 5)] * len(pts))).points[0]
    assert (r.white, r.black) == (0, 5) and r.confidence >= 0.99


def test_a_hand_seen_by_the_stack_model_blocks_the_point_and_its_neighbours() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0), (6, 0)] + [(0, 0)] * 22, (0, 0))
    probs = _onehot(labels)
    hand = np.zeros(len(STACK_CLASSES))
    hand[STACK_HAND] = 0.7
    hand[stack_class(6, 0)] = 0.3
    r = counts_from_slot_probs(SLOTS, probs, hand_max=0.5, neighbour_hand_max=0.6,
                               stack_probs=lambda pts: np.stack([hand] * len(pts)))
    assert r.points[1].confidence == 0.0 and r.points[1].alternatives == ()
    reading, handy = combine(*_hyps_post(), hand, CountReading(6, 0, 0.99), 0.5)
    assert handy and reading.confidence == 0.0


def _hyps_post() -> tuple[tuple[tuple[Side, int], ...], np.ndarray]:
    from vision.checkers import stack_hypotheses

    hyps, _ = stack_hypotheses(5, 5, (Side.WHITE, Side.BLACK))
    post = np.full(len(hyps), 1e-6)
    post[hyps.index((Side.WHITE, 6))] = 1.0
    return hyps, post / post.sum()


def test_combine_is_the_product_of_the_two_posteriors() -> None:
    hyps, post = _hyps_post()
    q = _stack(6, 0, 0.9)
    reading, handy = combine(hyps, post, q, CountReading(6, 0, 0.5), 0.5, slot_power=1.0, disagree_cap=0.5)
    assert not handy and (reading.white, reading.black) == (6, 0)
    joint = post * q[[stack_class(n, 0) if c is Side.WHITE else stack_class(0, n) for c, n in hyps]]
    assert reading.confidence == pytest.approx(joint.max() / joint.sum(), abs=1e-9)


def test_point_strips_are_cut_along_the_points() -> None:
    """Each strip starts at the rail: on a render of known position, the strip of a point with a
    stack differs from an empty point's strip, and the near and far sides are cut the same way
    round (a checker at the rail end shows at the top of both)."""
    import cv2

    from calibration.profile import CalibrationProfile

    data = Path(__file__).parent / "data"
    prof = CalibrationProfile.load(data / "board_900023.profile.json")
    img = cv2.imread(str(data / "board_900023.jpg"))
    sampler = StackSampler(prof)
    all24 = sampler.strips(img)
    assert all24.shape == (24, 2, STACK_LENGTH, STACK_WIDTH, 3)
    some = sampler.strips(img, [3, 17])
    assert np.array_equal(some[0], all24[2]) and np.array_equal(some[1], all24[16])
    assert sampler.strips(img, []).shape == (0, 2, STACK_LENGTH, STACK_WIDTH, 3)
    # a strip's first row is at the rail end of the point: the first slot's centre sits 0.65 diameters in
    d = prof.spec.checker_diameter_mm
    for p in (1, 13):
        x0, y0, _ = prof.layout.stack_slots(p, 0)
        _, y1, _ = prof.layout.stack_slots(p, 4)
        length = abs(y1 - y0) + 1.3 * d
        row = int(0.65 * d / length * STACK_LENGTH)
        ref = prof.board_to_image(np.array([[x0, y0, prof.spec.checker_height_mm]]))[0]
        m1, m2 = sampler.maps[p - 1]
        fx, fy = cv2.convertMaps(m1, m2, cv2.CV_32FC1)
        assert abs(fx[row, STACK_WIDTH // 2] - ref[0]) < 3 and abs(fy[row, STACK_WIDTH // 2] - ref[1]) < 3


def test_the_committed_stack_model_reads_the_strips() -> None:
    """The committed model takes raw uint8 strips of the sampler's shape, has a fitted temperature
    and gives one probability row per strip (an empty batch too: no tall stack on the board)."""
    from vision.stacks import STACK_MODEL, StackClassifier

    clf = StackClassifier(STACK_MODEL)
    assert 0.3 <= clf.temperature <= 5.0
    p = clf.probabilities(np.zeros((3, *StackSampler.SHAPE), np.uint8))
    assert p.shape == (3, len(STACK_CLASSES)) and np.allclose(p.sum(axis=1), 1.0, atol=1e-6)
    assert clf.probabilities(np.zeros((0, *StackSampler.SHAPE), np.uint8)).shape == (0, len(STACK_CLASSES))


def test_training_samples_are_the_tall_points_and_a_few_others() -> None:
    """Every point with 3+ checkers is a sample; at most two hand-covered points (class "hand") and
    two others are drawn, the same ones for the same frame."""
    from vision.training.stacks import OTHERS, TALL, frame_points

    points = [[0, 0] for _ in range(24)]
    points[3], points[17], points[20], points[9] = [0, 4], [6, 0], [0, 3], [0, 1]
    truth = {"seed": 1, "seq": 0, "counts": {"points": points},
             "hands": {"covered": ["p9", "p10", "p11", "p14"]}}
    picked, labels = frame_points(truth)
    assert picked[:3] == [4, 18, 21] and labels[:3] == [stack_class(0, 4), stack_class(6, 0), stack_class(0, 3)]
    assert TALL == 3 and len(picked) == 3 + 2 * OTHERS
    hands = [p for p, k in zip(picked, labels, strict=True) if k == STACK_HAND]
    assert len(hands) == OTHERS and set(hands) <= {9, 10, 11, 14}
    assert frame_points(truth) == (picked, labels)


def test_a_sure_four_stack_is_not_asked_but_an_unsure_one_and_a_full_row_are() -> None:
    """``stack_ask_below``: a point read below a full row is asked only when the slots are unsure of it."""
    points = [(0, 0)] * 24
    points[2], points[9] = (4, 0), (0, 5)
    asked: list[list[int]] = []

    def stack(pts: list[int]) -> np.ndarray:
        asked.append(pts)
        return np.stack([_stack(*points[p - 1]) for p in pts])

    sure = _onehot(slot_labels(LAYOUT, SLOTS, points, (0, 0)), 0.99999)
    counts_from_slot_probs(SLOTS, sure, stack_probs=stack)
    assert asked == [[10]]
    asked.clear()
    counts_from_slot_probs(SLOTS, sure, stack_probs=stack, stack_config=VisionConfig(stack_ask_below=1.01))
    assert asked == [[3, 10]]


def _die_on_a_black_three(point: int = 8) -> np.ndarray:
    """Slot probabilities of a black 3 on ``point`` whose first checker carries a die: the slot model
    calls that slot "object" (counted as empty), which leaves a gap under the other two (contradictory
    slots, as on seen frames 900052 and 900127)."""
    from vision.checkers import OBJECT

    points = [(0, 0)] * 24
    points[point - 1] = (0, 3)
    probs = _onehot(slot_labels(LAYOUT, SLOTS, points, (0, 0)))
    k0 = next(i for i, s in enumerate(SLOTS) if s.region == f"p{point}" and s.index == 0)
    probs[k0] = (1 - 0.999) / (len(probs[k0]) - 1)
    probs[k0, OBJECT] = 0.999
    return probs


def test_contradictory_slots_are_read_where_the_stack_model_is_sure() -> None:
    """A point whose slots contradict every stack is unread by the slots alone; the stack model is asked
    about it whatever its count (3 here, under ``stack_min_count``) and reads it when sure of the joint
    count (``stack_contradiction_min``), not when unsure, and never when the setting is off."""
    probs = _die_on_a_black_three()
    assert counts_from_slot_probs(SLOTS, probs).points[7].confidence == 0.0
    asked: list[list[int]] = []

    def stack(p: float) -> object:
        def probs_of(points: list[int]) -> np.ndarray:
            asked.append(points)
            return np.stack([_stack(0, 3, p) if q == 8 else _stack(0, 0) for q in points])
        return probs_of

    on = VisionConfig(stack_contradiction_min=0.99)  # off by default (tests/vision/test_game_blots.py)
    r = counts_from_slot_probs(SLOTS, probs, stack_probs=stack(0.999), stack_config=on).points[7]  # type: ignore[arg-type]
    assert asked == [[8]]
    assert (r.white, r.black) == (0, 3) and r.confidence >= 0.99
    unsure = counts_from_slot_probs(SLOTS, probs, stack_probs=stack(0.9), stack_config=on).points[7]  # type: ignore[arg-type]
    assert (unsure.white, unsure.black) == (0, 3) and unsure.confidence == 0.0
    asked.clear()
    off = counts_from_slot_probs(SLOTS, probs, stack_probs=stack(0.999),  # type: ignore[arg-type]
                                 stack_config=VisionConfig(stack_contradiction_min=1.01)).points[7]
    assert asked == [] and off.confidence == 0.0


def test_contradictory_slots_stay_unread_where_the_models_rule_each_other_out_or_a_hand_may_be() -> None:
    """The stack model sure of a count the slot decoder all but rules out (a black 4 where the slots show a
    clear 3) does not read the point (``CONTRADICTION_SLOT_MIN``); nor does it read a point one of whose
    slots looks like a hand."""
    from vision.checkers import HAND
    from vision.stacks import CONTRADICTION_SLOT_MIN

    probs = _die_on_a_black_three()
    on = VisionConfig(stack_contradiction_min=0.99)
    four = counts_from_slot_probs(SLOTS, probs, stack_config=on, stack_probs=lambda pts: np.stack(
        [_stack(0, 4) if q == 8 else _stack(0, 0) for q in pts])).points[7]
    assert four.confidence == 0.0 and 0.0 < CONTRADICTION_SLOT_MIN < 0.106
    k1 = next(i for i, s in enumerate(SLOTS) if s.region == "p8" and s.index == 1)
    probs[k1] = 0.0
    probs[k1, HAND], probs[k1, 4] = 0.6, 0.4  # "hand" 0.6, black x1 0.4
    hand = counts_from_slot_probs(SLOTS, probs, hand_max=0.5, stack_config=on, stack_probs=lambda pts: np.stack(
        [_stack(0, 3) if q == 8 else _stack(0, 0) for q in pts])).points[7]
    assert hand.confidence == 0.0
