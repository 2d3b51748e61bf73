"""``bgref bench vision [--frames N] [--json]``: speed of the motion gate and the full reading.

Medians over rendered frames (from the render cache; rendered on first use) at 1920x1080 and
1280x720, single-threaded as in the live loop.  Wall-clock medians, and CPU-time medians
(``time.process_time``: what one core spends, less disturbed by other jobs on a shared machine).
Targets: gate ≤ 2 ms at 1080p; full reading ≤ 30 ms at 1080p and ≤ 15 ms at 720p.  Also the live per-frame median on a still scene (the gate on
every frame, one full reading that is then reused while nothing moves).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

import cv2

TARGETS_MS = {"gate_1920x1080": 2.0, "read_1920x1080": 30.0, "read_1280x720": 15.0}


def _median_ms(fn: Any, repeats: int, clock: Any = time.perf_counter) -> float:
    ts: list[float] = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        ts.append((clock() - t0) * 1000)
    return float(statistics.median(ts))


def _checkers(reader: Any, image: Any, profile: Any) -> Any:
    """The checker stage alone (slot patches, model, joint decoding), as the reader runs it."""
    from vision.checkers import counts_from_slot_probs

    st = reader._for(profile)
    probs = reader.slots.probabilities(st.sampler.patches(image), reader.config.slot_temperature)
    return counts_from_slot_probs(st.sampler.slots, probs, frozenset(), reader.config.slot_hand_max,
                                  reader.config.slot_layer_error_factor)


def measure(frames: int = 3, repeats: int = 15) -> dict[str, Any]:
    from vision.motion import MotionGate, RegionMap
    from vision.reader import BoardReader
    from vision.training.rendered import EVAL_SEEDS, profile_for, rendered

    cv2.setNumThreads(1)
    reader = BoardReader()
    out: dict[str, Any] = {}
    stages: dict[str, list[float]] = {}
    for w, h in ((1920, 1080), (1280, 720)):
        gate_ms, read_ms, live_ms, read_cpu = [], [], [], []
        for seed in list(EVAL_SEEDS)[:frames]:
            r = rendered(seed, w, h)
            img = r.image()
            prof = profile_for(r.truth)
            gate = MotionGate(RegionMap.build(prof))
            gate.update(img)
            gate_ms.append(_median_ms(lambda g=gate, i=img: g.update(i), repeats))
            reader.read_image(img, prof, covered=frozenset())  # warm the per-profile caches
            read_ms.append(_median_ms(lambda p=prof, i=img: reader.read_image(i, p, covered=frozenset()), repeats))
            read_cpu.append(_median_ms(lambda p=prof, i=img: reader.read_image(i, p, covered=frozenset()), repeats,
                                       time.process_time))
            for clock, key in ((time.perf_counter, "checkers"), (time.process_time, "checkers_cpu")):
                stages.setdefault(f"{key}_{w}x{h}", []).append(
                    _median_ms(lambda p=prof, i=img: _checkers(reader, i, p), repeats, clock))
            obs = reader.read_image(img, prof, covered=frozenset())
            # the live loop on a still scene: gate every frame, one full reading, then reuse
            from vision.camera import Frame

            live = BoardReader()
            per_frame = []
            for i in range(30):
                t0 = time.perf_counter()
                live.read(Frame(img, i / 30, i), prof)
                per_frame.append((time.perf_counter() - t0) * 1000)
            live_ms.append(statistics.median(per_frame))
            for k, v in obs.timings_ms:
                if k != "checkers":
                    stages.setdefault(f"{k}_{w}x{h}", []).append(v)
        out[f"gate_{w}x{h}"] = round(statistics.median(gate_ms), 3)
        out[f"read_{w}x{h}"] = round(statistics.median(read_ms), 3)
        out[f"read_cpu_{w}x{h}"] = round(statistics.median(read_cpu), 3)
        out[f"live_per_frame_{w}x{h}"] = round(statistics.median(live_ms), 3)
    out["stages_ms"] = {k: round(statistics.median(v), 3) for k, v in stages.items()}
    out["ratios_to_target"] = {k: round(out[k] / t, 3) for k, t in TARGETS_MS.items()}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bgref bench vision")
    p.add_argument("--frames", type=int, default=3)
    p.add_argument("--repeats", type=int, default=15)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    res = measure(args.frames, args.repeats)
    if args.json:
        print(json.dumps(res, indent=2))
    else:
        for k, t in TARGETS_MS.items():
            print(f"{k:18s} median {res[k]:8.3f} ms   target {t:5.1f} ms   ratio {res[k] / t:5.2f}")
        for k in ("read_cpu_1920x1080", "read_cpu_1280x720"):
            print(f"{k:18s} median {res[k]:8.3f} ms   (CPU time of the full reading)")
        for k in ("live_per_frame_1920x1080", "live_per_frame_1280x720"):
            print(f"{k:18s} median {res[k]:8.3f} ms   (still scene: gate + one full reading reused)")
        for k, v in res["stages_ms"].items():
            print(f"  stage {k:22s} {v:8.3f} ms")
    return 0
