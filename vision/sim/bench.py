"""``bgref bench render``: simulator speed on one core (game-video frames and still scenes).

Prints the median milliseconds per game frame (render + sensor with JPEG + truth, as the live source runs, and the same with the
video encoder), the frames per second they allow, and the time of a still scene (cold: the
static board is ray-cast for a new camera).  The target: >= 15 fps at 1280x720.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import cv2

TARGET_FPS = 15.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bgref bench render", description=__doc__)
    p.add_argument("--size", default="1280x720", help="WIDTHxHEIGHT (default 1280x720)")
    p.add_argument("--frames", type=int, default=300, help="game frames to time (default 300)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--stills", type=int, default=3, help="still scenes to time (default 3)")
    p.add_argument("--threads", type=int, default=1, help="OpenCV threads (default 1: one core)")
    args = p.parse_args(argv)
    w, h = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(args.threads)

    from vision.sim.game import GameDirector, GameScript
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth

    director = GameDirector(args.seed, script=GameScript(max_turns=1000), width=w, height=h, jpeg=True)
    frames = director.frames()
    t0 = time.perf_counter()
    next(frames)  # warm-up: the static board for this camera
    setup = time.perf_counter() - t0
    per_frame: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        writer = cv2.VideoWriter(str(Path(tmp) / "b.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (w, h))
        per_write: list[float] = []
        for _ in range(args.frames):
            a = time.perf_counter()
            try:
                img, _truth = next(frames)
            except StopIteration:
                break
            b = time.perf_counter()
            writer.write(img)
            c = time.perf_counter()
            per_frame.append(b - a)
            per_write.append(c - a)
        writer.release()
    stills: list[float] = []
    for s in range(args.stills):
        a = time.perf_counter()
        scene = random_scene(1000 + s, width=w, height=h)
        img, info = render(scene)
        build_truth(scene, info)
        stills.append(time.perf_counter() - a)
    med = statistics.median(per_frame) * 1000
    p90 = sorted(per_frame)[int(0.9 * (len(per_frame) - 1))] * 1000
    medw = statistics.median(per_write) * 1000
    fps_mean = len(per_frame) / sum(per_frame)
    print(f"render bench {w}x{h}, {len(per_frame)} game frames, {args.threads} OpenCV thread(s)")
    print(f"  game frame (render+sensor+truth): median {med:.1f} ms, p90 {p90:.1f} ms, "
          f"{1000 / med:.1f} fps median, {fps_mean:.1f} fps mean")
    print(f"  with mp4v encoding:               median {medw:.1f} ms, {1000 / medw:.1f} fps")
    print(f"  first frame (static board ray-cast): {setup * 1000:.0f} ms")
    print(f"  still scene cold (new camera, JPEG, truth): median {statistics.median(stills) * 1000:.0f} ms")
    ok = fps_mean >= TARGET_FPS
    print(f"  target >= {TARGET_FPS:.0f} fps: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1
