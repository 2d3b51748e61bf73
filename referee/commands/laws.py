"""``bgref laws``: not built yet."""

from __future__ import annotations

import argparse
import sys


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("laws", help="(not built yet)")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    print("bgref laws: not built yet", file=sys.stderr)
    return 2
