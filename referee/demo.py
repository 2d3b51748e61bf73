"""``bgref demo``: the whole referee on a rendered game, in under a minute.

The simulator plays a game (the camera), with a few scripted infractions of each kind; the
frames go through vision (the real :class:`vision.reader.BoardReader`, through
:class:`referee.rendered.RealVision` and the tracker made for real vision, when it reads the set-up
confidently; otherwise the renderer's ground truth, the "oracle", with a note saying why), the
tracker and the laws, to the device (the real firmware in simavr when avr-gcc and
simavr are installed, otherwise the Python emulator), with the live status view.  At the end:
the match exported (.mat, .sgf), the evidence images, and a summary of what was caught against
what was staged.  ``--json`` prints the summary as one JSON object on the last line.

Latency (``latency_ms_median``): for every caught infraction, the frames from the first still
frame that shows it to the frame that decided it, at the video rate (30 fps: 33.3 ms a frame),
plus the measured time from that frame's arrival to the device receiving the LED frame.  The
demo renders as fast as it can (not in real time), so the frame part is counted, not waited.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.exports import export_match
from referee.loop import LoopStats, run_loop
from referee.marks import marker_for
from referee.rendered import (
    RealVision,
    SimFrame,
    oracle_reader,
    schedule,
    score_game,
    session_info_for,
    sim_frames,
)
from referee.session import Judged, Session
from referee.tracker import TrackerConfig
from vision.observation import BoardObservation
from vision.sim.game import INFRACTIONS, GameDirector, GameScript, Timing

DEMO_TIMING = Timing(reach=3, carry=3, place=2, retreat=3, throw=8, settle=8, lift=3, think=8, cube=6, illegal_hold=10)


# ---------------------------------------------------------------------- vision
@dataclass
class DemoVision:
    """The reader the demo uses, and why."""

    mode: str  # "real" or "oracle"
    note: str
    real: RealVision | None = None
    profile: Any = None
    setup_read: dict[str, Any] = field(default_factory=dict)  # how the real reader read the set-up
    delivered: dict[int, float] = field(default_factory=dict)  # seq -> when the loop took the frame
    last_seq: int = -1

    def __call__(self, frame: SimFrame) -> BoardObservation:
        self.delivered[frame.seq] = time.perf_counter()
        if len(self.delivered) > 4000:  # memory stays flat on long demos
            for k in list(self.delivered)[:2000]:
                del self.delivered[k]
        self.last_seq = frame.seq
        if self.real is not None and self.mode == "real":
            return self.real(frame)
        return oracle_reader(frame)

    def tracker_config(self, white_seat: str) -> TrackerConfig | None:
        """Real vision gets the tracker made for it (its count threshold, dice matched by place ...)."""
        if self.mode == "real" and self.real is not None:
            return TrackerConfig.for_real_vision(white_seat, self.real.count_confidence)
        return None


def probe_setup(reader: Any, frames: list[SimFrame], profile: Any) -> dict[str, Any]:
    """Read the set-up (the still frames before the opening throw) as the referee would.

    The frames go through the reader on a profile of their own (the reader's motion state of the
    game itself stays untouched); the last still reading is compared with the starting array:
    points read with confidence, and regions read with confidence that differ from it.
    """
    from referee.tracker import STARTING_BOARD, scene_of, setup_agreement

    probe = RealVision(reader, profile)
    obs = None
    for f in frames:
        o = probe(f)
        if o.still:
            obs = o
    if obs is None:
        return {"read": False, "sure_points": 0, "wrong": [], "threshold": probe.count_confidence}
    sc = scene_of(obs, TrackerConfig(count_confidence=probe.count_confidence))
    sure, wrong = setup_agreement(sc.board, sc.confidences, probe.count_confidence)
    return {"read": True, "sure_points": sure, "wrong": list(wrong), "exact": sc.board == STARTING_BOARD,
            "threshold": probe.count_confidence}


def choose_vision(want: str, first: SimFrame, setup_frames: list[SimFrame] | None = None) -> DemoVision:
    """The real reader when asked for, or with ``auto`` when it reads the set-up confidently; else the oracle.

    "Confidently" is what the tracker needs to start a game on real vision: at least
    ``TrackerConfig.setup_min_sure`` of the 24 points read with the reader's own confidence, and no
    region read with confidence that differs from the starting array.  Otherwise the demo says
    why, in ``vision_note``, and judges from the renderer's ground truth: never silently.
    """
    if want == "oracle":
        return DemoVision("oracle", "oracle (the renderer's ground truth), as asked")
    try:
        from vision.reader import BoardReader
        from vision.training.rendered import profile_for

        reader = BoardReader()
    except (ImportError, OSError, ValueError, RuntimeError) as exc:
        if want == "real":
            raise ValueError(f"--vision real: the real reader is not available: {exc}") from exc
        return DemoVision("oracle", f"oracle: the real reader is not ready ({exc})")
    profile = profile_for(first.truth)
    real = RealVision(reader, profile)
    if want == "real":
        return DemoVision("real", "real vision (vision.reader.BoardReader), as asked", real, profile)
    need = TrackerConfig().setup_min_sure
    try:
        got = probe_setup(reader, setup_frames or [first], profile_for(first.truth))
    except (OSError, ValueError, RuntimeError) as exc:  # a model file missing or unreadable
        return DemoVision("oracle", f"oracle: the real reader failed on the set-up ({exc})")
    if got["read"] and not got["wrong"] and got["sure_points"] >= need:
        return DemoVision("real", f"real vision (vision.reader.BoardReader): it read the set-up confidently "
                          f"({got['sure_points']}/24 points sure, none wrong)", real, profile, got)
    if not got["read"]:
        why = "did not see the set-up still"
    elif got["wrong"]:
        why = f"read {len(got['wrong'])} region(s) of the set-up wrongly with confidence ({got['wrong']})"
    else:
        why = f"read only {got['sure_points']}/24 points of the set-up confidently (needs {need})"
    return DemoVision("oracle", f"oracle: the real reader {why} on this rendered board (threshold "
                      f"{got['threshold']}); judging from the renderer's ground truth instead "
                      "(--vision real insists on the reader)", real, profile, got)


# ---------------------------------------------------------------------- device
@dataclass
class DemoDevice:
    kind: str  # "simavr", "emulator" or "none"
    note: str
    device: Any = None
    stamps: Any = None  # firmware_bridge.events.OutputStamps: the device's alert outputs (LED or buzzer)
    _stop: Any = None

    def close(self) -> None:
        if self.device is not None:
            with contextlib.suppress(Exception):
                self.device.flush(2.0)
            self.device.close()
        if self._stop is not None:
            with contextlib.suppress(Exception):
                self._stop()


def open_demo_device(want: str) -> DemoDevice:
    """The simulated device: the firmware in simavr if possible, else the Python emulator."""
    if want == "none":
        return DemoDevice("none", "no device")
    from typing import cast

    from firmware_bridge.device import Device, open_device
    from firmware_bridge.events import OutputStamps

    if want in ("auto", "simavr"):
        from firmware_bridge.simulator import SimulatedDevice, missing_tools

        missing = missing_tools()
        if not missing:
            sim = SimulatedDevice()
            out = DemoDevice("simavr", "the real firmware in simavr (firmware_bridge.simulator)")
            try:
                out.stamps = OutputStamps(sim.events.append)
                sim.events.append = out.stamps  # type: ignore[method-assign]
                port = sim.start()
                out.device = open_device(port)
                out.device.wait_connected(10.0)
                out._stop = sim.stop
                return out
            except Exception as exc:  # any failure falls back to the emulator
                with contextlib.suppress(Exception):
                    sim.stop()
                if want == "simavr":
                    raise ValueError(f"--device simavr: could not start the firmware in simavr: {exc}") from exc
                note = f"the Python emulator (simavr failed: {exc})"
        else:
            if want == "simavr":
                raise ValueError(f"--device simavr: missing {', '.join(missing)}")
            note = f"the Python emulator (firmware_bridge.emulator; {', '.join(missing)} not installed)"
    else:
        note = "the Python emulator (firmware_bridge.emulator), as asked"
    from firmware_bridge.emulator import Emulator

    emu = Emulator()
    out = DemoDevice("emulator", note)
    out.stamps = OutputStamps(emu.core.emit)
    emu.core.emit = out.stamps
    link = emu.in_process()
    out.device = Device(lambda: cast(Any, link)).open()
    out.device.wait_connected(5.0)
    out._stop = emu.stop
    return out


# ---------------------------------------------------------------------- the demo
def _frames_with_setup(director: GameDirector) -> tuple[list[SimFrame], Iterator[SimFrame]]:
    """The frames up to the opening throw (the set-up standing still), and all the frames."""
    it = sim_frames(director)
    head: list[SimFrame] = []
    for f in it:
        head.append(f)
        if len(head) >= 12 or any(str(e).startswith("dice_thrown") for e in f.truth.get("events") or ()):
            break

    def chain() -> Iterator[SimFrame]:
        yield from head
        yield from it

    return head, chain()


def run_demo(args: argparse.Namespace) -> dict[str, Any]:
    from vision.sim.config import SimConfig

    w, h = _size(args.size)
    kinds = tuple(args.kinds.split(",")) if args.kinds else INFRACTIONS
    for k in kinds:
        if k not in INFRACTIONS:
            raise ValueError(f"--kinds: unknown infraction {k!r}; expected some of {', '.join(INFRACTIONS)}")
    script = GameScript(schedule(args.per_kind, 1, kinds=kinds, offset=1), max_turns=args.turns, double_p=0.05)
    director = GameDirector(args.seed, script=script, cfg=SimConfig.clean() if args.clean else SimConfig(),
                            width=w, height=h, timing=DEMO_TIMING)
    head, frames = _frames_with_setup(director)
    first = head[0]
    vision = choose_vision(args.vision, first, head)
    out_dir = Path(args.out)
    out_dir.mkdir(parents=True, exist_ok=True)
    journal = out_dir / "demo.jsonl"
    for old in (journal, out_dir / "demo.mat", out_dir / "demo.sgf"):
        old.unlink(missing_ok=True)
    ev_dir = out_dir / "demo.evidence"
    if ev_dir.is_dir():
        for f in ev_dir.iterdir():
            f.unlink()
    device = open_demo_device(args.device)
    t0 = time.perf_counter()
    judged: list[tuple[int, Judged, float]] = []
    still: list[int] = []
    try:
        info = session_info_for(director.seating, players=("White", "Black"), laws="modern",
                                source=f"sim:{args.seed}")
        session = Session.start(info, journal, device=device.device, tracker_config=vision.tracker_config(info.white_seat))
        session.marker = marker_for(vision.profile if vision.profile is not None else _profile(first))
        session.listeners.append(lambda j: judged.append((vision.last_seq, j, time.perf_counter())))

        def frames_noting_still() -> Iterator[SimFrame]:
            for f in frames:
                if f.truth.get("still"):
                    still.append(f.seq)
                yield f

        view = _DemoView(session, quiet=args.json or args.no_status or not sys.stdout.isatty(),
                         header=f"bgref demo: sim:{args.seed} {w}x{h}; vision: {vision.note}; device: {device.note}")
        stats = LoopStats()
        try:
            stats = run_loop(frames_noting_still(), vision, session, live=False, on_tick=view.tick)
        finally:
            view.close(stats)
        session.flush()  # the video has ended: a play the tracker still holds goes on record
        written = export_match(session, out_dir)
        session.note("end", reason=stats.ended, processed=stats.processed, exports=[str(p) for p in written])
        with contextlib.suppress(Exception):
            device.device.flush(3.0) if device.device is not None else None
        session.close()
    finally:
        device.close()
    elapsed = time.perf_counter() - t0
    score = score_game(args.seed, director, judged, still, session)
    lat = _latencies(score, session, device, vision, fps=director.fps, debug=bool(getattr(args, 'debug', False)))
    evidence = sorted(str(p) for p in ev_dir.iterdir()) if ev_dir.is_dir() else []
    return {
        "seed": args.seed,
        "size": f"{w}x{h}",
        "vision": vision.mode,
        "vision_note": vision.note,
        "vision_setup": vision.setup_read,
        "vision_stats": dict(vision.real.stats) if vision.real is not None and vision.mode == "real" else {},
        "device": device.kind,
        "device_note": device.note,
        "turns": score.turns,
        "frames": score.frames,
        "seeded": score.seeded,
        "caught": score.caught,
        "missed": [f"{c.seeded.kind} by {c.seeded.side.name.lower()} (turn {c.seeded.turn}): "
                   f"{c.code or 'nothing called'}" for c in score.missed],
        "false_alarms": len(score.false_alarms),
        "false_alarm_list": [f"g{j.game} m{j.move}: {j.verdict.summary()}" for j in score.false_alarms],
        "checks": len(score.checks),
        "resolved_unsure": len(score.resolved),
        "by_kind": {k: {"seeded": n, "caught": c} for k, (n, c) in score.by_kind().items()},
        "latency_ms_median": round(statistics.median(lat), 1) if lat else None,
        "latency_ms_max": round(max(lat), 1) if lat else None,
        "device_alerts": len(device.stamps.times) if device.stamps is not None else 0,
        "record_matches_game": score.record_matches,
        "exports": [str(p) for p in written],
        "evidence": evidence,
        "journal": str(journal),
        "elapsed_s": round(elapsed, 1),
        "fps": round(stats.fps, 1),
    }


def _profile(first: SimFrame) -> Any:
    from vision.training.rendered import profile_for

    return profile_for(first.truth)


def _latencies(score: Any, session: Session, device: DemoDevice, vision: DemoVision, *, fps: float,
               debug: bool = False) -> list[float]:
    sent_at: dict[int, float] = {}
    for seq, wall in session.stats.alerts:
        sent_at.setdefault(seq, wall)
    sent_list = sorted(sent_at.values())
    arrival_of: dict[float, float | None] = {}
    if device.stamps is not None:
        arrival_of = dict(zip(sent_list, device.stamps.arrivals(sent_list), strict=True))
    out: list[float] = []
    for c in score.catches:
        if not c.caught or c.latency_frames is None or c.verdict_seq is None:
            continue
        arrived = vision.delivered.get(c.verdict_seq)
        sent = sent_at.get(c.verdict_seq)
        if arrived is None or sent is None:
            continue
        # the device's first output caused by this alert (never a later alert's output)
        got = arrival_of.get(sent) if device.device is not None else sent
        if got is None:
            continue
        out.append(c.latency_frames * 1000.0 / fps + (got - arrived) * 1000.0)
        if debug:
            print(f"latency {c.seeded.kind}: {c.latency_frames} frames + {(got - arrived) * 1000:.1f} ms", file=sys.stderr)
    return out


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise ValueError(f"--size must look like 640x360, got {text!r}") from exc
    if not (64 <= w <= 3840 and 64 <= h <= 2160):
        raise ValueError(f"--size {text!r} is out of range (64x64 .. 3840x2160)")
    return w, h


class _DemoView:
    """The live status view (rich) on a terminal, else a line per infraction on stderr."""

    def __init__(self, session: Session, *, quiet: bool, header: str) -> None:
        self.session = session
        self.quiet = quiet
        self.live: Any = None
        self._seen = 0
        print(header, file=sys.stderr)
        if not quiet:
            from rich.live import Live

            from referee.status import model_of, render

            self._model_of, self._render = model_of, render
            self.live = Live(render(model_of(session)), refresh_per_second=8, transient=False)
            self.live.start()

    def tick(self, stats: LoopStats) -> None:
        if self.live is not None:
            self.live.update(self._render(self._model_of(self.session, stats)))
            return
        infr = self.session.stats.infractions
        if infr > self._seen:
            for j in self.session.infractions[-(infr - self._seen):]:
                print(f"  g{j.game} m{j.move}: {j.verdict.summary()}", file=sys.stderr)
            self._seen = infr

    def close(self, stats: LoopStats) -> None:
        self.tick(stats)
        if self.live is not None:
            self.live.stop()


def print_summary(s: dict[str, Any], *, as_json: bool) -> None:
    if as_json:
        print(json.dumps(s, separators=(",", ":")))
        return
    print(f"\nbgref demo, seed {s['seed']} ({s['size']}): {s['turns']} turns, {s['frames']} frames in "
          f"{s['elapsed_s']} s")
    print(f"  vision: {s['vision_note']}")
    print(f"  device: {s['device_note']} ({s['device_alerts']} alert outputs on the device)")
    print(f"  caught {s['caught']} of {s['seeded']} staged infractions; {s['false_alarms']} false alarm(s); "
          f"{s['checks']} request(s) to check")
    for kind, d in s["by_kind"].items():
        print(f"    {kind:24s} {d['caught']}/{d['seeded']}")
    for m in s["missed"]:
        print(f"    missed: {m}")
    for f in s["false_alarm_list"]:
        print(f"    false alarm: {f}")
    if s["latency_ms_median"] is not None:
        print(f"  alert latency at 30 fps: median {s['latency_ms_median']} ms (max {s['latency_ms_max']} ms)")
    print(f"  the exported match {'is' if s['record_matches_game'] else 'is NOT'} the game that was played")
    for p in s["exports"]:
        print(f"  exported {p}")
    print(f"  evidence: {len(s['evidence'])} image(s) in {Path(s['journal']).with_suffix('.evidence')}")
    print(f"  journal: {s['journal']}")
