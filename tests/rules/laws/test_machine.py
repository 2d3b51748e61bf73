"""Scripted games for every infraction, under each code where the codes differ.

Each test checks the exact verdict: the infraction code, the offender, the remedy and
the rule cited (code of laws and rule number).
"""

from __future__ import annotations

import dataclasses

import pytest

from rules.laws.events import (
    ClockPressed,
    CubeBeavered,
    CubeDropped,
    CubeOffered,
    CubeTaken,
    DiceLifted,
    DiceThrown,
    DieThrow,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
    ResignationAccepted,
    ResignationOffered,
    Rest,
    ResultClaimed,
)
from rules.laws.machine import Phase
from rules.laws.verdicts import Infraction, Remedy, Verdict, VerdictKind
from rules.notation import parse_play
from rules.position import Position, Side

from .script import B, Script, W

CODES = ["laws-1931", "bar-point-1931", "iba-1969", "modern", "javea-u3a"]


def assert_infraction(v: Verdict, code: Infraction, offender: Side | None, remedy: Remedy, code_name: str, rule: str) -> None:
    assert v.kind is VerdictKind.INFRACTION, v
    assert v.code is code, v
    assert v.offender is offender, v
    assert v.remedy is remedy, v
    assert v.citation is not None and v.citation.code == code_name and v.citation.rule == rule, v.citation
    assert v.ask and v.players.text


# ---------------------------------------------------------------- a clean game
def test_clean_opening_and_turns() -> None:
    s = Script("modern").start(3, 1)
    assert s.m.on_roll is W and s.m.phase is Phase.PLAY
    assert s.play("8/5 6/5").ok
    assert s.turn(B, 6, 4, "24/14").ok
    assert s.m.on_roll is W and not s.m.infractions
    rec = s.m.match_record()
    assert [a.play for a in rec.games[0].actions] == ["8/5 6/5", "24/14"]  # type: ignore[union-attr]


# ---------------------------------------------------------------- dice faults
FAULTS = [
    (Rest.LEFT_TABLE, True, Infraction.DICE_WRONG_TABLE),
    (Rest.BAR, True, Infraction.DICE_ON_BAR),
    (Rest.OFF_BOARD, True, Infraction.DICE_OFF_BOARD),
    (Rest.RIGHT_TABLE, False, Infraction.DICE_COCKED),
    (Rest.ON_DIE, True, Infraction.DICE_ON_DIE),
]
RULE_OF = {
    "laws-1931": {Infraction.DICE_WRONG_TABLE: "1", Infraction.DICE_ON_BAR: "2", Infraction.DICE_OFF_BOARD: "2",
                  Infraction.DICE_COCKED: "3", Infraction.DICE_ON_DIE: "3"},
    "bar-point-1931": {Infraction.DICE_WRONG_TABLE: "Dice 1", Infraction.DICE_ON_BAR: "Dice 2",
                       Infraction.DICE_OFF_BOARD: "Dice 2", Infraction.DICE_COCKED: "Dice 3", Infraction.DICE_ON_DIE: "Dice 3"},
    "iba-1969": dict.fromkeys([f[2] for f in FAULTS], "6"),
    "modern": dict.fromkeys([f[2] for f in FAULTS], "4.2"),
    "javea-u3a": dict.fromkeys([f[2] for f in FAULTS], "4.2"),
}


@pytest.mark.parametrize("code_name", CODES)
@pytest.mark.parametrize(("rest", "flat", "code"), FAULTS)
def test_dice_faults_rethrow_both(code_name: str, rest: Rest, flat: bool, code: Infraction) -> None:
    s = Script(code_name).start(3, 1)
    s.play("8/5 6/5")
    v = s.throw(B, 6, 4, rest=rest, flat=flat)
    assert_infraction(v, code, B, Remedy.RETHROW_BOTH, code_name, RULE_OF[code_name][code])
    assert v.players.dice == (1,)
    assert s.m.phase is Phase.TURN and s.m.on_roll is B  # nothing applied: throw again
    assert s.throw(B, 6, 4).ok


def test_die_on_checker_is_a_local_option() -> None:
    s = Script("modern").start(3, 1)
    s.play("8/5 6/5")
    assert s.throw(B, 6, 4, rest=Rest.ON_CHECKER).ok  # valid if flat (modern default)
    s = Script("iba-1969").start(3, 1)
    s.play("8/5 6/5")
    assert_infraction(s.throw(B, 6, 4, rest=Rest.ON_CHECKER), Infraction.DICE_ON_CHECKER, B, Remedy.RETHROW_BOTH, "iba-1969", "6")


def test_dice_together_and_touched() -> None:
    s = Script("modern").start(3, 1)
    s.play("8/5 6/5")
    v = s.m.feed(DiceThrown(B, (DieThrow(6), DieThrow(4)), together=False))
    assert_infraction(v, Infraction.DICE_NOT_TOGETHER, B, Remedy.RETHROW_BOTH, "modern", "4.2")
    s = Script("iba-1969").start(3, 1)
    s.play("8/5 6/5")
    v = s.m.feed(DiceThrown(B, (DieThrow(6), DieThrow(4)), touched=True))
    assert_infraction(v, Infraction.DICE_TOUCHED, B, Remedy.RETHROW_BOTH, "iba-1969", "7")


def test_opening_die_fault_rethrows_that_die() -> None:
    s = Script("modern")
    s.setup()
    v = s.m.feed(OpeningDieThrown(W, DieThrow(5, flat=False)))
    assert_infraction(v, Infraction.DICE_COCKED, W, Remedy.RETHROW_DIE, "modern", "4.2")


# ---------------------------------------------------------------- premature throw
PREMATURE = {
    "laws-1931": (Remedy.THROW_VOID, "14"),
    "bar-point-1931": (Remedy.THROW_VOID, "Dice 4"),
    "iba-1969": (Remedy.RETHROW_BOTH, "7"),
    "modern": (Remedy.THROW_STANDS, "4.6"),
    "javea-u3a": (Remedy.OPPONENT_CHOOSES_THROW, "House 2"),
}


@pytest.mark.parametrize("code_name", CODES)
def test_premature_throw(code_name: str) -> None:
    s = Script(code_name).start(3, 1)
    s.move("8/5 6/5")  # White has moved but not lifted his dice
    v = s.throw(B, 6, 4)
    remedy, rule = PREMATURE[code_name]
    assert_infraction(v, Infraction.PREMATURE_THROW, B, remedy, code_name, rule)
    assert s.lift(W).ok
    if remedy in (Remedy.THROW_VOID, Remedy.RETHROW_BOTH):
        assert s.m.phase is Phase.TURN and s.m.on_roll is B  # Black throws again
        assert s.throw(B, 2, 1).ok
        assert s.m.dice is not None and s.m.dice.as_tuple() == (2, 1)
    else:
        assert s.m.phase is Phase.PLAY and s.m.on_roll is B  # the early throw is in play
        assert s.m.dice is not None and s.m.dice.as_tuple() == (6, 4)
        assert s.play("24/14").ok


def test_premature_opponent_chooses_rethrow() -> None:
    s = Script("javea-u3a").start(3, 1)
    s.move("8/5 6/5")
    s.throw(B, 6, 4)
    s.lift(W)
    assert s.throw(B, 5, 2).ok  # White chose a rethrow
    assert s.m.dice is not None and s.m.dice.as_tuple() == (5, 2)
    assert s.play("13/8 13/11").ok
    assert not [v for v in s.m.infractions if v.code is not Infraction.PREMATURE_THROW]


def test_no_premature_rule_when_both_bear_off_in_club() -> None:
    pos = Position.from_points({1: 3, 2: 2}, {1: 2, 3: 2}, turn=W)
    for code_name, expect_ok in (("javea-u3a", True), ("modern", False)):
        s = Script(code_name)
        s.start(3, 1)
        s.m.position = pos
        s.m.turn_start = pos
        s.m.phase = Phase.TURN
        s.m.on_roll = W
        s.throw(W, 2, 1)
        s.move("2/off 1/off")
        v = s.throw(B, 4, 3)
        assert v.ok is expect_ok, (code_name, v)


# ---------------------------------------------------------------- plays
@pytest.mark.parametrize(
    ("code_name", "remedy", "rule"),
    [
        ("laws-1931", Remedy.CORRECT_OR_STANDS, "10"),
        ("bar-point-1931", Remedy.CORRECT_OR_STANDS, "Moves 3"),
        ("iba-1969", Remedy.CORRECT_OR_STANDS, "9"),
        ("modern", Remedy.MUST_CORRECT, "Legal Moves"),
        ("javea-u3a", Remedy.MUST_CORRECT, "Legal Moves"),
    ],
)
def test_illegal_play_and_correction(code_name: str, remedy: Remedy, rule: str) -> None:
    s = Script(code_name).start(3, 1)
    before = s.m.turn_start
    # 8/4 with 3-1 is four pips with one checker... but 6/2 is not a die: play 6/3 6/4 (a 3 and a 2)
    bad = Position.from_points({24: 2, 13: 5, 8: 3, 6: 3, 3: 1, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, turn=W)
    assert s.m.feed(PositionObserved(bad)).ok  # moving checkers is not judged until the lift
    v = s.lift(W)
    assert_infraction(v, Infraction.ILLEGAL_PLAY, W, remedy, code_name, rule)
    assert v.players.points == (3, 4, 6)  # the points touched this turn, no legal play shown
    assert "nearest legal: 6/5 6/3" in v.director  # the director's record names legal plays
    # the player corrects before Black throws
    good = parse_play("8/5 6/5", before, (3, 1)).after
    assert s.m.feed(PositionObserved(good)).ok
    assert s.m.pending is None
    assert s.turn(B, 6, 4, "24/14").ok
    assert s.m.match_record().games[0].actions[0].play == "8/5 6/5"  # type: ignore[union-attr]


def test_illegal_play_stands_after_opponent_throws() -> None:
    s = Script("iba-1969").start(3, 1)
    bad = Position.from_points({24: 2, 13: 5, 8: 3, 6: 3, 3: 1, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, turn=W)
    s.m.feed(PositionObserved(bad))
    s.lift(W)
    v = s.throw(B, 6, 4)
    assert v.ok and "stands" in v.director
    assert s.m.pending is None and s.m.turn_start.white == bad.white


@pytest.mark.parametrize(
    ("code_name", "remedy", "rule"),
    [
        ("laws-1931", Remedy.CORRECT_OR_STANDS, "11"),
        ("iba-1969", Remedy.CORRECT_OR_STANDS, "10"),
        ("modern", Remedy.MUST_CORRECT, "Legal Moves"),
        ("javea-u3a", Remedy.COMPEL_OR_FORGO, "House 3"),
    ],
)
def test_dice_lifted_before_play_complete(code_name: str, remedy: Remedy, rule: str) -> None:
    s = Script(code_name).start(3, 1)
    before = s.m.turn_start
    half = Position.from_points({24: 2, 13: 5, 8: 2, 6: 5, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, turn=W)  # only 8/5
    s.m.feed(PositionObserved(half))
    v = s.lift(W)
    assert_infraction(v, Infraction.INCOMPLETE_PLAY, W, remedy, code_name, rule)
    assert v.players.dice == (0, 1)
    # completing the play is accepted
    full = parse_play("8/5 6/5", before, (3, 1)).after
    assert s.m.feed(PositionObserved(full)).ok
    assert s.turn(B, 6, 4, "24/14").ok


def test_lifting_without_moving_when_a_play_exists() -> None:
    s = Script("modern").start(3, 1)
    v = s.lift(W)
    assert v.code is Infraction.INCOMPLETE_PLAY


def test_move_without_throw() -> None:
    s = Script("modern").start(3, 1)
    s.play("8/5 6/5")
    before = s.m.position
    moved = Position.from_points({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 4, 8: 3, 6: 5, 9: 1}, turn=B)
    v = s.m.feed(PositionObserved(moved))
    assert_infraction(v, Infraction.MOVE_WITHOUT_THROW, B, Remedy.RESTORE, "modern", "4.3")
    assert v.players.points == (12, 16)  # Black's 13 and 9 in White's numbering
    assert s.throw(B, 6, 4).code is Infraction.MOVE_WITHOUT_THROW  # put them back first
    assert s.m.feed(PositionObserved(before)).ok
    assert s.throw(B, 6, 4).ok


@pytest.mark.parametrize(("code_name", "rule"), [("laws-1931", "9"), ("iba-1969", "8")])
def test_move_without_throw_other_codes(code_name: str, rule: str) -> None:
    s = Script(code_name).start(3, 1)
    s.play("8/5 6/5")
    moved = Position.from_points({24: 2, 13: 5, 8: 2, 6: 4, 5: 2}, {24: 2, 13: 4, 8: 3, 6: 5, 9: 1}, turn=B)
    assert_infraction(s.m.feed(PositionObserved(moved)), Infraction.MOVE_WITHOUT_THROW, B, Remedy.RESTORE, code_name, rule)


def test_throw_out_of_turn() -> None:
    s = Script("modern").start(3, 1)
    s.play("8/5 6/5")
    assert_infraction(s.throw(W, 6, 4), Infraction.THROW_OUT_OF_TURN, W, Remedy.THROW_VOID, "modern", "4.6")


# ---------------------------------------------------------------- set-up
def test_wrong_setup() -> None:
    wrong = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    for code_name, remedy, rule in (
        ("laws-1931", Remedy.GAME_VOID, "6"),
        ("bar-point-1931", Remedy.GAME_VOID, "6"),
        ("iba-1969", Remedy.CORRECT_SETUP, "3"),
        ("modern", Remedy.CORRECT_SETUP, "4.7"),
    ):
        s = Script(code_name)
        v = s.m.feed(GameSetUp(wrong))
        assert_infraction(v, Infraction.WRONG_SETUP, None, remedy, code_name, rule)
        assert v.players.points == (5, 6)
        assert s.m.phase is Phase.SETUP
        assert s.setup().ok
        assert s.m.phase.value == "opening"


# ---------------------------------------------------------------- opening
def test_opening_ties_and_automatic_doubles() -> None:
    s = Script("laws-1931")
    s.setup()
    for _ in range(4):
        assert s.opening(4, 4).ok
    assert s.m.cube.value == 16 and s.m.cube.centred  # unlimited in 1931
    s = Script("javea-u3a")
    s.setup()
    for _ in range(5):
        s.opening(2, 2)
    assert s.m.cube.value == 8  # capped at 8; the players throw on
    s = Script("modern")
    s.setup()
    v = s.opening(6, 6)
    assert v.ok and s.m.cube.value == 1 and v.citation is not None and v.citation.rule == "opening roll"
    assert s.opening(6, 5).ok and s.m.on_roll is W


def test_bar_point_opening_rethrow_option() -> None:
    s = Script("bar-point-1931").start(3, 1)
    assert s.throw(W, 5, 5).ok  # the winner throws his own pair instead
    assert s.m.dice is not None and s.m.dice.as_tuple() == (5, 5)
    assert s.play("13/3(2)").ok
    s = Script("modern").start(3, 1)
    assert s.throw(W, 5, 5).code is Infraction.THROW_OUT_OF_TURN


# ---------------------------------------------------------------- cube
def test_double_take_drop_and_values() -> None:
    s = Script("modern", match_length=7).start(3, 1)
    s.play("8/5 6/5")
    assert s.m.feed(CubeOffered(B, 2)).ok
    assert s.m.feed(CubeTaken(W)).ok and s.m.cube.value == 2 and s.m.cube.owner is W
    s.turn(B, 6, 4, "24/14")
    v = s.m.feed(CubeOffered(W, 8))
    assert_infraction(v, Infraction.CUBE_WRONG_VALUE, W, Remedy.CUBE_RESTORED, "modern", "doubling")
    assert v.players.cube
    assert s.m.feed(CubeOffered(W, 4)).ok
    assert s.m.feed(CubeDropped(B)).ok
    assert s.m.phase is Phase.GAME_OVER and s.m.match.score == (2, 0)
    assert s.m.feed(ResultClaimed(W, 2)).ok


def test_double_by_player_without_cube_and_after_throw() -> None:
    s = Script("iba-1969").start(3, 1)
    s.play("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    s.m.feed(CubeTaken(W))
    s.throw(B, 6, 4)
    assert_infraction(s.m.feed(CubeOffered(B, 4)), Infraction.DOUBLE_AFTER_THROW, B, Remedy.CUBE_RESTORED, "iba-1969", "14")
    s.play("24/14")
    assert_infraction(s.m.feed(CubeOffered(B, 4)), Infraction.DOUBLE_NOT_ALLOWED, B, Remedy.CUBE_RESTORED, "iba-1969", "14")
    s.throw(W, 2, 1)
    s.play("13/11 6/5")
    assert_infraction(s.m.feed(CubeOffered(B, 4)), Infraction.DOUBLE_CUBE_NOT_OWNED, B, Remedy.CUBE_RESTORED, "iba-1969", "15")


def test_crawford_game_no_double() -> None:
    s = Script("modern", match_length=5, score=(4, 2))
    s.m.match = dataclasses.replace(s.m.match, crawford_next=True)
    s.start(3, 1)
    assert s.m.crawford_game
    s.play("8/5 6/5")
    v = s.m.feed(CubeOffered(B, 2))
    assert_infraction(v, Infraction.DOUBLE_IN_CRAWFORD, B, Remedy.CUBE_RESTORED, "modern", "Crawford")


def test_beavers() -> None:
    s = Script("javea-u3a").start(3, 1)  # money play, beavers allowed
    s.play("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    assert s.m.feed(CubeBeavered(W, 4)).ok
    assert s.m.cube.value == 4 and s.m.cube.owner is W
    s = Script("modern").start(3, 1)
    s.play("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    assert_infraction(s.m.feed(CubeBeavered(W, 4)), Infraction.BEAVER_NOT_ALLOWED, W, Remedy.NONE, "modern", "doubling")
    s = Script("javea-u3a", match_length=5).start(3, 1)  # never in match play
    s.play("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    assert s.m.feed(CubeBeavered(W, 4)).code is Infraction.BEAVER_NOT_ALLOWED


# ---------------------------------------------------------------- results
def test_wrong_result_claim_and_resignation() -> None:
    s = Script("modern", match_length=3).start(3, 1)
    s.play("8/5 6/5")
    s.m.feed(ResignationOffered(B, 2))
    assert s.m.feed(ResignationAccepted(W)).ok
    assert s.m.match.score == (2, 0)
    v = s.m.feed(ResultClaimed(W, 1))
    assert_infraction(v, Infraction.WRONG_RESULT, None, Remedy.CORRECT_RESULT, "modern", "scoring")
    assert "2" in v.ask
    assert s.m.feed(ResultClaimed(W, 2)).ok


def test_game_won_by_bearing_off_scores_gammon() -> None:
    s = Script("modern", match_length=5).start(3, 1)
    end = Position.from_points({1: 1, 2: 1}, {1: 10, 6: 5}, turn=W)
    s.m.position = end
    s.m.phase = Phase.TURN
    s.m.on_roll = W
    s.throw(W, 2, 1)
    v = s.move("2/off 1/off")
    assert v.ok and s.m.phase is Phase.GAME_OVER
    assert s.m.match.score == (2, 0)
    assert s.m.feed(DiceLifted(W)).ok
    assert s.m.feed(ResultClaimed(W, 1)).code is Infraction.WRONG_RESULT


# ---------------------------------------------------------------- uncertainty and the players' view
def test_uncertain_input_is_never_an_infraction() -> None:
    s = Script("modern").start(3, 1)
    s.play("8/5 6/5")
    ev = DiceThrown(B, (DieThrow(6), DieThrow(4, Rest.OFF_BOARD)), uncertain=True)
    v = s.m.feed(ev)
    assert v.kind is VerdictKind.CHECK and v.code is None and v.offender is None
    assert v.ask.startswith("Please check")
    assert s.m.phase is Phase.TURN  # not applied
    impossible = Position.from_points({24: 3, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, fill_off=False)
    assert s.m.feed(PositionObserved(impossible)).kind is VerdictKind.CHECK


def test_players_view_never_shows_plays_or_pips() -> None:
    s = Script("modern").start(3, 1)
    half = Position.from_points({24: 2, 13: 5, 8: 2, 6: 5, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, turn=W)
    s.m.feed(PositionObserved(half))
    s.lift(W)
    s.m.feed(ClockPressed(W))
    for v in s.m.verdicts:
        t = v.players.text.lower()
        assert "/" not in t and "pip" not in t and "hint" not in t


def test_clock_press_ends_turn_in_modern() -> None:
    s = Script("modern").start(3, 1)
    s.move("8/5 6/5")
    assert s.m.feed(ClockPressed(W)).ok
    assert s.m.on_roll is B and s.m.phase is Phase.TURN


def test_match_to_the_end() -> None:
    s = Script("modern", match_length=1).start(3, 1)
    s.play("8/5 6/5")
    s.m.feed(ResignationOffered(B, 1))
    s.m.feed(ResignationAccepted(W))
    assert s.m.match.winner is W
    assert s.m.feed(ResultClaimed(W, 1, match_over=True)).ok
    assert s.m.phase is Phase.MATCH_OVER
    assert s.m.feed(GameSetUp(Position.initial())).kind is VerdictKind.CHECK
    assert len(s.m.match_record().games) == 1
    assert s.m.feed(DiceLifted(W)).kind is VerdictKind.CHECK
