"""Train the whole-frame hand model (is a hand or an arm in the frame?); export ``checker_hand.onnx``.

Development only (needs PyTorch).  The model reads :func:`vision.hands.thumbnail` of every cached
training frame (tray renders, single renders of ``TRAIN_SEEDS``, multi-position renders: the
simulator puts a hand and its arm in about one frame in five; the die models' whole-frame renders;
and ``render``'s scenes, every one with a hand), labelled by the truth's ``hands.present``.  Frames whose scene seed is a multiple of ``HOLDOUT_MOD`` are held out and give
the figures of ``checker_hand.train.json``: the highest P(hand) of a held-out frame without a hand,
the lowest of one with a hand, and how many of each a threshold would misjudge.

``python -m vision.training.hands render FIRST COUNT`` (scenes that all hold a hand, seeds from ``TRAIN_SEEDS``)
``python -m vision.training.hands [--epochs N] [--seed S] [--out M.onnx] [--cache THUMBS.npz]``
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from vision.hands import HAND_CLASSES, HAND_MODEL, THUMB_SIZE, HandClassifier, thumbnail
from vision.training.fit import epoch_printer, export_onnx, fit_classifier, jitter_layers
from vision.training.rendered import TRAIN_SEEDS, Rendered, cache_dir, frames_in, render_positions
from vision.training.trays import HOLDOUT_MOD, split_held_out
from vision.training.trays import training_frames as checker_frames

HAND_FOLDER = "hands_1280x720"
"""Renders made for this model (``render``): every scene with a hand (``SimConfig.hands_p`` 1)."""


def render(first: int, count: int) -> None:
    """Render ``count`` scenes from seed ``first`` (``TRAIN_SEEDS``), each with a hand and its arm, into
    ``$BGREF_RENDER_CACHE/hands_1280x720/SEED_0.png`` (+ ``.json`` truth); seeds already there are kept."""
    from vision.sim.config import SimConfig
    from vision.sim.scene import random_scene

    cfg = SimConfig(hands_p=1.0)
    for seed in range(first, first + count):
        if seed not in TRAIN_SEEDS:
            raise ValueError(f"hand renders take training seeds ({TRAIN_SEEDS.start}..{TRAIN_SEEDS.stop - 1}), not {seed}")

        def scene_of(_i: int, s: int = seed) -> tuple[Any, int]:
            # one frame, SEED_0, its sensor noise seeded by the scene's seed (render's own default)
            return random_scene(s, cfg, width=1280, height=720), s

        render_positions(cache_dir() / HAND_FOLDER, seed, 1, scene_of)
        print(seed, flush=True)


DICE_FOLDERS = ("dice_cocked/1280x720", "dice_train/1280x720")
"""The die models' whole-frame training renders (seeds 18000.., 20000..: never evaluation seeds)."""


def training_frames() -> list[Rendered]:
    """The checker models' training frames (tray, single and multi-position renders), the hand renders
    and the die models' whole-frame renders."""
    dice = [r for f in DICE_FOLDERS for r in frames_in(cache_dir() / f, range(TRAIN_SEEDS.start, 30_000), "*.json")]
    return checker_frames() + frames_in(cache_dir() / HAND_FOLDER, TRAIN_SEEDS) + dice


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
    """Photometric jitter (``jitter_layers``), a left-right and an upside-down mirror of half the batch
    each (the camera may face the board from any side), and a shift of the whole batch by up to 8 px
    across and 4 px down (wrapping round)."""
    import torch

    xb = jitter_layers(xb[:, None], gen)[:, 0]
    for axis in (2, 1):
        flip = torch.rand(len(xb), generator=gen) < 0.5
        xb[flip] = xb[flip].flip(axis)
    dx = int(torch.randint(-8, 9, (1,), generator=gen))
    dy = int(torch.randint(-4, 5, (1,), generator=gen))
    return torch.roll(xb, shifts=(dy, dx), dims=(1, 2))


def margins(p: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """How P(hand) ``p`` separates frames with a hand (``y`` 1) from frames without."""
    free, hand = p[y == 0], p[y == 1]
    return {"frames_without_hand": len(free), "frames_with_hand": len(hand),
            "highest_p_without_hand": round(float(free.max()), 6) if len(free) else None,
            "lowest_p_with_hand": round(float(hand.min()), 6) if len(hand) else None,
            "hand_frames_below": {str(t): int((hand < t).sum()) for t in (1e-3, 1e-2, 0.05, 0.1)},
            "free_frames_below": {str(t): int((free < t).sum()) for t in (1e-3, 1e-2, 0.05, 0.1)}}


def load_cached(frames: list[Rendered], cache: Path | None) -> tuple[np.ndarray, np.ndarray]:
    """:func:`load`, kept in ``cache`` (an ``.npz`` keyed by image path: only new frames are read)."""
    known: dict[str, tuple[np.ndarray, int]] = {}
    if cache is not None and cache.is_file():
        z = np.load(cache)
        known = {str(p): (x, int(y)) for p, x, y in zip(z["paths"], z["x"], z["y"], strict=True)}
    new = [r for r in frames if str(r.image_path) not in known]
    if new:
        nx, ny = load(new)
        known.update({str(r.image_path): (x, int(y)) for r, x, y in zip(new, nx, ny, strict=True)})
    x = np.stack([known[str(r.image_path)][0] for r in frames])
    y = np.asarray([known[str(r.image_path)][1] for r in frames], np.int64)
    if cache is not None and new:
        np.savez(cache, x=x, y=y, paths=np.asarray([str(r.image_path) for r in frames]))
    return x, y


def train(out: Path, *, seed: int = 7, epochs: int = 12, lr: float = 3e-3, cache: Path | None = None) -> dict[str, Any]:
    """Train the hand model from scratch; ``cache``: keep the training thumbnails there (``.npz``)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    frames = training_frames()
    train_f, hold_f = split_held_out(frames)
    x, y = load_cached(train_f, cache)
    pos = int(y.sum())
    print(f"{len(train_f)} training frames ({pos} with a hand), {len(hold_f)} held out [{time.time() - t0:.0f}s]",
          flush=True)
    w = np.where(y == 1, 1.0 / max(pos, 1), 1.0 / max(len(y) - pos, 1))
    model = hand_net()
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    report = epoch_printer(epochs, t0)

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
                f"(slots_WxH/SEED_I) + hand renders ({HAND_FOLDER}/SEED_0, every scene with a hand) + the die models' "
                f"whole frames ({', '.join(DICE_FOLDERS)}); label: the truth's hands.present; frames whose scene seed "
                f"% {HOLDOUT_MOD} == 0 held out; classes balanced by sample weight",
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

    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "render":
        render(int(args[1]), int(args[2]))
        return 0
    p = argparse.ArgumentParser(prog="python -m vision.training.hands",
                                description="train the hand model; `render FIRST COUNT`: hand renders first")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--out", type=Path, default=HAND_MODEL)
    p.add_argument("--cache", type=Path, default=None, help="keep the training thumbnails in this .npz")
    a = p.parse_args(args)
    print(json.dumps(train(a.out, seed=a.seed, epochs=a.epochs, lr=a.lr, cache=a.cache), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
