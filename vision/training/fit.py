"""The one training loop of the small classifiers (die faces, rectified up faces, cube, die pose).

Seeded shuffled mini-batches of 128, AdamW and a one-cycle learning rate peaking at 3e-3, cross
entropy; the same seed gives the same weights.  Each model's own module builds its data and model,
says what is augmented and how the loss is weighted, and writes its record.  (The checker-slot
model draws class-balanced batches of 256 and keeps its own loop in ``vision/training/slots.py``.)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

BATCH = 128
MAX_LR = 3e-3


@dataclass(frozen=True, slots=True)
class EpochStats:
    """What one epoch did: ``epoch`` counts from 0; loss and accuracy over the epoch's batches."""

    epoch: int
    mean_loss: float
    train_accuracy: float
    last_loss: float


def fit_classifier(
    model: Any, xt: Any, yt: Any, *, epochs: int, seed: int, weight_decay: float = 1e-4,
    label_smoothing: float = 0.0, class_weight: Any = None, augment: Callable[[Any, Any], Any] | None = None,
    after_epoch: Callable[[EpochStats], None] | None = None,
) -> EpochStats | None:
    """Train ``model`` on tensors ``xt`` (inputs) and ``yt`` (class indices) in place; the model is left
    in eval mode after every epoch (``after_epoch`` may evaluate it).  ``augment(batch, generator)``
    draws its randomness from the loop's seeded generator.  Returns the last epoch's figures."""
    import torch
    from torch import nn

    opt = torch.optim.AdamW(model.parameters(), lr=MAX_LR, weight_decay=weight_decay)
    steps = epochs * math.ceil(len(yt) / BATCH)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=MAX_LR, total_steps=steps)
    gen = torch.Generator().manual_seed(seed)
    stats: EpochStats | None = None
    for epoch in range(epochs):
        model.train()
        perm = torch.randperm(len(yt), generator=gen)
        total, correct, loss_sum = 0, 0, 0.0
        loss = None
        for i in range(0, len(perm), BATCH):
            idx = perm[i : i + BATCH]
            xb = xt[idx] if augment is None else augment(xt[idx], gen)
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yt[idx], weight=class_weight, label_smoothing=label_smoothing)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            sched.step()
            loss_sum += float(loss.detach()) * len(idx)
            correct += int((logits.argmax(1) == yt[idx]).sum())
            total += len(idx)
        model.eval()
        stats = EpochStats(epoch, loss_sum / max(total, 1), correct / max(total, 1),
                           float(loss.detach()) if loss is not None else float("nan"))
        if after_epoch is not None:
            after_epoch(stats)
    return stats
