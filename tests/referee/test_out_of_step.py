"""A real-vision referee whose laws have fallen out of step with the board asks, never accuses.

Found on recorded game 7232 (s5f, tuning since): the laws refused an amendment the tracker believed
made, a correction was then judged from a board the laws did not have, and the laws called it
"moved without a throw"; from then on every throw was "out of turn" or "after a move without a throw"
(4 false alarms, 2 wrong names).  The real-vision tracker never sends a board moved without a throw
(it asks about one), so the laws finding one means their record is out of step: the board is asked
about and not applied, the tracker is put in step with the board the laws have, and a throw the laws
take for one out of turn is asked about.  The oracle tracker (perfect perception) still calls them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from referee.session import Session, SessionInfo
from referee.tracker import Emitted, TrackerConfig, board_of
from rules.laws.events import (
    CubeOffered,
    DiceLifted,
    DiceThrown,
    DieThrow,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
)
from rules.laws.machine import Phase
from rules.laws.verdicts import Infraction, VerdictKind
from rules.notation import parse_play
from rules.position import Position, Side
from vision.observation import BoardObservation

START = Position.initial()
REAL = TrackerConfig.for_real_vision("near", count_confidence=0.9)
P1 = parse_play("8/3 6/3", START, (5, 3)).after  # white opens 5-3; black on roll
ELSEWHERE = parse_play("13/11 6/5", P1.with_turn(Side.WHITE), (2, 1)).after.with_turn(Side.BLACK)  # white again


def judge(s: Session, *events: object, seq: int = 1) -> list:
    obs = BoardObservation.from_position(s.machine.position, seq=seq, t=seq / 30)
    return s._judge([Emitted(e, seq) for e in events], obs, None)  # type: ignore[arg-type]


def opened(cfg: TrackerConfig, journal: Path | None = None) -> Session:
    s = Session.start(SessionInfo(), journal, tracker_config=cfg, evidence=False)
    judge(s, GameSetUp(START), OpeningDieThrown(Side.WHITE, DieThrow(5)), OpeningDieThrown(Side.BLACK, DieThrow(3)),
          PositionObserved(P1), DiceLifted(Side.WHITE))
    assert s.machine.phase is Phase.TURN and s.machine.on_roll is Side.BLACK
    return s


def test_a_board_out_of_step_is_asked_not_applied_and_the_game_goes_on(tmp_path: Path) -> None:
    journal = tmp_path / "s.jsonl"
    s = opened(REAL, journal)
    s.tracker.state = replace(s.tracker.state, sent=board_of(ELSEWHERE))  # the tracker believes another board
    (j,) = judge(s, PositionObserved(ELSEWHERE), seq=2)
    assert j.verdict.kind is VerdictKind.CHECK and j.emitted.unsure
    assert s.machine.restore_to is None and s.machine.position == P1  # not applied: no restore pending
    assert s.tracker.state.sent == board_of(P1) and not s.tracker.state.known  # the tracker put in step
    (t,) = judge(s, DiceThrown(Side.BLACK, (DieThrow(6), DieThrow(4))), seq=3)
    assert t.verdict.kind is VerdictKind.OK and s.machine.phase is Phase.PLAY  # no "moved without a throw"
    assert s.stats.infractions == 0
    r = Session.resume(journal, tracker_config=REAL, evidence=False)  # the journal replays to the same state
    assert r.machine.position == s.machine.position and r.machine.phase is Phase.PLAY


def test_a_throw_out_of_turn_from_real_vision_is_asked_the_oracle_calls_it() -> None:
    s = opened(REAL)
    (j,) = judge(s, DiceThrown(Side.WHITE, (DieThrow(6), DieThrow(4))), seq=2)
    assert j.verdict.kind is VerdictKind.CHECK and "throw-out-of-turn" in j.verdict.director
    o = opened(TrackerConfig())
    (k,) = judge(o, DiceThrown(Side.WHITE, (DieThrow(6), DieThrow(4))), seq=2)
    assert k.verdict.kind is VerdictKind.INFRACTION and k.verdict.code is Infraction.THROW_OUT_OF_TURN


def test_a_double_by_the_player_not_on_roll_from_real_vision_is_asked_the_oracle_calls_it() -> None:
    """7243 s5g: after a premature throw, the cube read turned was sent as WHITE's double on BLACK's turn and
    called "double not allowed" (a false alarm): the real-vision tracker sends a double for the player it takes
    to be on roll, so the laws naming the other is their record out of step.  Asked; the oracle still calls it."""
    s = opened(REAL)
    (j,) = judge(s, CubeOffered(Side.WHITE, 2), seq=2)
    assert j.verdict.kind is VerdictKind.CHECK and "double-not-allowed" in j.verdict.director
    assert s.stats.infractions == 0
    o = opened(TrackerConfig())
    (k,) = judge(o, CubeOffered(Side.WHITE, 2), seq=2)
    assert k.verdict.kind is VerdictKind.INFRACTION and k.verdict.code is Infraction.DOUBLE_NOT_ALLOWED
