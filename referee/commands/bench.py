"""``bgref bench AREA``: benchmarks of each part, reported as medians and ratios.

Each area's benchmark lives beside its code and is imported only when asked for.
"""

from __future__ import annotations

import argparse
import importlib

AREAS = {
    "rules": "rules.bench",
    "render": "vision.sim.bench",
    "vision": "vision.bench",
    "dice": "vision.dice.evaluate",
    "calibration": "calibration.bench",
    "device": "firmware_bridge.bench",
    "referee": "referee.bench",
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("bench", help="run a benchmark and print its figures")
    p.add_argument("area", choices=sorted(AREAS), help="which part to measure")
    p.add_argument("rest", nargs=argparse.REMAINDER, help="options passed to the area's benchmark")
    p.set_defaults(func=_run)


def _run(args: argparse.Namespace) -> int:
    module = importlib.import_module(AREAS[args.area])
    return int(module.main(list(args.rest)) or 0)
