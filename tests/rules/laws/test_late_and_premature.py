"""Set-up errors noticed late, premature doubles, and infractions kept in the game record.

Each test checks the exact verdict and the rule cited in each code where the codes differ:
1931 rule 6 (a game begun from a wrong set-up is void), 1969 rule 3 and US 2008 rule 4.7
(corrected before the second play is complete, else it stands), US 2008 rule 4.6 (a premature
cube action stands if otherwise valid) against 1931 rule 16 / 1969 rule 14 (only the player on
turn may double).
"""

from __future__ import annotations

import pytest

from rules.laws.events import CubeDropped, CubeOffered, CubeTaken, GameSetUp, PositionObserved, SetupCorrected
from rules.laws.machine import Phase
from rules.laws.verdicts import Infraction, Remedy, VerdictKind
from rules.position import Position
from rules.record import InfractionRecord, RecordError

from .script import B, Script, W
from .test_machine import assert_infraction

# White has a checker on his 5-point that belongs on his 6-point.
WRONG = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})


def begun_wrong(code: str) -> Script:
    """The camera calls the wrong set-up; the players throw the opening dice anyway."""
    s = Script(code)
    v = s.m.feed(GameSetUp(WRONG))
    assert v.code is Infraction.WRONG_SETUP
    assert s.opening(3, 1).ok and s.m.phase is Phase.PLAY and s.m.setup_fault is not None
    return s


def test_a_game_begun_from_a_wrong_setup_is_played_from_the_board_as_it_stands() -> None:
    s = begun_wrong("modern")
    assert s.m.turn_start.white[5] == 1 and s.m.turn_start.white[6] == 4
    assert s.play("8/5 6/5").ok  # judged against the wrong start: 6/5 is still legal
    rec = s.m.match_record().games[0]
    assert rec.start.white == WRONG.white and [i.code for i in rec.infractions] == [Infraction.WRONG_SETUP]


@pytest.mark.parametrize(("code", "rule"), [("laws-1931", "6"), ("bar-point-1931", "Lay-Out")])
def test_1931_late_setup_error_voids_the_game(code: str, rule: str) -> None:
    s = begun_wrong(code)
    s.play("8/5 6/5")
    s.turn(B, 6, 4, "24/14")
    s.turn(W, 2, 1, "13/11 6/5")  # three plays made: 1931 has no time limit, the game is void
    v = s.m.feed(SetupCorrected(Position.initial()))
    assert_infraction(v, Infraction.WRONG_SETUP, None, Remedy.GAME_VOID, code, rule)
    # the standard set-up stands on the board: the next game begins at once, at the same score
    assert s.m.phase is Phase.OPENING and s.m.match.score == (0, 0)
    (void,) = s.m.match_record().games  # game 2 has nothing to record yet
    assert void.voided and void.result is None and len(void.actions) == 3
    assert [(i.code, i.remedy) for i in void.infractions] == [
        (Infraction.WRONG_SETUP, Remedy.GAME_VOID),  # called at the set-up
        (Infraction.WRONG_SETUP, Remedy.GAME_VOID),  # noticed: the game is void
    ]
    s.opening(5, 2)
    s.play("13/8 13/11")
    again = s.m.match_record().games[1]
    assert again.number == 2 and again.score == (0, 0) and not again.voided and again.infractions == ()


@pytest.mark.parametrize(("code", "rule"), [("iba-1969", "3"), ("modern", "4.7")])
def test_setup_corrected_before_the_second_play_is_complete(code: str, rule: str) -> None:
    s = begun_wrong(code)
    s.play("8/5 6/5")  # the first play is complete; the second is not
    assert s.throw(B, 6, 4).ok
    corrected = s.m.position.replace(W, tuple(c + d for c, d in zip(s.m.position.white, s.m._setup_delta()[0], strict=True)))
    v = s.m.feed(SetupCorrected(corrected))
    assert v.kind is VerdictKind.OK and v.code is Infraction.WRONG_SETUP and v.remedy is Remedy.CORRECT_SETUP
    assert v.citation is not None and (v.citation.code, v.citation.rule) == (code, rule)
    assert "set-up corrected" in v.director and v.players.text == "Set-up corrected"
    assert s.m.setup_fault is None and s.m.position.white[6] == 4 and s.m.position.white[5] == 2
    assert s.play("24/14").ok  # the legal plays follow the corrected board


def test_setup_correction_seen_by_the_camera_counts_as_the_notice() -> None:
    s = begun_wrong("modern")
    s.play("8/5 6/5")
    fixed = s.m._corrected(s.m.position)
    assert fixed is not None
    v = s.m.feed(PositionObserved(fixed))
    assert v.code is Infraction.WRONG_SETUP and v.remedy is Remedy.CORRECT_SETUP and v.kind is VerdictKind.OK


@pytest.mark.parametrize(("code", "rule"), [("iba-1969", "3"), ("modern", "4.7"), ("javea-u3a", "4.7")])
def test_setup_error_noticed_after_the_second_play_stands(code: str, rule: str) -> None:
    s = begun_wrong(code)
    s.play("8/5 6/5")
    s.turn(B, 6, 4, "24/14")  # the second play is complete: too late
    before = s.m.position
    fixed = s.m._corrected(before)
    assert fixed is not None
    v = s.m.feed(SetupCorrected(fixed))
    assert_infraction(v, Infraction.WRONG_SETUP, None, Remedy.SETUP_STANDS, code, rule)
    assert s.m.restore_to == before  # the players must put the checkers back
    assert s.m.feed(PositionObserved(before)).director == "checkers put back"
    assert s.turn(W, 2, 1, "13/11 6/5").ok
    assert s.m.match_record().games[0].infractions[-1].remedy is Remedy.SETUP_STANDS


def test_a_correction_that_is_not_the_setup_error_is_a_check() -> None:
    s = begun_wrong("modern")
    v = s.m.feed(SetupCorrected(Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 4, 8: 4, 6: 5})))
    assert v.kind is VerdictKind.CHECK and s.m.setup_fault is not None


# ---------------------------------------------------------------- premature doubles
@pytest.mark.parametrize(("code", "rule"), [("laws-1931", "16"), ("bar-point-1931", "Doubling"), ("iba-1969", "14")])
def test_premature_double_is_void_in_the_old_codes(code: str, rule: str) -> None:
    s = Script(code).start(3, 1)
    s.move("8/5 6/5")  # White is still playing
    v = s.m.feed(CubeOffered(B, 2))
    assert_infraction(v, Infraction.PREMATURE_DOUBLE, B, Remedy.CUBE_RESTORED, code, rule)
    assert s.lift(W).ok and s.m.phase is Phase.TURN and s.m.cube.value == 1  # nothing waits


@pytest.mark.parametrize("code", ["modern", "javea-u3a"])
def test_premature_double_stands_and_is_answered_after_the_turn(code: str) -> None:
    s = Script(code, match_length=7).start(3, 1)
    s.move("8/5 6/5")
    v = s.m.feed(CubeOffered(B, 2))
    assert_infraction(v, Infraction.PREMATURE_DOUBLE, B, Remedy.DOUBLE_STANDS, code, "4.6")
    assert s.m.phase is Phase.PLAY  # White finishes his play knowing of the double
    v = s.lift(W)
    assert v.ok and "early double to 2 now waits" in v.director
    assert s.m.phase is Phase.CUBE and s.m.offer_from is B
    assert s.m.feed(CubeTaken(W)).ok and s.m.cube.value == 2 and s.m.cube.owner is W
    actions = s.m.match_record().games[0].actions
    assert [type(a).__name__ for a in actions] == ["Move", "Double", "Take"]


def test_premature_double_must_be_otherwise_valid() -> None:
    s = Script("modern", match_length=7).start(3, 1)
    s.play("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    s.m.feed(CubeTaken(W))  # White owns the cube
    s.throw(B, 6, 4)
    s.move("24/14")
    v = s.m.feed(CubeOffered(B, 4))  # Black no longer owns the cube: not valid, early or not
    assert v.code is Infraction.DOUBLE_AFTER_THROW  # Black is the player on roll here
    s.lift(B)
    s.throw(W, 2, 1)
    s.move("13/11 6/5")
    v = s.m.feed(CubeOffered(B, 4))
    assert_infraction(v, Infraction.DOUBLE_CUBE_NOT_OWNED, B, Remedy.CUBE_RESTORED, "modern", "doubling")
    v = s.m.feed(CubeOffered(W, 8))
    assert v.code is Infraction.DOUBLE_AFTER_THROW


def test_premature_double_passed_at_once_ends_the_game() -> None:
    s = Script("modern", match_length=7).start(3, 1)
    s.move("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    v = s.m.feed(CubeDropped(W))
    assert v.ok and s.m.phase is Phase.GAME_OVER and s.m.match.score == (0, 1)
    game = s.m.match_record().games[0]
    assert game.result is not None and game.result.kind.value == "drop"


def test_premature_double_taken_early_counts_when_the_turn_ends() -> None:
    s = Script("modern", match_length=7).start(3, 1)
    s.move("8/5 6/5")
    s.m.feed(CubeOffered(B, 2))
    assert s.m.feed(CubeTaken(W)).ok
    v = s.lift(W)
    assert "is taken" in v.director and s.m.phase is Phase.TURN and s.m.cube.owner is W


# ---------------------------------------------------------------- infractions in the record
def test_every_infraction_is_kept_in_the_game_record() -> None:
    s = Script("modern", match_length=5).start(3, 1)
    s.play("8/5 6/5")
    cocked = s.throw(B, 6, 4, flat=False)
    assert cocked.code is Infraction.DICE_COCKED
    s.throw(B, 6, 4)
    black = list(s.m.turn_start.black)
    black[24] -= 1
    black[18] += 1  # only the 6 played
    s.m.feed(PositionObserved(s.m.turn_start.replace(B, tuple(black))))
    s.lift(B)
    notes = s.m.match_record().games[0].infractions
    assert [(n.code, n.offender, n.action, n.remedy, n.laws, n.rule) for n in notes] == [
        (Infraction.DICE_COCKED, B, 1, Remedy.RETHROW_BOTH, "modern", "4.2"),  # before the throw that counted
        (Infraction.INCOMPLETE_PLAY, B, 1, Remedy.MUST_CORRECT, "modern", "Legal Moves"),  # the play itself
    ]
    for n in notes:
        assert InfractionRecord.parse(n.text()) == n


def test_infraction_record_rejects_text_it_cannot_write_back() -> None:
    with pytest.raises(RecordError, match="must be non-empty"):
        InfractionRecord(Infraction.DICE_COCKED, "modern", 'a "quoted" rule', W, 0, Remedy.RETHROW_BOTH)
    with pytest.raises(RecordError, match="not an infraction note"):
        InfractionRecord.parse("bgref infraction: cocked")
    with pytest.raises(RecordError, match="unknown infraction"):
        InfractionRecord.parse("bgref infraction: no-such by white at action 0; modern rule 4.2; remedy: throw void")
