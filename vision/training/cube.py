"""Train the cube-face classifier and export it to ONNX: ``python -m vision.training cube ...``.

Data: rendered frames with the cube showing any face (2..64) in any position (middle, either side)
and any yaw, from this module's own scene generator (``random_scene`` with its cube replaced; one
camera serves several cube poses, since each new camera costs seconds of static-board tracing).
Frames are cached in ``/tmp/bgref_renders/cube_train`` and ``cube_heldout`` (seed ranges
``CUBE_TRAIN_SEEDS`` / ``CUBE_HELDOUT_SEEDS``, disjoint from every other seed range).

Crops come from :func:`vision.cube.cube_patch`, the same code inference uses: the top face
rectified on its own plane, aligned to the found square's edges.  The model answers one of 25
classes: "not a cube", or (face, quarter turn) for 6 faces x 4 turns, so a numeral read upside
down is still read, and the turn gives the cube's rotation.

Development only: needs PyTorch (``pip install torch==2.13.0``); reproducible from ``--seed``;
one CPU thread.  Writes ``vision/models/cube_face.onnx`` and ``cube_face.train.json``.

Commands::

    python -m vision.training.cube render train 0 100      # cameras 0..99 of the training range
    python -m vision.training.cube render heldout 0 40
    python -m vision.training.cube train --epochs 16 --copies 12 --cameras 100
    python -m vision.training.cube eval                     # the held-out cube set
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.cube import (
    CUBE_CLASSES,
    CUBE_MODEL,
    CropSpec,
    CubeBlob,
    CubeConfig,
    CubeSampler,
    class_of,
    cube_patch,
    find_cube_candidates,
    normalise_cube_patch,
)
from vision.training.fit import MAX_LR, EpochStats, export_onnx, fit_classifier
from vision.training.rendered import cache_dir, profile_for

CUBE_TRAIN_SEEDS = range(600_000, 610_000)
"""Cameras (random scenes) for training crops; each camera carries several cube poses."""
CUBE_SIDE_TRAIN_SEEDS = range(610_000, 700_000)
"""Cameras for training crops with the cube on a side only (the tray column beside a player,
where the cube stands lowest and is seen most obliquely: most unsure reads were there)."""
CUBE_HELDOUT_SEEDS = range(700_000, 710_000)
"""Cameras for the held-out all-faces cube set (never trained on)."""
CUBE_SIDE_HELDOUT_SEEDS = range(710_000, 715_000)
"""Cameras for a held-out side-only cube set (never trained on)."""
CUBE_HARD_TRAIN_SEEDS = range(620_000, 630_000)
"""Cameras for training crops from hard views (session 6): steep, wide-angle (small, far cubes),
defocused, glaring cameras; any position."""
CUBE_FRESH_SEEDS = range(715_000, 720_000)
"""Cameras for a fresh all-positions cube set (2026-11-22, session 4): rendered after the cube stage's
rules were last tuned, so never seen by training nor by threshold choices."""
POSES_PER_CAMERA = 8
FACES = (2, 4, 8, 16, 32, 64)
SETS = {"train": CUBE_TRAIN_SEEDS, "heldout": CUBE_HELDOUT_SEEDS, "side_train": CUBE_SIDE_TRAIN_SEEDS,
        "side_heldout": CUBE_SIDE_HELDOUT_SEEDS, "fresh": CUBE_FRESH_SEEDS, "hard_train": CUBE_HARD_TRAIN_SEEDS}
POSITIONS = {"train": ("middle", "white", "black"), "heldout": ("middle", "white", "black"),
             "side_train": ("white", "black"), "side_heldout": ("white", "black"),
             "fresh": ("middle", "white", "black"), "hard_train": ("middle", "white", "black", "white", "black")}
"""The cube positions each set draws from."""
OLD_CROP = CropSpec()
"""The crop of the 2026-11-21 model (48 px, 1.8 sides, windows unrefined)."""
NEW_CROP = CropSpec(patch=48, sides=1.8, refine=True, search_ppm=0.75)
"""The crop of models trained from 2026-11-22: windows re-centred on the top face, so a tighter
crop (1.5 sides instead of 1.8: 32 px per cube side instead of 27), and a cheaper search (0.75 px/mm)."""


def set_dir(name: str) -> Path:
    return cache_dir() / f"cube_{name}"


# ---------------------------------------------------------------------- rendering
def render_camera(name: str, index: int, poses: int = POSES_PER_CAMERA, width: int = 1280, height: int = 720) -> int:
    """Render ``poses`` frames of camera ``index`` of set ``name`` (cached); returns how many were new.

    The scene is ``random_scene(seed)`` without hands (a covered cube has no face to learn); the
    cube is replaced by a seeded random one: any face, any yaw, in one of the set's ``POSITIONS``.
    """
    from vision.sim.config import Range, SimConfig
    from vision.sim.render import render
    from vision.sim.scene import place_cube, random_scene
    from vision.sim.truth import build_truth

    seeds = SETS[name]
    seed = seeds[index]
    d = set_dir(name)
    d.mkdir(parents=True, exist_ok=True)
    new = 0
    scene = None
    for k in range(poses):
        png, js = d / f"{seed}_{k}.png", d / f"{seed}_{k}.json"
        if png.is_file() and js.is_file():
            continue
        if scene is None:
            sim = SimConfig(hands_p=0.0)
            if name == "hard_train":
                sim = replace(sim, tilt_deg=Range(20.0, 45.0), hfov_deg=Range(60.0, 78.0), glare=Range(0.25, 0.55),
                              defocus_sigma=Range(0.4, 1.1), noise_sigma=Range(2.0, 5.0))
            scene = random_scene(seed, sim, width=width, height=height)
        rng = random.Random(seed * 31 + k)
        face = rng.choice(FACES)
        pos = rng.choice(POSITIONS[name])
        s2 = replace(scene, cube=place_cube(scene.layout, face, pos, rng))
        img, info = render(s2)
        truth = build_truth(s2, info)
        cv2.imwrite(str(png), img)
        js.write_text(json.dumps(truth))
        new += 1
    return new


def frames(name: str, cameras: int | None = None, skip: int = 0) -> list[tuple[Path, dict[str, Any]]]:
    """The cached frames of a set (of its cameras ``skip`` .. ``skip + cameras - 1`` when given):
    (image path, truth), sorted."""
    out = []
    first = SETS[name].start + skip
    for js in sorted(set_dir(name).glob("*.json")):
        cam = int(js.stem.split("_")[0])
        if cam < first or (cameras is not None and cam >= first + cameras):
            continue
        png = js.with_suffix(".png")
        if png.is_file():
            out.append((png, json.loads(js.read_text())))
    return out


def load_image(png: Path) -> npt.NDArray[np.uint8]:
    """A cached frame as the camera gives it (BGR): the cube stage converts its own crops."""
    g = cv2.imread(str(png), cv2.IMREAD_COLOR)
    if g is None:
        raise ValueError(f"cannot read {png}")
    return np.asarray(g, np.uint8)


# ---------------------------------------------------------------------- samples
@dataclass(frozen=True, slots=True)
class CubeSample:
    """Where to crop (the found or true square) and what the crop shows."""

    image: Path
    blob: CubeBlob
    label: int  # CUBE_CLASSES index; 0 = not a cube


def samples_of_frame(png: Path, truth: dict[str, Any], image: npt.NDArray[np.uint8], sampler: CubeSampler,
                     cfg: CubeConfig, rng: random.Random, negatives: int = 1,
                     max_finder_negatives: int = 4, refine: bool = False,
                     side_negative: float = 1.2, realign: bool = False) -> list[CubeSample]:
    """The crops inference would cut from this frame: the finder's windows, labelled by the truth
    (the window nearest the cube, within 3/4 of a side, is the cube; windows away from it are not),
    (the ``max_finder_negatives`` most cube-like) and ``negatives`` random windows where a cube could rest.
    Finder windows count as "not a cube" beyond ``side_negative`` sides from the cube (1.2: the first
    model); below 1, also four windows one side off the top along its edges (side faces, shadow).  A frame whose cube the finder
    misses still gives one crop, centred on the true cube and aligned to its edges."""
    tc = truth["cube"]
    size = sampler.profile.spec.cube_size_mm
    cx, cy, cz = tc["center_mm"]
    face, rot = int(tc["face"]), float(tc["rotation_deg"])
    out: list[CubeSample] = []
    cands = find_cube_candidates(image, sampler, cfg, refine=refine, realign=realign)
    dist = [math.hypot(b.center_mm[0] - cx, b.center_mm[1] - cy) for b in cands]
    hit = min(range(len(cands)), key=lambda i: dist[i]) if cands else -1
    if hit >= 0 and dist[hit] <= 0.75 * size:
        out.append(CubeSample(png, cands[hit], class_of(face, rot, cands[hit].rotation_deg)))
    else:
        blob = CubeBlob((cx, cy), size, rot % 90.0, 0.0, z_mm=cz + size / 2)
        out.append(CubeSample(png, blob, class_of(face, rot, blob.rotation_deg)))
    far = [b for b, d in zip(cands, dist, strict=True) if d > side_negative * size]
    out.extend(CubeSample(png, b, 0) for b in far[:max_finder_negatives])
    if side_negative < 1.0:
        # the cube's sides: a window one side off the top's centre, along each edge, on the top's
        # plane, shows a side face (with its own numeral) or the cube's shadow: "not a cube", or a
        # re-centred window that slid onto a side face reads that face's numeral
        t = math.radians(rot)
        top_z = cz + size / 2
        for k in range(4):
            a = t + k * math.pi / 2 + rng.uniform(-0.15, 0.15)
            d = size * rng.uniform(0.85, 1.15)
            out.append(CubeSample(png, CubeBlob((cx + d * math.cos(a), cy + d * math.sin(a)), size,
                                                (rot + rng.uniform(-6, 6)) % 90.0, 0.0, z_mm=top_z), 0))
    for _ in range(negatives):
        for _try in range(10):
            rect, z = sampler.places[rng.randrange(len(sampler.places))]
            x = rng.uniform(rect.x0 + size / 2, rect.x1 - size / 2)
            y = rng.uniform(rect.y0 + size / 2, rect.y1 - size / 2)
            if math.hypot(x - cx, y - cy) > 1.3 * size:
                out.append(CubeSample(png, CubeBlob((x, y), size, rng.uniform(0, 90), 0.0, z_mm=z), 0))
                break
    return out


def collect(name: str, seed: int, negatives: int = 1, cameras: int | None = None,
            crop: CropSpec = OLD_CROP, skip: int = 0) -> list[CubeSample]:
    rng = random.Random(seed)
    cfg = CubeConfig()
    out: list[CubeSample] = []
    samplers: dict[str, CubeSampler] = {}
    for png, truth in frames(name, cameras, skip):
        if truth.get("cube") is None:
            continue
        key = json.dumps(truth["camera"], sort_keys=True) + json.dumps(truth["board"], sort_keys=True)
        if key not in samplers:
            samplers.clear()
            samplers[key] = CubeSampler(profile_for(truth), crop.search_ppm)
        out.extend(samples_of_frame(png, truth, load_image(png), samplers[key], cfg, rng, negatives,
                                    refine=crop.refine, side_negative=0.8 if crop.refine else 1.2,
                                    realign=crop.realign))
    return out


def augment(image: npt.NDArray[np.uint8], profile: Any, s: CubeSample, rng: random.Random,
            crop: CropSpec = OLD_CROP) -> tuple[np.ndarray, int]:
    """One augmented normalised crop and its label: the inference crop, jittered, quarter-turned."""
    b = s.blob
    size = profile.spec.cube_size_mm
    j = 0.12 * size
    jb = replace(b, center_mm=(b.center_mm[0] + rng.uniform(-j, j), b.center_mm[1] + rng.uniform(-j, j)),
                 side_mm=b.side_mm * rng.uniform(0.92, 1.08), rotation_deg=b.rotation_deg + rng.uniform(-8, 8))
    patch = cube_patch(image, profile, jb, crop.patch, crop.sides)
    label = s.label
    turns = rng.randrange(4)
    if turns:
        patch = np.ascontiguousarray(np.rot90(patch, turns))
        if label:
            face_i, q = divmod(label - 1, 4)
            label = 1 + face_i * 4 + (q + turns) % 4
    if rng.random() < 0.3:
        patch = np.asarray(cv2.GaussianBlur(patch, (3, 3), rng.uniform(0.3, 1.0)), np.uint8)
    p = patch.astype(np.float32) * rng.uniform(0.6, 1.3) + rng.uniform(-40, 40)
    if rng.random() < 0.3:  # a glare streak
        h, w = p.shape
        x0 = rng.uniform(-w, w)
        xx = np.arange(w)[None, :] + np.arange(h)[:, None] * rng.uniform(-1, 1)
        p += rng.uniform(20, 90) * np.exp(-((xx - x0 - w / 2) / rng.uniform(2, 8)) ** 2)
    p += np.random.default_rng(rng.randrange(2**31)).normal(0, rng.uniform(0, 8), p.shape)
    return normalise_cube_patch(np.clip(p, 0, 255).astype(np.uint8)), label


def build_arrays(samples: list[CubeSample], copies: int, neg_copies: int, seed: int,
                 crop: CropSpec = OLD_CROP, *, augmented: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Normalised crops (n, 1, patch, patch) and labels; ``augmented`` False: each sample's crop as
    inference cuts it, once."""
    rng = random.Random(seed)
    xs: list[np.ndarray] = []
    ys: list[int] = []
    profiles: dict[Path, Any] = {}
    by_image: dict[Path, list[CubeSample]] = {}
    for s in samples:
        by_image.setdefault(s.image, []).append(s)
    for img_path, group in by_image.items():
        image = load_image(img_path)
        truth = json.loads(img_path.with_suffix(".json").read_text())
        prof = profiles.get(img_path) or profile_for(truth)
        for s in group:
            if not augmented:
                xs.append(normalise_cube_patch(cube_patch(image, prof, s.blob, crop.patch, crop.sides)))
                ys.append(s.label)
                continue
            for _ in range(neg_copies if s.label == 0 else copies):
                x, y = augment(image, prof, s, rng, crop)
                xs.append(x)
                ys.append(y)
    return np.stack(xs)[:, None], np.array(ys, np.int64)


# ---------------------------------------------------------------------- model and training
WIDTHS = (8, 16, 32, 64)
"""Channels of the four conv blocks (the 2026-11-21 model: 12, 24, 48, 64; half the compute now)."""


def make_model(widths: tuple[int, ...] = WIDTHS) -> Any:
    import torch.nn as tnn

    def block(i: int, o: int) -> list[tnn.Module]:
        return [tnn.Conv2d(i, o, 3, padding=1, bias=False), tnn.BatchNorm2d(o), tnn.ReLU()]

    a, b, c, d = widths
    return tnn.Sequential(
        *block(1, a), tnn.MaxPool2d(2),  # 24
        *block(a, b), tnn.MaxPool2d(2),  # 12
        *block(b, c), tnn.MaxPool2d(2),  # 6
        *block(c, d),
        tnn.AdaptiveAvgPool2d(2), tnn.Flatten(), tnn.Dropout(0.1), tnn.Linear(d * 4, len(CUBE_CLASSES)),
    )


def make_folded_model(widths: tuple[int, ...] = WIDTHS) -> Any:
    """:func:`make_model` with each batch norm folded into its convolution (a bias): the form of an
    exported model, so one can be fine-tuned from its weights with its batch norms frozen."""
    import torch.nn as tnn

    def block(i: int, o: int) -> list[tnn.Module]:
        return [tnn.Conv2d(i, o, 3, padding=1, bias=True), tnn.ReLU()]

    a, b, c, d = widths
    return tnn.Sequential(
        *block(1, a), tnn.MaxPool2d(2),
        *block(a, b), tnn.MaxPool2d(2),
        *block(b, c), tnn.MaxPool2d(2),
        *block(c, d),
        tnn.AdaptiveAvgPool2d(2), tnn.Flatten(), tnn.Dropout(0.1), tnn.Linear(d * 4, len(CUBE_CLASSES)),
    )


def load_exported(path: Path) -> tuple[Any, tuple[int, ...]]:
    """A :func:`make_folded_model` carrying the weights of the exported ``path`` (its convolutions in
    graph order, then its one Gemm), and its widths.  Needs the ``onnx`` package (development only)."""
    import onnx
    import torch
    from onnx import numpy_helper

    graph = onnx.load(str(path)).graph
    init = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
    convs = [(init[n.input[1]], init[n.input[2]]) for n in graph.node if n.op_type == "Conv"]
    gemm = next(n for n in graph.node if n.op_type == "Gemm")
    if len(convs) != 4:
        raise ValueError(f"{path}: {len(convs)} convolutions, not the cube model's 4")
    widths = tuple(int(w.shape[0]) for w, _ in convs)
    model = make_folded_model(widths)
    layers = [m for m in model if isinstance(m, torch.nn.Conv2d)]
    with torch.no_grad():
        for layer, (w, b) in zip(layers, convs, strict=True):
            layer.weight.copy_(torch.from_numpy(w.copy()))
            layer.bias.copy_(torch.from_numpy(b.copy()))  # type: ignore[union-attr]  # bias=True
        head: Any = model[-1]
        head.weight.copy_(torch.from_numpy(init[gemm.input[1]].copy()))
        head.bias.copy_(torch.from_numpy(init[gemm.input[2]].copy()))
    return model, widths


VALIDATION = (("train", 120, 20), ("side_train", 42, 7))
"""(set, first camera index, cameras) of the validation slices: never trained on; the probability's
temperature (``calibrate``) and the thresholds are chosen here."""


def fit_temperature(logits: npt.NDArray[np.float64], labels: npt.NDArray[np.int64]) -> float:
    """The temperature T minimising the negative log-likelihood of ``softmax(logits / T)`` (a grid
    of 0.5..5 refined once): the model's probabilities calibrated on held-out crops.

    >>> z = np.array([[4.0, 0.0], [4.0, 0.0], [0.0, 4.0], [4.0, 0.0]])
    >>> 1.0 < fit_temperature(z, np.array([0, 0, 1, 1])) < 5.0
    True
    """
    from vision.preprocess import softmax

    def nll(t: float) -> float:
        p = softmax(logits / t)
        return float(-np.log(np.maximum(p[np.arange(len(labels)), labels], 1e-12)).mean())

    grid = np.exp(np.linspace(math.log(0.5), math.log(5.0), 41))
    best = float(min(grid, key=nll))
    fine = best * np.exp(np.linspace(-0.06, 0.06, 13))
    return round(float(min(fine, key=nll)), 4)


def train(out: Path, *, seed: int = 7, epochs: int = 16, copies: int = 12, negatives: int = 1,
          cameras: int | None = 100, side_cameras: int = 0, crop: CropSpec = NEW_CROP,
          widths: tuple[int, ...] = WIDTHS, extra: tuple[tuple[str, int | None], ...] = (),
          calibrate: bool = False, init: Path | None = None, lr: float | None = None) -> dict[str, object]:
    """Train, export ``out`` and its record.  ``extra``: (set, cameras) of more training sets (e.g.
    ``hard_train``, or a seen held-out set such as ``fresh`` once it is no longer held out);
    ``calibrate``: divide the logits by the temperature fitted on the ``VALIDATION`` crops (cut as
    inference cuts them, unaugmented), so the face probability is calibrated.  ``init``: fine-tune
    the exported model there (its batch norms folded, so frozen; ``widths`` taken from it) instead of
    training from scratch, at learning rate ``lr`` (one cycle; default the fit's)."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)
    t0 = time.time()
    samples = collect("train", seed, negatives, cameras, crop)
    if side_cameras:
        samples += collect("side_train", seed + 1, negatives, side_cameras, crop)
    for k, (name, n) in enumerate(extra):
        samples += collect(name, seed + 2 + k, negatives, n, crop)
    counts = Counter(CUBE_CLASSES[s.label][0] for s in samples)
    n_neg = sum(1 for s in samples if s.label == 0)
    neg_copies = max(1, round(copies * (len(samples) - n_neg) / max(n_neg, 1) / 4))
    x, y = build_arrays(samples, copies, neg_copies, seed, crop)
    print(f"samples {dict(sorted(counts.items()))} -> {len(y)} crops in {time.time() - t0:.0f}s", flush=True)
    if init is not None:
        model, widths = load_exported(init)
    else:
        model = make_model(widths)
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def report(e: EpochStats) -> None:
        print(f"epoch {e.epoch + 1}/{epochs} loss {e.mean_loss:.4f} acc {e.train_accuracy:.4f}", flush=True)

    last = fit_classifier(model, xt, yt, epochs=epochs, seed=seed, after_epoch=report,
                          lr=MAX_LR if lr is None else lr)
    acc = last.train_accuracy if last is not None else 0.0
    temperature = 1.0
    if calibrate:
        val = [s for k, (name, first, n) in enumerate(VALIDATION)
               for s in collect(name, seed + 100 + k, negatives, n, crop, skip=first)]
        vx, vy = build_arrays(val, 1, 1, seed + 100, crop, augmented=False)
        with torch.no_grad():
            z = model(torch.from_numpy(vx)).double().numpy()
        temperature = fit_temperature(z, vy)
        lin = model[-1]
        with torch.no_grad():
            lin.weight /= temperature
            lin.bias /= temperature
        print(f"temperature {temperature} on {len(vy)} validation crops", flush=True)
    export_onnx(model, torch.zeros(1, 1, crop.patch, crop.patch), out, input_name="patch")
    record: dict[str, object] = {
        "model": out.name,
        "seed": seed,
        "epochs": epochs,
        "classes": len(CUBE_CLASSES),
        "train_frames": len({s.image for s in samples}),
        "train_samples": dict(sorted(counts.items())),
        "train_crops": len(y),
        "copies": copies,
        "neg_copies": neg_copies,
        "final_train_accuracy": round(acc, 4),
        "data": f"{set_dir('train')} (cameras {CUBE_TRAIN_SEEDS.start}.., {POSES_PER_CAMERA} cube poses each)"
                + (f" + {set_dir('side_train')} (cameras {CUBE_SIDE_TRAIN_SEEDS.start}.., cube on a side only)"
                   if side_cameras else ""),
        "cameras": cameras,
        "side_cameras": side_cameras,
        "crop": crop.to_dict(),
        "widths": list(widths),
        "seconds": round(time.time() - t0),
        "torch": torch.__version__,
        "extra": [[name, n] for name, n in extra],
        "init": str(init) if init is not None else None,
        "lr": lr,
        "temperature": temperature,
        "temperature_note": "logits divided by this (baked into the exported last layer), fitted on the "
                            "validation crops" if calibrate else "not calibrated",
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


# ---------------------------------------------------------------------- evaluation
def held_out_frames(first: int, count: int) -> list[tuple[Path, dict[str, Any]]]:
    """Frames of ``vision.evaluate``'s held-out seeds (EVAL_SEEDS; rendered on first use)."""
    from vision.training.rendered import EVAL_SEEDS, rendered

    out = []
    for seed in range(first, first + count):
        if seed not in EVAL_SEEDS:
            raise ValueError(f"seed {seed} is not a held-out seed ({EVAL_SEEDS})")
        r = rendered(seed)
        out.append((r.image_path, r.truth))
    return out


SWEEP = (0.5, 0.7, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97, 0.98, 0.99, 0.995)
"""Face thresholds the evaluation reports right/wrong counts for (choose on a tuning slice)."""


def evaluate_set(name: str = "heldout", model: Path | None = None,
                 items: list[tuple[Path, dict[str, Any]]] | None = None, *, cameras: int | None = None,
                 skip: int = 0, min_confidence: float | None = None, side_probes: bool = True,
                 search_ppm: float | None = None, overrides: dict[str, Any] | None = None,
                 sweep: bool = True) -> dict[str, Any]:
    """Read every frame of a set with :func:`vision.cube.read_cube` (oracle profile); exact counts
    at ``min_confidence`` (default ``CubeConfig().min_confidence``), and of the reads made with no
    face threshold at every ``SWEEP`` threshold (the sweep's reads skip the steps an unsure face
    takes, such as the shifted read, so its counts at ``min_confidence`` may be lower)."""
    from vision.cube import CubeNumeral, read_cube

    numeral = CubeNumeral(model or CUBE_MODEL)
    cfg = replace(CubeConfig(side_probes=side_probes), **(overrides or {}))
    if min_confidence is not None:
        cfg = replace(cfg, min_confidence=min_confidence)
    raw_cfg = replace(cfg, min_confidence=0.0)
    res: dict[str, Any] = {"n": 0, "min_confidence": cfg.min_confidence, "crop": numeral.crop.to_dict(),
                           "side_probes": cfg.side_probes,
                           "face_right": 0, "face_wrong": 0, "face_unsure": 0, "missed": 0,
                           "position_right": 0, "position_wrong": 0, "position_unsure": 0,
                           "rotation_within_10deg": 0, "per_face": {}, "per_position": {}, "errors": [],
                           "unsure": []}
    reads: list[tuple[int, int | None, float]] = []
    sampler: CubeSampler | None = None
    key = ""
    for png, truth in frames(name, cameras, skip) if items is None else items:
        tc = truth.get("cube")
        if tc is None:
            continue
        k = json.dumps(truth["camera"], sort_keys=True) + json.dumps(truth["board"], sort_keys=True)
        if sampler is None or k != key:
            sampler, key = CubeSampler(profile_for(truth), search_ppm or numeral.crop.search_ppm), k
        image = load_image(png)  # the BGR frame, as vision.reader passes it
        raw = read_cube(image, sampler, cfg, numeral)
        swept = read_cube(image, sampler, raw_cfg, numeral) if sweep else raw  # every face, for the sweep
        res["n"] += 1
        tallies = (res["per_face"].setdefault(str(tc["face"]), {"n": 0, "right": 0, "wrong": 0, "unsure": 0}),
                   res["per_position"].setdefault(tc["position"], {"n": 0, "right": 0, "wrong": 0, "unsure": 0}))
        for t in tallies:
            t["n"] += 1
        if raw is None:
            res["missed"] += 1
            res["errors"].append(f"{png.name}: no cube found")
            reads.append((int(tc["face"]), None, 0.0))
            for t in tallies:
                t["unsure"] += 1
            continue
        reads.append((int(tc["face"]), None, 0.0) if swept is None else
                     (int(tc["face"]), swept.face, swept.face_confidence))
        if raw.face is None:
            res["face_unsure"] += 1
            outcome = "unsure"
            best = (None, 0.0) if swept is None else (swept.face, swept.face_confidence)
            res["unsure"].append(f"{png.name}: {tc['position']} {tc['face']} ({best[0]} at {best[1]})")
        elif raw.face == tc["face"]:
            res["face_right"] += 1
            outcome = "right"
            dr = abs((raw.rotation_deg - tc["rotation_deg"] + 180) % 360 - 180)
            res["rotation_within_10deg"] += dr <= 10
        else:
            res["face_wrong"] += 1
            outcome = "wrong"
            res["errors"].append(f"{png.name}: {tc['face']} read as {raw.face} ({raw.face_confidence})")
        for t in tallies:
            t[outcome] += 1
        if raw.position_confidence < cfg.min_position_confidence:
            res["position_unsure"] += 1  # right or not: it says it is unsure
            res["unsure"].append(f"{png.name}: position {tc['position']} ({raw.position.value} at {raw.position_confidence})")
        elif raw.position.value == tc["position"]:
            res["position_right"] += 1
        else:
            res["position_wrong"] += 1
            res["errors"].append(f"{png.name}: {tc['position']} read as {raw.position.value}")
    res["sweep"] = {str(t): {"right": sum(1 for f, r, c in reads if r == f and c >= t),
                             "wrong": sum(1 for f, r, c in reads if r is not None and r != f and c >= t)}
                    for t in SWEEP}
    res["wrong_confidences"] = sorted((round(c, 4) for f, r, c in reads if r is not None and r != f), reverse=True)
    return res


def bench(width: int = 1920, height: int = 1080, repeats: int = 20) -> dict[str, Any]:
    """CPU milliseconds (one core, ``time.process_time``) of the cube stage, ``read_cube`` with the
    model, on the cached held-out frames at ``width`` x ``height``: median and 90th percentile."""
    from vision.cube import read_cube
    from vision.training.rendered import EVAL_SEEDS

    d = cache_dir() / f"{width}x{height}"
    pngs = sorted(p for p in d.glob("*.png") if p.stem.isdigit() and int(p.stem) in EVAL_SEEDS)
    if not pngs:
        raise ValueError(f"no held-out frames cached in {d}")
    cfg = CubeConfig()
    times: list[float] = []
    for png in pngs:
        truth = json.loads(png.with_suffix(".json").read_text())
        sampler = CubeSampler(profile_for(truth))
        image = load_image(png)
        read_cube(image, sampler, cfg)  # warm-up (loads the model once)
        for _ in range(repeats):
            t0 = time.process_time()
            read_cube(image, sampler, cfg)
            times.append((time.process_time() - t0) * 1000)
    times.sort()
    return {"frames": len(pngs), "runs": len(times), "median_ms": round(times[len(times) // 2], 3),
            "p90_ms": round(times[int(len(times) * 0.9)], 3), "size": f"{width}x{height}"}


def _set_arg(text: str) -> tuple[str, int | None]:
    """``SET`` or ``SET:CAMERAS`` of ``--extra``."""
    name, _, n = text.partition(":")
    if name not in SETS:
        raise ValueError(f"unknown cube set {name!r} in --extra {text!r} (sets: {', '.join(sorted(SETS))})")
    return name, int(n) if n else None


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.training cube")
    sub = p.add_subparsers(dest="what")
    r = sub.add_parser("render", help="render cube frames into the cache")
    r.add_argument("set", choices=sorted(SETS))
    r.add_argument("first", type=int)
    r.add_argument("count", type=int)
    t = sub.add_parser("train", help="train the cube-face classifier (needs torch)")
    t.add_argument("--seed", type=int, default=7)
    t.add_argument("--epochs", type=int, default=16)
    t.add_argument("--cameras", type=int, default=100, help="train on the first N cameras' frames (the committed model: 100)")
    t.add_argument("--side-cameras", type=int, default=0, help="also the first N cameras of side_train")
    t.add_argument("--copies", type=int, default=12)
    t.add_argument("--old-crop", action="store_true", help="the crop of the 2026-11-21 model (48 px, 1.8 sides, unrefined)")
    t.add_argument("--widths", default=",".join(map(str, WIDTHS)), help="channels of the 4 conv blocks")
    t.add_argument("--out", type=Path, default=None)
    t.add_argument("--extra", action="append", default=[], metavar="SET[:CAMERAS]",
                   help="also train on a set's first CAMERAS cameras (all when omitted), e.g. hard_train, fresh:100")
    t.add_argument("--search-ppm", type=float, default=NEW_CROP.search_ppm,
                   help="pixels per mm of the finder's search views (recorded with the model's crop)")
    t.add_argument("--realign", action="store_true", help="turn re-centred windows onto the top's edges (CropSpec.realign)")
    t.add_argument("--init", type=Path, default=None,
                   help="fine-tune this exported model (batch norms folded, so frozen) instead of training anew")
    t.add_argument("--lr", type=float, default=None, help="peak learning rate (default: the fit's)")
    t.add_argument("--calibrate", action="store_true", help="fit the probability's temperature on the validation slices")
    e = sub.add_parser("eval", help="read the held-out cube set")
    e.add_argument("--set", default="heldout", choices=[*sorted(SETS), "frames"],
                   help="a cube set, or 'frames': vision.evaluate's held-out random scenes (--first, --count)")
    e.add_argument("--first", type=int, default=900_000)
    e.add_argument("--count", type=int, default=300)
    e.add_argument("--cameras", type=int, default=None, help="only N cameras of the set...")
    e.add_argument("--skip", type=int, default=0, help="...from this camera index")
    e.add_argument("--min-confidence", type=float, default=None)
    e.add_argument("--no-side-probes", action="store_true", help="do not check beyond the read window for the top")
    e.add_argument("--model", type=Path, default=None)
    e.add_argument("--search-ppm", type=float, default=None, help="the finder's search resolution (default: the model's)")
    e.add_argument("--out", type=Path, default=None)
    b = sub.add_parser("bench", help="cube stage CPU time per frame (median) on cached held-out frames")
    b.add_argument("--width", type=int, default=1920)
    b.add_argument("--height", type=int, default=1080)
    args = p.parse_args(argv)
    if args.what == "bench":
        print(json.dumps(bench(args.width, args.height)))
        return 0
    if args.what == "render":
        for i in range(args.first, args.first + args.count):
            print(i, render_camera(args.set, i), flush=True)
        return 0
    if args.what == "eval":
        items = held_out_frames(args.first, args.count) if args.set == "frames" else None
        res = evaluate_set(args.set, args.model, items, cameras=args.cameras, skip=args.skip,
                           min_confidence=args.min_confidence, side_probes=not args.no_side_probes,
                           search_ppm=args.search_ppm)
        text = json.dumps(res, indent=2)
        if args.out:
            args.out.write_text(text + "\n")
        print(text)
        return 0
    if args.what in (None, "train"):
        a = args if args.what else t.parse_args([])
        print(train(a.out or CUBE_MODEL, seed=a.seed, epochs=a.epochs, copies=a.copies, cameras=a.cameras,
                    side_cameras=a.side_cameras, crop=OLD_CROP if a.old_crop else replace(NEW_CROP, search_ppm=a.search_ppm, realign=a.realign),
                    widths=tuple(int(w) for w in a.widths.split(",")),
                    extra=tuple(_set_arg(x) for x in a.extra), calibrate=a.calibrate,
                    init=a.init, lr=a.lr))
        return 0
    return 2


if __name__ == "__main__":
    sys.exit(main())
