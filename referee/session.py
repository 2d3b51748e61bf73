"""One refereed session: tracker -> laws -> journal, device, evidence, status.

:meth:`Session.process` takes one observation (and the camera image it came from) and does
everything that follows from it, in order: the tracker's events are judged by the laws
machine; one journal record holds the events, their verdicts and the tracker's state after
them (so a record is all or nothing); infractions go to the device and get evidence images;
the status view is updated.

Resuming (:meth:`Session.resume`) reads the journal back, feeds every journalled event to a
fresh laws machine (the machine is deterministic, so it comes back to exactly the same
position, cube, score and turn), checks each verdict against the one journalled, and restores
the tracker's state from the last record.  Nothing is signalled again.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from referee.codec import decode_event, encode_event, encode_verdict
from referee.evidence import EvidenceError, EvidenceWriter, Mark, evidence_dir
from referee.journal import FORMAT, VERSION, Journal, JournalError, JournalFull, read_journal
from referee.signals import check_signal, signal_for
from referee.tracker import (
    Emitted,
    Tracker,
    TrackerConfig,
    TrackerState,
    board_alternatives,
    board_of,
    doubt_with,
)
from referee.tracker import Phase as TPhase
from rules.laws.codes import RuleSet, resolve
from rules.laws.events import CubeOffered, DiceThrown, GameSetUp, PositionObserved
from rules.laws.machine import BoardMachine, Phase
from rules.laws.verdicts import Infraction, PlayersView, Verdict, VerdictKind
from rules.position import Side
from vision.observation import BoardObservation


class SignalSink(Protocol):
    """What the session needs of a device (``firmware_bridge.device.Device`` fits)."""

    def signal(self, signal: Any) -> None: ...

    def clear(self) -> None: ...


@dataclass(frozen=True, slots=True)
class SessionInfo:
    """What a session was started with (the journal's first record)."""

    players: tuple[str, str] = ("White", "Black")
    match_length: int = 0  # 0: money play
    laws: str = "modern"
    source: str = ""
    profile: str = ""
    home_on_right: bool = True  # WHITE's home board lies to WHITE's right ("light on the right")
    white_seat: str = "near"  # the long side WHITE sits at, as the calibration names it (near/far)

    def tracker_config(self) -> TrackerConfig:
        return TrackerConfig.for_seating(self.white_seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "players": list(self.players),
            "match_length": self.match_length,
            "laws": self.laws,
            "source": self.source,
            "profile": self.profile,
            "home_on_right": self.home_on_right,
            "white_seat": self.white_seat,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SessionInfo:
        try:
            a, b = d["players"]
            return cls((str(a), str(b)), int(d["match_length"]), str(d["laws"]), str(d.get("source", "")),
                       str(d.get("profile", "")), bool(d.get("home_on_right", True)),
                       str(d.get("white_seat", "near")))
        except (KeyError, TypeError, ValueError) as exc:
            raise JournalError(f"the journal's session record is incomplete: {d!r} ({exc})") from exc


@dataclass(frozen=True, slots=True)
class Judged:
    """One event and the laws' verdict on it."""

    emitted: Emitted
    verdict: Verdict
    game: int
    move: int


ALERTS_KEPT = 10_000
"""Alerts whose timing is kept for the latency figures (the oldest are dropped)."""


@dataclass
class Stats:
    observations: int = 0
    events: int = 0
    infractions: int = 0
    checks: int = 0
    # (seq, wall time of the signal) of the latest alerts: bounded, so a long session does not grow
    alerts: deque[tuple[int, float]] = field(default_factory=lambda: deque(maxlen=ALERTS_KEPT))
    journal_problem: str = ""
    evidence_problem: str = ""


class Session:
    """The referee for one board.  Build with :meth:`start` or :meth:`resume`."""

    def __init__(self, info: SessionInfo, rules: RuleSet, machine: BoardMachine, tracker: Tracker,
                 journal: Journal | None, *, device: SignalSink | None = None, evidence: bool = True,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self.info = info
        self.rules = rules
        self.machine = machine
        self.tracker = tracker
        self.journal = journal
        self.device = device
        self.evidence = EvidenceWriter(evidence_dir(journal.path)) if (journal is not None and evidence) else None
        self.stats = Stats()
        self.judged: list[Judged] = []  # the last few, for the status view
        self.infractions: list[Judged] = []
        self.listeners: list[Callable[[Judged], None]] = []
        # draws what is at fault on the evidence image (referee.marks.marker_for(profile))
        self.marker: Callable[[Judged, BoardObservation | None], list[Mark]] | None = None
        self._clock = clock
        self._previous_image: np.ndarray | None = None
        self._signalled = False

    # ------------------------------------------------------------------ construction
    @classmethod
    def start(cls, info: SessionInfo, journal_path: str | Path | None, *, device: SignalSink | None = None,
              tracker_config: TrackerConfig | None = None, evidence: bool = True) -> Session:
        rules = resolve(info.laws)
        machine = BoardMachine(rules, match_length=info.match_length, players=info.players)
        journal = None
        if journal_path is not None:
            journal = Journal.open(journal_path)
            journal.append("session", info.to_json())
        return cls(info, rules, machine, Tracker(tracker_config or info.tracker_config()), journal, device=device,
                   evidence=evidence)

    @classmethod
    def resume(cls, journal_path: str | Path, *, device: SignalSink | None = None,
               tracker_config: TrackerConfig | None = None, evidence: bool = True) -> Session:
        contents = read_journal(journal_path)
        if not contents.records or contents.records[0].kind != "session":
            raise JournalError(f"{journal_path}: not a bgref session journal (no session record first)")
        info = SessionInfo.from_json(contents.records[0].data)
        rules = resolve(info.laws)
        machine = BoardMachine(rules, match_length=info.match_length, players=info.players)
        state = TrackerState()
        infractions = 0
        for rec in contents.of_kind("observation"):
            for item in rec.data["events"]:
                v = presented(machine.feed(decode_event(item["event"])), bool(item.get("unsure")))
                infractions += v.kind is VerdictKind.INFRACTION
                if len(machine.verdicts) > 2000:
                    del machine.verdicts[:-200]
                if v.kind.value != item["verdict"]["kind"]:
                    raise JournalError(f"{journal_path}: record {rec.n}: the laws now judge {v.summary()!r}, "
                                       f"the journal says {item['verdict']['kind']!r} (laws changed since?)")
            state = TrackerState.from_json(rec.data["tracker"])
        journal = Journal.open(journal_path, resume=True)
        s = cls(info, rules, machine, Tracker(tracker_config or info.tracker_config(), state), journal,
                device=device, evidence=evidence)
        s.stats.infractions = infractions
        journal.append("resume", {"after_seq": state.seq, "torn_tail": contents.torn_tail,
                                  "snapshot": s.snapshot()})
        return s

    # ------------------------------------------------------------------ state
    @property
    def last_seq(self) -> int:
        """The last observation the tracker has seen (a replay resumes after it)."""
        return self.tracker.state.seq

    def snapshot(self) -> dict[str, Any]:
        """Where the game stands: for the journal, the status view and the tests."""
        m = self.machine
        cube = m.cube
        return {
            "phase": m.phase.value,
            "game": self.tracker.state.game,
            "move": self.tracker.state.move,
            "position": m.position.gnubg_id() if not m.position.problems() else m.position.text(),
            "on_roll": None if m.on_roll is None else m.on_roll.letter,
            "dice": None if m.dice is None else str(m.dice),
            "cube": {"value": cube.value, "owner": None if cube.owner is None else cube.owner.letter},
            "score": list(m.match.score),
            "match_length": m.match.length,
            "crawford": m.crawford_game,
        }

    # ------------------------------------------------------------------ the work
    def flush(self, t: float = 0.0) -> list[Judged]:
        """The end of the stream: a play the tracker still holds goes on record (referee.tracker.Tracker.flush)."""
        emitted = self.tracker.flush(t)
        if not emitted:
            return []
        obs = BoardObservation.from_position(self.machine.position, seq=self.tracker.state.seq, t=t)
        return self._judge(emitted, obs, None)

    def process(self, obs: BoardObservation, image: np.ndarray | None = None) -> list[Judged]:
        """Everything that follows from one observation.  Never raises for a full disk."""
        self.stats.observations += 1
        emitted = self.tracker.feed(obs)
        if not emitted:
            if image is not None and obs.still:
                self._previous_image = image
            return []
        return self._judge(emitted, obs, image)

    def _judge(self, emitted: list[Emitted], obs: BoardObservation, image: np.ndarray | None) -> list[Judged]:
        out: list[Judged] = []
        items = []
        for e in emitted:
            e = self._in_step(e)
            found = self.machine.feed(e.event)
            if self._out_of_step(found) or self._offer_out_of_turn(e, found):
                e = _asked_out_of_step(e)
            v = presented(found, e.unsure)
            cube = self.machine.cube
            self.tracker.set_cube_law(cube.shown, "middle" if cube.owner is None else cube.owner.name.lower(),
                                      void_offer=isinstance(e.event, CubeOffered) and v.kind is not VerdictKind.OK)
            j = Judged(e, v, self.tracker.state.game, self._move_of(e))
            out.append(j)
            items.append({"event": encode_event(e.event), "verdict": encode_verdict(v), "points": list(e.points),
                          "unsure": e.unsure, "note": e.note})
        self._sync_tracker()
        if len(self.machine.verdicts) > 2000:  # the journal keeps every verdict: memory stays flat
            del self.machine.verdicts[:-200]
        for j in out:  # the device first: an alert never waits for the disk (fsync) or the evidence JPEGs
            self._signal(j, obs)
        self._write("observation", {"seq": obs.seq, "t": obs.t, "events": items,
                                    "tracker": self.tracker.state.to_json(), "snapshot": self.snapshot()})
        for j in out:
            self._emit(j, obs, image)
        if image is not None:
            self._previous_image = image
        self.stats.events += len(out)
        self.judged = (self.judged + out)[-20:]
        return out

    def _move_of(self, e: Emitted) -> int:
        """The move an event belongs to: a void or early throw belongs to the next move."""
        st = self.tracker.state
        if isinstance(e.event, DiceThrown) and (st.phase is TPhase.VOID_THROW or e.event.player is not st.turn):
            return st.move + 1
        return st.move

    def _sync_tracker(self) -> None:
        """Keep the tracker's idea of whose turn it is, and (real vision) of the board the laws have, in line
        with the laws."""
        m = self.machine
        st = self.tracker.state
        if (m.on_roll is not None and m.phase is Phase.TURN and st.turn is not m.on_roll and st.dice is None
                and st.hold is None):  # (a play the tracker still holds has not reached the laws yet)
            self.tracker.state = replace(st, turn=m.on_roll)
            st = self.tracker.state
        if (self.tracker.config.judge is not None and m.phase in (Phase.TURN, Phase.CUBE) and st.sent is not None
                and st.dice is None and st.hold is None and m.restore_to is None
                and board_of(m.position) != st.sent):
            # the laws refused a board the tracker sent (an amendment not applied: 7232 s5f, a play held
            # illegal by the laws): the tracker's next play is judged from the board the laws have, so it
            # is put in step and asked about, never called from a board the laws do not have
            laws = board_of(m.position)
            self.tracker.state = replace(st, sent=laws, known=False, last=None,
                                         doubt=doubt_with(st.doubt, laws, board_alternatives(st.sent, laws)))

    def _out_of_step(self, v: Verdict) -> bool:
        """Real vision: the laws call a throw out of turn or checkers moved without a throw.

        The real-vision tracker never sends a board change without a throw (it asks about one) and sends
        a throw for the player it takes to be on roll, so such a verdict says the laws' record has fallen
        out of step with the board (a throw misread or a play taken wrongly earlier: 7232 s5f): it is
        asked about, never called.
        """
        return (self.tracker.config.judge is not None and v.kind is VerdictKind.INFRACTION
                and v.code in (Infraction.MOVE_WITHOUT_THROW, Infraction.THROW_OUT_OF_TURN))

    def _offer_out_of_turn(self, e: Emitted, v: Verdict) -> bool:
        """Real vision: the laws find a double not allowed because its player is not on roll.

        The real-vision tracker sends a cube turned as the double of the player it takes to be on roll, so
        the laws naming another player on roll means their record and the tracker's are out of step (7243
        s5g: after a premature throw, white's "double" called not allowed on black's turn): asked, never
        called.  A double the cube, the Crawford rule or the code of laws forbids is still called.
        """
        m = self.machine
        return (self.tracker.config.judge is not None and v.kind is VerdictKind.INFRACTION
                and v.code is Infraction.DOUBLE_NOT_ALLOWED and isinstance(e.event, CubeOffered)
                and (m.phase is not Phase.TURN or e.event.player is not m.on_roll))

    def _in_step(self, e: Emitted) -> Emitted:
        """Real vision: a board the laws would take for checkers moved without a throw is not applied.

        The tracker sends a board after a throw, a correction or a resynchronisation, never one moved
        without a throw; the laws finding one means their record is out of step with the board (7232 s5f:
        an amendment the laws refused, then a correction judged from a board they did not have, then every
        later change called as moved without a throw).  The board is sent as unsure (asked, not applied):
        the tracker's next play is judged from the board the laws have (see _sync_tracker).
        """
        m = self.machine
        if (self.tracker.config.judge is None or not isinstance(e.event, PositionObserved) or e.event.uncertain
                or m.phase in (Phase.PLAY, Phase.GAME_OVER, Phase.SETUP)):
            return e
        if not m.moved_without_throw(e.event.position):  # (a query on the laws: nothing applied)
            return e
        return _asked_out_of_step(replace(e, event=replace(e.event, uncertain=True)))

    def _write(self, kind: str, data: dict[str, Any]) -> None:
        if self.journal is None:
            return
        try:
            self.journal.append(kind, data)
            self.stats.journal_problem = ""
        except JournalFull as exc:
            self.stats.journal_problem = str(exc.strerror or exc)
        if self.journal.held:
            self.stats.journal_problem = (f"disk full: {self.journal.held} journal record(s) held in memory; "
                                          "the game goes on")

    def _signal(self, j: Judged, obs: BoardObservation) -> None:
        v = j.verdict
        thrower = j.emitted.event.player if isinstance(j.emitted.event, DiceThrown) else None
        sig = signal_for(v, home_on_right=self.info.home_on_right, thrower=thrower)
        if sig is None and j.emitted.unsure and j.emitted.points:
            sig = check_signal(j.emitted.points, home_on_right=self.info.home_on_right)
        if self.device is not None:
            if sig is not None:
                self.device.signal(sig)
                self._signalled = True
                self.stats.alerts.append((obs.seq, self._clock()))
            elif self._signalled and v.ok and isinstance(j.emitted.event, DiceThrown | GameSetUp):
                self.device.clear()  # a new throw (or game) ends the previous alert
                self._signalled = False
        elif sig is not None:
            self.stats.alerts.append((obs.seq, self._clock()))

    def _emit(self, j: Judged, obs: BoardObservation, image: np.ndarray | None) -> None:
        v = j.verdict
        if v.kind is VerdictKind.INFRACTION:
            self.stats.infractions += 1
            self.infractions = [*self.infractions[-49:], j]
        elif v.kind is VerdictKind.CHECK:
            self.stats.checks += 1
        if v.kind is VerdictKind.INFRACTION and image is not None and self.evidence is not None:
            self._evidence(j, image, obs)
        for listener in self.listeners:
            listener(j)

    def _evidence(self, j: Judged, image: np.ndarray, obs: BoardObservation | None = None) -> None:
        assert self.evidence is not None
        v = j.verdict
        kind = v.code.value if v.code is not None else "infraction"
        marks = list(self.marker(j, obs)) if self.marker is not None else []
        caption = f"game {j.game} move {j.move}: {v.players.text}"
        if v.citation is not None:
            caption += f" [{v.citation.code} {v.citation.rule}]"
        try:
            files = self.evidence.save(game=j.game, move=j.move, kind=kind, frame=image,
                                       before=self._previous_image, marks=marks, caption=caption)
            self._write("evidence", {"at": files.at.name, "before": files.before.name if files.before else None,
                                     "code": kind, "game": j.game, "move": j.move})
            self.stats.evidence_problem = ""
        except EvidenceError as exc:
            self.stats.evidence_problem = str(exc)

    def note(self, kind: str, **data: Any) -> None:
        """Journal a session note (a fault, an export, the end)."""
        self._write(kind, data)

    def close(self) -> None:
        if self.journal is not None:
            with contextlib.suppress(JournalFull):
                self.journal.flush_held()
            self.journal.close()


_OUT_OF_STEP_NOTE = "the laws' record is out of step with the board: please check"


def _asked_out_of_step(e: Emitted) -> Emitted:
    """``e`` asked about (unsure), its note saying the laws' record is out of step with the board."""
    return replace(e, unsure=True, note=(e.note + "; " if e.note else "") + _OUT_OF_STEP_NOTE)


def presented(v: Verdict, unsure: bool) -> Verdict:
    """The verdict as the referee gives it: never an accusation on an unsure reading.

    The laws judged the likeliest reading (the tracker's resolution of an unsure one); if that
    reading is an infraction, the players are asked to check instead, and the director's record
    says what the laws found.
    """
    if not unsure or v.kind is not VerdictKind.INFRACTION:
        return v
    code = v.code.value if v.code is not None else "an infraction"
    return Verdict(VerdictKind.CHECK, v.event, ask=f"Please check the board: the camera was not sure ({code}?).",
                   players=PlayersView("Please check the board", points=v.players.points),
                   director=f"not called, the reading was unsure: the laws found {v.summary()}")


def side_name(info: SessionInfo, side: Side | None) -> str:
    return "-" if side is None else info.players[side]
