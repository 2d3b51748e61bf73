"""Scenes of real vision reading a throw only in part, shared by the tests of half-read throws and of phantom dice:
the set-up, WHITE's opening 5-3 read whole and played, the real-vision tracker and a session run over a script."""

from __future__ import annotations

from dataclasses import replace

from referee.session import Session, SessionInfo
from referee.tracker import TrackerConfig
from rules.notation import parse_play
from rules.position import Position, Side
from tests.referee.scenes import B_SPOTS, W_SPOTS, Script, die
from vision.geometry import Area
from vision.observation import DieReading

START = Position.initial()
REAL = TrackerConfig.for_real_vision("near", count_confidence=0.9)
P1 = parse_play("8/3 6/3", START, (5, 3)).after  # WHITE opens 5-3


def sure(face: int, area: Area, xy: tuple[float, float]) -> DieReading:
    """A die read as the reader reads a clear one (face at 0.9995)."""
    return replace(die(face, area, xy), face_confidence=0.9995)


def opened() -> Script:
    """The set-up, WHITE's opening 5-3 (8/3 6/3) read whole and played."""
    s = Script().show(START)
    s.show(START, (sure(5, Area.RIGHT_TABLE, W_SPOTS[0]), sure(3, Area.LEFT_TABLE, B_SPOTS[0])))
    return s.show(P1)


def run(script: Script) -> Session:
    ses = Session.start(SessionInfo(), None, tracker_config=REAL, evidence=False)
    for obs in script:
        ses.process(obs)
    ses.flush()
    return ses


def calls(ses: Session) -> list[tuple[str, Side | None]]:
    return [(j.verdict.code.value, j.verdict.offender) for j in ses.infractions if j.verdict.code is not None]
