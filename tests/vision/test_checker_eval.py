"""The checker evaluation's diagnosis: why a region is unsure (vision.evaluate.unsure_cause)."""

from __future__ import annotations

import numpy as np

from rules.position import Side
from vision.checkers import HAND, SLOT_CLASSES, board_slots, slot_labels
from vision.evaluate import _stack_kind, unsure_cause
from vision.geometry import BoardLayout, BoardSpec, Seating

LAYOUT = BoardLayout(BoardSpec.tournament(), Seating())
SLOTS = board_slots(LAYOUT)


def _probs(points: list[tuple[int, int]], bar: tuple[int, int] = (0, 0), p: float = 0.999) -> np.ndarray:
    labels = slot_labels(LAYOUT, SLOTS, points, bar)
    n = len(SLOT_CLASSES)
    out = np.full((len(labels), n), (1 - p) / (n - 1))
    out[np.arange(len(labels)), labels] = p
    return out


def test_unsure_causes() -> None:
    points = [(0, 0)] * 24
    points[3] = (3, 0)
    probs = _probs(points)
    assert unsure_cause("p4", probs, SLOTS, 0.3, 0.5) == "posterior"
    idx = {(s.region, s.index): i for i, s in enumerate(SLOTS)}
    probs[idx["p5", 0], HAND] = 0.6
    assert unsure_cause("p5", probs, SLOTS, 0.3, 0.5) == "hand"
    assert unsure_cause("p4", probs, SLOTS, 0.3, 0.5) == "neighbour_hand"
    assert unsure_cause("p4", probs, SLOTS, 0.3, 0.7) == "posterior"
    gap = _probs(points)
    gap[idx["p4", 1]] = gap[idx["p4", 4]]  # an empty slot inside the stack
    assert unsure_cause("p4", gap, SLOTS, 0.3, 0.5) == "contradiction"
    wrong_half = _probs([(0, 0)] * 24, (1, 0))
    w0 = next(i for i, s in enumerate(SLOTS) if s.region == "bar" and s.side is Side.WHITE and s.index == 0)
    b0 = next(i for i, s in enumerate(SLOTS) if s.region == "bar" and s.side is Side.BLACK and s.index == 0)
    wrong_half[b0] = wrong_half[w0]  # a white checker on black's half
    assert unsure_cause("bar", wrong_half, SLOTS, 0.3, 0.5) == "contradiction"


def test_stack_kinds() -> None:
    assert [_stack_kind(*wb) for wb in ((0, 0), (3, 0), (0, 5), (7, 0))] == ["empty", "1-4", "5", "6+"]


def test_a_bar_hand_alone_is_no_unsure_cause() -> None:
    """The diagnosis follows the reader: a hand-like bar slot with nothing hand-like off the bar is
    not a hand (``bar_hand_corroboration``), with one elsewhere it is."""
    probs = _probs([(0, 0)] * 24)
    idx = {(s.region, s.index, s.side): i for i, s in enumerate(SLOTS)}
    probs[idx["bar", 0, Side.WHITE], HAND] = 0.9
    assert unsure_cause("bar", probs, SLOTS, 0.3, 0.5) == "hand"  # no corroboration asked
    assert unsure_cause("bar", probs, SLOTS, 0.3, 0.5, 0.3) == "posterior"
    assert unsure_cause("p6", probs, SLOTS, 0.3, 0.5, 0.3) == "posterior"
    probs[idx["p1", 0, None], HAND] = 0.4
    assert unsure_cause("bar", probs, SLOTS, 0.3, 0.5, 0.3) == "hand"
    assert unsure_cause("p6", probs, SLOTS, 0.3, 0.5, 0.3) == "neighbour_hand"
