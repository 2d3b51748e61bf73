"""``bgref run``: referee a game live from a camera."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from referee.app import add_common

    p = sub.add_parser(
        "run",
        help="referee a game live: camera -> vision -> laws -> device",
        description="Referee a game live. The journal is written as you play; after a crash or an unplugged "
        "camera, `bgref run --resume JOURNAL ...` continues exactly where it stopped.",
    )
    p.add_argument("--camera", required=True, metavar="0|URL|FILE",
                   help="webcam number, stream URL, video file, image folder, sim:SEED, or FILE.obs.jsonl")
    add_common(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from referee.app import run

    return run(args, str(args.camera), live=True)
