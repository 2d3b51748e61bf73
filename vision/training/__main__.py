"""``python -m vision.training faces [--data DIR] [--seed N] [--epochs N] [--rendered DIR]``."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
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
    sl = sub.add_parser("slots", help="train the checker-slot classifier on cached renders (needs torch)")
    sl.add_argument("--seed", type=int, default=7)
    sl.add_argument("--epochs", type=int, default=8)
    sl.add_argument("--out", type=Path, default=None)
    args = p.parse_args(argv)
    if args.what == "slots":
        from vision.checkers import SLOT_MODEL
        from vision.training.slots import train as train_slots

        print(train_slots(args.out or SLOT_MODEL, seed=args.seed, epochs=args.epochs))
        return 0
    from vision.training.faces import MODELS, train

    out = args.out or MODELS / "die_face.onnx"
    rec = train(args.data / "dice", out, seed=args.seed, epochs=args.epochs, rendered=args.rendered, copies=args.copies)
    print(rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
