"""Refereeing rendered games: the simulator as the camera, with its scripted infractions as the key.

:func:`referee_game` plays one :class:`vision.sim.game.GameDirector` game through a reader (the
renderer's ground truth — the oracle — by default, or the real vision) and a
:class:`~referee.session.Session`, and scores the referee against what the director staged:

* every seeded infraction must be answered by an infraction verdict with the law code the
  script breaks (``vision.sim.game.expected_code``) against the side that committed it, at or
  after the frame where it happened and before the next seeded one: *caught*; the wrong code or
  side is *misnamed*; nothing is *missed*;
* every other infraction verdict is a *false alarm*; requests to check are counted apart;
* the latency of each catch, from the first still frame showing the infraction to the verdict
  (in frames, and in wall time when a device stamps its arrival: the benchmark does that);
* the match the laws recorded is compared with the game the director played, play by play.

Used by the acceptance test, ``bgref demo`` and ``bgref bench referee``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from referee.session import Judged, Session, SessionInfo
from referee.tracker import TrackerConfig
from rules.laws.verdicts import VerdictKind
from rules.position import Side
from rules.record import MatchRecord, Move
from vision.geometry import HomeEnd, Seating
from vision.observation import BoardObservation
from vision.sim.game import INFRACTIONS, GameDirector, GameScript, PlayedMove, Seeded, Timing

__all__ = [
    "Catch",
    "GameScore",
    "RealVision",
    "SimFrame",
    "oracle_reader",
    "referee_game",
    "schedule",
    "score_game",
    "session_info_for",
    "sim_frames",
]


@dataclass(frozen=True, slots=True)
class SimFrame:
    """A rendered frame with its ground truth and the board's seating (what the sim camera knows)."""

    image: np.ndarray
    t: float
    seq: int
    truth: dict[str, Any]
    seating: Seating


def sim_frames(director: GameDirector, *, stride: int = 1) -> Iterator[SimFrame]:
    """The director's frames as :class:`SimFrame` (every ``stride``-th one)."""
    for k, (img, truth) in enumerate(director.frames()):
        if k % stride == 0:
            yield SimFrame(img, float(truth["t"]), int(truth["seq"]), truth, director.seating)


def oracle_reader(frame: Any) -> BoardObservation:
    """The observation a perfect vision would make of a rendered frame (``vision.sim.truth``)."""
    from vision.sim.truth import Truth, truth_to_observation

    truth = getattr(frame, "truth", None)
    if truth is None:
        raise ValueError(f"frame {getattr(frame, 'seq', '?')} has no ground truth (the oracle needs rendered frames)")
    return truth_to_observation(truth if isinstance(truth, Truth) else Truth.from_json(truth))


class RealVision:
    """The real reader (:class:`vision.reader.BoardReader`) as the referee's reader of rendered frames.

    The profile is the renderer's exact camera (``vision.training.rendered.profile_for``, read from
    the first frame's truth) unless one is given: it measures vision and the referee, not
    calibration.  The truth beside each frame is never looked at after that.

    One guard around the reader's motion gate (``vision.motion.MotionGate``): the gate judges a
    hand by skin colour *that differs from its reference*, and renews the reference only on still
    frames without such skin.  A skin-coloured object that comes to rest (a die, a light checker)
    therefore reads as a hand for ever, and the reader never reads the board again.  So the
    adapter keeps its own pixel-change count on the same small copy of the frame; when nothing at
    all has changed for ``rest_frames`` frames (the gate's ``still_frames``) while the reader still reports covered regions, it
    reads the frame with :meth:`BoardReader.read_image` (no motion history: a real hand is left to
    the slot model, which never reads a slot under a hand), and keeps that reading until something
    moves.  ``stats`` counts how often that happened (``rescued``).
    """

    def __init__(self, reader: Any = None, profile: Any = None, *, rest_frames: int | None = None) -> None:
        if reader is None:
            from vision.reader import BoardReader

            reader = BoardReader()
        self.reader = reader
        self.profile = profile
        # as long as the reader's own gate waits before a full reading
        self.rest_frames = int(reader.config.still_frames) if rest_frames is None else rest_frames
        self.stats: dict[str, float] = {"frames": 0, "full": 0, "rescued": 0, "read_ms": 0.0}
        self._small: np.ndarray | None = None
        self._regions: Any = None
        self._rest = 0
        self._held: BoardObservation | None = None

    @property
    def count_confidence(self) -> float:
        """The reader's own confidence threshold for a count (the tracker should use it)."""
        return float(self.reader.config.count_min_confidence)

    def _quiet(self, image: np.ndarray) -> bool:
        """Nothing moved for ``rest_frames`` frames: the gate's own test (any board region with more
        than ``motion_fraction`` of its pixels changed, or the whole frame), without the skin test."""
        import cv2

        from vision.motion import RegionMap, region_fractions, shrink

        cfg = self.reader.config
        if self._regions is None:
            self._regions = RegionMap.build(self.profile, cfg)
        small = shrink(image, self._regions.scale)
        if small.shape[:2] != self._regions.labels.shape:
            small = cv2.resize(small, self._regions.labels.shape[::-1], interpolation=cv2.INTER_AREA)
        grey = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small
        prev, self._small = self._small, grey
        if prev is None or prev.shape != grey.shape:
            self._rest = 0
            self._held = None
            return False
        changed = cv2.absdiff(grey, prev) > cfg.motion_threshold
        moving = bool((region_fractions(changed, self._regions)[1:] > cfg.motion_fraction).any())
        if moving or float(changed.mean()) > cfg.motion_fraction:
            self._rest = 0
            self._held = None
        else:
            self._rest += 1
        return self._rest >= self.rest_frames

    def __call__(self, frame: Any) -> BoardObservation:
        import time
        from dataclasses import replace

        if self.profile is None:
            from vision.training.rendered import profile_for

            self.profile = profile_for(frame.truth)
        t0 = time.perf_counter()
        quiet = self._quiet(frame.image)
        obs: BoardObservation = self.reader.read(frame, self.profile)
        if not obs.still and obs.covered and quiet:
            if self._held is None:
                self._held = self.reader.read_image(frame.image, self.profile, seq=frame.seq, t=frame.t)
                self.stats["rescued"] += 1
                self.stats["full"] += 1
            obs = replace(self._held, seq=frame.seq, t=frame.t)
        elif any(k == "checkers" for k, _ in obs.timings_ms):
            self.stats["full"] += 1
        self.stats["frames"] += 1
        self.stats["read_ms"] += (time.perf_counter() - t0) * 1000.0
        return obs


def session_info_for(seating: Seating, **kw: Any) -> SessionInfo:
    """A session seated as the board is: WHITE's long side and home end."""
    return SessionInfo(white_seat=seating.white.value, home_on_right=seating.white_home is HomeEnd.RIGHT, **kw)


def schedule(per_kind: int, every: int, *, kinds: tuple[str, ...] = INFRACTIONS, offset: int = 2
             ) -> tuple[tuple[str, int], ...]:
    """A script staging ``per_kind`` of each kind, one every ``every`` turns, kinds interleaved."""
    out: list[tuple[str, int]] = []
    turn = offset
    for _ in range(per_kind):
        for k in kinds:
            out.append((k, turn))
            turn += every
    return tuple(out)


@dataclass(frozen=True, slots=True)
class Catch:
    seeded: Seeded
    verdict_seq: int | None  # the frame whose observation produced the verdict (None: missed)
    code: str | None  # what the laws called it
    offender: Side | None
    visible_seq: int | None  # the first still frame at or after the infraction
    wall_s: float | None = None  # when the verdict was reached (perf_counter), if stamped
    asked: bool = False  # the players were asked to check in the infraction's window (real vision)

    @property
    def caught(self) -> bool:
        return self.code == self.seeded.code and self.offender is self.seeded.side

    @property
    def latency_frames(self) -> int | None:
        if self.verdict_seq is None or self.visible_seq is None:
            return None
        return self.verdict_seq - self.visible_seq


@dataclass
class GameScore:
    seed: int
    turns: int = 0
    frames: int = 0
    catches: list[Catch] = field(default_factory=list)
    false_alarms: list[Judged] = field(default_factory=list)
    checks: list[Judged] = field(default_factory=list)
    resolved: list[Judged] = field(default_factory=list)  # applied as the likeliest reading, marked unsure
    played: list[PlayedMove] = field(default_factory=list)
    recorded: list[tuple[Side, tuple[int, int], str]] = field(default_factory=list)
    winner: Side | None = None
    match: MatchRecord | None = None  # what the laws recorded (what the exports write)

    @property
    def seeded(self) -> int:
        return len(self.catches)

    @property
    def caught(self) -> int:
        return sum(c.caught for c in self.catches)

    @property
    def missed(self) -> list[Catch]:
        return [c for c in self.catches if not c.caught]

    @property
    def record_matches(self) -> bool:
        return [(m.side, _dice_key(m.dice), m.notation) for m in self.played] == self.recorded

    def by_kind(self) -> dict[str, tuple[int, int]]:
        out: dict[str, tuple[int, int]] = {}
        for c in self.catches:
            n, k = out.get(c.seeded.kind, (0, 0))
            out[c.seeded.kind] = (n + 1, k + int(c.caught))
        return out


class Staged(Protocol):
    """What the scoring reads of a game as it was played (a :class:`GameDirector`, or a recording)."""

    turn_no: int
    seq: int
    record: list[PlayedMove]
    winner: Side | None
    seeded: list[Seeded]


def score_game(seed: int, director: Staged, judged: list[tuple[int, Judged, float]],
               still_seqs: list[int], session: Session) -> GameScore:
    """Match the verdicts (with the seq of the observation behind each) against the seeded infractions."""
    import bisect

    score = GameScore(seed, director.turn_no, director.seq, played=list(director.record), winner=director.winner)
    infr = [(seq, j, w) for seq, j, w in judged if j.verdict.kind is VerdictKind.INFRACTION]
    score.checks = [j for _, j, _ in judged if j.verdict.kind is VerdictKind.CHECK]
    score.resolved = [j for _, j, _ in judged if j.emitted.unsure and j.verdict.kind is not VerdictKind.CHECK]
    used: set[int] = set()
    asks = [seq for seq, j, _ in judged if j.verdict.kind is VerdictKind.CHECK or (j.emitted.unsure and j.emitted.points)]
    seeded = sorted(director.seeded, key=lambda s: s.seq)
    for n, s in enumerate(seeded):
        until = seeded[n + 1].seq if n + 1 < len(seeded) else 1 << 60
        asked = any(s.seq <= q < until for q in asks)
        k = bisect.bisect_left(still_seqs, s.seq)
        visible = still_seqs[k] if k < len(still_seqs) else None
        hit: tuple[int, int, Judged, float] | None = None
        for i, (seq, j, w) in enumerate(infr):
            if i in used or seq < s.seq or seq >= until:
                continue
            code = j.verdict.code.value if j.verdict.code is not None else None
            if hit is None or (code == s.code and j.verdict.offender is s.side):
                hit = (i, seq, j, w)
                if code == s.code and j.verdict.offender is s.side:
                    break
        if hit is None:
            score.catches.append(Catch(s, None, None, None, visible, asked=asked))
            continue
        i, seq, j, w = hit
        used.add(i)
        code = j.verdict.code.value if j.verdict.code is not None else None
        score.catches.append(Catch(s, seq, code, j.verdict.offender, visible, w, asked))
    score.false_alarms = [j for i, (_, j, _) in enumerate(infr) if i not in used]
    rec = session.machine.match_record()
    score.match = rec
    for game in rec.games:
        for a in game.actions:
            if isinstance(a, Move):
                score.recorded.append((a.player, _dice_key(a.dice), a.play))
    return score


def referee_game(
    seed: int,
    *,
    script: GameScript,
    laws: str = "modern",
    width: int = 320,
    height: int = 180,
    timing: Timing | None = None,
    pixels: bool = False,
    stride: int = 1,
    reader: Callable[[Any], BoardObservation] | None = None,
    session: Session | None = None,
    on_frame: Callable[[SimFrame, list[Judged]], None] | None = None,
    clock: Callable[[], float] | None = None,
    clean: bool = True,
) -> GameScore:
    """Referee one rendered game; return how the referee did against the script.

    With a :class:`RealVision` reader the frames are rendered (``pixels`` forced on) and the
    tracker uses :meth:`TrackerConfig.for_real_vision` with the reader's own count threshold.
    ``clean=False`` renders with the simulator's sensor noise and drift (as the demo does).
    """
    import time

    from vision.sim.config import SimConfig

    real = reader if isinstance(reader, RealVision) else None
    pixels = pixels or real is not None
    director = GameDirector(seed, script=script, cfg=SimConfig.clean() if clean else SimConfig(), width=width,
                            height=height, timing=timing, pixels=pixels)
    if session is None:
        info = session_info_for(director.seating, laws=laws, source=f"sim:{seed}")
        tcfg = TrackerConfig.for_real_vision(info.white_seat, real.count_confidence) if real is not None else None
        session = Session.start(info, None, evidence=False, tracker_config=tcfg)
    read = reader or oracle_reader
    now = clock or time.perf_counter
    judged: list[tuple[int, Judged, float]] = []
    still: list[int] = []
    for frame in sim_frames(director, stride=stride):
        obs = read(frame)
        if frame.truth.get("still"):
            still.append(frame.seq)
        out = session.process(obs, frame.image if pixels else None)
        w = now()
        judged += [(frame.seq, j, w) for j in out]
        if on_frame is not None:
            on_frame(frame, out)
    judged += [(director.seq, j, now()) for j in session.flush()]
    return score_game(seed, director, judged, still, session)


def _dice_key(dice: Any) -> tuple[int, int]:
    a, b = int(dice[0]), int(dice[1])
    return (max(a, b), min(a, b))
