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
import threading
import time
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
    corrupt: int = 0
    camera_faults: int = 0
    elapsed_s: float = 0.0
    read_ms: list[float] = field(default_factory=list)  # per processed frame (last 300)
    message: str = ""  # the last fault, in words
    ended: str = ""  # why the loop ended

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
) -> LoopStats:
    """Run until the source ends, ``stop`` is set, or the camera is gone for good."""
    stats = LoopStats()
    stop = stop or threading.Event()
    t0 = time.perf_counter()
    last_tick = 0.0
    current: Iterable[Any] = source
    backoff = 0.25
    try:
        while not stop.is_set():
            try:
                _consume(current, reader, session, stats, live, stop, on_tick, tick_s, skip_through, t0)
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


def _consume(source: Iterable[Any], reader: Reader, session: Session, stats: LoopStats, live: bool,
             stop: threading.Event, on_tick: Callable[[LoopStats], None] | None, tick_s: float,
             skip_through: int, t0: float) -> None:
    last_tick = time.perf_counter()
    frames = iter(source)
    grabber = _Grabber(frames, stats) if live else None
    try:
        while not stop.is_set():
            if grabber is not None:
                frame = grabber.take(timeout=0.5)
                if frame is None:
                    if grabber.error is not None:
                        raise grabber.error
                    if grabber.done:
                        return
                    continue
            else:
                try:
                    frame = next(frames)
                except StopIteration:
                    return
                stats.frames += 1
            seq = getattr(frame, "seq", None)
            if seq is not None and seq <= skip_through:
                stats.skipped += 1
                continue
            try:
                _check_frame(frame)
                r0 = time.perf_counter()
                obs = reader(frame)
                stats.read_ms.append((time.perf_counter() - r0) * 1000)
                if len(stats.read_ms) > 300:
                    del stats.read_ms[:100]
            except (CorruptFrameError, ValueError) as exc:
                stats.corrupt += 1
                stats.message = str(exc)
                continue
            session.process(obs, frame.image)
            stats.processed += 1
            now = time.perf_counter()
            if on_tick is not None and now - last_tick >= tick_s:
                stats.elapsed_s = now - t0
                on_tick(stats)
                last_tick = now
    finally:
        if grabber is not None:
            grabber.stop()
