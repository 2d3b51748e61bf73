"""``bgref device``: not built yet."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("device", help="(not built yet)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    print("bgref device: not built yet", file=sys.stderr)
    return 2
