"""Legal plays, including the edge cases of the max-dice-then-max-pips rule as gnubg has it."""

from __future__ import annotations

import pytest

from rules.dice import Dice
from rules.moves import LegalPlays, legal_plays
from rules.position import Position, PositionError, Side


def notations(plays: LegalPlays) -> set[str]:
    return {p.notation() for p in plays}


# Counts in the opening position, checked against gnubg (hint lists every play at 0-ply).
OPENING_COUNTS = {"31": 16, "65": 7, "66": 11, "22": 75, "41": 14}


@pytest.mark.parametrize("roll,count", sorted(OPENING_COUNTS.items()))
def test_opening_counts(roll: str, count: int) -> None:
    assert len(legal_plays(Position.initial(), Dice.parse(roll))) == count


def test_opening_31_contains_the_point_play() -> None:
    plays = legal_plays(Position.initial(), (3, 1))
    after = Position.from_gnubg_id("sGfwATDgc/ABMA", Side.BLACK)
    play = plays.find(after)
    assert play is not None and play.notation() == "8/5 6/5"
    assert after in plays and play in plays
    assert plays.before == Position.initial() and plays.dice == Dice(3, 1)


def test_last_checker_on_5_with_53_and_blot_on_2_must_hit_and_bear_off() -> None:
    # Both dice can be used (5/2*/off), so 5/off with the 5 alone is not legal.
    pos = Position.from_points({5: 1}, {23: 1, 6: 14})
    plays = legal_plays(pos, (5, 3))
    assert notations(plays) == {"5/2*/off"}
    (play,) = plays
    assert play.dice_used == (3, 5) and play.after.bar(Side.BLACK) == 1


def test_entering_with_either_die_but_the_bigger_is_forced() -> None:
    pos = Position.from_points({25: 1}, {7: 2, 6: 13})
    plays = legal_plays(pos, (4, 3))
    assert notations(plays) == {"bar/21"}


def test_only_entering_with_the_smaller_die_lets_two_checkers_move() -> None:
    pos = Position.from_points({25: 1, 13: 1}, {7: 2, 14: 2, 6: 11})
    plays = legal_plays(pos, (5, 2))
    assert notations(plays) == {"bar/23 13/8"}


def test_same_final_point_with_and_without_a_hit_is_two_plays() -> None:
    pos = Position.from_points({8: 1, 6: 14}, {18: 1, 6: 14})
    plays = legal_plays(pos, (6, 1))
    names = notations(plays)
    assert "8/7*/1" in names and "8/1" in names
    hit = next(p for p in plays if p.notation() == "8/7*/1")
    quiet = next(p for p in plays if p.notation() == "8/1")
    assert hit.after != quiet.after
    assert hit.after.white == quiet.after.white


def test_smaller_die_forced_first_then_bearing_off() -> None:
    pos = Position.from_points({8: 1, 5: 14}, {23: 2, 6: 13})
    plays = legal_plays(pos, (6, 2))
    assert notations(plays) == {"8/off"}
    (play,) = plays
    assert play.dice_used == (2, 6)


def test_only_one_die_playable_must_be_the_higher() -> None:
    # White's last checker on 24 faces a prime except the 18-point (6 away) and 22 (2 away)
    pos = Position.from_points({24: 1, 1: 14}, {1: 2, 2: 2, 4: 2, 5: 2, 6: 2, 8: 2, 9: 3})
    # 6-2: 24/18 then 18/16 (black's 9 = white 16 blocked); 24/22 then 22/16 blocked.
    plays = legal_plays(pos, (6, 2))
    assert notations(plays) == {"24/18"}


def test_highest_first_in_bearoff_option() -> None:
    pos = Position.from_points({5: 1, 3: 1}, {6: 15})
    normal = legal_plays(pos, (4, 2))
    assert len(normal) == 2
    strict = legal_plays(pos, (4, 2), highest_first_in_bearoff=True)
    assert notations(strict) == {"5/1 3/1"}


def test_no_legal_play_gives_one_empty_play() -> None:
    # White on the bar against a closed board.
    pos = Position.from_points({25: 1, 6: 14}, {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 2})
    plays = legal_plays(pos, (6, 6))
    assert len(plays) == 1
    (play,) = plays
    assert play.is_empty and play.notation() == "" and play.steps == ()
    assert play.after.white == pos.white and play.after.black == pos.black
    assert play.after.turn is Side.BLACK


def test_doubles_entering_from_bar_first() -> None:
    pos = Position.from_points({25: 2, 6: 13}, {6: 15})
    plays = legal_plays(pos, (3, 3))
    for p in plays:
        assert [s.start for s in p.steps[:2]] == [25, 25]


def test_black_on_roll_uses_own_numbering() -> None:
    plays = legal_plays(Position.initial(Side.BLACK), (3, 1))
    assert len(plays) == 16
    play = next(p for p in plays if p.notation() == "8/5 6/5")
    assert play.after.black[5] == 2 and play.after.turn is Side.WHITE


def test_impossible_position_is_refused() -> None:
    pos = Position.from_points({6: 16}, {6: 15}, fill_off=False)
    with pytest.raises(PositionError):
        legal_plays(pos, (3, 1))
