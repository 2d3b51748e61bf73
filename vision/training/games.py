"""Still frames of rendered games, for measuring (and training) the checker stage on played positions.

``python -m vision.training.games render SEEDS [--every N] [--out DIR]`` plays each game as
``referee.recorded`` records it (``GameScript(schedule(2, 1), max_turns=40)``, ``PACE``, 1280x720) and
saves about every ``N``-th still frame (default 10; only those are rasterised) as ``<seed>_<seq>.png`` + ``.json`` (the renderer's truth,
plus ``stack_positions``: for each point, the stack positions its resting checkers take, 0 = at the
rail) into ``DIR`` (default ``$BGREF_RENDER_CACHE/games``).

``python -m vision.training.games measure SEEDS [--dir DIR] [--out F.json]``: the checker stage on those
frames (``vision.evaluate.evaluate_checkers``' figures), and the regions whose checkers are not packed
from the rail (a point whose positions are not ``0..n-1``) apart: right / wrong / unsure.

A played checker does not rest where a random scene puts one: after a hit the hitter's checker rests
in the point's second position with the rail-end position empty (the simulator since b3ec4fa), which
random scenes never show.  Game seeds 20000+ are for tuning; 7430-7477 are the referee's seen games.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from vision.training.rendered import Rendered, cache_dir, frames_in, write_frame


def games_dir() -> Path:
    return cache_dir() / "games"


def stack_positions(director: Any) -> dict[str, list[int]]:
    """For each point with checkers: the stack positions (``layout.stack_slots`` indices) its resting
    checkers take, nearest first (``vision.sim.game.stack_position``; a checker more than half a diameter
    from every position: -1)."""
    from vision.sim.game import stack_position

    lay = director.layout
    out: dict[str, list[int]] = {}
    for c in director.board.checkers:
        if c.region.startswith("p"):
            out.setdefault(c.region, []).append(stack_position(lay, c.region, c.side, c.center,
                                                               3 * lay.spec.row_capacity))
    return {k: sorted(v) for k, v in out.items()}


def gapped(positions: list[int]) -> bool:
    """Checkers not packed from the rail (positions other than 0..n-1)."""
    return sorted(positions) != list(range(len(positions)))


def render_game(seed: int, out: Path, every: int = 10, max_turns: int = 40) -> int:
    """Play game ``seed`` and save every ``every``-th still frame without hands; returns how many."""
    from referee.recorded import PACE
    from referee.rendered import schedule
    from vision.sim.config import SimConfig
    from vision.sim.game import GameDirector, GameScript

    out.mkdir(parents=True, exist_ok=True)
    director = GameDirector(seed, script=GameScript(schedule(2, 1), max_turns=max_turns), cfg=SimConfig(),
                            width=1280, height=720, timing=PACE, pixels=False)
    n_still = saved = 0
    for img, truth in director.frames():
        # only the frames to save are rasterised (the course of the game does not depend on it)
        was_drawn, director.pixels = director.pixels, False
        if not truth.get("still"):
            continue
        n_still += 1
        if was_drawn and not truth["hands"]["present"]:
            truth["stack_positions"] = stack_positions(director)
            write_frame(out / f"{seed}_{truth['seq']}.png", out / f"{seed}_{truth['seq']}.json", img, truth)
            saved += 1
        director.pixels = n_still % every == every - 1  # draw the next frame if it is still
    return saved


def game_frames(d: Path, seeds: list[int]) -> list[Rendered]:
    frames: list[Rendered] = []
    for seed in seeds:
        frames.extend(frames_in(d, range(seed, seed + 1), f"{seed}_*.json"))
    return frames


def measure(frames: list[Rendered], cfg: Any = None) -> dict[str, Any]:
    from vision.config import VisionConfig
    from vision.evaluate import evaluate_checkers

    return evaluate_checkers(len(frames), cfg or VisionConfig(), frames_list=frames)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.training.games")
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("render", help="save still frames of rendered games")
    r.add_argument("seeds", help="seeds: N, N-M or comma lists")
    r.add_argument("--every", type=int, default=10)
    r.add_argument("--out", type=Path, default=None)
    m = sub.add_parser("measure", help="the checker stage on saved game frames")
    m.add_argument("seeds", help="seeds: N, N-M or comma lists")
    m.add_argument("--dir", type=Path, default=None)
    m.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    from referee.recorded import SeedsError, parse_seeds

    try:
        seeds = parse_seeds([args.seeds])
    except SeedsError as exc:
        raise SystemExit(f"python -m vision.training.games: {exc}") from None
    if args.what == "render":
        out = args.out or games_dir()
        for seed in seeds:
            print(seed, render_game(seed, out, args.every), "frames", flush=True)
        return 0
    frames = game_frames(args.dir or games_dir(), seeds)
    if not frames:
        raise SystemExit(f"no game frames of {args.seeds} in {args.dir or games_dir()} (render them first)")
    res = measure(frames)
    text = json.dumps(res, indent=2, sort_keys=True)
    if args.out:
        args.out.write_text(text + "\n")
    print(json.dumps({k: res[k] for k in ("frames", "board", "regions", "gapped")}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
