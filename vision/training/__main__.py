"""``python -m vision.training faces [--data DIR] [--seed N] [--epochs N] [--rendered DIR]`` and
``python -m vision.training slots [--arch fast|fast64|v3] [--epochs N] [--hand-labels] ...`` (see
``vision/training/slots.py``), ``python -m vision.training pose render|train|eval ...`` (see
``vision/training/pose.py``) and ``python -m vision.training cube render|train|eval|bench ...`` (see
``vision/training/cube.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["cube"]:
        from vision.training.cube import main as cube_main

        return cube_main(raw[1:])
    if raw[:1] == ["slots"]:
        from vision.training.slots import main as slots_main

        return slots_main(raw[1:])
    if raw[:1] == ["pose"]:
        from vision.training.pose import main as pose_main

        return pose_main(raw[1:])
    from vision.training.data import shared_dir

    p = argparse.ArgumentParser(prog="python -m vision.training")
    sub = p.add_subparsers(dest="what", required=True)
    f = sub.add_parser("faces", help="train the die-face classifier (needs torch)")
    f.add_argument("--data", type=Path, default=shared_dir(), help="the shared data folder (…/shared/data)")
    f.add_argument("--seed", type=int, default=7)
    f.add_argument("--epochs", type=int, default=12)
    f.add_argument("--rendered", type=Path, default=None, help="a folder of rendered frames with JSON sidecars")
    f.add_argument("--out", type=Path, default=None)
    f.add_argument("--copies", type=int, default=8, help="augmented copies of each die sample")
    args = p.parse_args(argv)
    from vision.training.faces import MODELS, train

    out = args.out or MODELS / "die_face.onnx"
    rec = train(args.data / "dice", out, seed=args.seed, epochs=args.epochs, rendered=args.rendered, copies=args.copies)
    print(rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
