from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import BAR, OFF, Position, PositionError, Side


def test_initial_position_id() -> None:
    assert Position.initial().gnubg_id() == "4HPwATDgc/ABMA"


def test_side_not_on_roll_is_encoded_first() -> None:
    # 31 played 8/5 6/5 by white, black on roll (gnubg's own output).
    p = Position.initial()
    w = list(p.white)
    w[8] -= 1
    w[6] -= 1
    w[5] += 2
    after = Position(tuple(w), p.black, Side.BLACK)
    assert after.gnubg_id() == "sGfwATDgc/ABMA"
    assert Position.from_gnubg_id("sGfwATDgc/ABMA", Side.BLACK) == after


@st.composite
def positions(draw: st.DrawFn) -> Position:
    sides = []
    for _ in range(2):
        counts = [0] * 26
        for _ in range(draw(st.integers(0, 15))):
            counts[draw(st.integers(1, 25))] += 1
        counts[OFF] = 15 - sum(counts)
        sides.append(tuple(counts))
    return Position(sides[0], sides[1], draw(st.sampled_from(list(Side))))


@given(positions())
def test_gnubg_id_round_trip(p: Position) -> None:
    assert Position.from_gnubg_id(p.gnubg_id(), p.turn) == p


@given(positions())
def test_text_round_trip_and_mirror(p: Position) -> None:
    assert Position.from_text(p.text()) == p
    assert p.mirror().mirror() == p
    assert p.mirror().pip_count(Side.WHITE) == p.pip_count(Side.BLACK)


def test_impossible_position_is_data() -> None:
    w = [0] * 26
    w[6] = 16
    b = [0] * 26
    b[19] = 15  # black's 19 is white's 6
    p = Position(tuple(w), tuple(b))
    problems = p.problems()
    assert any("16 checkers" in s for s in problems)
    assert any("both colours on point 6" in s for s in problems)
    assert not p.is_valid()
    assert Position.initial().problems() == []


@pytest.mark.parametrize("bad", ["", "4HPwATDgc/ABM", "4HPwATDgc/AB!A", "//////////////"])
def test_bad_ids_are_rejected(bad: str) -> None:
    with pytest.raises(PositionError):
        Position.from_gnubg_id(bad)


def test_absolute_points_and_bar() -> None:
    p = Position.initial()
    assert p.at(6) == (5, 0)
    assert p.at(19) == (0, 5)
    assert p.at(1) == (0, 2)
    assert p.bar(Side.WHITE) == 0 and p.counts(Side.BLACK)[BAR] == 0
