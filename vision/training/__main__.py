"""``python -m vision.training faces [--data DIR] [--seed N] [--epochs N] [--rendered DIR]`` and
``python -m vision.training slots [--epochs N] [--init-from MODEL.onnx] [--lr LR] [--out MODEL.onnx]`` and
``python -m vision.training cube render|train|eval|bench ...`` (see ``vision/training/cube.py``)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    raw = sys.argv[1:] if argv is None else argv
    if raw[:1] == ["cube"]:
        from vision.training.cube import main as cube_main

        return cube_main(raw[1:])
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
    sl.add_argument("--init-from", type=Path, default=None, help="start from this exported slot model (fine-tune)")
    sl.add_argument("--lr", type=float, default=3e-3)
    sl.add_argument("--samples-per-epoch", type=int, default=160_000)
    sl.add_argument("--label-smoothing", type=float, default=0.0)
    sl.add_argument("--hand-labels", action="store_true",
                    help="label 'hand' per slot from the hand's geometry (else every slot of a covered region)")
    sl.add_argument("--calibrate-only", action="store_true",
                    help="only refit the temperature of --out on the held-out frames")
    args = p.parse_args(argv)
    if args.what == "slots":
        from vision.checkers import SLOT_MODEL
        from vision.training.slots import train as train_slots

        out = args.out or SLOT_MODEL
        if args.calibrate_only:
            from vision.training.slots import recalibrate

            print(recalibrate(out))
            return 0
        print(train_slots(out, seed=args.seed, epochs=args.epochs, init_from=args.init_from, lr=args.lr,
                          samples_per_epoch=args.samples_per_epoch, label_smoothing=args.label_smoothing,
                          hand_labels=args.hand_labels))
        return 0
    from vision.training.faces import MODELS, train

    out = args.out or MODELS / "die_face.onnx"
    rec = train(args.data / "dice", out, seed=args.seed, epochs=args.epochs, rendered=args.rendered, copies=args.copies)
    print(rec)
    return 0


if __name__ == "__main__":
    sys.exit(main())
