"""``bgref render``: camera frames from the board simulator, with exact ground truth.

``bgref render scene --seed N --out DIR`` writes ``scene_N.jpg`` (or .png) and ``scene_N.json``;
``bgref render game --seed N --out DIR [--infractions ...]`` writes a video and per-frame truth.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"size {text!r} is not WIDTHxHEIGHT") from exc
    if not (640 <= w <= 3840 and 480 <= h <= 2160):
        raise argparse.ArgumentTypeError(f"size {text!r} is outside 640x480..3840x2160")
    return w, h


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("render", help="render simulated camera frames with ground truth")
    rsub = p.add_subparsers(dest="what", metavar="WHAT")
    rsub.required = True
    s = rsub.add_parser("scene", help="still scenes: an image and its JSON truth per seed")
    s.add_argument("--seed", type=int, default=0, help="first seed")
    s.add_argument("--count", type=int, default=1, help="how many scenes (seeds seed..seed+count-1)")
    s.add_argument("--out", required=True, help="output folder")
    s.add_argument("--size", type=_size, default=(1280, 720), help="WIDTHxHEIGHT (default 1280x720)")
    s.add_argument("--clean", action="store_true", help="easy conditions: near overhead, no noise or hands")
    s.add_argument("--png", action="store_true", help="write PNG instead of JPEG (JPEG artefacts are simulated)")
    s.set_defaults(func=_scene)
    g = rsub.add_parser("game", help="a whole game as a video with per-frame truth (JSON lines)")
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", required=True, help="output folder")
    g.add_argument("--size", type=_size, default=(1280, 720), help="WIDTHxHEIGHT (default 1280x720)")
    g.add_argument("--fps", type=float, default=30.0)
    g.add_argument("--max-turns", type=int, default=400, help="stop after this many turns")
    g.add_argument("--infractions", nargs="*", default=[], metavar="KIND@TURN",
                   help="scripted infractions, e.g. premature_throw@5 cocked_die@8 (see docs/simulator.md)")
    g.add_argument("--codec", choices=("mp4v", "MJPG"), default="mp4v")
    g.add_argument("--clean", action="store_true", help="easy conditions: near overhead, no noise")
    g.set_defaults(func=_game)


def _scene(args: argparse.Namespace) -> int:
    import cv2

    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth

    if args.count < 1:
        raise ValueError(f"--count {args.count} must be at least 1")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    cfg = SimConfig.clean() if args.clean else SimConfig()
    w, h = args.size
    for seed in range(args.seed, args.seed + args.count):
        scene = random_scene(seed, cfg, width=w, height=h)
        img, info = render(scene)
        ext = "png" if args.png else "jpg"
        path = out / f"scene_{seed:06d}.{ext}"
        if not cv2.imwrite(str(path), img, [cv2.IMWRITE_JPEG_QUALITY, 97] if ext == "jpg" else []):
            raise OSError(f"cannot write {path}")
        truth = build_truth(scene, info)
        (out / f"scene_{seed:06d}.json").write_text(json.dumps(truth, separators=(",", ":")) + "\n", encoding="utf-8")
        print(path)
    return 0


def _game(args: argparse.Namespace) -> int:
    from vision.sim.config import SimConfig
    from vision.sim.game import GameScript, render_game

    cfg = SimConfig.clean() if args.clean else SimConfig()
    script = GameScript.parse(args.infractions, max_turns=args.max_turns)
    w, h = args.size
    result = render_game(args.seed, Path(args.out), script=script, cfg=cfg, width=w, height=h, fps=args.fps,
                         codec=args.codec)
    print(f"{result.video} ({result.frames} frames, {result.turns} turns); truth: {result.truth}")
    return 0
