"""Train the die-face classifier (7 classes: 0 = not a die, 1..6) and export it to ONNX.

Development only: needs PyTorch (``pip install torch==2.13.0``).  Reproducible from ``--seed``;
one CPU thread.  Writes ``vision/models/die_face.onnx`` and a JSON record of how it was made, which
``MODELS.md`` quotes.
"""

from __future__ import annotations

import json
import math
import random
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.preprocess import PATCH, Square, U8Array, crop_patch, normalise_patch
from vision.training.data import NOT_A_DIE, Sample, load, tomi_samples, webcam_samples

MODELS = Path(__file__).resolve().parent.parent / "models"


def augment(img: U8Array, s: Square, rng: random.Random) -> np.ndarray:
    """One augmented, normalised patch: the same crop code as inference, jittered."""
    jitter = 0.06 * s.side
    sq = Square(
        s.cx + rng.uniform(-jitter, jitter),
        s.cy + rng.uniform(-jitter, jitter),
        s.side * rng.uniform(0.85, 1.3),
        rng.uniform(0, 360),
    )
    g = img
    if rng.random() < 0.5:
        g = (255 - g).astype(np.uint8)
    patch = crop_patch(g, (sq.cx, sq.cy), sq.side, sq.angle)
    if rng.random() < 0.3:
        patch = cv2.GaussianBlur(patch, (3, 3), rng.uniform(0.3, 1.2))
    p = patch.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-40, 40)
    p += np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(0, 10), p.shape)
    return normalise_patch(np.clip(p, 0, 255).astype(np.uint8))


def collect_train(root: Path, rendered: Path | None) -> list[Sample]:
    samples = list(tomi_samples(root, held_out=False))
    for jpg, cands, labels, _ in webcam_samples(root, "Train"):
        for c, lab in zip(cands, labels, strict=True):
            if lab is not None:
                samples.append(Sample(jpg, c, lab))
    if rendered is not None:
        from vision.training.rendered import rendered_samples
        from vision.training.synthetic import synthetic_samples

        samples.extend(rendered_samples(rendered))
        samples.extend(synthetic_samples(rendered.parent / "synthetic_dice"))
    return samples


def build_arrays(samples: list[Sample], copies: int, neg_copies: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = random.Random(seed)
    cache: dict[Path, U8Array] = {}
    xs: list[np.ndarray] = []
    ys: list[int] = []
    for s in samples:
        if s.image not in cache:
            if len(cache) > 64:
                cache.clear()
            cache[s.image] = load(s.image)
        img = cache[s.image]
        n = neg_copies if s.label == NOT_A_DIE else copies
        for _ in range(n):
            xs.append(augment(img, s.square, rng))
            ys.append(s.label)
    return np.stack(xs)[:, None], np.array(ys, np.int64)


def train(root: Path, out: Path, *, seed: int = 7, epochs: int = 12, rendered: Path | None = None,
          copies: int = 8) -> dict[str, object]:
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    t0 = time.time()
    samples = collect_train(root, rendered)
    counts = Counter(s.label for s in samples)
    neg = counts[NOT_A_DIE]
    pos = len(samples) - neg
    neg_copies = max(1, round(copies * pos / max(neg, 1)))
    x, y = build_arrays(samples, copies, neg_copies, seed)
    print(f"samples {dict(sorted(counts.items()))} -> {len(y)} patches in {time.time() - t0:.0f}s", flush=True)

    model = make_model(nn)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    steps = epochs * math.ceil(len(yt) / 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(yt), generator=gen)
        total, correct, loss_sum = 0, 0, 0.0
        for i in range(0, len(perm), 128):
            idx = perm[i : i + 128]
            logits = model(xt[idx])
            loss = nn.functional.cross_entropy(logits, yt[idx], label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            loss_sum += float(loss.detach()) * len(idx)
            correct += int((logits.argmax(1) == yt[idx]).sum())
            total += len(idx)
        print(f"epoch {epoch + 1}/{epochs} loss {loss_sum / total:.4f} acc {correct / total:.4f}", flush=True)
    model.eval()
    out.parent.mkdir(parents=True, exist_ok=True)
    dummy = torch.zeros(1, 1, PATCH, PATCH)
    torch.onnx.export(
        model, (dummy,), str(out), input_names=["patch"], output_names=["logits"],
        dynamic_axes={"patch": {0: "n"}, "logits": {0: "n"}}, opset_version=17, dynamo=False,
    )
    record: dict[str, object] = {
        "model": out.name,
        "seed": seed,
        "epochs": epochs,
        "train_samples": {str(k): v for k, v in sorted(counts.items())},
        "train_patches": len(y),
        "copies": copies,
        "neg_copies": neg_copies,
        "rendered": str(rendered) if rendered else None,
        "seconds": round(time.time() - t0),
        "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def make_model(nn: object) -> Any:
    import torch.nn as tnn

    def block(i: int, o: int) -> list[tnn.Module]:
        return [tnn.Conv2d(i, o, 3, padding=1, bias=False), tnn.BatchNorm2d(o), tnn.ReLU()]

    return tnn.Sequential(
        *block(1, 16), tnn.MaxPool2d(2),  # 16
        *block(16, 32), tnn.MaxPool2d(2),  # 8
        *block(32, 64), tnn.MaxPool2d(2),  # 4
        *block(64, 64),
        tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Dropout(0.1), tnn.Linear(64, 7),
    )


DICE_RENDERS = "dice_cocked"
"""Folder (under the render cache) of extra training frames rendered with many cocked dice."""


def render_dice_frames(first: int, count: int, *, width: int = 1280, height: int = 720,
                       cocked_p: float = 0.5, on_die_p: float = 0.4) -> Path:
    """Render training frames rich in cocked dice (and dice on top of dice) into
    ``<cache>/dice_cocked/<W>x<H>`` (same files as :func:`vision.training.rendered.rendered`).

    Seeds must be training seeds (``TRAIN_SEEDS``); the scene of a seed differs from the shared
    cache's (other cocked probabilities), so the folder is kept apart.
    """
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import TRAIN_SEEDS, cache_dir

    d = cache_dir() / DICE_RENDERS / f"{width}x{height}"
    d.mkdir(parents=True, exist_ok=True)
    cfg = SimConfig().with_overrides(cocked_p=cocked_p, on_die_p=on_die_p)
    for seed in range(first, first + count):
        if seed not in TRAIN_SEEDS:
            raise ValueError(f"seed {seed} is not a training seed ({TRAIN_SEEDS})")
        png, js = d / f"{seed}.png", d / f"{seed}.json"
        if png.is_file() and js.is_file():
            continue
        scene = random_scene(seed, cfg, width=width, height=height)
        img, info = render(scene)
        cv2.imwrite(str(png), img)
        js.write_text(json.dumps(build_truth(scene, info)))
        print(seed, flush=True)
    return d


if __name__ == "__main__":
    import sys

    a = sys.argv[1:]
    if len(a) < 3 or a[0] != "render":
        raise SystemExit("usage: python -m vision.training.faces render FIRST COUNT [WIDTH HEIGHT]")
    wh = (int(a[3]), int(a[4])) if len(a) >= 5 else (1280, 720)
    render_dice_frames(int(a[1]), int(a[2]), width=wh[0], height=wh[1])
