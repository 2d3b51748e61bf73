"""``bgref replay``: the live loop on a recorded video, as fast as it can go."""

from __future__ import annotations

import argparse


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    from referee.app import add_common

    p = sub.add_parser(
        "replay",
        help="referee a recorded video (or observation stream) as fast as it can go",
        description="The same loop as `bgref run` on a recording: every frame is judged (none dropped). "
        "With --resume JOURNAL it continues after the last frame the journal had judged.",
    )
    p.add_argument("video", metavar="VIDEO", help="video file, image folder, or FILE.obs.jsonl")
    add_common(p)
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    from referee.app import run

    return run(args, str(args.video), live=False)
