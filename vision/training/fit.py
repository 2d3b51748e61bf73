"""The one training loop of the small classifiers (die faces, rectified up faces, cube, die pose).

Seeded shuffled mini-batches of 128, AdamW and a one-cycle learning rate peaking at 3e-3, cross
entropy; the same seed gives the same weights.  Each model's own module builds its data and model,
says what is augmented and how the loss is weighted, and writes its record.  The checker-slot and
tray models draw each epoch's samples with replacement, weighted to balance their rare classes
(``sample_weight``), in batches of their own size and at their own peak learning rate.
"""

from __future__ import annotations

import math
import time
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


def epoch_printer(epochs: int, t0: float) -> Callable[[EpochStats], None]:
    """An ``after_epoch`` that prints each epoch's loss, accuracy and the seconds since ``t0``."""

    def report(e: EpochStats) -> None:
        print(f"epoch {e.epoch + 1}/{epochs} loss {e.mean_loss:.4f} acc {e.train_accuracy:.4f}"
              f" [{time.time() - t0:.0f}s]", flush=True)

    return report


def fit_classifier(
    model: Any, xt: Any, yt: Any, *, epochs: int, seed: int, weight_decay: float = 1e-4,
    label_smoothing: float = 0.0, class_weight: Any = None, augment: Callable[[Any, Any], Any] | None = None,
    after_epoch: Callable[[EpochStats], None] | None = None, lr: float = MAX_LR, batch: int = BATCH,
    sample_weight: Any = None, samples_per_epoch: int | None = None, one_cycle: bool = True,
) -> EpochStats | None:
    """Train ``model`` on tensors ``xt`` (inputs) and ``yt`` (class indices) in place; the model is left
    in eval mode after every epoch (``after_epoch`` may evaluate it).  ``augment(batch, generator)``
    draws its randomness from the loop's seeded generator.  Each epoch is a shuffle of the samples,
    or, with ``sample_weight`` (one weight per sample), ``samples_per_epoch`` (default: all) samples
    drawn with replacement in proportion to it.  ``one_cycle`` False keeps the learning rate at ``lr``
    (the fine-tunes from committed weights).  Returns the last epoch's figures."""
    import torch
    from torch import nn

    per_epoch = len(yt) if samples_per_epoch is None else samples_per_epoch
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
    steps = epochs * math.ceil(per_epoch / batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps) if one_cycle else None
    gen = torch.Generator().manual_seed(seed)
    stats: EpochStats | None = None
    for epoch in range(epochs):
        model.train()
        if sample_weight is None:
            perm = torch.randperm(len(yt), generator=gen)
        else:
            perm = torch.multinomial(sample_weight, per_epoch, replacement=True, generator=gen)
        total, correct, loss_sum = 0, 0, 0.0
        loss = None
        for i in range(0, len(perm), batch):
            idx = perm[i : i + batch]
            xb = xt[idx] if augment is None else augment(xt[idx], gen)
            logits = model(xb)
            loss = nn.functional.cross_entropy(logits, yt[idx], weight=class_weight, label_smoothing=label_smoothing)
            opt.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            opt.step()
            if sched is not None:
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


def jitter_layers(xb: Any, gen: Any) -> Any:
    """Photometric jitter of a batch of uint8 samples (n, layers, ..., 3), the same on every layer:
    exposure, white balance, offset and noise, drawn from the training loop's generator; float."""
    import torch

    xb = xb.float()
    n = len(xb)
    g = 1 + 0.3 * (torch.rand(n, 1, 1, 1, 1, generator=gen) - 0.5)
    wb = 1 + 0.1 * (torch.rand(n, 1, 1, 1, 3, generator=gen) - 0.5)
    o = 30 * (torch.rand(n, 1, 1, 1, 1, generator=gen) - 0.5)
    return (xb * g * wb + o + 3 * torch.randn(xb.shape, generator=gen)).clamp(0, 255)


def export_onnx(model: Any, example: Any, out: Any, *, input_name: str, output_name: str = "logits",
                dynamic_axes: dict[str, dict[int, str]] | None = None) -> None:
    """Export ``model`` (in eval mode) to ONNX at ``out`` (opset 17, the TorchScript exporter), traced on
    ``example``; by default the batch dimension of the input and the output is dynamic."""
    import torch

    out.parent.mkdir(parents=True, exist_ok=True)
    axes = dynamic_axes if dynamic_axes is not None else {input_name: {0: "n"}, output_name: {0: "n"}}
    torch.onnx.export(model, (example,), str(out), input_names=[input_name], output_names=[output_name],
                      dynamic_axes=axes, opset_version=17, dynamo=False)


def pair_net(body: Any) -> Any:
    """The checker nets' shell around ``body`` (an ``nn.Sequential``): raw (N, 2, H, W, 3) BGR pairs
    (uint8 or float 0..255) become 6 planes in -1..1 before ``body``.  ``frozen_bn`` (set for a
    fine-tune from exported weights) keeps the batch norms in eval mode while training."""
    from torch import nn

    class _PairNet(nn.Module):
        frozen_bn = False
        """True (a fine-tune from exported weights): the batch norms stay in eval mode while training."""

        def __init__(self) -> None:
            super().__init__()
            self.body = body

        def train(self, mode: bool = True) -> _PairNet:
            super().train(mode)
            if self.frozen_bn:
                for m in self.body:
                    if isinstance(m, nn.BatchNorm2d):
                        m.eval()
            return self

        def forward(self, x: Any) -> Any:
            return self.body(x.float().permute(0, 1, 4, 2, 3).flatten(1, 2) * (1 / 127.5) - 1.0)

    return _PairNet()


def exported_layers(path: Any) -> list[tuple[str, Any, Any]]:
    """The convolutions and dense layers of an exported ONNX model, in graph order: (``"Conv"`` or ``"Gemm"``,
    weight as torch holds it, bias) as numpy arrays (the export folds each batch norm into its convolution).
    Needs the ``onnx`` package (development only)."""
    import numpy as np
    import onnx
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    init = {t.name: numpy_helper.to_array(t) for t in g.initializer}
    out: list[tuple[str, Any, Any]] = []
    for node in g.node:
        if node.op_type not in ("Conv", "Gemm"):
            continue
        w = np.array(init[node.input[1]])
        if node.op_type == "Gemm" and not next((a.i for a in node.attribute if a.name == "transB"), 0):
            w = w.T
        out.append((node.op_type, w, np.array(init[node.input[2]])))
    return out


def load_exported_weights(model: Any, path: Any) -> None:
    """Start ``model`` (a ``pair_net``) from an exported model of the same shape: its convolutions (batch
    norm folded in by the export; the batch norms start as the identity) and its linear layers."""
    import torch

    layers_ = exported_layers(path)
    convs = [(w, b) for op, w, b in layers_ if op == "Conv"]
    gemms = [(w, b) for op, w, b in layers_ if op == "Gemm"]
    layers = list(model.body)
    tconv = [m for m in layers if isinstance(m, torch.nn.Conv2d)]
    tbn: list[Any] = [m for m in layers if isinstance(m, torch.nn.BatchNorm2d)]
    tlin = [m for m in layers if isinstance(m, torch.nn.Linear)]
    if len(convs) != len(tconv) or len(gemms) != len(tlin):
        raise ValueError(f"{str(path)!r} has {len(convs)} convolutions and {len(gemms)} linear layers, "
                         f"the model {len(tconv)} and {len(tlin)}")
    with torch.no_grad():
        for (w, b), conv, bn in zip(convs, tconv, tbn, strict=True):
            conv.weight.copy_(torch.from_numpy(w))
            bn.weight.fill_(1.0)
            bn.bias.copy_(torch.from_numpy(b))
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
        for (w, b), lin in zip(gemms, tlin, strict=True):
            lin.weight.copy_(torch.from_numpy(w))
            lin.bias.copy_(torch.from_numpy(b))

