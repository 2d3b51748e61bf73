"""Train the tray counter (borne-off checkers per tray) on rendered frames; export ``checker_tray.onnx``.

Development only (needs PyTorch).  The game renders bear off 0-6 checkers on a quarter of the sides,
so the tray renders (:func:`render_tray_variants`, ``python -m vision.training.trays render FIRST COUNT N``)
put 0..15 borne-off checkers in each tray (uniform, both colours), the rest of the side in its home
board, on the board, colours, camera and light of scene ``FIRST..`` (``trays_WxH/SEED_I.png``).

Every tray of every cached frame is one sample: the strips cut by :class:`vision.checkers.TraySampler`
(the model normalises them itself, so training and inference share that code), labelled with the
tray's count, or "hand" when the truth says a hand covers the tray.  Frames whose scene seed is a
multiple of ``HOLDOUT_MOD`` are held out of training: they fit the softmax temperature and give the
figures recorded in ``checker_tray.train.json``.
"""

from __future__ import annotations

import json
import math
import random
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from rules.position import BAR, CHECKERS, OFF, Position, Side
from vision.checkers import TRAY_CLASSES, TRAY_HAND, TRAY_LENGTH, TRAY_MODEL, TraySampler
from vision.training.fit import (
    epoch_printer,
    export_onnx,
    fit_classifier,
    jitter_layers,
    load_exported_weights,
    pair_net,
)
from vision.training.rendered import (
    TRAIN_SEEDS,
    Rendered,
    cache_dir,
    cached_arrays,
    frames_in,
    profile_for,
    render_positions,
    scene_with,
)

HOLDOUT_MOD = 10
"""Frames whose scene seed is a multiple of this are the held-out calibration slice."""


def split_held_out(frames: list[Rendered]) -> tuple[list[Rendered], list[Rendered]]:
    """``frames`` as (training, held out): held out when the scene seed is a multiple of ``HOLDOUT_MOD``."""
    return [r for r in frames if r.seed % HOLDOUT_MOD != 0], [r for r in frames if r.seed % HOLDOUT_MOD == 0]


def trays_dir(width: int = 1280, height: int = 720, name: str = "trays") -> Path:
    return cache_dir() / f"{name}_{width}x{height}"


def tray_position(rng: random.Random) -> Position:
    """A position with 0..15 borne-off checkers per side (uniform), the rest in the home board
    (sometimes one on the bar or just outside home, as after a hit during the bear-off)."""
    while True:
        sides: list[list[int]] = []
        for _ in Side:
            c = [0] * 26
            off = rng.randint(0, CHECKERS)
            c[OFF] = off
            left = CHECKERS - off
            if left and rng.random() < 0.1:
                c[BAR if rng.random() < 0.5 else rng.randint(7, 24)] += 1
                left -= 1
            while left > 0:
                p = rng.randint(1, 6)
                n = min(left, rng.choice((1, 2, 2, 3, 3, 4, 5, 6)))
                c[p] += n
                left -= n
            sides.append(c)
        w, b = sides
        # a point held by both sides is no position: draw again
        try:
            pos = Position(tuple(w), tuple(b), Side.WHITE)
        except ValueError:
            continue
        if not pos.problems():
            return pos


def tray_scene(base: Any, seed: int, i: int) -> tuple[Any, int]:
    """Position ``i`` on the board of ``base``: a :func:`tray_position`, dice, cube, maybe a cup and a
    hand, new sensor settings, all from ``(seed, i)``."""
    rng = random.Random(seed * 1000 + 500 + i)
    return scene_with(base, tray_position(rng), rng), seed * 1000 + 500 + i


def render_tray_variants(seed: int, n: int, width: int = 1280, height: int = 720, name: str = "trays") -> list[Path]:
    """``n`` tray positions on the board/camera/light of scene ``seed`` (cached)."""
    from vision.sim.scene import random_scene

    base = random_scene(seed, width=width, height=height)
    return render_positions(trays_dir(width, height, name), seed, n, lambda i: tray_scene(base, seed, i))


def tray_frames(width: int = 1280, height: int = 720, name: str = "trays", seeds: range = TRAIN_SEEDS) -> list[Rendered]:
    return frames_in(trays_dir(width, height, name), seeds)


def training_frames() -> list[Rendered]:
    """Every cached training frame with trays: tray renders, single renders of ``TRAIN_SEEDS`` and
    the multi-position renders (1280x720 and 1920x1080)."""
    from vision.training.slots import training_frames as slot_frames

    return tray_frames(1280, 720) + tray_frames(1920, 1080) + slot_frames()


def tray_labels(truth: dict[str, Any]) -> tuple[int, int]:
    """The classes of the two trays (WHITE's, BLACK's) of a rendered frame."""
    c = truth["counts"]
    covered = set(truth["hands"]["covered"])
    return (TRAY_HAND if "tray_w" in covered else int(c["tray_w"]),
            TRAY_HAND if "tray_b" in covered else int(c["tray_b"]))


def rendered_trays(r: Rendered) -> tuple[np.ndarray, np.ndarray]:
    """Tray strips (2, 2, L, W, 3) and labels (2,) of one rendered frame."""
    sampler = TraySampler(profile_for(r.truth))
    return sampler.strips(r.image()), np.asarray(tray_labels(r.truth), np.int64)


def cached_trays(r: Rendered) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rendered_trays`, cached beside the render cache (``tray_strips<L>/``)."""
    return cached_arrays(r, f"tray_strips{TRAY_LENGTH}", rendered_trays)


def strip_net(length: int, width: int, classes: int) -> Any:
    """A strip counter (trays, whole points): raw (N, 2, ``length``, ``width``, 3) BGR strips (uint8 or
    float 0..255) -> logits over ``classes`` classes."""
    from torch import nn

    def block(i: int, o: int, stride: tuple[int, int]) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    layers = [*block(6, 16, (2, 2)), *block(16, 32, (2, 2)), *block(32, 48, (2, 2)), *block(48, 64, (2, 1))]
    flat = 64 * math.ceil(length / 16) * math.ceil(width / 8)

    return pair_net(nn.Sequential(*layers, nn.Flatten(), nn.Dropout(0.3), nn.Linear(flat, 96), nn.ReLU(),
                                  nn.Linear(96, classes)))


def tray_net() -> Any:
    """The tray counter: raw (N, 2, L, W, 3) BGR strips (uint8 or float 0..255) -> logits over
    ``TRAY_CLASSES`` (0..15 borne off, "hand")."""
    from vision.checkers import TRAY_WIDTH

    return strip_net(TRAY_LENGTH, TRAY_WIDTH, len(TRAY_CLASSES))


def load_tray_weights(model: Any, path: Path) -> None:
    """Start ``model`` (``tray_net``) from an exported tray model: its convolutions (batch norm folded
    in by the export; the batch norms start as the identity) and its two linear layers."""
    load_exported_weights(model, path)

def load(frames: list[Rendered]) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    for r in frames:
        x, y = cached_trays(r)
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def strip_augment(xb: Any, gen: Any) -> Any:
    """A training batch of strips (trays, whole points) jittered: both layers (``jitter_layers``), mirrored
    across the strip (a mirrored scene is a scene: checkers are round) and shifted by up to 2 px along
    it (a row's length, which is the count, is unchanged)."""
    import torch

    xb = jitter_layers(xb, gen)
    flip = torch.rand(len(xb), generator=gen) < 0.5
    xb[flip] = xb[flip].flip(3)
    shift = int(torch.randint(-2, 3, (1,), generator=gen))
    rows = (torch.arange(xb.shape[2]) + shift).clamp(0, xb.shape[2] - 1)
    return xb[:, :, rows]


def train(out: Path, *, seed: int = 7, epochs: int = 30, lr: float = 3e-3, init_from: Path | None = None,
          samples_per_epoch: int | None = None) -> dict[str, Any]:
    """Train a tray model (or, ``init_from``, fine-tune an exported one with its batch norms frozen);
    ``samples_per_epoch``: trays drawn per epoch (default: as many as there are)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    frames = training_frames()
    train_f, hold_f = split_held_out(frames)
    x, y = load(train_f)
    counts = Counter(int(v) for v in y)
    print(f"{len(train_f)} training frames ({len(hold_f)} held out), {len(y)} trays {dict(sorted(counts.items()))}"
          f" [{time.time() - t0:.0f}s]", flush=True)
    w = np.array([1.0 / counts[int(v)] ** 0.5 for v in y])
    model = tray_net()
    if init_from is not None:
        load_tray_weights(model, init_from)
        model.frozen_bn = True
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    batch = 64

    report = epoch_printer(epochs, t0)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, augment=strip_augment, after_epoch=report, lr=lr, batch=batch,
                   sample_weight=torch.from_numpy(w), samples_per_epoch=samples_per_epoch)
    model.eval()
    del x, xt
    export_onnx(model, torch.zeros(1, *TraySampler.SHAPE, dtype=torch.uint8), out, input_name="trays")
    rec: dict[str, Any] = {
        "model": out.name, "seed": seed, "epochs": epochs, "batch": batch, "lr": lr,
        "training_frames": len(train_f), "held_out_frames": len(hold_f),
        "data": "tray renders (trays_WxH/SEED_I: 0..15 borne off per side) + cached renders of TRAIN_SEEDS "
                f"(1280x720) + multi-position renders (slots_WxH/SEED_I); frames whose scene seed % {HOLDOUT_MOD} "
                "== 0 held out",
        "trays": len(y), "classes": {TRAY_CLASSES[k]: v for k, v in sorted(counts.items())},
        "samples_per_epoch": len(y) if samples_per_epoch is None else samples_per_epoch,
        "init_from": None if init_from is None else f"{init_from.name} (weights of the previous model, fine-tuned, "
                                                    "batch norms frozen)",
        "torch": torch.__version__,
    }
    rec.update(calibrate(out, hold_f))
    rec["seconds"] = round(time.time() - t0)
    out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def calibrate(model_path: Path, frames: list[Rendered]) -> dict[str, Any]:
    """The softmax temperature minimising the log-loss on held-out frames, and the figures there."""
    from vision.checkers import TrayClassifier

    clf = TrayClassifier(model_path)
    x, y = load(frames)
    return fit_temperature(clf.logits(x), y)


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> dict[str, Any]:
    """The softmax temperature (0.5..4) minimising the log-loss of ``logits`` against classes ``y``,
    and the figures there: argmax right, right / wrong / unsure at 0.9, 0.99 and 0.999."""
    best_t, best_nll = 1.0, math.inf
    for t in np.arange(0.5, 4.01, 0.05):
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        nll = float(-(z[np.arange(len(y)), y] - np.log(np.exp(z).sum(axis=1))).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    z = logits / best_t
    p = np.exp(z - z.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    am = p.argmax(axis=1)
    conf = p.max(axis=1)
    figs: dict[str, Any] = {"temperature": round(best_t, 3), "held_out_nll": round(best_nll, 5),
                            "held_out_samples": len(y), "held_out_right": int((am == y).sum())}
    for thr in (0.9, 0.99, 0.999):
        sure = conf >= thr
        figs[f"at_{thr}"] = {"right": int((sure & (am == y)).sum()), "wrong": int((sure & (am != y)).sum()),
                             "unsure": int((~sure).sum())}
    return figs


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.training.trays render FIRST COUNT N [WIDTH HEIGHT]``: N tray positions per scene;
    ``python -m vision.training.trays train [--epochs N] [--seed S] [--out M.onnx]``."""
    import argparse

    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "render":
        first, count, n = int(args[1]), int(args[2]), int(args[3])
        w, h = (int(args[4]), int(args[5])) if len(args) >= 6 else (1280, 720)
        name = args[6] if len(args) >= 7 else "trays"
        for s in range(first, first + count):
            if name == "trays" and s not in TRAIN_SEEDS:
                raise ValueError(f"seed {s} is not a training seed ({TRAIN_SEEDS})")
            render_tray_variants(s, n, w, h, name)
            print(s, flush=True)
        return 0
    p = argparse.ArgumentParser(prog="python -m vision.training.trays")
    p.add_argument("cmd", choices=("train", "calibrate"))
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--out", type=Path, default=TRAY_MODEL)
    p.add_argument("--init-from", type=Path, default=None, help="fine-tune this exported tray model")
    p.add_argument("--samples-per-epoch", type=int, default=None)
    a = p.parse_args(args)
    if a.cmd == "calibrate":
        hold = [r for r in training_frames() if r.seed % HOLDOUT_MOD == 0]
        rec_path = a.out.with_suffix(".train.json")
        rec = json.loads(rec_path.read_text()) if rec_path.is_file() else {}
        rec.update(calibrate(a.out, hold))
        rec_path.write_text(json.dumps(rec, indent=2) + "\n")
        print(json.dumps(rec, indent=2))
        return 0
    print(json.dumps(train(a.out, seed=a.seed, epochs=a.epochs, lr=a.lr, init_from=a.init_from,
                           samples_per_epoch=a.samples_per_epoch), indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
