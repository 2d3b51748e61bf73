"""What ``bgref run`` and ``bgref replay`` share: the flags, building the parts, the run itself.

Sources (``--camera`` for run, the positional VIDEO for replay):

* ``0``, ``1`` ... a webcam; ``rtsp://...``/``http://...`` a stream; a video file; a folder of
  images; ``sim:SEED`` the simulator (all through :func:`vision.camera.open_source`);
* ``FILE.obs.jsonl`` a recorded observation stream (``--record-observations`` writes one): it
  replays without the camera and without vision, through the same tracker, laws and journal.

The reader is the real :class:`vision.BoardReader` with the calibration profile, or, with
``--oracle``, the renderer's ground truth beside each frame (for testing the referee alone).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import signal
import statistics
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.codec import decode_observation, encode_observation
from referee.exports import export_match
from referee.journal import JournalError, read_journal
from referee.loop import GatedReader, LoopStats, rss_mb, run_loop
from referee.session import Session, SessionInfo
from referee.tracker import TrackerConfig
from vision.observation import BoardObservation


def add_common(p: argparse.ArgumentParser) -> None:
    """Flags shared by run and replay."""
    p.add_argument("--profile", metavar="P", help="calibration profile (JSON) of this camera and board")
    p.add_argument("--device", default="none", metavar="PORT|none",
                   help="the LED/buzzer device: a serial port, hwgrep://VID:PID, a pty, or none (default)")
    p.add_argument("--laws", default="modern", metavar="NAME",
                   help="code of laws: a built-in name (bgref laws list) or a profile file (default modern)")
    p.add_argument("--match", default="money", metavar="N|money", help="match length in points, or money")
    p.add_argument("--players", nargs=2, default=["White", "Black"], metavar=("WHITE", "BLACK"))
    p.add_argument("--journal", metavar="FILE", help="where to write the session journal (default: a new file "
                   "in ./bgref-sessions/)")
    p.add_argument("--resume", metavar="JOURNAL", help="continue the session of this journal exactly where it stopped")
    p.add_argument("--exports", metavar="DIR", help="where to write the match (.mat, .sgf) (default: beside the journal)")
    p.add_argument("--oracle", action="store_true", help="read the renderer's ground truth instead of running vision")
    p.add_argument("--record-observations", metavar="FILE", help="also write every observation (JSON lines)")
    p.add_argument("--no-status", action="store_true", help="no live terminal view (log lines instead)")
    p.add_argument("--director", action="store_true", help="the director's view (position IDs, notes): not for players")
    p.add_argument("--show", action="store_true", help="an OpenCV window with the annotated camera view")
    p.add_argument("--json", action="store_true", help="print a JSON summary as the last line")
    p.add_argument("--progress", type=float, default=0, metavar="SECONDS",
                   help="print a progress line (frames, fps, memory) to stderr every SECONDS (long headless runs)")
    p.add_argument("--loop", type=int, default=1, metavar="N",
                   help="play a video or image folder N times over as one session (soak and memory runs)")


def match_length(text: str) -> int:
    t = text.strip().lower()
    if t in ("money", "0", "unlimited"):
        return 0
    try:
        n = int(t)
    except ValueError as exc:
        raise ValueError(f"--match must be a number of points or 'money', got {text!r}") from exc
    if n < 1 or n > 99:
        raise ValueError(f"--match must be 1-99 points or 'money', got {text!r}")
    return n


# ---------------------------------------------------------------------- sources and readers
@dataclass(frozen=True, slots=True)
class ObsFrame:
    """A recorded observation travelling through the loop as a frame (no image)."""

    obs: BoardObservation

    @property
    def seq(self) -> int:
        return self.obs.seq

    @property
    def t(self) -> float:
        return self.obs.t

    @property
    def image(self) -> Any:
        import numpy as np

        return np.zeros((1, 1, 3), np.uint8)


def is_observation_stream(spec: str) -> bool:
    return spec.endswith(".obs.jsonl") or spec.endswith(".obs.json")


def observation_frames(path: str, *, skip_through: int = -1) -> Iterator[ObsFrame]:
    try:
        f = open(path, encoding="utf-8")  # noqa: SIM115 - closed by the generator
    except OSError as exc:
        raise ValueError(f"cannot read the observation stream {path!r}: {exc.strerror}") from exc
    with f:
        for lineno, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                d = json.loads(line)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{path}:{lineno}: not JSON: {exc}") from exc
            if int(d.get("seq", -1)) <= skip_through:
                continue
            yield ObsFrame(decode_observation(d))


class SimFrames:
    """A ``sim:SEED`` source whose frames carry their ground truth and the board's seating."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.seating = source.director.seating

    def __iter__(self) -> Iterator[Any]:
        from referee.rendered import SimFrame

        for f in self.source:
            truth = self.source.last_truth
            yield SimFrame(f.image, f.t, f.seq, truth, self.seating) if truth is not None else f

    def close(self) -> None:
        self.source.close()


def open_frames(spec: str, *, live: bool) -> Iterable[Any]:
    """A frame source for ``spec`` (see the module docstring)."""
    if is_observation_stream(spec):
        return observation_frames(spec)
    try:
        from vision.camera import open_source
    except ImportError as exc:  # pragma: no cover - the camera module lands with the renderer
        raise ValueError(f"cannot open {spec!r}: the camera module (vision.camera) is not available") from exc
    src = int(spec) if spec.isdigit() else spec
    opened = open_source(src)
    if isinstance(src, str) and src.startswith("sim:") and hasattr(opened, "director"):
        return SimFrames(opened)
    if live and not isinstance(src, int) and hasattr(opened, "fps") and not str(src).startswith("sim:"):
        return RealTime(opened)  # a recording standing in for a camera: delivered at its own pace
    return opened


class RealTime:
    """A recording delivered at its frame rate (``bgref run --camera FILE``: it stands in for a camera,
    so frames the referee cannot keep up with are dropped and counted, as they would be live)."""

    def __init__(self, source: Any) -> None:
        self.source = source
        self.seating = getattr(source, "seating", None)

    def __iter__(self) -> Iterator[Any]:
        start = time.monotonic()
        wait = threading.Event()
        first_t: float | None = None
        for f in self.source:
            t = float(getattr(f, "t", 0.0))
            first_t = t if first_t is None else first_t
            delay = start + (t - first_t) - time.monotonic()
            if delay > 0:
                wait.wait(delay)
            yield f

    def close(self) -> None:
        self.source.close()


class LoopedFrames:
    """A recording played ``times`` times over as one long session (``--loop``: soak and memory runs).

    Sequence numbers and times run on across the repeats, so the journal, the tracker and
    ``--resume`` see one continuous session.
    """

    def __init__(self, spec: str, times: int, *, live: bool) -> None:
        if times < 1:
            raise ValueError(f"--loop must be at least 1, got {times}")
        self.spec, self.times, self.live = spec, times, live
        self._current: Any = open_frames(spec, live=live)  # fails now (a clear message) if it cannot open
        self.seating = getattr(self._current, "seating", None)

    def __iter__(self) -> Iterator[Any]:
        from dataclasses import replace

        seq0, t0 = 0, 0.0
        for k in range(self.times):
            if self._current is None:
                self._current = open_frames(self.spec, live=self.live)
            last_seq, last_t = -1, 0.0
            try:
                for f in self._current:
                    last_seq, last_t = f.seq, f.t
                    yield replace(f, seq=f.seq + seq0, t=f.t + t0) if k else f
            finally:
                self.close()
            seq0 += last_seq + 1
            t0 += last_t + 1 / 30

    def close(self) -> None:
        cur, self._current = self._current, None
        if cur is not None and hasattr(cur, "close"):
            cur.close()


def load_profile(path: str | None) -> Any:
    """The calibration profile at ``path`` (None without one); a bad file is a clear error."""
    if not path:
        return None
    try:
        from calibration.profile import CalibrationProfile

        return CalibrationProfile.load(path)
    except (OSError, ValueError) as exc:
        raise ValueError(f"--profile {path!r}: {exc}") from exc


def make_reader(spec: str, profile: str | None, oracle: bool) -> Callable[[Any], BoardObservation]:
    if is_observation_stream(spec):
        return lambda f: f.obs
    if oracle:
        from referee.rendered import oracle_reader

        return oracle_reader
    if profile is None:
        raise ValueError("--profile is required to read a camera (make one with bgref calibrate), or use --oracle")
    try:
        from vision.reader import BoardReader
    except ImportError as exc:  # pragma: no cover - vision lands separately
        raise ValueError(f"vision is not available to read frames: {exc}") from exc
    try:
        reader = BoardReader()
    except (OSError, ValueError, RuntimeError) as exc:
        raise ValueError(f"vision is not ready to read frames: {exc}") from exc
    return GatedReader(reader, load_profile(profile))


def open_device(port: str) -> Any:
    if port.lower() in ("none", ""):
        return None
    from firmware_bridge.device import open_device as _open

    return _open(port)


# ---------------------------------------------------------------------- the run
def default_journal() -> Path:
    folder = Path("bgref-sessions")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    return folder / f"session-{stamp}-{os.getpid()}.jsonl"


def tracker_config_for(args: argparse.Namespace, source: str, white_seat: str) -> TrackerConfig | None:
    """The real reader's tracker settings (unsure readings resolved to the likeliest legal play, missed
    dice inferred, one reading settles a scene); None (the session's default) for the oracle and for
    recorded observation streams."""
    if args.oracle or is_observation_stream(source):
        return None
    from vision.config import VisionConfig

    return TrackerConfig.for_real_vision(white_seat, VisionConfig().count_min_confidence)


def build_session(args: argparse.Namespace, source: str, device: Any) -> tuple[Session, int]:
    if args.resume:
        if not Path(args.resume).exists():
            raise ValueError(f"--resume: no journal at {args.resume!r}")
        try:
            first = read_journal(args.resume).records
            seat = str(first[0].data.get("white_seat", "near")) if first and first[0].kind == "session" else "near"
            s = Session.resume(args.resume, device=device, tracker_config=tracker_config_for(args, source, seat))
        except JournalError as exc:
            raise ValueError(str(exc)) from exc
        return s, s.last_seq
    seat, home_right = "near", True
    prof = load_profile(args.profile)
    seating = prof.seating if prof is not None else getattr(getattr(args, "_frames", None), "seating", None)
    if seating is not None:  # WHITE's seat and home end as the calibration (or the simulator) says
        from vision.geometry import HomeEnd

        seat, home_right = seating.white.value, seating.white_home is HomeEnd.RIGHT
    info = SessionInfo(players=(args.players[0], args.players[1]), match_length=match_length(args.match),
                       laws=args.laws, source=source, profile=args.profile or "", home_on_right=home_right,
                       white_seat=seat)
    path = Path(args.journal) if args.journal else default_journal()
    try:
        s = Session.start(info, path, device=device, tracker_config=tracker_config_for(args, source, seat))
    except JournalError as exc:
        raise ValueError(str(exc)) from exc
    return s, -1


def run(args: argparse.Namespace, source: str, *, live: bool) -> int:
    """The body of ``bgref run`` / ``bgref replay``."""
    reader = make_reader(source, args.profile, args.oracle)
    device = open_device(args.device)
    stop = threading.Event()
    previous = signal.signal(signal.SIGTERM, lambda *_: stop.set())
    session: Session | None = None
    recorder = None
    stats = LoopStats()
    viewer = None
    try:
        if not is_observation_stream(source):
            loops = getattr(args, "loop", 1)
            args._frames = LoopedFrames(source, loops, live=live) if loops != 1 else open_frames(source, live=live)
        session, skip = build_session(args, source, device)
        frames = observation_frames(source, skip_through=skip) if is_observation_stream(source) else args._frames
        prof = load_profile(args.profile)
        if prof is None and isinstance(frames, SimFrames):
            from vision.training.rendered import profile_for

            first_truth: dict[str, Any] = {}
            frames = _peek_profile(frames, first_truth)
            session.marker = _lazy_marker(first_truth, profile_for)
        elif prof is not None:
            from referee.marks import marker_for

            session.marker = marker_for(prof)
            if isinstance(reader, GatedReader):
                reader.on_refit = lambda p: setattr(session, "marker", marker_for(p))
        on_frame: Callable[[Any], None] | None = None
        on_observation: Callable[[BoardObservation], None] | None = None
        if args.show:
            from referee.show import open_viewer

            viewer = open_viewer(prof)
            if viewer is not None:
                on_frame = viewer.tap(session)
        if args.record_observations:
            try:
                recorder = open(args.record_observations, "a", encoding="utf-8")  # noqa: SIM115
            except OSError as exc:
                raise ValueError(f"--record-observations {args.record_observations!r}: {exc.strerror}") from exc

            def on_observation(obs: BoardObservation) -> None:
                assert recorder is not None
                recorder.write(json.dumps(encode_observation(obs), separators=(",", ":")) + "\n")

        view = _view(args, session, device)
        reopen = (lambda: open_frames(source, live=live)) if live else None
        try:
            # the same recording again after --resume: pass over what the journal has judged; a camera, or
            # another recording (the next part of the session): its frames follow the last one judged
            skip_through, continue_after = skip, None
            if live:
                skip_through, continue_after = -1, skip
            elif args.resume:
                current, after = _current_source(args.resume, session.info.source)
                if _same_source(current, source):  # numbered as when it was first played
                    continue_after = after if after >= 0 else None
                else:
                    session.note("source", source=source, after_seq=skip)
                    skip_through, continue_after = -1, skip
            stats = run_loop(frames, reader, session, live=live, stop=stop, reopen=reopen, on_tick=view.tick,
                             skip_through=skip_through, continue_after=continue_after,
                             on_frame=on_frame, on_observation=on_observation)
        finally:
            view.close(stats)
        out_dir = Path(args.exports) if args.exports else Path(session.journal.path).parent if session.journal \
            else Path(".")
        written = export_match(session, out_dir)
        session.note("end", reason=stats.ended, processed=stats.processed, dropped=stats.dropped,
                     exports=[str(p) for p in written])
        _summary(args, session, stats, written)
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        signal.signal(signal.SIGTERM, previous)
        if viewer is not None:
            viewer.close()
        if recorder is not None:
            recorder.close()
        if session is not None:
            session.close()
        if device is not None:
            device.close()


def _current_source(journal: str, first: str) -> tuple[str, int]:
    """The recording a journal was last fed from, and the frame number its frames follow (-1: none)."""
    from referee.journal import read_journal

    current, after = first, -1
    for rec in read_journal(journal).of_kind("source"):
        current, after = str(rec.data.get("source", "")), int(rec.data.get("after_seq", -1))
    return current, after


def _same_source(journalled: str, source: str) -> bool:
    if journalled == source:
        return True
    try:
        return Path(journalled).resolve() == Path(source).resolve()
    except OSError:
        return False


def _peek_profile(frames: SimFrames, into: dict[str, Any]) -> Iterator[Any]:
    for f in frames:
        if not into and getattr(f, "truth", None) is not None:
            into.update(f.truth)
        yield f


def _lazy_marker(first_truth: dict[str, Any], profile_for: Callable[[dict[str, Any]], Any]) -> Any:
    """A marker built from the simulator's exact camera once the first frame is in."""
    from referee.marks import marker_for

    made: list[Any] = []

    def mark(j: Any, obs: Any) -> Any:
        if not made:
            if not first_truth:
                return []
            made.append(marker_for(profile_for(first_truth)))
        return made[0](j, obs)

    return mark


class DeviceWatch:
    """Follows the device's connection (its own threads reconnect it): each unplug and return is
    journalled as a fault and shown in the status; alerts sent meanwhile are kept by the driver and
    shown when the device is back."""

    def __init__(self, device: Any, session: Session) -> None:
        self.device = device
        self.session = session
        self.text = "" if device is None else "connecting"
        self.unplugs = 0

    def poll(self, wait: float = 0.0) -> str:
        """Take the device's news (without blocking, or waiting up to ``wait`` s for the first item);
        the status line for the device."""
        if self.device is None:
            return ""
        import queue

        from firmware_bridge.device import Connected, Disconnected, ResetSeen

        while True:
            try:
                ev = self.device.events.get(timeout=wait) if wait > 0 else self.device.events.get_nowait()
            except queue.Empty:
                break
            wait = 0.0
            if isinstance(ev, Disconnected):
                self.unplugs += 1
                self.text = f"device lost ({ev.reason}): the game goes on; alerts show when it is back"
                self.session.note("fault", part="device", message=ev.reason, seq=self.session.last_seq)
            elif isinstance(ev, Connected):
                if self.unplugs:
                    self.session.note("fault", part="device", message="device back", seq=self.session.last_seq)
                self.text = "connected"
            elif isinstance(ev, ResetSeen):
                self.session.note("fault", part="device", message="device reset", seq=self.session.last_seq)
        return self.text


class _View:
    def __init__(self, args: argparse.Namespace, session: Session, device: Any = None) -> None:
        self.session = session
        self.watch = DeviceWatch(device, session)
        self.director = bool(args.director)
        self.live: Any = None
        self.quiet = bool(args.no_status) or not sys.stdout.isatty()
        self.progress_s = float(getattr(args, "progress", 0) or 0)
        self._last_progress = time.monotonic()
        self._last_events = 0
        if not self.quiet:
            from rich.live import Live

            from referee.status import model_of, render

            self._model_of, self._render = model_of, render
            self.live = Live(render(model_of(session), director=self.director), refresh_per_second=4,
                             transient=False)
            self.live.start()

    def tick(self, stats: LoopStats) -> None:
        before = self.watch.text
        dev = self.watch.poll()
        if self.progress_s and time.monotonic() - self._last_progress >= self.progress_s:
            self._last_progress = time.monotonic()
            print(f"bgref: progress frames={stats.frames} processed={stats.processed} dropped={stats.dropped} "
                  f"fps={stats.fps:.1f} elapsed_s={stats.elapsed_s:.1f} games={self.session.tracker.state.game} "
                  f"rss_mb={rss_mb():.1f}", file=sys.stderr, flush=True)
        if self.live is not None:
            self.live.update(self._render(self._model_of(self.session, stats, device=dev), director=self.director))
            return
        if dev != before and dev:
            print(f"bgref: device: {dev}", file=sys.stderr)
        # plain log lines: one per judged event that is not ok
        new = self.session.judged[-(self.session.stats.events - self._last_events):] if \
            self.session.stats.events > self._last_events else []
        self._last_events = self.session.stats.events
        for j in new:
            if not j.verdict.ok or j.emitted.unsure:
                print(f"g{j.game} m{j.move}: {j.verdict.summary()} - {j.verdict.players.text}", file=sys.stderr)

    def close(self, stats: LoopStats) -> None:
        self.tick(stats)
        if self.live is not None:
            self.live.stop()


def _view(args: argparse.Namespace, session: Session, device: Any = None) -> _View:
    return _View(args, session, device)


def _summary(args: argparse.Namespace, session: Session, stats: LoopStats, written: list[Path]) -> None:
    summary = {
        "journal": session.journal.path if session.journal else None,
        "ended": stats.ended,
        "frames": stats.frames,
        "processed": stats.processed,
        "dropped": stats.dropped,
        "corrupt": stats.corrupt,
        "unread": stats.unread,
        "skipped": stats.skipped,
        "fps": round(stats.fps, 1),
        "elapsed_s": round(stats.elapsed_s, 2),
        "full_reads": stats.full_reads,
        "rescued": stats.rescued,
        "read_ms_median": round(statistics.median(stats.read_ms), 1) if stats.read_ms else None,
        "gate_ms_median": round(statistics.median(stats.gate_ms), 2) if stats.gate_ms else None,
        "camera_faults": stats.camera_faults,
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "events": session.stats.events,
        "infractions": session.stats.infractions,
        "checks": session.stats.checks,
        "exports": [str(p) for p in written],
        "state": session.snapshot(),
    }
    if args.json:
        print(json.dumps(summary, separators=(",", ":")))
    else:
        print(f"{stats.ended}: {stats.processed} frames judged ({stats.fps:.1f} fps, {stats.dropped} dropped, "
              f"{stats.corrupt} corrupt, {stats.unread} unread); {session.stats.infractions} infraction(s); journal {summary['journal']}")
        if stats.vision_error:
            print(f"  vision could not read {stats.unread} frame(s); last: {stats.vision_error}")
        for p in written:
            print(f"  exported {p}")
