"""``bgref bench referee``: alert latency, replay throughput at 1920x1080, memory over a long run.

* **latency**: a synthetic game with a seeded infraction every other turn is fed to the live
  loop at 30 frames per second (a paced camera thread); the device is the Python emulator on
  an in-process link.  For each alert: from the moment the first still frame showing the
  infraction was delivered, to the moment the emulated device received the LED frame.
  Target: median <= 200 ms.
* **rendered**: the same on a rendered game with scripted infractions of every kind (the demo's
  pipeline with the oracle vision): frames from the first still frame showing an infraction to
  the deciding frame at 30 fps, plus the measured time to the emulated device.
* **replay_fps**: a 1920x1080 video (a rendered board, encoded with OpenCV) replayed through
  decode -> :class:`vision.BoardReader` -> tracker -> laws -> journal, as fast as it goes.
  Target >= 30 fps.  The dropped-frame count (live mode) is reported beside it.
* **memory**: peak resident memory of a long run (by default 100,000 observations, about 55
  minutes of play at 30 fps, many games) sampled every 10,000 observations: it must stay
  flat (no growth with frames or games) and under 600 MB.

Prints one JSON object; ``--quick`` makes every part small (for a smoke test).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import json
import os
import resource
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast

from referee.loop import rss_mb, run_loop
from referee.session import Session, SessionInfo
from referee.synthetic import fault_plan, random_game
from vision.observation import BoardObservation

TARGETS = {"latency_ms_median": 200.0, "replay_fps": 30.0, "peak_rss_mb": 600.0}


class _Paced:
    """Frames delivered at ``fps`` in real time, each stamped with its delivery time."""

    def __init__(self, observations: list[BoardObservation], fps: float) -> None:
        self.obs = observations
        self.fps = fps
        self.delivered: dict[int, float] = {}

    def __iter__(self) -> Iterator[Any]:
        import numpy as np

        img = np.zeros((2, 2, 3), np.uint8)
        stop = threading.Event()
        t0 = time.perf_counter()
        for i, o in enumerate(self.obs):
            due = t0 + i / self.fps
            delay = due - time.perf_counter()
            if delay > 0:
                stop.wait(delay)
            self.delivered[o.seq] = time.perf_counter()
            yield _Frame(o, img)


class _Frame:
    __slots__ = ("image", "obs", "seq", "t")

    def __init__(self, obs: BoardObservation, image: Any) -> None:
        self.obs, self.image, self.seq, self.t = obs, image, obs.seq, obs.t


def _percentiles(xs: list[float], prefix: str) -> dict[str, float | None]:
    """Median, p90, p99 and max (nearest rank) of ``xs`` in ms, rounded."""
    ys = sorted(xs)

    def rank(q: float) -> float | None:
        return round(ys[min(len(ys) - 1, round(q * (len(ys) - 1)))], 1) if ys else None

    return {f"{prefix}_median": round(statistics.median(ys), 1) if ys else None, f"{prefix}_p90": rank(0.9),
            f"{prefix}_p99": rank(0.99), f"{prefix}_max": round(ys[-1], 1) if ys else None}


def latency(turns: int = 24, seed: int = 7, peer: str = "emulator") -> dict[str, Any]:
    """Alert latency through the live loop to the simulated device (the emulator or the firmware in simavr).

    The device "receives the signal" when it first shows or sounds it: an LED refresh or the
    buzzer turning on (stamped on the host's clock as the peer reports it), credited to an
    alert only if it comes before the next alert was sent (:func:`firmware_bridge.events.first_outputs`).
    """
    from firmware_bridge.device import Device
    from firmware_bridge.events import OutputStamps

    obs = list(random_game(seed, turns=turns, faults=fault_plan(seed, turns, every=2)))
    first_still: dict[int, int] = {}
    start = None
    for o in obs:
        if not o.still:
            start = None
            continue
        if start is None:
            start = o.seq
        first_still[o.seq] = start
    stop: Any
    if peer == "simavr":
        from firmware_bridge.simulator import SimulatedDevice, missing_tools

        if missing_tools():
            return {"latency_peer": peer, "why": f"missing {missing_tools()}"}
        sim = SimulatedDevice()
        stamps = OutputStamps(sim.events.append)
        sim.events.append = stamps  # type: ignore[method-assign]
        dev = Device(sim.start())
        stop = sim.stop
    else:
        from firmware_bridge.emulator import Emulator

        emu = Emulator()
        stamps = OutputStamps(emu.core.emit)
        emu.core.emit = stamps
        port = emu.in_process()
        dev = Device(lambda: cast(Any, port))
        stop = emu.stop
    dev.open()
    try:
        dev.wait_connected(15.0)
        dev.flush(5.0)
        session = Session.start(SessionInfo(), None, device=dev)
        cam = _Paced(obs, 30.0)
        stats = run_loop(cam, lambda f: f.obs, session, live=True)
        dev.flush(5.0)
        retransmits = dev.stats.retransmits
    finally:
        dev.close()
        stop()
    alerts = session.stats.alerts
    arrived = stamps.arrivals([sent for _, sent in alerts])
    lat: list[float] = []
    signal_ms: list[float] = []
    unseen = 0
    for (seq, sent), got in zip(alerts, arrived, strict=True):
        shown_from = cam.delivered.get(first_still.get(seq, seq))
        if got is None:
            unseen += 1
            continue
        if shown_from is not None:
            lat.append((got - shown_from) * 1000)
            signal_ms.append((got - sent) * 1000)
    out: dict[str, Any] = {"latency_peer": peer, "alerts": len(alerts), "alerts_unseen": unseen}
    out.update(_percentiles(lat, "latency_ms"))
    out["signal_to_device_ms_max"] = round(max(signal_ms), 1) if signal_ms else None
    out.update({"device_retransmits": retransmits, "live_dropped": stats.dropped, "live_frames": stats.frames})
    return out


def rendered_latency(turns: int = 40, per_kind: int = 2, size: str = "640x360", seed: int = 11,
                     peer: str = "emulator") -> dict[str, Any]:
    """Alert latency on a rendered game (the demo's pipeline: oracle vision, the emulated device).

    Per caught infraction: the frames from the first still frame showing it to the deciding frame at
    30 fps, plus the measured time from that frame's arrival to the device receiving the LED frame.
    """
    import argparse

    from referee.demo import run_demo

    with tempfile.TemporaryDirectory() as tmp:
        a = argparse.Namespace(seed=seed, turns=turns, per_kind=per_kind, kinds="", size=size, vision="oracle",
                               device=peer, out=tmp, clean=True, no_status=True, json=True)
        s = run_demo(a)
    return {"rendered_latency_ms_median": s["latency_ms_median"], "rendered_latency_ms_max": s["latency_ms_max"],
            "rendered_seeded": s["seeded"], "rendered_caught": s["caught"],
            "rendered_false_alarms": s["false_alarms"], "rendered_size": s["size"],
            "rendered_fps": s["fps"], "rendered_device": s.get("device", peer)}


BENCH_DIR = Path(os.environ.get("BGREF_BENCH_DIR", "/tmp/bgref_bench_referee"))
GAME_SEED = 9105  # the rendered game the throughput and memory runs use (never tuned on)


def bench_video(seed: int = GAME_SEED, turns: int = 12, size: tuple[int, int] = (1920, 1080),
                folder: Path | None = None) -> tuple[Path, Path]:
    """A rendered game video and its exact calibration profile (rendered once, then reused)."""
    from vision.sim.game import GameScript, render_game
    from vision.training.rendered import profile_for

    out = (folder or BENCH_DIR) / f"{size[0]}x{size[1]}"
    video, prof = out / f"game_{seed:06d}.mp4", out / f"game_{seed:06d}.profile.json"
    if not (video.exists() and prof.exists()):
        res = render_game(seed, out, script=GameScript.parse([], max_turns=turns), width=size[0], height=size[1])
        with open(res.truth, encoding="utf-8") as f:
            profile_for(json.loads(f.readline())).save(prof)
    return video, prof


def _window_stats(stamps: list[float], entered: list[float], fps: float = 30.0) -> dict[str, Any]:
    """Median/p90 time between frames entering the loop (decoded and gated: the pipeline's pace; the
    judged ones come in bursts behind each full reading) and the worst one-second window of frames
    judged per wall second."""
    gaps = [(b - a) * 1000 for a, b in itertools.pairwise(entered)]
    n = int(fps)
    windows = [n / (stamps[i + n] - stamps[i]) for i in range(0, len(stamps) - n, max(1, n // 3))
               if stamps[i + n] > stamps[i]]
    return {"frame_ms_median": round(statistics.median(gaps), 2) if gaps else None,
            "frame_ms_p90": _percentiles(gaps, "x")["x_p90"],
            "worst_1s_window_fps": round(min(windows), 1) if windows else None,
            "windows_at_30fps": round(sum(w >= fps for w in windows) / len(windows), 3) if windows else None}


def _replay_once(video: Path, prof: Any, reader: Any, *, live: bool, limit: int | None = None,
                 pace: float | None = None) -> dict[str, Any]:
    """``bgref replay``'s pipeline (decode thread, gate, full readings on a worker, session with journal
    and evidence) on ``video``; every stage counted in the wall time."""
    from referee.loop import GatedReader
    from vision.camera import open_source

    stamps: list[float] = []
    entered: list[float] = []

    def frames() -> Iterator[Any]:
        t0 = time.perf_counter()
        with open_source(str(video)) as cam:
            for i, f in enumerate(cam):
                if limit is not None and i >= limit:
                    return
                if pace is not None:  # a camera delivering at ``pace`` fps in real time
                    delay = t0 + i / pace - time.perf_counter()
                    if delay > 0:
                        time.sleep(delay)
                yield f

    with tempfile.TemporaryDirectory() as tmp:
        session = Session.start(SessionInfo(), Path(tmp) / "j.jsonl")
        gated = GatedReader(reader, prof)
        c0, w0 = time.process_time(), time.perf_counter()
        stats = run_loop(frames(), gated, session, live=live, on_observation=lambda o: stamps.append(time.perf_counter()),
                         on_frame=lambda f: entered.append(time.perf_counter()))
        wall, cpu = time.perf_counter() - w0, time.process_time() - c0
        session.close()
    out = {"frames": stats.frames, "processed": stats.processed, "dropped": stats.dropped,
           "corrupt": stats.corrupt, "unread": stats.unread, "fps": round(stats.processed / wall, 1) if wall else None,
           "cpu_ms_per_frame": round(cpu * 1000 / max(1, stats.frames), 2), "full_reads": stats.full_reads, "rescued": stats.rescued,
           "full_read_ms_median": round(statistics.median(stats.read_ms), 1) if stats.read_ms else None,
           "gate_ms_median": round(statistics.median(stats.gate_ms), 2) if stats.gate_ms else None,
           "events": session.stats.events}
    out["frame_ms_mean"] = round(wall * 1000 / max(1, stats.frames), 2)  # wall time / frames: all counted
    out.update(_window_stats(stamps, entered))
    return out


def _settling_video(base_video: Path, folder: Path, frames: int, every: int = 60) -> Path:
    """The game's first frame with a hand passing over the board for a third of every ``every`` frames:
    the scene settles (and is read in full) every two seconds, more often than in a real game."""
    import cv2
    import numpy as np

    path = folder / f"settling_{frames}_{every}_v2.mp4"
    if path.exists():
        return path
    cap = cv2.VideoCapture(str(base_video))
    ok, base = cap.read()
    cap.release()
    if not ok:
        raise ValueError(f"cannot read {base_video}")
    h, w = base.shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (w, h))
    rng = np.random.default_rng(0)
    for i in range(frames):
        img = base.copy()
        if i % every >= every - every // 3:  # (the first frames are still: the gate takes its reference)
            x = int(rng.integers(0, w - w // 6))
            cv2.ellipse(img, (x + w // 12, h // 3), (w // 12, h // 5), 0, 0, 360, (120, 150, 210), -1)
        out.write(img)
    out.release()
    return path


def replay_fps(video: Path | None = None, profile: Path | None = None, *, limit: int | None = None,
               live_frames: int = 600, settling_frames: int = 600) -> dict[str, Any]:
    """Replay throughput at 1920x1080 with the real reader (decode + gate + full readings + referee).

    * ``replay_*``: a rendered game video, as fast as it goes (nothing dropped);
    * ``settling_*``: the same board with the scene settling every 2 s (a full reading each time);
    * ``live_*``: the game video delivered at 30 fps in real time through the live loop (frames the
      referee cannot get to are dropped and counted).
    """
    try:
        from calibration.profile import CalibrationProfile
        from vision.reader import BoardReader
    except ImportError as exc:
        return {"replay_fps": None, "why": f"vision not available: {exc}"}
    try:
        reader = BoardReader()
    except (OSError, ValueError, RuntimeError) as exc:
        return {"replay_fps": None, "why": f"vision not ready: {exc}"}
    if video is None:
        video, profile = bench_video()
    if profile is None:
        raise ValueError("--profile is needed with --video")
    prof = CalibrationProfile.load(profile)
    out: dict[str, Any] = {"replay_video": str(video), "load_average": [round(x, 1) for x in os.getloadavg()]}
    out.update({f"replay_{k}": v for k, v in _replay_once(video, prof, reader, live=False, limit=limit).items()})
    out["replay_fps"] = out.pop("replay_fps")
    if settling_frames:
        sv = _settling_video(video, video.parent, settling_frames)
        out.update({f"settling_{k}": v for k, v in
                    _replay_once(sv, prof, BoardReader(), live=False).items()})
    if live_frames:
        out.update({f"live_{k}": v for k, v in
                    _replay_once(video, prof, BoardReader(), live=True, limit=live_frames, pace=30.0).items()})
    return out


def memory_run(frames: int = 216_000, video: Path | None = None, profile: Path | None = None, *,
               mode: str = "replay", sample_s: float = 10.0, out: Path | None = None,
               max_wall_s: float | None = None) -> dict[str, Any]:
    """RSS of a real ``bgref replay`` (or ``bgref run``) process with the real reader over ``frames`` frames
    (216,000 = two hours at 30 fps): the rendered game video looped (``--loop``).

    The process reports its frame count every few seconds (``--progress``); its RSS is read from
    /proc at the same moments.  The slope is a least-squares fit of RSS over played hours (frames
    / 108,000) after the first 10 %.  With ``max_wall_s`` the run is stopped (SIGTERM: it ends
    cleanly) when the time is up and the figures say how far it got.  ``out`` is rewritten after
    every sample, so an interrupted run still leaves its figures.
    """
    import re
    import signal
    import subprocess
    import sys

    import cv2

    if video is None:
        video, profile = bench_video()
    assert profile is not None
    cap = cv2.VideoCapture(str(video))
    per_loop = int(cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
    cap.release()
    if per_loop <= 0:
        raise ValueError(f"cannot count the frames of {video}")
    loops = max(1, -(-frames // per_loop))
    progress = re.compile(r"bgref: progress frames=(\d+) processed=(\d+) dropped=(\d+)")
    samples: list[tuple[float, int, float, float]] = []  # (seconds, frames, rss MB, hwm MB)
    result: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, "-m", "referee", mode]
        cmd += [str(video)] if mode == "replay" else ["--camera", str(video)]
        cmd += ["--profile", str(profile), "--loop", str(loops), "--journal", str(Path(tmp) / "mem.jsonl"),
                "--no-status", "--json", "--progress", str(sample_s)]
        t0 = time.perf_counter()
        err_path = Path(tmp) / "stderr.txt"
        with open(err_path, "w", encoding="utf-8") as err:
            proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)
        stopped = False
        seen = 0
        while proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=1.0)
            lines = err_path.read_text(encoding="utf-8", errors="replace").splitlines()
            for line in lines[seen:]:
                m = progress.search(line)
                if m:
                    rss, hwm = _proc_mem(proc.pid)
                    if rss is not None:
                        samples.append((time.perf_counter() - t0, int(m.group(1)), rss, hwm or rss))
                        result = _memory_figures(mode, video, loops, frames, samples, None, t0)
                        if out is not None:
                            out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
            seen = len(lines)
            if max_wall_s is not None and not stopped and time.perf_counter() - t0 > max_wall_s:
                proc.send_signal(signal.SIGTERM)  # the run stops cleanly (journal closed, summary printed)
                stopped = True
        stdout, _ = proc.communicate()
        stderr = err_path.read_text(encoding="utf-8", errors="replace")
    last = stdout.strip().splitlines()[-1] if stdout.strip() else ""
    try:
        summary = json.loads(last)
    except json.JSONDecodeError:
        return {"mode": mode, "why": f"the run failed: {stderr.strip()[-400:]}", **result}
    result = _memory_figures(mode, video, loops, frames, samples, summary, t0)
    result["stopped_at_time_limit"] = stopped
    if out is not None:
        out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    return result


def _memory_figures(mode: str, video: Path, loops: int, target: int, samples: list[tuple[float, int, float, float]],
                    summary: dict[str, Any] | None, t0: float) -> dict[str, Any]:
    judged = int(summary["frames"]) if summary else (samples[-1][1] if samples else 0)
    pts = [(n / 108_000, r) for _, n, r, _ in samples]
    tail = [p for p in pts if p[0] >= 0.1 * (pts[-1][0] if pts else 0)]
    slope = _slope(tail)
    warm = [x for x in samples if x[0] >= 20.0] or samples
    peak = max((h for *_, h in samples), default=0.0)
    if summary:
        peak = max(peak, float(summary.get("peak_rss_mb") or 0))
    return {
        "what": f"bgref {mode} with the real reader (vision.reader.BoardReader) on a rendered 1920x1080 game "
                "video looped with --loop; RSS read from /proc",
        "complete": summary is not None and judged >= target,
        "mode": mode, "video": str(video), "loops": loops, "target_frames": target, "frames": judged,
        "processed": summary["processed"] if summary else (None),
        "dropped": summary["dropped"] if summary else None,
        "full_reads": summary.get("full_reads") if summary else None,
        "played_hours_equivalent": round(judged / 108_000, 3),
        "wall_s": round(time.perf_counter() - t0, 1),
        "rss_mb_start": round(warm[0][2], 1) if warm else None,
        "rss_mb_peak": round(peak, 1),
        "rss_mb_end": round(samples[-1][2], 1) if samples else None,
        "rss_slope_mb_per_hour": round(slope, 2) if slope is not None else None,
        "rss_baseline_slope_mb_per_hour": _baseline_slope(tail),
        "samples_hours_rss_mb": [[round(h, 3), round(r, 1)] for h, r in pts[:: max(1, len(pts) // 60)]],
        "load_average": [round(x, 1) for x in os.getloadavg()],
    }


def _proc_mem(pid: int) -> tuple[float | None, float | None]:
    rss = hwm = None
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1]) / 1024
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1]) / 1024
    except OSError:
        pass
    return rss, hwm


def _baseline_slope(pts: list[tuple[float, float]], bins: int = 10) -> float | None:
    """The slope of the per-decile median RSS: growth of the baseline, not of the transient peaks a
    full reading makes (its working memory comes and goes)."""
    if len(pts) < 2 * bins:
        return None
    size = len(pts) // bins
    meds = [(statistics.median(x for x, _ in pts[i:i + size]), statistics.median(y for _, y in pts[i:i + size]))
            for i in range(0, size * bins, size)]
    slope = _slope(meds)
    return round(slope, 2) if slope is not None else None


def _slope(pts: list[tuple[float, float]]) -> float | None:
    if len(pts) < 3:
        return None
    mx = statistics.fmean(x for x, _ in pts)
    my = statistics.fmean(y for _, y in pts)
    den = sum((x - mx) ** 2 for x, _ in pts)
    return sum((x - mx) * (y - my) for x, y in pts) / den if den else None


def memory(observations: int = 100_000, sample_every: int = 10_000) -> dict[str, Any]:
    """RSS over a long run of many synthetic games through the whole session (journal included)."""
    samples: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        session = Session.start(SessionInfo(), Path(tmp) / "long.jsonl", evidence=False)
        n = 0
        seed = 0
        offset = 0
        while n < observations:
            last = offset
            for o in random_game(seed, turns=200, faults=fault_plan(seed, 200, every=6)):
                from dataclasses import replace

                o2 = replace(o, seq=o.seq + offset)
                session.process(o2)
                last = o2.seq
                n += 1
                if n % sample_every == 0:
                    samples.append(round(rss_mb(), 1))
                if n >= observations:
                    break
            offset = last + 1
            seed += 1
        games = session.tracker.state.game
        session.close()
    growth = samples[-1] - samples[0] if len(samples) > 1 else 0.0
    return {"observations": n, "games": games, "rss_mb_samples": samples, "rss_growth_mb": round(growth, 1),
            "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bgref bench referee", description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small sizes (a smoke test)")
    p.add_argument("--only", choices=("latency", "rendered", "replay", "memory", "soak"),
                   help="run one part (soak: the long memory run of a real bgref replay/run process)")
    p.add_argument("--peer", choices=("emulator", "simavr"), default="emulator",
                   help="the device for the latency parts: the Python emulator or the firmware in simavr")
    p.add_argument("--video", type=Path, help="replay/soak: this video instead of the rendered 1080p game")
    p.add_argument("--profile", type=Path, help="the calibration profile of --video")
    p.add_argument("--frames", type=int, default=216_000,
                   help="soak: frames to play (default 216,000: two hours at 30 fps)")
    p.add_argument("--max-minutes", type=float, help="soak: stop the run after this long (the figures say how far)")
    p.add_argument("--mode", choices=("replay", "run"), default="replay", help="soak: bgref replay or bgref run")
    p.add_argument("--write", type=Path, help="soak: also write the figures to this JSON file "
                   "(docs/referee_memory.json)")
    args = p.parse_args(argv)
    out: dict[str, Any] = {}
    if args.only in (None, "latency"):
        out.update(latency(turns=8 if args.quick else 24, peer=args.peer))
    if args.only in (None, "rendered"):
        out.update(rendered_latency(turns=12 if args.quick else 40, per_kind=1 if args.quick else 2,
                                    size="320x180" if args.quick else "640x360", peer=args.peer))
    if args.only in (None, "replay"):
        out.update(replay_fps(args.video, args.profile, limit=300 if args.quick else None,
                              live_frames=90 if args.quick else 600, settling_frames=120 if args.quick else 600))
    if args.only in (None, "memory"):
        out.update(memory(observations=5_000 if args.quick else 100_000, sample_every=1_000 if args.quick else 10_000))
    if args.only == "soak":
        soak = memory_run(3_000 if args.quick else args.frames, args.video, args.profile, mode=args.mode,
                          out=args.write, max_wall_s=args.max_minutes * 60 if args.max_minutes else None,
                          sample_s=2.0 if args.quick else 10.0)
        out.update({f"soak_{k}": v for k, v in soak.items() if k != "samples_hours_rss_mb"})
        if soak.get("rss_mb_peak"):
            out["peak_rss_mb"] = soak["rss_mb_peak"]
    ratios = {}
    if out.get("latency_ms_median") is not None:
        ratios["latency"] = round(out["latency_ms_median"] / TARGETS["latency_ms_median"], 3)
    if out.get("replay_fps"):
        ratios["replay_fps"] = round(TARGETS["replay_fps"] / out["replay_fps"], 3)
    if out.get("replay_frame_ms_median"):
        ratios["replay_frame_ms"] = round(out["replay_frame_ms_median"] / (1000 / TARGETS["replay_fps"]), 3)
    if out.get("settling_fps"):
        ratios["settling_fps"] = round(TARGETS["replay_fps"] / out["settling_fps"], 3)
    if out.get("peak_rss_mb"):
        ratios["peak_rss"] = round(out["peak_rss_mb"] / TARGETS["peak_rss_mb"], 3)
    out["ratios_to_target"] = ratios  # <= 1.0 meets the target
    print(json.dumps(out))
    return 0
