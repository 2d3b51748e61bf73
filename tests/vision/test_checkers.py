from __future__ import annotations

import numpy as np

from rules.position import Side
from vision.checkers import (
    HAND,
    OBJECT,
    SLOT_CLASSES,
    board_slots,
    counts_from_slot_probs,
    slot_labels,
    slot_layers,
)
from vision.geometry import BoardLayout, BoardSpec, Seating


def _onehot(labels: list[int], p: float = 0.99) -> np.ndarray:
    n = len(SLOT_CLASSES)
    out = np.full((len(labels), n), (1 - p) / (n - 1), np.float32)
    out[np.arange(len(labels)), labels] = p
    return out


LAYOUT = BoardLayout(BoardSpec.tournament(), Seating())
SLOTS = board_slots(LAYOUT)


def test_slot_layers() -> None:
    assert [slot_layers(7, k, 5) for k in range(5)] == [2, 2, 1, 1, 1]
    assert [slot_layers(15, k, 5) for k in range(5)] == [3, 3, 3, 3, 3]
    assert slot_layers(0, 0, 5) == 0


def test_counts_round_trip_from_labels() -> None:
    points = [(0, 0)] * 24
    points[5] = (7, 0)
    points[12] = (0, 15 - 3)
    points[23] = (2, 0)
    bar = (1, 3)
    labels = slot_labels(LAYOUT, SLOTS, points, bar)
    r = counts_from_slot_probs(SLOTS, _onehot(labels))
    assert [(x.white, x.black) for x in r.points] == points
    assert (r.bar.white, r.bar.black) == bar
    assert r.trays[0].white == 15 - 7 - 2 - 1 and r.trays[1].black == 0
    assert min(x.confidence for x in r.points) > 0.9


def test_doubt_gives_zero_confidence_not_a_guess() -> None:
    points = [(0, 0)] * 24
    points[0] = (3, 0)
    labels = slot_labels(LAYOUT, SLOTS, points, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p1"]
    gap = list(labels)
    gap[first[1]] = 0  # a hole in the stack
    assert counts_from_slot_probs(SLOTS, _onehot(gap)).points[0].confidence == 0.0
    mixed = list(labels)
    mixed[first[2]] = 4  # a black checker in a white stack
    assert counts_from_slot_probs(SLOTS, _onehot(mixed)).points[0].confidence == 0.0
    hand = list(labels)
    hand[first[3]] = HAND
    assert counts_from_slot_probs(SLOTS, _onehot(hand)).points[0].confidence == 0.0
    covered = counts_from_slot_probs(SLOTS, _onehot(labels), frozenset({"p1"}))
    assert covered.points[0].confidence == 0.0 and covered.points[1].confidence > 0.9


def test_a_die_on_an_empty_point_does_not_hide_the_count() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p7"]
    probs = _onehot(labels)
    probs[first[2]] = 0.0
    probs[first[2], OBJECT] = 0.7
    probs[first[2], 0] = 0.29  # under the die: most likely empty
    probs[first[2], HAND] = 0.01
    r = counts_from_slot_probs(SLOTS, probs).points[6]
    assert (r.white, r.black) == (0, 0) and r.confidence > 0.9


def test_bar_checker_on_wrong_half_is_not_counted_confidently() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    i = next(i for i, s in enumerate(SLOTS) if s.region == "bar" and s.side is Side.WHITE)
    labels[i] = 4
    assert counts_from_slot_probs(SLOTS, _onehot(labels)).bar.confidence == 0.0


def test_stack_is_decoded_jointly() -> None:
    """A doubtful slot is settled by its neighbours: slot 1 holding two layers means slot 0 does too."""
    points = [(0, 0)] * 24
    points[0] = (7, 0)
    labels = slot_labels(LAYOUT, SLOTS, points, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p1"]
    probs = _onehot(labels)
    probs[first[0]] = 0.0
    probs[first[0], 1] = 0.6  # one layer?
    probs[first[0], 2] = 0.4  # or two
    r = counts_from_slot_probs(SLOTS, probs).points[0]
    assert (r.white, r.black) == (7, 0) and r.confidence > 0.99
    # a real tie between two counts stays unsure
    probs[first[1]] = probs[first[0]]
    probs[first[0], 1], probs[first[0], 2] = 0.5, 0.5
    probs[first[1], 1], probs[first[1], 2] = 0.5, 0.5
    assert counts_from_slot_probs(SLOTS, probs).points[0].confidence < 0.9


def test_slot_hand_probability_blocks_reading() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p9"]
    probs = _onehot(labels)
    probs[first[4], HAND] = 0.35
    probs[first[4], 0] = 0.64
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.3).points[8].confidence == 0.0


def test_a_hand_beside_a_point_blocks_the_point_too() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    p4 = [i for i, s in enumerate(SLOTS) if s.region == "p4"]
    probs = _onehot(labels)
    probs[p4[0]] = 0.0
    probs[p4[0], HAND] = 0.99
    r = counts_from_slot_probs(SLOTS, probs)
    assert r.points[3].confidence == 0.0  # the hand itself
    assert r.points[2].confidence == 0.0 and r.points[4].confidence == 0.0  # its neighbours
    assert r.points[5].confidence > 0.9 and r.points[20].confidence > 0.9  # farther away / across


def test_neighbours() -> None:
    from vision.checkers import neighbours

    assert neighbours("p1") == ("p2",)
    assert neighbours("p12") == ("p11",) and neighbours("p13") == ("p14",)
    assert set(neighbours("p6")) == {"p5", "p7", "bar"}
    assert set(neighbours("bar")) == {"p6", "p7", "p18", "p19"}
