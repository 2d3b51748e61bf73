"""PlayAmended: the referee re-judges the last play (an unsure board, or a throw inferred from the play)."""

from __future__ import annotations

import pytest

from rules.dice import Dice
from rules.laws.events import PlayAmended
from rules.laws.machine import Phase
from rules.laws.verdicts import VerdictKind
from rules.notation import parse_play
from rules.position import Side

from .script import B, Script, W

CODES = ["laws-1931", "bar-point-1931", "iba-1969", "modern", "javea-u3a"]


def _moves(s: Script) -> list[tuple[Side, tuple[int, int], str]]:
    return [(a.player, a.dice, a.play) for a in s.m.match_record().games[0].actions]  # type: ignore[union-attr]


@pytest.mark.parametrize("code_name", CODES)
def test_the_last_play_is_amended_in_the_record_and_on_the_board(code_name: str) -> None:
    s = Script(code_name).start(3, 1)
    assert s.play("8/5 6/5").ok
    start = s.m.position.with_turn(B)
    assert s.turn(B, 6, 4, "24/14").ok
    right = parse_play("24/18 13/9", start, Dice(6, 4)).after
    v = s.m.feed(PlayAmended(B, (6, 4), right))
    assert v.kind is VerdictKind.OK and "play amended from" in v.director and v.director.endswith("24/18 13/9")
    assert v.code is None and not s.m.infractions
    assert _moves(s)[-1][2] == "24/18 13/9"
    assert s.m.position.white == right.white and s.m.position.black == right.black and s.m.on_roll is W
    assert s.turn(W, 2, 1, "6/4 5/4").ok  # play goes on from the amended board
    assert _moves(s)[-1] == (W, (2, 1), "6/4 5/4")


def test_an_inferred_throw_is_amended_with_its_play_after_the_opponent_threw() -> None:
    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    start = s.m.position.with_turn(B)
    assert s.turn(B, 6, 4, "24/14").ok
    assert s.throw(W, 2, 1).ok  # the opponent has thrown, not yet moved
    right = parse_play("24/21 13/8", start, Dice(5, 3)).after
    v = s.m.feed(PlayAmended(B, (5, 3), right))
    assert v.ok, v
    assert _moves(s)[-1] == (B, (5, 3), "24/21 13/8")
    assert s.m.phase is Phase.PLAY and s.m.on_roll is W
    assert s.play("6/4 5/4").ok and _moves(s)[-1] == (W, (2, 1), "6/4* 5/4")  # the amended blot on 4 is hit


def test_an_amendment_that_is_no_legal_play_is_a_check_and_changes_nothing() -> None:
    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    start = s.m.position.with_turn(B)
    assert s.turn(B, 6, 4, "24/14").ok
    board, moves = s.m.position, _moves(s)
    wrong = parse_play("24/21 13/8", start, Dice(5, 3)).after  # not a play of 6-4
    v = s.m.feed(PlayAmended(B, (6, 4), wrong))
    assert v.kind is VerdictKind.CHECK and "is not a legal play of" in v.ask
    assert s.m.position == board and _moves(s) == moves


def test_no_amendment_once_the_opponent_has_played_or_of_the_wrong_player() -> None:
    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    start = s.m.position.with_turn(B)
    assert s.turn(B, 6, 4, "24/14").ok
    right = parse_play("24/18 13/9", start, Dice(6, 4)).after
    assert s.m.feed(PlayAmended(W, (6, 4), right)).kind is VerdictKind.CHECK  # white's play was not the last
    assert s.turn(W, 2, 1, "6/4 5/4").ok
    moves = _moves(s)
    v = s.m.feed(PlayAmended(B, (6, 4), right))
    assert v.kind is VerdictKind.CHECK and "no play of Black on record" in v.ask
    assert _moves(s) == moves


def test_an_illegal_play_on_record_is_corrected_under_its_law_not_amended() -> None:
    from rules.dice import Dice
    from rules.laws.events import DiceLifted, PositionObserved

    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    start = s.m.position.with_turn(B)
    assert s.throw(B, 6, 4).ok
    illegal = parse_play("24/18 13/10", start, Dice(6, 3)).after
    s.m.feed(PositionObserved(illegal))
    assert s.m.feed(DiceLifted(B)).is_infraction
    right = parse_play("24/18 13/9", start, Dice(6, 4)).after
    assert s.m.feed(PlayAmended(B, (6, 4), right)).kind is VerdictKind.CHECK

