"""Judging observed plays: every reason the issue names, and never calling a legal play illegal."""

from __future__ import annotations

from rules.dice import Dice
from rules.judge import ReasonCode, checker_difference, judge
from rules.moves import legal_plays
from rules.position import BAR, OFF, Position, Side

INITIAL = Position.initial()


def moved(pos: Position, side: Side, *moves: tuple[int, int], opp: tuple[tuple[int, int], ...] = ()) -> Position:
    """Apply raw checker moves (own numbering; no rules) and give the opponent the roll."""
    c = list(pos.counts(side))
    for a, b in moves:
        c[a] -= 1
        c[b] += 1
    o = list(pos.counts(side.opponent))
    for a, b in opp:
        o[a] -= 1
        o[b] += 1
    after = pos.replace(side, tuple(c)).replace(side.opponent, tuple(o))
    return after.with_turn(side.opponent)


def codes(before: Position, dice: Dice, after: Position, **kw: bool) -> set[ReasonCode]:
    j = judge(before, dice, after, **kw)
    assert not j.legal and j.play is None and j.reasons and j.nearest
    return set(j.codes)


def test_legal_play_is_legal_with_notation() -> None:
    j = judge(INITIAL, Dice(3, 1), moved(INITIAL, Side.WHITE, (8, 5), (6, 5)))
    assert j.legal and j.play is not None and j.play.notation() == "8/5 6/5" and not j.reasons


def test_every_legal_play_judges_legal_in_the_opening() -> None:
    for dice in Dice.all_rolls():
        for play in legal_plays(INITIAL, dice):
            assert judge(INITIAL, dice, play.after).legal


def test_unchanged() -> None:
    assert codes(INITIAL, Dice(3, 1), INITIAL.swap_turn()) == {ReasonCode.UNCHANGED}


def test_wrong_colour() -> None:
    after = moved(INITIAL, Side.BLACK, (8, 5), (6, 5)).with_turn(Side.BLACK)
    assert ReasonCode.WRONG_COLOUR in codes(INITIAL, Dice(3, 1), after)


def test_checkers_appeared_and_vanished() -> None:
    w = list(INITIAL.white)
    w[5] += 1
    assert ReasonCode.CHECKERS_APPEARED in codes(INITIAL, Dice(3, 1), Position(tuple(w), INITIAL.black, Side.BLACK))
    b = list(INITIAL.black)
    b[6] -= 1
    assert ReasonCode.CHECKERS_VANISHED in codes(INITIAL, Dice(3, 1), Position(INITIAL.white, tuple(b), Side.BLACK))


def test_bar_not_entered_first() -> None:
    pos = Position.from_points({25: 1, 13: 4, 6: 5, 8: 3, 24: 2}, {6: 5, 8: 3, 13: 5, 24: 2})
    after = moved(pos, Side.WHITE, (13, 10), (10, 9))
    assert ReasonCode.BAR_NOT_ENTERED in codes(pos, Dice(3, 1), after)


def test_landed_on_blocked_point() -> None:
    # 24/18 with a 6 in the opening: white's 18 is black's 7 (empty); 13/7 is fine;
    # 24/19 lands on black's 6-point.
    after = moved(INITIAL, Side.WHITE, (24, 19), (24, 23))
    assert ReasonCode.LANDED_ON_BLOCKED in codes(INITIAL, Dice(5, 1), after)


def test_distance_matches_no_die() -> None:
    after = moved(INITIAL, Side.WHITE, (13, 8), (6, 5))
    assert codes(INITIAL, Dice(6, 1), after) == {ReasonCode.DISTANCE_NOT_A_DIE}


def test_bore_off_outside_home() -> None:
    pos = Position.from_points({8: 1, 6: 7, 5: 7}, {6: 15})
    after = moved(pos, Side.WHITE, (6, OFF), (5, OFF))
    assert ReasonCode.BORE_OFF_OUTSIDE in codes(pos, Dice(6, 5), after)


def test_both_dice_not_played() -> None:
    after = moved(INITIAL, Side.WHITE, (13, 7))
    assert codes(INITIAL, Dice(6, 1), after) == {ReasonCode.BOTH_DICE_NOT_PLAYED}


def test_lower_die_played_when_only_one_could_be() -> None:
    pos = Position.from_points({25: 1}, {7: 2, 6: 13})
    after = moved(pos, Side.WHITE, (BAR, 22))
    assert codes(pos, Dice(4, 3), after) == {ReasonCode.LOWER_DIE_PLAYED}


def test_hit_not_sent_to_bar() -> None:
    pos = Position.from_points({13: 5, 6: 10}, {18: 1, 6: 14})
    # White lands on the black blot on white's 7 but the blot stays.
    after = moved(pos, Side.WHITE, (13, 7), (7, 6))
    assert legal_plays(pos, (6, 1)).find(after) is not None  # 13/12/6 is a legal quiet play
    after2 = moved(pos, Side.WHITE, (13, 7), (6, 5))
    got = codes(pos, Dice(6, 1), after2)
    assert ReasonCode.HIT_NOT_SENT_TO_BAR in got


def test_bar_without_hit() -> None:
    after = moved(INITIAL, Side.WHITE, (8, 5), (6, 5), opp=((6, BAR),))
    assert ReasonCode.BAR_WITHOUT_HIT in codes(INITIAL, Dice(3, 1), after)


def test_highest_not_first_in_bearoff_under_1931_laws() -> None:
    pos = Position.from_points({5: 1, 3: 1}, {6: 15})
    after = moved(pos, Side.WHITE, (5, 3), (3, OFF))
    assert judge(pos, Dice(4, 2), after).legal
    assert ReasonCode.HIGHER_NOT_FIRST in codes(pos, Dice(4, 2), after, highest_first_in_bearoff=True)


def test_nearest_by_checker_difference() -> None:
    after = moved(INITIAL, Side.WHITE, (13, 7))
    j = judge(INITIAL, Dice(6, 1), after)
    best = min(checker_difference(p.after, after) for p in legal_plays(INITIAL, (6, 1)))
    assert checker_difference(j.nearest[0].after, after) == best == 1
    assert "illegal" in j.summary()
