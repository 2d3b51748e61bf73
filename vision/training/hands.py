"""Train the whole-frame hand model (is a hand or an arm in the frame?); export ``checker_hand.onnx``.

Development only (needs PyTorch).  The model reads :func:`vision.hands.thumbnail` of every cached
training frame (tray renders, single renders of ``TRAIN_SEEDS``, multi-position renders: the
simulator puts a hand and its arm in about one frame in five), labelled by the truth's
``hands.present``.  Frames whose scene seed is a multiple of ``HOLDOUT_MOD`` are held out and give
the figures of ``checker_hand.train.json``: the highest P(hand) of a held-out frame without a hand,
the lowest of one with a hand, and how many of each a threshold would misjudge.

``python -m vision.training.hands [--epochs N] [--seed S] [--out M.onnx]``
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from vision.hands import HAND_CLASSES, HAND_MODEL, THUMB_SIZE, HandClassifier, thumbnail
from vision.training.fit import EpochStats, export_onnx, fit_classifier, jitter_layers
from vision.training.rendered import Rendered
from vision.training.trays import HOLDOUT_MOD, training_frames


def load(frames: list[Rendered]) -> tuple[np.ndarray, np.ndarray]:
    """Thumbnails (n, 72, 128, 3) and labels (n,): 1 when a hand is in the frame."""
    x = np.stack([thumbnail(r.image()) for r in frames])
    y = np.asarray([1 if r.truth["hands"]["present"] else 0 for r in frames], np.int64)
    return x, y


def hand_net() -> Any:
    """The hand model: raw (N, 72, 128, 3) BGR thumbnails (uint8 or float 0..255) -> logits over
    ``HAND_CLASSES``.  Four strided convolutions and a global max pool: an arm anywhere counts."""
    from torch import nn

    def block(i: int, o: int) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    class _HandNet(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.body = nn.Sequential(*block(3, 12), *block(12, 24), *block(24, 32), *block(32, 48),
                                      nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Linear(48, len(HAND_CLASSES)))

        def forward(self, x: Any) -> Any:
            return self.body(x.float().permute(0, 3, 1, 2) * (1 / 127.5) - 1.0)

    return _HandNet()


def augment(xb: Any, gen: Any) -> Any:
    """Photometric jitter (``jitter_layers``) and a left-right mirror of half the batch."""
    import torch

    xb = jitter_layers(xb[:, None], gen)[:, 0]
    flip = torch.rand(len(xb), generator=gen) < 0.5
    xb[flip] = xb[flip].flip(2)
    return xb


def margins(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """How P(hand) ``p`` separates frames with a hand (``y`` 1) from frames without."""
    free, hand = p[y == 0], p[y == 1]
    return {"frames_without_hand": len(free), "frames_with_hand": len(hand),
            "highest_p_without_hand": round(float(free.max()), 6) if len(free) else None,
            "lowest_p_with_hand": round(float(hand.min()), 6) if len(hand) else None,
            "hand_frames_below": {str(t): int((hand < t).sum()) for t in (1e-3, 1e-2, 0.05, 0.1)},
            "free_frames_below": {str(t): int((free < t).sum()) for t in (1e-3, 1e-2, 0.05, 0.1)}}


def train(out: Path, *, seed: int = 7, epochs: int = 12, lr: float = 3e-3) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    frames = training_frames()
    train_f = [r for r in frames if r.seed % HOLDOUT_MOD != 0]
    hold_f = [r for r in frames if r.seed % HOLDOUT_MOD == 0]
    x, y = load(train_f)
    pos = int(y.sum())
    print(f"{len(train_f)} training frames ({pos} with a hand), {len(hold_f)} held out [{time.time() - t0:.0f}s]",
          flush=True)
    w = np.where(y == 1, 1.0 / max(pos, 1), 1.0 / max(len(y) - pos, 1))
    model = hand_net()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def report(e: EpochStats) -> None:
        print(f"epoch {e.epoch + 1}/{epochs} loss {e.mean_loss:.4f} acc {e.train_accuracy:.4f}"
              f" [{time.time() - t0:.0f}s]", flush=True)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, augment=augment, after_epoch=report, lr=lr, batch=64,
                   sample_weight=torch.from_numpy(w), samples_per_epoch=len(y))
    model.eval()
    export_onnx(model, torch.zeros(1, THUMB_SIZE[1], THUMB_SIZE[0], 3, dtype=torch.uint8), out, input_name="thumbs")
    hx, hy = load(hold_f)
    p = np.asarray([float(v) for v in _p_hand(HandClassifier(out), hx)])
    rec: dict[str, Any] = {
        "model": out.name, "seed": seed, "epochs": epochs, "batch": 64, "lr": lr,
        "training_frames": len(train_f), "training_frames_with_hand": pos, "held_out_frames": len(hold_f),
        "data": "tray renders (trays_WxH/SEED_I) + single renders of TRAIN_SEEDS (1280x720) + multi-position renders "
                f"(slots_WxH/SEED_I); label: the truth's hands.present; frames whose scene seed % {HOLDOUT_MOD} == 0 "
                "held out; classes balanced by sample weight",
        "held_out": margins(p, hy), "torch": torch.__version__,
    }
    rec["seconds"] = round(time.time() - t0)
    out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def _p_hand(clf: HandClassifier, x: np.ndarray) -> list[float]:
    from vision.preprocess import softmax

    out: list[float] = []
    for i in range(0, len(x), 64):
        out.extend(softmax(clf.logits(x[i : i + 64]).astype(np.float64))[:, 1].tolist())
    return out


def main(argv: list[str] | None = None) -> int:
    import argparse

    p = argparse.ArgumentParser(prog="python -m vision.training.hands")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--out", type=Path, default=HAND_MODEL)
    a = p.parse_args(sys.argv[1:] if argv is None else argv)
    print(json.dumps(train(a.out, seed=a.seed, epochs=a.epochs, lr=a.lr), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
