"""The cube, results (single/gammon/backgammon, Jacoby, by men, combined), match scores and Crawford."""

from __future__ import annotations

import dataclasses

import pytest

from rules.laws.codes import Scoring, builtin
from rules.laws.cube import Cube, CubeError
from rules.laws.scoring import MatchScore, crawford_games, game_points, men_count, quartet_count, result_kind
from rules.position import Position, Side
from rules.record import ResultKind

W, B = Side.WHITE, Side.BLACK


def test_cube_centred_shows_64_and_ownership() -> None:
    c = Cube()
    assert c.shown == 64 and c.centred
    assert c.may_double(W) is None and c.may_double(B) is None
    t = c.take(B)
    assert t == Cube(2, B) and t.shown == 2
    assert t.may_double(W) == "the cube belongs to black"
    assert t.may_double(B) is None
    assert t.may_double(B, crawford_game=True) == "no doubling in the Crawford game"
    assert Cube(64, W).may_double(W, limit=64) == "the cube is at its limit of 64"
    assert t.beaver(W) == Cube(8, W)
    assert c.automatic() == Cube(2, None) and Cube(8).automatic(limit=8) == Cube(8)
    with pytest.raises(CubeError, match="3"):
        Cube(3)


def gammon_position() -> Position:
    # White has borne off everything; Black has none off: 14 at home, 1 on White's 2-point (Black's 23).
    return Position.from_points({}, {1: 10, 6: 4, 23: 1}, turn=B)


def test_result_kinds() -> None:
    assert result_kind(gammon_position(), W) is ResultKind.BACKGAMMON
    gammon = Position.from_points({}, {1: 10, 6: 5}, turn=B)
    assert result_kind(gammon, W) is ResultKind.GAMMON
    single = Position.from_points({}, {1: 3}, turn=B)
    assert result_kind(single, W) is ResultKind.SINGLE
    bar = Position.from_points({}, {1: 14, 25: 1}, turn=B)
    assert result_kind(bar, W) is ResultKind.BACKGAMMON


def test_points_by_games_jacoby_men_combined() -> None:
    modern = builtin("modern")
    gam = Position.from_points({}, {1: 10, 6: 5}, turn=B)
    assert game_points(gam, W, Cube(), modern) == (ResultKind.GAMMON, 2)
    assert game_points(gam, W, Cube(4, B), modern) == (ResultKind.GAMMON, 8)
    jac = dataclasses.replace(modern, jacoby=True)
    assert game_points(gam, W, Cube(), jac) == (ResultKind.SINGLE, 1)  # money, centred cube
    assert game_points(gam, W, Cube(2, B), jac) == (ResultKind.GAMMON, 4)  # cube turned
    assert game_points(gam, W, Cube(), jac, match_length=5) == (ResultKind.GAMMON, 2)  # no Jacoby in matches
    # by men: 10 on Black's 1 (1 each) + 5 on Black's 6 (1 each) = 15; combined with gammon = 30
    assert men_count(gam, W) == 15
    assert game_points(gam, W, Cube(), modern, scoring=Scoring.MEN) == (ResultKind.GAMMON, 15)
    assert game_points(gam, W, Cube(2, W), modern, scoring=Scoring.COMBINED) == (ResultKind.GAMMON, 60)
    # weights 1/2/3/4 by table, 4 on the bar (1931); the quartet counts 5 on the bar
    spread = Position.from_points({}, {3: 1, 9: 1, 15: 1, 21: 1, 25: 1}, turn=B)
    assert men_count(spread, W) == 1 + 2 + 3 + 4 + 4
    assert quartet_count(spread, W) == 15 + 1 + 2 + 3 + 4 + 5


def test_match_score_crawford_and_winner() -> None:
    m = MatchScore(5)
    m = m.after(W, 2)
    assert m.score == (2, 0) and not m.crawford_next
    m = m.after(W, 2)
    assert m.crawford_next and m.away(W) == 1
    m = m.after(B, 1)  # the Crawford game
    assert not m.crawford_next and m.post_crawford
    m = m.after(B, 3)
    assert m.score == (4, 4) and not m.crawford_next and m.winner is None
    m = m.after(B, 2)
    assert m.winner is B and m.over
    assert MatchScore(0).after(W, 64).winner is None  # money play never ends
    assert MatchScore(3).after(W, 2, crawford_rule=False).crawford_next is False


def test_crawford_from_scores() -> None:
    assert crawford_games(5, [(0, 0), (2, 0), (4, 0), (4, 1), (4, 2)]) == [False, False, True, False, False]
    assert crawford_games(3, [(0, 0), (0, 1), (2, 1)]) == [False, False, True]
    assert crawford_games(0, [(0, 0), (9, 9)]) == [False, False]
