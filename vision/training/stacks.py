"""Train the stack model (a whole point's colour and count) on rendered frames; export ``checker_stack.onnx``.

Development only (needs PyTorch).  The model sees the strips cut by :class:`vision.stacks.StackSampler`
(it normalises them itself, so training and inference share that code).  At run time it only looks
at points the slot decoder reads as ``VisionConfig.stack_min_count`` or more, so the samples of one
frame (:func:`frame_samples`) are every point holding at least ``TALL`` checkers, up to two points a
hand covers (class "hand") and two other points drawn from the frame's seed (short stacks and empty
points, for the decoder's overcounts).  Frames: the tray renders, the single renders of
``TRAIN_SEEDS`` (the ``STACK_SEEDS`` among them pile checkers on few points) and the multi-position
renders.  Frames whose scene seed is a multiple of ``HOLDOUT_MOD`` are held out: they fit the softmax
temperature and give the figures of ``checker_stack.train.json``.

``python -m vision.training.stacks train [--epochs N] [--seed S] [--out M.onnx]``; a fine-tune of an exported
model (batch norms frozen) on the renders of some scene seeds only:
``python -m vision.training.stacks render A B`` then ``train --init-from M.onnx --seeds A-B``.
"""

from __future__ import annotations

import json
import random
import sys
import time
import zlib
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from vision.stacks import (
    STACK_CLASSES,
    STACK_HAND,
    STACK_LENGTH,
    STACK_MODEL,
    STACK_WIDTH,
    StackSampler,
    stack_class,
)
from vision.training.fit import epoch_printer, export_onnx, fit_classifier
from vision.training.rendered import STACK_SEEDS, Rendered, cached_arrays, profile_for, rendered
from vision.training.trays import HOLDOUT_MOD, fit_temperature, split_held_out, strip_augment, strip_net
from vision.training.trays import training_frames as all_frames

TALL = 3
"""Every point holding at least this many checkers is a sample."""
OTHERS = 2
"""Points per frame drawn among the rest (and as many hand-covered ones at most)."""


def frame_points(truth: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The sampled points (1..24) of a rendered frame and their classes (:data:`STACK_CLASSES`)."""
    counts = truth["counts"]["points"]
    covered = set(truth["hands"]["covered"])
    rng = random.Random(zlib.crc32(json.dumps([truth.get("seed"), truth.get("seq"), counts]).encode()))
    tall = [p for p in range(1, 25) if max(counts[p - 1]) >= TALL and f"p{p}" not in covered]
    hands = [p for p in range(1, 25) if f"p{p}" in covered]
    rest = [p for p in range(1, 25) if p not in tall and p not in hands]
    picked = tall + rng.sample(hands, min(OTHERS, len(hands))) + rng.sample(rest, min(OTHERS, len(rest)))
    labels = [STACK_HAND if f"p{p}" in covered else stack_class(*counts[p - 1]) for p in picked]
    return picked, labels


def frame_samples(r: Rendered) -> tuple[np.ndarray, np.ndarray]:
    """Strips (n, 2, L, W, 3) and classes (n,) of one rendered frame."""
    points, labels = frame_points(r.truth)
    return StackSampler(profile_for(r.truth)).strips(r.image(), points), np.asarray(labels, np.int64)


def cached_samples(r: Rendered) -> tuple[np.ndarray, np.ndarray]:
    """:func:`frame_samples`, cached beside the render cache (``stack_strips<L>/``)."""
    return cached_arrays(r, f"stack_strips{STACK_LENGTH}", frame_samples)


def load(frames: list[Rendered]) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for r in frames:
        x, y = cached_samples(r)
        if len(y):
            xs.append(x)
            ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def stack_net() -> Any:
    """The stack model: raw (N, 2, L, W, 3) strips -> logits over ``STACK_CLASSES``."""
    return strip_net(STACK_LENGTH, STACK_WIDTH, len(STACK_CLASSES))


def seed_range(text: str) -> range:
    """``"A-B"`` (both included) as a range of scene seeds; a clear error for anything else."""
    parts = text.split("-")
    if len(parts) != 2 or not all(p.strip().isdigit() for p in parts) or int(parts[0]) > int(parts[1]):
        raise ValueError(f"scene seeds must be given as A-B with A <= B, not {text!r}")
    return range(int(parts[0]), int(parts[1]) + 1)


def train(out: Path, *, seed: int = 7, epochs: int = 12, lr: float = 3e-3, samples_per_epoch: int | None = None,
          limit: int | None = None, init_from: Path | None = None, seeds: range | None = None) -> dict[str, Any]:
    """Train a stack model from scratch, or (``init_from``) fine-tune an exported one with its batch norms
    frozen; ``samples_per_epoch``: strips drawn per epoch (default: all); ``limit``: use only the first
    that many frames (a quick trial); ``seeds``: only the cached frames of these scene seeds."""
    import torch

    from vision.training.slots import load_onnx_weights

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    frames = all_frames()
    if seeds is not None:
        frames = [r for r in frames if r.seed in seeds]
        if not frames:
            raise ValueError(f"no cached training frame of scene seeds {seeds.start}-{seeds.stop - 1}: "
                             "render them first (python -m vision.training.stacks render A B)")
    frames = frames[:limit]
    train_f, hold_f = split_held_out(frames)
    x, y = load(train_f)
    counts = Counter(int(v) for v in y)
    print(f"{len(train_f)} training frames ({len(hold_f)} held out), {len(y)} strips [{time.time() - t0:.0f}s]",
          flush=True)
    # balance the classes softly: tall stacks are rare, and they are what the model is for
    w = np.array([1.0 / counts[int(v)] ** 0.5 for v in y])
    model = stack_net()
    if init_from is not None:
        load_onnx_weights(model, init_from)
        model.frozen_bn = True  # the export folded them into the convolutions: keep them the identity
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    report = epoch_printer(epochs, t0)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, augment=strip_augment, after_epoch=report, lr=lr, batch=64,
                   sample_weight=torch.from_numpy(w), samples_per_epoch=samples_per_epoch)
    model.eval()
    del x, xt
    export_onnx(model, torch.zeros(1, *StackSampler.SHAPE, dtype=torch.uint8), out, input_name="strips")
    rec: dict[str, Any] = {
        "model": out.name, "seed": seed, "epochs": epochs, "batch": 64, "lr": lr,
        "training_frames": len(train_f), "held_out_frames": len(hold_f),
        "data": "tray renders (trays_WxH/SEED_I) + single renders of TRAIN_SEEDS (1280x720; STACK_SEEDS pile "
                "checkers on few points) + multi-position renders (slots_WxH/SEED_I); per frame every point "
                f"with >= {TALL} checkers, up to {OTHERS} hand-covered and {OTHERS} other points; frames whose "
                f"scene seed % {HOLDOUT_MOD} == 0 held out",
        "strips": len(y), "classes": {STACK_CLASSES[k]: v for k, v in sorted(counts.items())},
        "samples_per_epoch": len(y) if samples_per_epoch is None else samples_per_epoch,
        "init_from": None if init_from is None else f"{init_from.name} (weights of the previous model, fine-tuned, "
                                                    "batch norms frozen)",
        "scene_seeds": None if seeds is None else f"{seeds.start}-{seeds.stop - 1}",
        "torch": torch.__version__,
    }
    rec.update(calibrate(out, hold_f))
    rec["seconds"] = round(time.time() - t0)
    out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def calibrate(model_path: Path, frames: list[Rendered]) -> dict[str, Any]:
    """The softmax temperature minimising the log-loss on held-out frames, and the figures there."""
    from vision.stacks import StackClassifier

    x, y = load(frames)
    return fit_temperature(StackClassifier(model_path).logits(x), y)


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.training.stacks cache`` (cut the strips of every training frame), ``render A B``
    (render scene seeds A..B-1 of ``STACK_SEEDS`` and cut their strips) or ``train``."""
    import argparse

    p = argparse.ArgumentParser(prog="python -m vision.training.stacks")
    p.add_argument("cmd", choices=("cache", "render", "train"))
    p.add_argument("range", nargs="*", type=int, help="render: first and end (excluded) scene seed")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--out", type=Path, default=STACK_MODEL)
    p.add_argument("--samples-per-epoch", type=int, default=None)
    p.add_argument("--limit", type=int, default=None, help="only the first N training frames")
    p.add_argument("--init-from", type=Path, default=None, help="fine-tune this exported stack model")
    p.add_argument("--seeds", type=seed_range, default=None, help="train on the frames of scene seeds A-B only")
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    if a.cmd == "render":
        if len(a.range) != 2 or not (a.range[0] < a.range[1]) or a.range[0] not in STACK_SEEDS \
                or a.range[1] - 1 not in STACK_SEEDS:
            p.error(f"render needs A B with A < B inside STACK_SEEDS {STACK_SEEDS.start}..{STACK_SEEDS.stop - 1}")
        t0 = time.time()
        for s in range(*a.range):
            cached_samples(rendered(s))
            print(s, f"{time.time() - t0:.0f}s", flush=True)
        return 0
    if a.cmd == "cache":
        frames = all_frames()[: a.limit]
        t0 = time.time()
        n = Counter[int]()
        for i, r in enumerate(frames):
            n.update(int(v) for v in cached_samples(r)[1])
            if i % 200 == 0:
                print(i, len(frames), f"{time.time() - t0:.0f}s", flush=True)
        print({STACK_CLASSES[k]: v for k, v in sorted(n.items())})
        return 0
    print(json.dumps(train(a.out, seed=a.seed, epochs=a.epochs, lr=a.lr, samples_per_epoch=a.samples_per_epoch,
                           limit=a.limit, init_from=a.init_from, seeds=a.seeds), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
