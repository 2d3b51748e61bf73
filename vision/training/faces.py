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
from vision.training.fit import EpochStats, export_onnx, fit_classifier

MODELS = Path(__file__).resolve().parent.parent / "models"
DICE_RENDERS = "dice_cocked"
"""Folder (under the render cache) of extra training frames rendered with many cocked dice."""
DICE_TRAIN = "dice_train"
"""Folder (under the render cache) of extra training frames for the board face model (seeds
``DICE_TRAIN_SEEDS``, the simulator's default dice: mostly flat)."""
DICE_TRAIN_SEEDS = range(20_000, 30_000)
"""Training seeds of the dice renders (apart from the shared cache's ``TRAIN_SEEDS`` and from every
evaluation seed)."""


def augment(img: U8Array, s: Square, rng: random.Random, jitter_sides: float = 0.06, *,
            strong: bool = False) -> np.ndarray:
    """One augmented, normalised patch: the same crop code as inference, jittered.  ``strong``
    (the photo fine-tune): a wider scale (0.8-1.45 sides), a random perspective warp of up to 10 %
    of the patch per corner (an oblique die), more and stronger blur, and a gamma change."""
    jitter = jitter_sides * s.side
    sq = Square(
        s.cx + rng.uniform(-jitter, jitter),
        s.cy + rng.uniform(-jitter, jitter),
        s.side * (rng.uniform(0.8, 1.45) if strong else rng.uniform(0.85, 1.3)),
        rng.uniform(0, 360),
    )
    g = img
    if rng.random() < 0.5:
        g = (255 - g).astype(np.uint8)
    patch = crop_patch(g, (sq.cx, sq.cy), sq.side, sq.angle)
    if strong and rng.random() < 0.5:
        n = PATCH - 1
        src = np.array([[0, 0], [n, 0], [n, n], [0, n]], np.float32)
        dst = src + np.array([[rng.uniform(-0.1, 0.1) * n for _ in range(2)] for _ in range(4)], np.float32)
        patch = cv2.warpPerspective(patch, cv2.getPerspectiveTransform(src, dst), (PATCH, PATCH),
                                    flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    if rng.random() < (0.5 if strong else 0.3):
        patch = cv2.GaussianBlur(patch, (3, 3) if not strong else (5, 5),
                                 rng.uniform(0.3, 1.6 if strong else 1.2))
    if strong and rng.random() < 0.5:
        lut = (255.0 * (np.arange(256) / 255.0) ** rng.uniform(0.6, 1.6)).astype(np.uint8)
        patch = lut[patch]
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
        from vision.training.synthetic import synthetic_samples

        samples.extend(board_face_samples([rendered, rendered / DICE_RENDERS / "1280x720"]
                                          if rendered.name != "1280x720" else
                                          [rendered, rendered.parent / DICE_RENDERS / "1280x720"]))
        samples.extend(synthetic_samples(rendered.parent / "synthetic_dice"
                                         if rendered.name == "1280x720" else rendered / "synthetic_dice"))
    return samples


def board_face_samples(folders: list[Path], max_neg: int = 12, seed: int = 0) -> list[Sample]:
    """Die-face samples from rendered training frames, cut the way the board search cuts them.

    Each die twice: its up face's true square, and the board candidate's square (centred on the die
    at die height, the die's projected edge, angle 0 - what ``read_dice`` reads), jittered by the
    detector's error.  "Not a die": the detector's peaks away from every die (checkers, point tips,
    the cube, hands) and random board points, up to ``max_neg`` per frame.
    """
    from vision.dice.board import DiceSearch, squares_at
    from vision.dice.detect import DIE_DETECT_MODEL, detector, top_view
    from vision.training.rendered import TRAIN_SEEDS, die_square, profile_for

    rng = np.random.default_rng(seed)
    out: list[Sample] = []
    for d in folders:
        for js in sorted(d.glob("*.json")):
            if int(js.stem) not in TRAIN_SEEDS:
                continue
            png = js.with_suffix(".png")
            truth = json.loads(js.read_text())
            prof = profile_for(truth)
            search = DiceSearch(prof)
            dice = truth["dice"]
            mm = np.array([die["center_mm"][:2] for die in dice], np.float64).reshape(-1, 2)
            board_sq = squares_at(prof, mm, search.z) if len(mm) else []
            for die, bsq in zip(dice, board_sq, strict=True):
                out.append(Sample(png, die_square(die["image_corners"]), int(die["face"])))
                out.append(Sample(png, bsq, int(die["face"]), 0.12))
            s = prof.spec
            negs_mm = [(float(rng.uniform(0, s.width_mm)), float(rng.uniform(0, s.depth_mm))) for _ in range(max_neg)]
            if DIE_DETECT_MODEL.is_file():
                img = cv2.imread(str(png), cv2.IMREAD_COLOR)
                if img is not None:
                    peaks = detector().peaks(top_view(img, search.map_x, search.map_y), 0.05, 16)
                    negs_mm = [search.to_mm(p.u, p.v) for p in peaks] + negs_mm
            far = [m for m in negs_mm
                   if all(math.hypot(m[0] - x, m[1] - y) > 1.2 * die["size_mm"] for die, (x, y) in zip(dice, mm, strict=True))]
            far = far[:max_neg]
            if far:
                out.extend(Sample(png, q, NOT_A_DIE, 0.1) for q in squares_at(prof, np.array(far), search.z))
    return out


def negative_copies(counts: Counter[int], copies: int) -> int:
    """Copies of each "not a die" sample that make the negatives as many as the dice cut ``copies``
    times each (at least one)."""
    neg = counts[NOT_A_DIE]
    return max(1, round(copies * (sum(counts.values()) - neg) / max(neg, 1)))


def build_arrays(samples: list[Sample], copies: int, neg_copies: int, seed: int,
                 strong: bool = False) -> tuple[np.ndarray, np.ndarray]:
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
            xs.append(augment(img, s.square, rng, s.jitter, strong=strong))
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
    neg_copies = negative_copies(counts, copies)
    x, y = build_arrays(samples, copies, neg_copies, seed)
    print(f"samples {dict(sorted(counts.items()))} -> {len(y)} patches in {time.time() - t0:.0f}s", flush=True)

    model = make_model(nn)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def report(e: EpochStats) -> None:
        print(f"epoch {e.epoch + 1}/{epochs} loss {e.mean_loss:.4f} acc {e.train_accuracy:.4f}", flush=True)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, label_smoothing=0.02, after_epoch=report)
    export_onnx(model, torch.zeros(1, 1, PATCH, PATCH), out, input_name="patch")
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




def render_dice_frames(first: int, count: int, *, width: int = 1280, height: int = 720,
                       cocked_p: float = 0.5, on_die_p: float = 0.4, folder: str = DICE_RENDERS,
                       **overrides: Any) -> Path:
    """Render training frames rich in cocked dice (and dice on top of dice) into
    ``<cache>/<folder>/<W>x<H>`` (same files as :func:`vision.training.rendered.rendered`).

    Seeds must be training seeds (``TRAIN_SEEDS``, or ``DICE_TRAIN_SEEDS`` for the ``dice_train``
    folder); the scene of a seed differs from the shared cache's (other cocked probabilities), so
    the folder is kept apart.  ``overrides`` are further :class:`vision.sim.config.SimConfig`
    settings (e.g. ``defocus_sigma=(0.6, 1.3)`` for the blur-rich face frames).
    """
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import TRAIN_SEEDS, cache_dir

    d = cache_dir() / folder / f"{width}x{height}"
    d.mkdir(parents=True, exist_ok=True)
    cfg = SimConfig().with_overrides(cocked_p=cocked_p, on_die_p=on_die_p, **overrides)
    allowed = DICE_TRAIN_SEEDS if folder == DICE_TRAIN else TRAIN_SEEDS
    for seed in range(first, first + count):
        if seed not in allowed:
            raise ValueError(f"seed {seed} is not a training seed of {folder!r} ({allowed})")
        png, js = d / f"{seed}.png", d / f"{seed}.json"
        if png.is_file() and js.is_file():
            continue
        scene = random_scene(seed, cfg, width=width, height=height)
        img, info = render(scene)
        cv2.imwrite(str(png), img)
        js.write_text(json.dumps(build_truth(scene, info)))
        print(seed, flush=True)
    return d



# ---------------------------------------------------------------------------------------------
# the die detector (vision/dice/detect.py)


def detector_sample(js: Path) -> tuple[np.ndarray, np.ndarray] | None:
    """A rendered frame's detector sample: (top view BGR uint8, die centres in top-view px (N, 2)),
    from its truth ``js`` and the image beside it (None when the image cannot be read)."""
    from vision.dice.board import DiceSearch
    from vision.dice.detect import top_view
    from vision.training.rendered import profile_for

    img = cv2.imread(str(js.with_suffix(".png")), cv2.IMREAD_COLOR)
    if img is None:
        return None
    truth = json.loads(js.read_text())
    search = DiceSearch(profile_for(truth))
    top = top_view(img, search.map_x, search.map_y)
    pts = np.array([[(x + search.MARGIN_MM) * search.PPM - 0.5, (y + search.MARGIN_MM) * search.PPM - 0.5]
                    for x, y, *_ in (die["center_mm"] for die in truth["dice"])], np.float32).reshape(-1, 2)
    return top, pts


def detector_frames(folders: list[Path], cache: Path | None = None) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(top view BGR uint8, die centres in top-view px (N, 2), seed) of every training frame
    (``cache``: a folder keeping each frame's top view as .npz, for repeated runs)."""
    from vision.training.rendered import TRAIN_SEEDS

    out = []
    for d in folders:
        for js in sorted(d.glob("*.json")):
            seed = int(js.stem)
            if seed not in TRAIN_SEEDS:
                continue
            key = cache / f"{d.parent.name}_{d.name}_{seed}.npz" if cache else None
            if key is not None and key.is_file():
                z = np.load(key)
                out.append((z["top"], z["pts"], seed))
                continue
            sample = detector_sample(js)
            if sample is None:
                continue
            top, pts = sample
            out.append((top, pts, seed))
            if key is not None:
                key.parent.mkdir(parents=True, exist_ok=True)
                np.savez(key, top=top, pts=pts)
    return out


def make_detector(nn: object) -> Any:
    import torch.nn as tnn

    def block(i: int, o: int, s: int = 1) -> list[tnn.Module]:
        return [tnn.Conv2d(i, o, 3, s, 1, bias=False), tnn.BatchNorm2d(o), tnn.ReLU()]

    return tnn.Sequential(*block(3, 12, 2), *block(12, 16, 2), *block(16, 16), *block(16, 16), tnn.Conv2d(16, 3, 1))


def _detector_batch(frames: list[tuple[np.ndarray, np.ndarray, int]], rng: random.Random, n: int,
                    size: int = 128) -> tuple[np.ndarray, np.ndarray]:
    """Random crops (half of them around a die) with colour jitter, flips and quarter turns;
    targets (4, size/4, size/4): Gaussian heat (sigma 0.7 cells), centre mask, dx, dy."""
    from vision.dice.detect import STRIDE, net_input

    xs, ts = [], []
    g = size // STRIDE
    for _ in range(n):
        top, pts, _ = frames[rng.randrange(len(frames))]
        h, w = top.shape[:2]
        pad = np.zeros((max(h, size), max(w, size), 3), np.uint8)
        pad[:h, :w] = top
        H, W = pad.shape[:2]
        if len(pts) and rng.random() < 0.6:
            px, py = pts[rng.randrange(len(pts))]
            x0 = int(np.clip(px - rng.uniform(12, size - 12), 0, W - size))
            y0 = int(np.clip(py - rng.uniform(12, size - 12), 0, H - size))
        else:
            x0, y0 = rng.randrange(W - size + 1), rng.randrange(H - size + 1)
        x0 -= x0 % STRIDE
        y0 -= y0 % STRIDE
        crop = pad[y0 : y0 + size, x0 : x0 + size].astype(np.float32)
        crop = crop * np.array([rng.uniform(0.7, 1.3) for _ in range(3)], np.float32) * rng.uniform(0.6, 1.4)
        crop += rng.uniform(-30, 30)
        crop += np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(0, 6), crop.shape).astype(np.float32)
        if rng.random() < 0.3:
            crop = crop[:, :, rng.sample(range(3), 3)]
        crop_u8 = np.clip(crop, 0, 255).astype(np.uint8)
        local = pts - np.array([x0, y0], np.float32)
        k = rng.randrange(4)
        flip = rng.random() < 0.5
        # apply the same flip/turn to the image and the points
        for _ in range(k):
            crop_u8 = np.ascontiguousarray(np.rot90(crop_u8))  # counter-clockwise: (u, v) -> (v, size-1-u)
            local = np.stack([local[:, 1], size - 1 - local[:, 0]], axis=1) if len(local) else local
        if flip:
            crop_u8 = np.ascontiguousarray(crop_u8[:, ::-1])
            local = np.stack([size - 1 - local[:, 0], local[:, 1]], axis=1) if len(local) else local
        t = np.zeros((4, g, g), np.float32)
        cu = (np.arange(g) + 0.5)
        for u, v in local:
            cu_, cv_ = (u + 0.5) / STRIDE, (v + 0.5) / STRIDE
            if not (0 <= cu_ < g and 0 <= cv_ < g):
                continue
            heat = np.exp(-((cu[None, :] - cu_) ** 2 + (cu[:, None] - cv_) ** 2) / (2 * 0.7**2))
            t[0] = np.maximum(t[0], heat)
            i, j = int(cv_), int(cu_)
            t[1, i, j] = 1.0
            t[2, i, j] = cu_ - j - 0.5
            t[3, i, j] = cv_ - i - 0.5
        xs.append(net_input(crop_u8)[0])
        ts.append(t)
    return np.stack(xs), np.stack(ts)


def detector_loss(y: Any, t: Any) -> Any:
    """The detector's loss on a batch (torch tensors): focal loss on the centre heat map (positives at
    the centre cells, negatives down-weighted near them) plus the L1 offset error at the centres, per
    centre.  ``y``: net output (B, 3, h, w); ``t``: targets (B, 4, h, w) from :func:`_detector_batch`."""
    import torch

    p = torch.sigmoid(y[:, 0]).clamp(1e-4, 1 - 1e-4)
    pos, heat = t[:, 1], t[:, 0]
    lpos = -((1 - p) ** 2 * torch.log(p) * pos).sum()
    lneg = -(((1 - heat) ** 4) * p**2 * torch.log(1 - p) * (1 - pos)).sum()
    npos = pos.sum().clamp(min=1.0)
    loff = (torch.abs(y[:, 1:3] - t[:, 2:4]) * pos[:, None]).sum()
    return (lpos + lneg + loff) / npos


def detector_step(model: Any, opt: Any, frames: list[tuple[np.ndarray, np.ndarray, int]], rng: random.Random,
                  batch: int) -> float:
    """One training step of the detector on a random batch (:func:`_detector_batch`,
    :func:`detector_loss`); returns the batch's loss."""
    import torch

    model.train()
    xb, tb = _detector_batch(frames, rng, batch)
    loss = detector_loss(model(torch.from_numpy(xb)), torch.from_numpy(tb))
    opt.zero_grad()
    loss.backward()
    opt.step()
    return float(loss.detach())


def train_detector(folders: list[Path], out: Path, *, seed: int = 7, steps: int = 3000,
                   batch: int = 24, cache: Path | None = None,
                   frames: list[tuple[np.ndarray, np.ndarray, int]] | None = None) -> dict[str, object]:
    """Train the die detector on top views of rendered training frames; export ONNX + record."""
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    t0 = time.time()
    if frames is None:
        frames = detector_frames(folders, cache)
    n_dice = sum(len(p) for _, p, _ in frames)
    print(f"{len(frames)} frames, {n_dice} dice in {time.time() - t0:.0f}s", flush=True)
    model = make_detector(nn)
    opt = torch.optim.AdamW(model.parameters(), lr=4e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=4e-3, total_steps=steps)
    run = 0.0
    for step in range(steps):
        loss = detector_step(model, opt, frames, rng, batch)
        sched.step()
        run = 0.98 * run + 0.02 * loss
        if (step + 1) % 200 == 0:
            print(f"step {step + 1}/{steps} loss {run:.4f} {time.time() - t0:.0f}s", flush=True)
    model.eval()
    export_onnx(model, torch.zeros(1, 3, 128, 128), out, input_name="top", output_name="heat",
                dynamic_axes={"top": {2: "h", 3: "w"}, "heat": {2: "h", 3: "w"}})
    record: dict[str, object] = {
        "model": out.name, "seed": seed, "steps": steps, "batch": batch, "crop": 128,
        "frames": len(frames), "dice": n_dice, "folders": [str(f) for f in folders],
        "seeds": sorted({s for _, _, s in frames})[:1] + sorted({s for _, _, s in frames})[-1:],
        "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record



# ---------------------------------------------------------------------------------------------
# the board face model on rectified up faces (vision/dice/topface.py)


def _frame_folders(rendered: Path) -> list[Path]:
    """The training frame folders of the top-face model: the shared cache's 1280x720 frames, the
    cocked-dice frames, the dice training frames, and the multi-position renders of the checker
    and cube models (training seeds; each has a pair of dice thrown)."""
    root = rendered.parent if rendered.name == "1280x720" else rendered
    return [root / "1280x720", root / DICE_RENDERS / "1280x720", root / DICE_TRAIN / "1280x720",
            root / "slots_1280x720", root / "cube_train", *extra_folders(root)]


EXTRA_FOLDERS = ("trays_1280x720", "cube_side_train")
"""Training renders of the tray and cube-side models (training seeds, a pair of dice each) that the
session-5 fine-tune of ``die_face_top.onnx`` added (1328 frames)."""


def extra_folders(root: Path) -> list[Path]:
    """The :data:`EXTRA_FOLDERS` present under ``root``."""
    return [root / f for f in EXTRA_FOLDERS if (root / f).is_dir()]


def top_face_samples(folders: list[Path], *, copies: int = 4, max_neg: int = 8, seed: int = 7,
                     jitter_edges: float = 0.18, val_every: int = 10, blur_p: float = 0.3, blur_max: float = 1.0,
                     stage_copies: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, int]]:
    """(patches (N, 1, P, P) normalised, labels, validation mask, counts) of rectified up faces.

    Each die of a training frame ``copies`` times: its up face cut by :func:`top_face_patches` on the
    plane z = the die's edge (what ``read_dice`` reads), the centre jittered by ``jitter_edges`` die
    edges (the detector's error), side x0.9-1.12, any turn or mirror, brightness, contrast, noise and
    blur.  Left out: frames with a hand (a die under it is not readable) and frames with a die on the
    other die (the upper die's face lies on another plane, the lower one is hidden).  With
    ``stage_copies``, each die the die stage's first look finds (a detector peak moved by the centre
    model, :func:`vision.dice.board.refine_centres`, within 0.6 edges of it) is also cut that many
    times at that centre (jittered by 0.04 edges): the squares the stage itself reads.  "Not a die":
    the detector's peaks and random points away from every die, balanced to the dice.  Frames whose
    seed % ``val_every`` == 0 are the validation split.
    """
    from vision.dice.board import DiceSearch
    from vision.dice.detect import DIE_DETECT_MODEL, detector, top_view
    from vision.dice.topface import top_face_patches
    from vision.preprocess import normalise_patches, to_gray
    from vision.training.rendered import EVAL_SEEDS, profile_for

    rng = np.random.default_rng(seed)
    raw: list[np.ndarray] = []
    labels: list[int] = []
    val: list[bool] = []
    counts = Counter[str]()
    neg_raw: list[tuple[np.ndarray, bool]] = []
    searches: dict[str, tuple[Any, Any]] = {}
    for d in folders:
        for js in sorted(d.glob("*.json")):
            s = int(js.stem.split("_")[0])  # SEED or SEED_I (multi-position renders of one board)
            if s in EVAL_SEEDS:
                continue
            img = cv2.imread(str(js.with_suffix(".png")), cv2.IMREAD_COLOR)
            if img is None:
                continue
            truth = json.loads(js.read_text())
            key = json.dumps([truth["camera"], truth["board"]], sort_keys=True)
            if key not in searches:  # positions of one board share its camera: one profile
                if len(searches) > 64:
                    searches.clear()
                p0 = profile_for(truth)
                searches[key] = (p0, DiceSearch(p0))
            prof, search = searches[key]
            gray = to_gray(img)
            peaks = detector().peaks(top_view(img, search.map_x, search.map_y), 0.05, 16, centroid=True) if DIE_DETECT_MODEL.is_file() else []
            is_val = s % val_every == 0
            counts["frames"] += 1
            dice = truth["dice"]
            mm = np.array([die["center_mm"][:2] for die in dice], np.float64).reshape(-1, 2)
            usable = not truth["hands"]["present"] and not any(die.get("on_die") for die in dice)
            if usable and len(dice):
                k = len(dice) * copies
                centres = np.repeat(mm, copies, axis=0) + rng.uniform(-jitter_edges, jitter_edges, (k, 2)) * search.z
                scales = rng.uniform(0.9, 1.12, k)
                angles = rng.uniform(0, 360, k)
                patches = top_face_patches(gray, prof, centres, search.z, search.z, scales, angles)
                for i, p in enumerate(patches):
                    raw.append(p[:, ::-1] if rng.random() < 0.5 else p)
                    labels.append(int(dice[i // copies]["face"]))
                    val.append(is_val)
                counts["dice"] += len(dice)
                counts["cocked"] += sum(bool(die["cocked"]) for die in dice)
                if stage_copies > 0:
                    for lab, c in stage_centres(gray, prof, search, peaks, dice):
                        cs = c[None, :] + rng.uniform(-0.04, 0.04, (stage_copies, 2)) * search.z
                        for p in top_face_patches(gray, prof, cs, search.z, search.z, rng.uniform(0.95, 1.05, stage_copies),
                                                  rng.uniform(0, 360, stage_copies)):
                            raw.append(p[:, ::-1] if rng.random() < 0.5 else p)
                            labels.append(lab)
                            val.append(is_val)
                        counts["at_stage_centre"] += 1
            sp = prof.spec
            negs = [(float(rng.uniform(-20, sp.width_mm + 20)), float(rng.uniform(-20, sp.depth_mm + 20)))
                    for _ in range(max_neg)]
            negs = [search.to_mm(p.u, p.v) for p in peaks] + negs
            far = [m for m in negs if all(math.hypot(m[0] - x, m[1] - y) > 1.2 * die["size_mm"]
                                          for die, (x, y) in zip(dice, mm, strict=True))][:max_neg]
            if far:
                fa = np.array(far)
                for p in top_face_patches(gray, prof, fa, search.z, search.z, rng.uniform(0.9, 1.12, len(fa)),
                                          rng.uniform(0, 360, len(fa))):
                    neg_raw.append((p, is_val))
            counts["negatives"] = len(neg_raw)
    # balance: each negative as often as needed to match the dice patches (a new turn each time)
    reps = max(1, round(len(raw) / max(len(neg_raw), 1)))
    for p, is_val in neg_raw:
        for _ in range(reps):
            q = np.rot90(p, int(rng.integers(4)))
            raw.append(q[:, ::-1] if rng.random() < 0.5 else q)
            labels.append(NOT_A_DIE)
            val.append(is_val)
    out = []
    for p in raw:
        x: Any = p.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-40, 40)
        if rng.random() < blur_p:
            sigma = float(rng.uniform(0.3, blur_max))
            x = cv2.GaussianBlur(x, (0, 0) if sigma > 1.0 else (3, 3), sigma)
        x += rng.normal(0, rng.uniform(0, 8), x.shape).astype(np.float32)
        u8 = np.clip(x, 0, 255).astype(np.uint8)
        out.append(255 - u8 if rng.random() < 0.5 else u8)
    xs = np.concatenate([normalise_patches(out[i : i + 4096]) for i in range(0, len(out), 4096)])
    return xs, np.array(labels, np.int64), np.array(val, bool), dict(counts)


def stage_centres(gray: np.ndarray, prof: Any, search: Any, peaks: list[Any],
                  dice: list[dict[str, Any]]) -> list[tuple[int, np.ndarray]]:
    """(face, board mm) of each die of ``dice`` at the centre the die stage's first look reads for
    it: the first ``detect_max_peaks`` detector ``peaks`` at ``detect_min_score`` or more, moved by
    the centre model (:func:`vision.dice.board.refine_centres`), the nearest within 0.6 die edges."""
    from vision.dice.board import refine_centres
    from vision.dice.config import DiceConfig

    dcfg = DiceConfig()
    first = [p for p in peaks[: dcfg.detect_max_peaks] if p.score >= dcfg.detect_min_score]
    if not first or not dice:
        return []
    mm = refine_centres(gray, prof, np.array([search.to_mm(p.u, p.v) for p in first]), search.z, dcfg)
    out = []
    for die in dice:
        d = np.linalg.norm(mm[:, :2] - np.array(die["center_mm"][:2]), axis=1)
        k = int(np.argmin(d))
        if d[k] < 0.6 * search.z:
            out.append((int(die["face"]), mm[k, :2].copy()))
    return out


def train_top(rendered: Path, out: Path, *, seed: int = 7, epochs: int = 8, copies: int = 4) -> dict[str, object]:
    """Train the board face model on rectified up faces (:func:`top_face_samples`); export ONNX and
    the record (data, seeds, epochs, validation accuracy and confusion) beside it."""
    import torch
    from torch import nn

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    folders = _frame_folders(rendered)
    x, y, val, counts = top_face_samples(folders, copies=copies, seed=seed)
    print(f"{counts} -> {len(y)} patches ({int(val.sum())} validation) in {time.time() - t0:.0f}s", flush=True)
    xt, yt = torch.from_numpy(x[~val]), torch.from_numpy(y[~val])
    xv, yv = torch.from_numpy(x[val]), torch.from_numpy(y[val])
    model = make_model(nn)
    pv, vacc = yv, 0.0

    def report(e: EpochStats) -> None:
        nonlocal pv, vacc
        with torch.no_grad():
            pv = torch.cat([model(xv[i : i + 1024]).argmax(1) for i in range(0, len(yv), 1024)]) if len(yv) else yv
        vacc = float((pv == yv).float().mean()) if len(yv) else 0.0
        print(f"epoch {e.epoch + 1}/{epochs} loss {e.mean_loss:.4f} acc {e.train_accuracy:.4f} val {vacc:.4f} "
              f"{time.time() - t0:.0f}s", flush=True)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, label_smoothing=0.02, after_epoch=report)
    confusion = [[int(((yv == a) & (pv == b)).sum()) for b in range(7)] for a in range(7)]
    export_onnx(model, torch.zeros(1, 1, PATCH, PATCH), out, input_name="patch")
    record: dict[str, object] = {
        "model": out.name, "input": "rectified up face (vision.dice.topface.top_face_patches), 32x32",
        "seed": seed, "epochs": epochs, "copies": copies, "folders": [str(f) for f in folders],
        "counts": counts, "train_patches": int((~val).sum()), "validation_patches": int(val.sum()),
        "validation": "frames with seed % 10 == 0", "validation_accuracy": round(vacc, 4),
        "validation_confusion_notdie_1_6": confusion,
        "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


# ---------------------------------------------------------------------------------------------
# fine-tuning the photo face model (die_face.onnx) on the real photographs


def fused_model_from_onnx(path: Path) -> Any:
    """The committed classifier as a torch model: the network of :func:`make_model` with each
    batch norm already folded into its convolution (as the ONNX export stores it), weights loaded."""
    import onnx
    import torch
    import torch.nn as tnn
    from onnx import numpy_helper

    g = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [n for n in g.node if n.op_type == "Conv"]
    gemm = next(n for n in g.node if n.op_type == "Gemm")
    chans = [(1, 16), (16, 32), (32, 64), (64, 64)]
    layers: list[tnn.Module] = []
    for k, (i, o) in enumerate(chans):
        layers += [tnn.Conv2d(i, o, 3, padding=1), tnn.ReLU()]
        if k < 3:
            layers.append(tnn.MaxPool2d(2))
    layers += [tnn.AdaptiveAvgPool2d(1), tnn.Flatten(), tnn.Dropout(0.1), tnn.Linear(64, 7)]
    model = tnn.Sequential(*layers)
    conv_mods = [m for m in model if isinstance(m, tnn.Conv2d)]
    if len(convs) != len(conv_mods):
        raise ValueError(f"{path}: {len(convs)} convolutions, the face network has {len(conv_mods)}")
    with torch.no_grad():
        for node, mod in zip(convs, conv_mods, strict=True):
            mod.weight.copy_(torch.from_numpy(init[node.input[1]]))
            assert mod.bias is not None
            mod.bias.copy_(torch.from_numpy(init[node.input[2]]))
        lin = model[-1]
        assert isinstance(lin, tnn.Linear)
        lin.weight.copy_(torch.from_numpy(init[gemm.input[1]]))
        lin.bias.copy_(torch.from_numpy(init[gemm.input[2]]))
    return model


def photo_tune_slice(image: Path) -> bool:
    """The tuning slice of the real photographs' TRAINING parts (never the held-out parts): the
    ``crops_tomitomi3`` files with index % 5 == 1 and the ``webcam_matteop65/Train`` images whose
    number is a multiple of 6.  A fine-tune with ``hold_tune`` leaves them out, so they can choose
    between fine-tunes before the held-out sets are read."""
    digits = "".join(ch for ch in image.stem if ch.isdigit())
    if not digits:
        return False
    return int(digits) % 5 == 1 if image.suffix == ".bmp" else int(digits) % 6 == 0


def photo_samples(root: Path, *, tune: bool | None = None) -> list[Sample]:
    """The real photographs' training samples (``crops_tomitomi3`` index % 5 != 0 with negatives,
    ``webcam_matteop65/Train`` candidates): all of them (``tune`` None), only the tuning slice
    (:func:`photo_tune_slice`, True) or all but it (False)."""
    samples = list(tomi_samples(root, held_out=False))
    for jpg, cands, labels, _ in webcam_samples(root, "Train"):
        samples.extend(Sample(jpg, c, lab) for c, lab in zip(cands, labels, strict=True) if lab is not None)
    return samples if tune is None else [s for s in samples if photo_tune_slice(s.image) == tune]


def finetune_photo(root: Path, out: Path, *, base: Path = MODELS / "die_face.onnx", seed: int = 7, epochs: int = 3,
                   copies: int = 6, lr: float = 2e-4, synthetic: Path | None = None, strong: bool = False,
                   hold_tune: bool = False) -> dict[str, object]:
    """Fine-tune the photo face model on the real photographs' training parts (``crops_tomitomi3``
    index % 5 != 0, ``webcam_matteop65/Train``) and the drawn dice, at a low learning rate from the
    committed weights; export ONNX and the record.  The held-out parts are never read here.
    ``strong``: the heavier augmentation of :func:`augment`; ``hold_tune``: the tuning slice
    (:func:`photo_tune_slice`) is left out."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    samples = photo_samples(root, tune=False if hold_tune else None)
    if synthetic is not None:
        from vision.training.synthetic import synthetic_samples

        samples.extend(synthetic_samples(synthetic))
    counts = Counter(s.label for s in samples)
    neg_copies = negative_copies(counts, copies)
    x, y = build_arrays(samples, copies, neg_copies, seed, strong=strong)
    print(f"samples {dict(sorted(counts.items()))} -> {len(y)} patches in {time.time() - t0:.0f}s", flush=True)
    model = fused_model_from_onnx(base)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def report(e: EpochStats) -> None:
        print(f"epoch {e.epoch + 1}/{epochs} train acc {e.train_accuracy:.4f} {time.time() - t0:.0f}s", flush=True)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, label_smoothing=0.02, after_epoch=report, lr=lr,
                   one_cycle=False)
    export_onnx(model, torch.zeros(1, 1, PATCH, PATCH), out, input_name="patch")
    record: dict[str, object] = {
        "model": out.name, "base": base.name, "seed": seed, "epochs": epochs, "lr": lr, "copies": copies,
        "neg_copies": neg_copies, "train_samples": {str(k): v for k, v in sorted(counts.items())},
        "train_patches": len(y), "synthetic": str(synthetic) if synthetic else None,
        "strong_augmentation": strong, "tuning_slice_left_out": hold_tune,
        "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def finetune_top(rendered: Path, out: Path, *, base: Path = MODELS / "die_face_top.onnx", seed: int = 7,
                 epochs: int = 2, lr: float = 1e-4, blur_p: float = 0.5, blur_max: float = 1.6,
                 folders: list[Path] | None = None, stage_copies: int = 0, copies: int = 4) -> dict[str, object]:
    """Fine-tune the rectified up-face model from its committed weights on the same training frames
    (:func:`top_face_samples`) with more and stronger blur (defocused frames hold most of the dice
    it leaves unsure); export ONNX and the record with the validation accuracy."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    folders = folders or _frame_folders(rendered)
    x, y, val, counts = top_face_samples(folders, seed=seed, blur_p=blur_p, blur_max=blur_max, stage_copies=stage_copies,
                                         copies=copies)
    print(f"{counts} -> {len(y)} patches ({int(val.sum())} validation) in {time.time() - t0:.0f}s", flush=True)
    xt, yt = torch.from_numpy(x[~val]), torch.from_numpy(y[~val])
    xv, yv = torch.from_numpy(x[val]), torch.from_numpy(y[val])
    model = fused_model_from_onnx(base)

    def val_acc() -> float:
        model.eval()
        with torch.no_grad():
            pv = torch.cat([model(xv[i : i + 1024]).argmax(1) for i in range(0, len(yv), 1024)])
        return float((pv == yv).float().mean())

    before = val_acc()
    print(f"validation before {before:.4f}", flush=True)

    def report(e: EpochStats) -> None:
        print(f"epoch {e.epoch + 1}/{epochs} validation {val_acc():.4f} {time.time() - t0:.0f}s", flush=True)
        if e.epoch + 1 < epochs:  # each epoch's weights, to measure before the last
            export_onnx(model, torch.zeros(1, 1, PATCH, PATCH), out.with_name(f"{out.stem}_e{e.epoch + 1}.onnx"),
                        input_name="patch")

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, label_smoothing=0.02, after_epoch=report, lr=lr,
                   one_cycle=False)
    after = val_acc()
    export_onnx(model, torch.zeros(1, 1, PATCH, PATCH), out, input_name="patch")
    record: dict[str, object] = {
        "model": out.name, "base": base.name, "seed": seed, "epochs": epochs, "lr": lr, "blur_p": blur_p,
        "blur_max": blur_max, "copies": copies, "stage_copies": stage_copies, "folders": [str(f) for f in folders], "counts": counts,
        "train_patches": int((~val).sum()), "validation_patches": int(val.sum()),
        "validation": "frames with seed % 10 == 0 (their patches blurred as in training)",
        "validation_accuracy_before": round(before, 4), "validation_accuracy": round(after, 4),
        "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    import sys

    a = sys.argv[1:]
    if a and a[0] == "detector":
        from vision.training.rendered import cache_dir

        steps = int(a[1]) if len(a) > 1 else 3000
        outp = Path(a[2]) if len(a) > 2 else MODELS / "die_detect.onnx"
        tops = Path(a[3]) if len(a) > 3 else None
        print(train_detector([cache_dir() / "1280x720", cache_dir() / DICE_RENDERS / "1280x720"], outp, steps=steps,
                             cache=tops))
        raise SystemExit(0)
    if a and a[0] == "finetune-photo":
        from vision.training.data import shared_dir
        from vision.training.rendered import cache_dir

        outp = Path(a[1]) if len(a) > 1 else MODELS / "die_face.onnx"
        ep = int(a[2]) if len(a) > 2 else 3
        rate = float(a[3]) if len(a) > 3 else 2e-4
        flags = set(a[4:])  # "strong": heavier augmentation; "hold-tune": leave the tuning slice out
        print(finetune_photo(shared_dir() / "dice", outp, epochs=ep, lr=rate, synthetic=cache_dir() / "synthetic_dice",
                             strong="strong" in flags, hold_tune="hold-tune" in flags))
        raise SystemExit(0)
    if a and a[0] == "finetune-top":
        from vision.training.rendered import cache_dir

        outp = Path(a[1]) if len(a) > 1 else MODELS / "die_face_top.onnx"
        ep = int(a[2]) if len(a) > 2 else 2
        rate = float(a[3]) if len(a) > 3 else 1e-4
        bp = float(a[4]) if len(a) > 4 else 0.5
        bm = float(a[5]) if len(a) > 5 else 1.6
        only = [cache_dir() / f for f in a[6].split(",")] if len(a) > 6 and a[6] != "-" else None  # folders under the cache
        sc = int(a[7]) if len(a) > 7 else 0  # crops per die at the die stage's own centre
        cp = int(a[8]) if len(a) > 8 else 4  # jittered crops per die
        print(finetune_top(cache_dir() / "1280x720", outp, epochs=ep, lr=rate, blur_p=bp, blur_max=bm, folders=only,
                           stage_copies=sc, copies=cp))
        raise SystemExit(0)
    if a and a[0] == "top":
        from vision.training.rendered import cache_dir

        outp = Path(a[1]) if len(a) > 1 else MODELS / "die_face_top.onnx"
        ep = int(a[2]) if len(a) > 2 else 8
        print(train_top(cache_dir() / "1280x720", outp, epochs=ep))
        raise SystemExit(0)
    if len(a) >= 3 and a[0] == "render-train":
        # frames for the board face model: the simulator's default dice (mostly flat)
        render_dice_frames(int(a[1]), int(a[2]), cocked_p=0.15, on_die_p=0.03, folder=DICE_TRAIN)
        raise SystemExit(0)
    if len(a) >= 3 and a[0] == "render-hard":
        # frames for the board face model where it is weakest: defocused, hand-free, more cocked
        # dice (seeds 25000-29999 of DICE_TRAIN_SEEDS)
        render_dice_frames(int(a[1]), int(a[2]), cocked_p=0.3, on_die_p=0.0, folder=DICE_TRAIN,
                           defocus_sigma=(0.5, 1.4), hands_p=0.0)
        raise SystemExit(0)
    if len(a) < 3 or a[0] != "render":
        raise SystemExit("usage: python -m vision.training.faces render FIRST COUNT [WIDTH HEIGHT] | "
                         "render-train FIRST COUNT | detector [STEPS [OUT]]")
    wh = (int(a[3]), int(a[4])) if len(a) >= 5 else (1280, 720)
    render_dice_frames(int(a[1]), int(a[2]), width=wh[0], height=wh[1])
