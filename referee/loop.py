"""The live loop: read -> process -> emit, and nothing slow in the camera's way.

:func:`run_loop` pulls frames from a source, turns each into an observation with ``reader``
(the real :class:`vision.BoardReader`, or an oracle in tests) and hands it to the
:class:`~referee.session.Session`.  It is generic over both, so any camera and any reader
drop in.

* **Live** (``live=True``): a grabber thread reads the camera as fast as it delivers and keeps
  only the newest frame; a frame replaced before the referee got to it is *dropped* and
  counted.  The camera is never stalled by vision, the laws, the journal or the device (the
  device has its own threads and a bounded outbox).
* **Replay** (``live=False``): every frame is processed, as fast as it can go; frames up to
  ``skip_through`` (the last one a resumed journal had seen) are passed over unread.

Faults never lose the game: a corrupt frame is counted and skipped; a camera that goes away
is reopened with backoff when ``reopen`` is given (otherwise the loop ends with a clear
message, the journal intact, ready for ``--resume``); the end of a video ends the loop.
Everything is released in ``finally``.
"""

from __future__ import annotations

import contextlib
import queue
import resource
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from referee.session import Session
from vision.observation import BoardObservation


class FrameLike(Protocol):
    @property
    def image(self) -> np.ndarray: ...
    @property
    def t(self) -> float: ...
    @property
    def seq(self) -> int: ...


Reader = Callable[[Any], BoardObservation]


class CorruptFrameError(ValueError):
    """A frame that cannot be read (wrong size, empty, undecodable)."""


@dataclass
class LoopStats:
    frames: int = 0  # frames delivered by the camera
    processed: int = 0  # frames read and judged
    dropped: int = 0  # frames the referee could not get to in time (live)
    skipped: int = 0  # frames passed over on resume
    corrupt: int = 0  # frames the camera delivered broken (no image, wrong shape)
    unread: int = 0  # frames vision failed on (ValueError from the reader)
    vision_error: str = ""  # the last such failure
    camera_faults: int = 0
    elapsed_s: float = 0.0
    read_ms: list[float] = field(default_factory=list)  # per full reading (the last few hundred)
    gate_ms: deque[float] = field(default_factory=lambda: deque(maxlen=300))  # per gated frame (last 300)
    full_reads: int = 0
    rescued: int = 0  # scenes read although the gate kept them covered (GatedReader.rescue)
    message: str = ""  # the last fault, in words
    ended: str = ""  # why the loop ended

    def note_read(self, ms: float) -> None:
        self.read_ms.append(ms)
        if len(self.read_ms) > 300:
            del self.read_ms[:100]

    @property
    def fps(self) -> float:
        return self.processed / self.elapsed_s if self.elapsed_s > 0 else 0.0


def _check_frame(frame: Any) -> None:
    img = getattr(frame, "image", None)
    if img is None or not isinstance(img, np.ndarray) or img.ndim != 3 or img.size == 0:
        shape = None if img is None else getattr(img, "shape", type(img).__name__)
        raise CorruptFrameError(f"corrupt frame {getattr(frame, 'seq', '?')}: image {shape}")


class _Grabber:
    """Reads the camera on its own thread, keeping only the newest frame."""

    def __init__(self, frames: Iterator[Any], stats: LoopStats) -> None:
        self._frames = frames
        self._stats = stats
        self._cond = threading.Condition()
        self._slot: Any = None
        self._done = False
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bgref-grabber", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for f in self._frames:
                with self._cond:
                    self._stats.frames += 1
                    if self._slot is not None:
                        self._stats.dropped += 1
                    self._slot = f
                    self._cond.notify()
                    if self._done:
                        return
        except BaseException as exc:  # handed to the loop's thread
            self.error = exc
        finally:
            with self._cond:
                self._done = True
                self._cond.notify()

    def take(self, timeout: float) -> Any:
        """The newest frame; None when the source has ended (or nothing came in ``timeout``)."""
        with self._cond:
            self._cond.wait_for(lambda: self._slot is not None or self._done, timeout)
            f, self._slot = self._slot, None
            return f

    @property
    def done(self) -> bool:
        with self._cond:
            return self._done and self._slot is None

    def stop(self) -> None:
        with self._cond:
            self._done = True
        self._thread.join(timeout=2)


# ---------------------------------------------------------------------- the gated pipeline
@dataclass(eq=False)
class Job:
    """A full reading of one settled frame, done on the worker thread."""

    image: np.ndarray
    seq: int
    t: float
    covered: frozenset[str]
    done: threading.Event = field(default_factory=threading.Event)
    obs: BoardObservation | None = None
    paused: bool = False  # the board was not where the profile says: not judged
    error: BaseException | None = None
    cancelled: bool = False  # superseded before the worker got to it (live): its frames are dropped
    ms: float = 0.0


@dataclass(frozen=True, slots=True)
class Slot:
    """One frame's place in the queue to the session: its gate report, or the full reading it waits for."""

    seq: int
    t: float
    gate_ms: float
    report: Any = None  # a vision.motion.MotionReport when the scene is not still
    job: Job | None = None
    full: bool = False  # the frame the job reads (the others reuse its reading)


class GatedReader:
    """The real reader split in two: the motion gate on the loop's thread, full readings on a worker.

    The gate (a shrunk difference and skin test, well under a millisecond at 1080p) runs on every
    frame.  A frame that moves becomes an observation at once (the last full reading, marked not
    still, moving regions covered: what :meth:`vision.BoardReader.read` gives).  The first still
    frame of a settled scene is read in full (:meth:`vision.BoardReader.read_image`) on the worker
    together with the board check (calibration's :class:`BoardTracker`: while the board is not
    where the profile says the frame is not judged, and a re-fitted profile is used from then on);
    the following still frames reuse that reading.  So the frame rate does not depend on the cost
    of a full reading, except when the scene changes.

    ``reader`` needs ``read_image(image, profile, seq=, t=, covered=, keep_cube=)`` and ``config`` (a
    :class:`vision.config.VisionConfig`); ``board_check=False`` skips the board tracker.  The full
    readings keep the last confident cube reading while no pixel the cube stage reads has changed
    (``keep_cube``: the reader's own live loop does the same).

    ``rescue`` (on by default, as the demo's ``referee.rendered.RealVision``): the gate takes a
    region as covered by a hand when skin-coloured pixels differ from its reference, and renews the
    reference only on still frames, so a skin-coloured object that comes to rest (a die, a light
    checker, a hand on the board in the very first frame), or the flicker of a few gate pixels in a
    small region, would keep the scene "not still" for ever.  When almost nothing in the whole
    frame has changed for the gate's ``still_frames`` frames, the scene is read anyway, with no
    region taken as covered (a real hand is left to the slot model, which never reads a slot under a
    hand); ``rescued`` counts those scenes.  ``rescue=False`` gives exactly ``BoardReader.read``.
    """

    def __init__(self, reader: Any, profile: Any, *, board_check: bool = True, recheck_frames: int = 3,
                 rescue: bool = True) -> None:
        self.reader = reader
        self.profile = profile
        self.config = reader.config
        self.board_check = board_check
        self.recheck_frames = recheck_frames
        self.tracker: Any = None
        self.paused = 0  # frames not judged because the board was not confirmed
        self.refits = 0
        self.status = "ok"
        self.on_refit: Callable[[Any], None] | None = None
        self._gate = self._make_gate(profile)
        self._gate_profile = profile
        self._job: Job | None = None  # the reading of the current still scene
        self._job_frames = 0
        self.rescue = rescue
        self.rescued = 0  # scenes read although the gate still reported them covered
        self._rest = 0  # frames in a row with (almost) no pixel changed
        self.builder = ObservationBuilder()

    def _make_gate(self, profile: Any) -> Any:
        from vision.motion import MotionGate, RegionMap

        return MotionGate(RegionMap.build(profile, self.config), self.config)

    # ------------------------------------------------------------------ the loop's thread
    def step(self, frame: Any) -> tuple[Slot, Job | None]:
        """Gate one frame: its slot, and a new job for the worker when the scene has just settled."""
        if self._gate_profile is not self.profile:  # re-fitted on the worker: the gate follows
            self._gate, self._gate_profile = self._make_gate(self.profile), self.profile
        t0 = time.perf_counter()
        report = self._gate.update(frame.image)
        gate_ms = (time.perf_counter() - t0) * 1000
        self._rest = self._rest + 1 if report.motion_fraction <= self.config.motion_fraction else 0
        stuck = self.rescue and not report.still and bool(report.covered) and self._rest >= self.config.still_frames
        if not report.still and not stuck:
            self._job = None
            return Slot(frame.seq, frame.t, gate_ms, report=report), None
        job = self._job
        self._job_frames += 1
        recheck = job is not None and job.done.is_set() and (job.paused or job.error is not None) \
            and self._job_frames >= self.recheck_frames
        if job is not None and not job.cancelled and not recheck:
            return Slot(frame.seq, frame.t, gate_ms, job=job), None
        job = Job(frame.image, frame.seq, frame.t, frozenset() if stuck else report.covered)
        self._job, self._job_frames = job, 0
        self.rescued += stuck
        return Slot(frame.seq, frame.t, gate_ms, job=job, full=True), job

    # ------------------------------------------------------------------ the worker's thread
    def run_job(self, job: Job) -> None:
        """The board check and the full reading of a settled frame."""
        t0 = time.perf_counter()
        try:
            if self.board_check:
                job.paused = not self._check_board(job.image, job.t)
            job.obs = self.reader.read_image(job.image, self.profile, seq=job.seq, t=job.t, covered=job.covered,
                                             keep_cube=True)
        except Exception as exc:  # handed to the loop's thread (a corrupt frame, a vision fault)
            job.error = exc
        finally:
            job.ms = (time.perf_counter() - t0) * 1000
            job.done.set()

    def _check_board(self, image: np.ndarray, t: float) -> bool:
        from calibration.config import CalibrationConfig
        from calibration.tracking import BoardTracker, TrackStatus

        if self.tracker is None:  # the first settled frame is the reference
            self.tracker = BoardTracker(self.profile, image, CalibrationConfig(track_every_n=1))
        upd = self.tracker.update(image, t)
        self.status = upd.status.value
        if upd.status is TrackStatus.REFITTED:
            self.profile = upd.profile
            self.refits += 1
            if self.on_refit is not None:
                self.on_refit(self.profile)
        if upd.status in (TrackStatus.SUSPECT, TrackStatus.LOST):
            self.paused += 1
            return False
        return True

    # ------------------------------------------------------------------ one frame, synchronously
    def __call__(self, frame: Any) -> BoardObservation:
        """Gate and (when the scene has settled) read one frame on the calling thread."""
        slot, job = self.step(frame)
        if job is not None:
            self.run_job(job)
        return self.builder.build(slot)


class ObservationBuilder:
    """Turns slots into observations in frame order (the loop's thread), keeping the last full reading."""

    def __init__(self) -> None:
        self.last: BoardObservation | None = None

    def build(self, slot: Slot) -> BoardObservation:
        from dataclasses import replace

        if slot.job is None:
            return unstill(self.last, slot.report, slot.seq, slot.t, slot.gate_ms)
        job = slot.job
        if job.error is not None:
            raise job.error
        assert job.obs is not None
        self.last = job.obs
        obs = job.obs
        if slot.full:
            obs = replace(obs, timings_ms=(("gate", round(slot.gate_ms, 3)), *obs.timings_ms))
        else:
            obs = replace(obs, seq=slot.seq, t=slot.t, timings_ms=(("gate", round(slot.gate_ms, 3)),))
        if job.paused:
            obs = replace(obs, still=False)  # not judged: the board is not confirmed
        return obs


def unstill(base: BoardObservation | None, report: Any, seq: int, t: float, gate_ms: float) -> BoardObservation:
    """The last full reading marked not still, the moving/covered regions at confidence 0
    (what :meth:`vision.BoardReader.read` gives for a frame that moves)."""
    from dataclasses import replace

    from vision.observation import CountReading

    if base is None:
        z = CountReading(0, 0, 0.0)
        base = BoardObservation(seq=seq, t=t, points=(z,) * 24, bar=z, trays=(z, z), still=False, confident=False)
    cov = report.covered

    def dim(name: str, r: CountReading) -> CountReading:
        return CountReading(r.white, r.black, 0.0) if name in cov else r

    return replace(base, seq=seq, t=t, points=tuple(dim(f"p{i + 1}", r) for i, r in enumerate(base.points)),
                   bar=dim("bar", base.bar), trays=(dim("tray_w", base.trays[0]), dim("tray_b", base.trays[1])),
                   still=False, covered=cov, confident=False, timings_ms=(("gate", round(gate_ms, 3)),))


class _Worker:
    """Runs the full readings in order on its own thread.  Live: a job still waiting when a newer
    one comes is cancelled (its scene has already changed) and its frames are dropped."""

    def __init__(self, run: Callable[[Job], None], *, live: bool) -> None:
        self._run = run
        self._live = live
        self._queue: deque[Job] = deque()
        self._busy = False
        self._closed = False
        self._cond = threading.Condition()
        self._thread = threading.Thread(target=self._loop, name="bgref-reader", daemon=True)
        self._thread.start()

    def _loop(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._queue) or self._closed)
                if self._closed:
                    return
                job = self._queue.popleft()
                self._busy = True
            try:
                self._run(job)
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()

    def submit(self, job: Job) -> None:
        with self._cond:
            if self._live:
                for old in self._queue:
                    old.cancelled = True
                    old.done.set()
                self._queue.clear()
            self._queue.append(job)
            self._cond.notify_all()

    def wait_backlog(self, limit: int, timeout: float) -> bool:
        """Wait until at most ``limit`` jobs are queued or running; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: len(self._queue) + self._busy <= limit, timeout)

    def close(self) -> None:
        with self._cond:
            self._closed = True
            for old in self._queue:
                old.cancelled = True
                old.done.set()
            self._queue.clear()
            self._cond.notify_all()
        self._thread.join(timeout=5)


class _ReadAhead:
    """Decodes the next few frames on its own thread (replay: nothing is dropped, the decoder waits)."""

    _END = object()

    def __init__(self, frames: Iterator[Any], depth: int = 4) -> None:
        self._frames = frames
        self._queue: queue.Queue[Any] = queue.Queue(maxsize=depth)
        self._stop = threading.Event()
        self.error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="bgref-decoder", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            for f in self._frames:
                while not self._stop.is_set():
                    try:
                        self._queue.put(f, timeout=0.2)
                        break
                    except queue.Full:
                        continue
                if self._stop.is_set():
                    return
        except BaseException as exc:  # handed to the loop's thread
            self.error = exc
        finally:
            with contextlib.suppress(queue.Full):
                self._queue.put(self._END, timeout=1.0)

    def __iter__(self) -> Iterator[Any]:
        while True:
            f = self._queue.get()
            if f is self._END:
                if self.error is not None:
                    raise self.error
                return
            yield f

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(queue.Empty):
            while True:
                self._queue.get_nowait()
        self._thread.join(timeout=2)



class _Continuity:
    """Keeps frame numbers (and times) increasing across a reopened camera or a new recording.

    A webcam opened again (or a second recording after ``--resume``) numbers its frames from 0; the
    tracker ignores frames it has already seen, so the new ones are shifted to follow the last.
    """

    def __init__(self, after_seq: int) -> None:
        self.last_seq = after_seq
        self.last_t: float | None = None
        self._offset: int | None = None
        self._t_offset = 0.0

    def restart(self) -> None:
        self._offset = None

    def __call__(self, frame: Any) -> Any:
        from dataclasses import fields, is_dataclass, replace

        seq = getattr(frame, "seq", None)
        if seq is None:
            return frame
        if self._offset is None:
            self._offset = max(0, self.last_seq + 1 - seq)
            t = getattr(frame, "t", None)
            self._t_offset = (self.last_t + 1 / 30 - t) if (self._offset and self.last_t is not None and t is not None
                                                             and t <= self.last_t) else 0.0
        if self._offset and is_dataclass(frame) and {"seq", "t"} <= {f.name for f in fields(frame)}:
            frame = replace(frame, seq=seq + self._offset, t=getattr(frame, "t", 0.0) + self._t_offset)  # type: ignore[type-var]
        self.last_seq = max(self.last_seq, frame.seq)
        self.last_t = getattr(frame, "t", self.last_t)
        return frame


def run_loop(
    source: Iterable[Any],
    reader: Reader,
    session: Session,
    *,
    live: bool = False,
    stop: threading.Event | None = None,
    reopen: Callable[[], Iterable[Any]] | None = None,
    on_tick: Callable[[LoopStats], None] | None = None,
    tick_s: float = 0.25,
    skip_through: int = -1,
    max_reopen_wait_s: float = 5.0,
    close: Callable[[], None] | None = None,
    on_frame: Callable[[Any], None] | None = None,
    on_observation: Callable[[BoardObservation], None] | None = None,
    continue_after: int | None = None,
) -> LoopStats:
    """Run until the source ends, ``stop`` is set, or the camera is gone for good.

    ``reader`` is a :class:`GatedReader` (the pipeline: gate here, full readings on a worker) or
    any callable frame -> observation (called here, in order).  ``on_frame`` sees every good
    frame as it is gated (the ``--show`` window), ``on_observation`` every observation in order
    just before the session judges it (``--record-observations``).

    ``skip_through``: frames numbered up to it are passed over (replaying the same recording after
    ``--resume``).  ``continue_after``: frames are renumbered to follow it (a camera or another
    recording after ``--resume``); live, a reopened camera's frames always follow the last one.
    """
    stats = LoopStats()
    stop = stop or threading.Event()
    t0 = time.perf_counter()
    last_tick = 0.0
    current: Iterable[Any] = source
    backoff = 0.25
    hooks = _Hooks(on_tick, tick_s, on_frame, on_observation, t0)
    continuity = _Continuity(continue_after) if continue_after is not None else _Continuity(-1) if live else None
    try:
        while not stop.is_set():
            try:
                fed: Iterable[Any] = current
                if continuity is not None:
                    continuity.restart()
                    fed = map(continuity, current)
                if isinstance(reader, GatedReader):
                    _consume_gated(fed, reader, session, stats, live, stop, hooks, skip_through)
                else:
                    _consume(fed, reader, session, stats, live, stop, hooks, skip_through)
                stats.ended = stats.ended or ("stopped" if stop.is_set() else "the video ended")
                break
            except OSError as exc:  # the camera went away (CameraError is an OSError)
                stats.camera_faults += 1
                stats.message = f"camera lost: {exc}; the game state is kept"
                session.note("fault", part="camera", message=str(exc), seq=session.last_seq)
                if reopen is None:
                    stats.ended = f"camera lost: {exc} (resume with --resume)"
                    break
                if on_tick is not None:
                    on_tick(stats)
                while not stop.is_set():
                    if stop.wait(backoff):
                        break
                    backoff = min(max_reopen_wait_s, backoff * 2)
                    try:
                        current = reopen()
                        stats.message = "camera back"
                        session.note("fault", part="camera", message="camera back", seq=session.last_seq)
                        backoff = 0.25
                        break
                    except OSError as again:
                        stats.message = f"camera lost: {again}; retrying"
            now = time.perf_counter()
            if on_tick is not None and now - last_tick >= tick_s:
                on_tick(stats)
                last_tick = now
    finally:
        stats.elapsed_s = time.perf_counter() - t0
        for c in (close, getattr(current, "close", None), getattr(source, "close", None)):
            if c is not None:
                with contextlib.suppress(Exception):  # releasing must not hide why the loop ended
                    c()
        if on_tick is not None:
            on_tick(stats)
    return stats


@dataclass
class _Hooks:
    on_tick: Callable[[LoopStats], None] | None
    tick_s: float
    on_frame: Callable[[Any], None] | None
    on_observation: Callable[[BoardObservation], None] | None
    t0: float
    last_tick: float = 0.0

    def tick(self, stats: LoopStats) -> None:
        now = time.perf_counter()
        if self.on_tick is not None and now - self.last_tick >= self.tick_s:
            stats.elapsed_s = now - self.t0
            self.on_tick(stats)
            self.last_tick = now


def _frames_of(source: Iterable[Any], stats: LoopStats, live: bool) -> tuple[Iterator[Any], Any]:
    """Live: a grabber keeping the newest frame; replay: a read-ahead decoder thread."""
    if live:
        grabber = _Grabber(iter(source), stats)

        def take() -> Iterator[Any]:
            while True:
                frame = grabber.take(timeout=0.5)
                if frame is None:
                    if grabber.error is not None:
                        raise grabber.error
                    if grabber.done:
                        return
                    continue
                yield frame

        return take(), grabber
    ahead = _ReadAhead(iter(source))

    def counted() -> Iterator[Any]:
        for frame in ahead:
            stats.frames += 1
            yield frame

    return counted(), ahead


def _wanted(frame: Any, stats: LoopStats, skip_through: int) -> bool:
    """False for a frame passed over on resume, or a corrupt one (counted)."""
    seq = getattr(frame, "seq", None)
    if seq is not None and seq <= skip_through:
        stats.skipped += 1
        return False
    try:
        _check_frame(frame)
    except CorruptFrameError as exc:
        stats.corrupt += 1
        stats.message = str(exc)
        return False
    return True


def _unread(stats: LoopStats, session: Session, seq: int, exc: Exception) -> None:
    """A frame vision could not read (a missing model, a broken input): counted, journalled once per
    distinct message, shown in the status; the game state is kept and the next frames are read."""
    stats.unread += 1
    text = f"vision could not read frame {seq}: {exc}"
    if str(exc) != stats.vision_error:
        stats.vision_error = str(exc)
        session.note("fault", part="vision", message=str(exc), seq=seq)
    stats.message = text


def _consume(source: Iterable[Any], reader: Reader, session: Session, stats: LoopStats, live: bool,
             stop: threading.Event, hooks: _Hooks, skip_through: int) -> None:
    frames, feeder = _frames_of(source, stats, live)
    try:
        for frame in frames:
            if stop.is_set():
                return
            if not _wanted(frame, stats, skip_through):
                continue
            if hooks.on_frame is not None:
                hooks.on_frame(frame)
            try:
                r0 = time.perf_counter()
                obs = reader(frame)
                stats.note_read((time.perf_counter() - r0) * 1000)
            except CorruptFrameError as exc:
                stats.corrupt += 1
                stats.message = str(exc)
                continue
            except ValueError as exc:  # vision could not read that frame
                _unread(stats, session, frame.seq, exc)
                continue
            if hooks.on_observation is not None:
                hooks.on_observation(obs)
            session.process(obs, frame.image)
            stats.processed += 1
            hooks.tick(stats)
    finally:
        feeder.stop()


def _consume_gated(source: Iterable[Any], reader: GatedReader, session: Session, stats: LoopStats, live: bool,
                   stop: threading.Event, hooks: _Hooks, skip_through: int, max_jobs: int = 2) -> None:
    """Decode (its own thread) -> gate (here) -> full readings (the worker) -> the session, in frame order."""
    frames, feeder = _frames_of(source, stats, live)
    worker = _Worker(reader.run_job, live=live)
    pending: deque[Slot] = deque()

    def judge(slot: Slot) -> None:
        job = slot.job
        if job is not None and job.cancelled:
            stats.dropped += 1
            return
        try:
            obs = reader.builder.build(slot)
        except ValueError as exc:  # vision could not read that frame: the referee goes on blind to it
            _unread(stats, session, slot.seq, exc)
            return
        if slot.full and job is not None:
            stats.note_read(job.ms)
            stats.full_reads += 1
            stats.rescued = reader.rescued
        stats.gate_ms.append(slot.gate_ms)
        if hooks.on_observation is not None:
            hooks.on_observation(obs)
        session.process(obs, job.image if (job is not None and obs.still) else None)
        stats.processed += 1

    def drain(block: bool) -> None:
        while pending:
            job = pending[0].job
            if job is not None and not job.done.is_set():
                if not block or stop.is_set():
                    return
                job.done.wait(0.25)
                continue
            judge(pending.popleft())
        hooks.tick(stats)

    try:
        for frame in frames:
            if stop.is_set():
                return
            if not _wanted(frame, stats, skip_through):
                continue
            if hooks.on_frame is not None:
                hooks.on_frame(frame)
            slot, job = reader.step(frame)
            pending.append(slot)
            if job is not None:
                if not live:  # replay: the decoder waits for the reader rather than drop
                    while not worker.wait_backlog(max_jobs - 1, 0.25) and not stop.is_set():
                        drain(False)
                worker.submit(job)
            drain(False)
        drain(True)
    finally:
        worker.close()
        feeder.stop()


def rss_mb() -> float:
    """This process's resident memory now, in MB (peak RSS where /proc is missing)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
