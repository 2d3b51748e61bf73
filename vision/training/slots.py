"""Train the checker-slot classifier on rendered frames and export ``checker_slot.onnx``.

Development only (needs PyTorch).  Data: the cached renders of ``TRAIN_SEEDS`` (render them with
``python -m vision.training.rendered 10000 150``); every slot of every frame is one sample, slots in
regions a hand covers are labelled "hand" (never read); empty slots under a die or the cube "object".
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from vision.checkers import HAND, OBJECT, SLOT_CLASSES, SLOT_PATCH, SlotSampler, normalise_slots, slot_labels
from vision.training.rendered import TRAIN_SEEDS, cache_dir, profile_for, rendered


def frame_slots(seed: int, width: int = 1280, height: int = 720) -> tuple[np.ndarray, np.ndarray]:
    """Slot patches (N, 2, P, P, 3) and labels (N,) of one rendered frame (covered slots: "hand")."""
    r = rendered(seed, width, height)
    prof = profile_for(r.truth)
    sampler = SlotSampler(prof)
    patches = sampler.patches(r.image())
    c = r.truth["counts"]
    labels = slot_labels(prof.layout, sampler.slots, c["points"], tuple(c["bar"]))
    covered = set(r.truth["hands"]["covered"])
    things = [(d["center_mm"][0], d["center_mm"][1]) for d in r.truth["dice"]]
    if r.truth.get("cube"):
        things.append(tuple(r.truth["cube"]["center_mm"][:2]))
    dmax = 0.55 * prof.spec.checker_diameter_mm
    keep = []
    for i, sl in enumerate(sampler.slots):
        if sl.region in covered:
            labels[i] = HAND  # a hand over the region: the slot must not be read
        elif labels[i] == 0 and any(math.hypot(sl.x - x, sl.y - y) < dmax for x, y in things):
            labels[i] = OBJECT
        keep.append(i)
    return patches[keep], np.array([labels[i] for i in keep], np.int64)


def cached_train_seeds(width: int = 1280, height: int = 720) -> list[int]:
    d = cache_dir() / f"{width}x{height}"
    return sorted(int(p.stem) for p in d.glob("*.json") if int(p.stem) in TRAIN_SEEDS)


def train(out: Path, *, seed: int = 7, epochs: int = 8, label_smoothing: float = 0.02) -> dict[str, Any]:
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    seeds = cached_train_seeds()
    xs, ys = [], []
    for s in seeds:
        p, y = frame_slots(s)
        xs.append(normalise_slots(p))
        ys.append(y)
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    counts = Counter(int(v) for v in y)
    print(f"{len(seeds)} frames, {len(y)} slots {dict(sorted(counts.items()))}", flush=True)
    # oversample the rare classes (stacks, other) so they are learnt
    w = np.array([1.0 / counts[int(v)] ** 0.5 for v in y])
    model = make_model()
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    per_epoch = len(y)
    steps = epochs * math.ceil(per_epoch / 128)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    wt = torch.from_numpy(w)
    for epoch in range(epochs):
        model.train()
        idx_all = torch.multinomial(wt, per_epoch, replacement=True, generator=gen)
        total = correct = 0
        loss_sum = 0.0
        for i in range(0, per_epoch, 128):
            idx = idx_all[i : i + 128]
            xb = xt[idx]
            # photometric jitter: brightness/contrast per sample, same on both layers
            g = 1 + 0.25 * (torch.rand(len(idx), 1, 1, 1, generator=gen) - 0.5)
            o = 0.2 * (torch.rand(len(idx), 1, 1, 1, generator=gen) - 0.5)
            xb = xb * g + o
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yt[idx], label_smoothing=label_smoothing)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            loss_sum += float(loss.detach()) * len(idx)
            correct += int((logits.argmax(1) == yt[idx]).sum())
            total += len(idx)
        print(f"epoch {epoch + 1}/{epochs} loss {loss_sum / total:.4f} acc {correct / total:.4f}", flush=True)
    model.eval()
    torch.onnx.export(model, (torch.zeros(1, 6, SLOT_PATCH, SLOT_PATCH),), str(out), input_names=["slots"],
                      output_names=["logits"], dynamic_axes={"slots": {0: "n"}, "logits": {0: "n"}},
                      opset_version=17, dynamo=False)
    rec: dict[str, Any] = {"model": out.name, "seed": seed, "epochs": epochs, "frames": len(seeds),
                           "seeds": [seeds[0], seeds[-1]] if seeds else [], "slots": len(y),
                           "label_smoothing": label_smoothing,
                           "classes": {str(k): v for k, v in sorted(counts.items())},
                           "seconds": round(time.time() - t0), "torch": torch.__version__}
    out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def make_model() -> Any:
    import torch.nn as tnn

    def block(i: int, o: int) -> list[tnn.Module]:
        return [tnn.Conv2d(i, o, 3, padding=1, bias=False), tnn.BatchNorm2d(o), tnn.ReLU()]

    return tnn.Sequential(
        *block(6, 16), tnn.MaxPool2d(2),  # 12
        *block(16, 32), tnn.MaxPool2d(2),  # 6
        *block(32, 48), tnn.MaxPool2d(2),  # 3
        tnn.Flatten(), tnn.Dropout(0.1), tnn.Linear(48 * 9, len(SLOT_CLASSES)),
    )
