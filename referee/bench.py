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

from referee.loop import run_loop
from referee.session import Session, SessionInfo
from referee.synthetic import fault_plan, random_game
from vision.observation import BoardObservation

TARGETS = {"latency_ms_median": 200.0, "replay_fps": 30.0, "peak_rss_mb": 600.0}


def _rss_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


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


def replay_fps(frames: int = 150, width: int = 1920, height: int = 1080) -> dict[str, Any]:
    """Decode + vision + referee on a 1920x1080 video, as fast as it goes."""
    import cv2
    import numpy as np

    try:
        from vision.reader import BoardReader
        from vision.training.rendered import profile_for, rendered
    except ImportError as exc:
        return {"replay_fps": None, "why": f"vision not available: {exc}"}
    try:
        reader = BoardReader()
    except (OSError, ValueError) as exc:
        return {"replay_fps": None, "why": f"vision not ready: {exc}"}
    r = rendered(3, width, height)
    base = r.image()
    prof = profile_for(r.truth)
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        video = os.path.join(tmp, "replay.mp4")
        out = cv2.VideoWriter(video, cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (width, height))
        for i in range(frames):
            img = base.copy()
            if (i // 20) % 3 == 0:  # a hand passing now and then: the gate sees motion
                x = int(rng.integers(0, width - 300))
                cv2.rectangle(img, (x, 0), (x + 300, height // 2), (90, 140, 200), -1)
            out.write(img)
        out.release()

        class VideoFrames:
            def __iter__(self) -> Iterator[Any]:
                cap = cv2.VideoCapture(video)
                seq = 0
                try:
                    while True:
                        ok, img = cap.read()
                        if not ok:
                            return
                        yield _VF(img, seq / 30, seq)
                        seq += 1
                finally:
                    cap.release()

        session = Session.start(SessionInfo(), Path(tmp) / "j.jsonl", evidence=False)
        t0 = time.perf_counter()
        stats = run_loop(VideoFrames(), lambda f: reader.read(f, prof), session, live=False)
        dt = time.perf_counter() - t0
        session.close()
    return {"replay_fps": round(stats.processed / dt, 1), "replay_frames": stats.processed,
            "replay_size": f"{width}x{height}", "replay_dropped": stats.dropped,
            "read_ms_median": round(statistics.median(stats.read_ms), 2) if stats.read_ms else None}


class _VF:
    __slots__ = ("image", "seq", "t")

    def __init__(self, image: Any, t: float, seq: int) -> None:
        self.image, self.t, self.seq = image, t, seq


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
                    samples.append(round(_rss_mb(), 1))
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
    p.add_argument("--only", choices=("latency", "rendered", "replay", "memory"), help="run one part")
    p.add_argument("--peer", choices=("emulator", "simavr"), default="emulator",
                   help="the device for the latency parts: the Python emulator or the firmware in simavr")
    args = p.parse_args(argv)
    out: dict[str, Any] = {}
    if args.only in (None, "latency"):
        out.update(latency(turns=8 if args.quick else 24, peer=args.peer))
    if args.only in (None, "rendered"):
        out.update(rendered_latency(turns=12 if args.quick else 40, per_kind=1 if args.quick else 2,
                                    size="320x180" if args.quick else "640x360", peer=args.peer))
    if args.only in (None, "replay"):
        out.update(replay_fps(frames=30 if args.quick else 150))
    if args.only in (None, "memory"):
        out.update(memory(observations=5_000 if args.quick else 100_000, sample_every=1_000 if args.quick else 10_000))
    ratios = {}
    if out.get("latency_ms_median") is not None:
        ratios["latency"] = round(out["latency_ms_median"] / TARGETS["latency_ms_median"], 3)
    if out.get("replay_fps"):
        ratios["replay_fps"] = round(TARGETS["replay_fps"] / out["replay_fps"], 3)
    if out.get("peak_rss_mb"):
        ratios["peak_rss"] = round(out["peak_rss_mb"] / TARGETS["peak_rss_mb"], 3)
    out["ratios_to_target"] = ratios  # <= 1.0 meets the target
    print(json.dumps(out))
    return 0
