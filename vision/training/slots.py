"""Train the checker-slot classifier on rendered frames and export ``checker_slot.onnx``.

Development only (needs PyTorch).  Data: the cached renders of ``TRAIN_SEEDS`` (render them with
``python -m vision.training.rendered 10000 150``) and the multi-position renders
(``python -m vision.training.rendered variants 11000 150 12``: 12 positions per board/camera);
every slot of every frame is one sample, slots in regions a hand covers are labelled "hand" (never
read); empty slots under a die or the cube "object".  ``train(..., hand_labels=True)`` labels
"hand" per slot instead, from the hand mask recomputed from the scene seed (:func:`hand_slot_labels`;
tried, not better: see ``vision/models/MODELS.md``).

Frames whose scene seed is a multiple of ``HOLDOUT_MOD`` are held out of training: they fit the
softmax temperature (binary log-loss of "the decoded count is right" against its confidence, the
quantity the reader thresholds) and report per-region figures in ``checker_slot.train.json``.

The exported model takes the raw patches, (N, 2, P, P, 3) uint8 BGR as cut by
:class:`vision.checkers.SlotSampler`, and does its own normalisation (``slot_net``), so
training and inference share it.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from pathlib import Path
from typing import Any

import numpy as np

from vision.checkers import (
    HAND,
    OBJECT,
    SLOT_CLASSES,
    SLOT_PATCH,
    SlotSampler,
    board_slots,
    counts_from_slot_probs,
    slot_labels,
)
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
    offrail_frames,
    profile_for,
    rendered,
    variant_frames,
)

HOLDOUT_MOD = 10
"""Frames whose scene seed is a multiple of this are the held-out calibration slice."""


def frame_slots(seed: int, width: int = 1280, height: int = 720, patch: int = SLOT_PATCH) -> tuple[np.ndarray, np.ndarray]:
    """Slot patches (N, 2, P, P, 3) and labels (N,) of one rendered frame (covered slots: "hand")."""
    return rendered_slots(rendered(seed, width, height), patch)


def rendered_slots(r: Rendered, patch: int = SLOT_PATCH) -> tuple[np.ndarray, np.ndarray]:
    prof = profile_for(r.truth)
    sampler = SlotSampler(prof, patch)
    patches = sampler.patches(r.image())
    c = r.truth["counts"]
    labels = slot_labels(prof.layout, sampler.slots, c["points"], tuple(c["bar"]))
    if "stack_positions" in r.truth:  # a game still or an off-rail render: checkers where they rest
        labels = placed_slot_labels(prof.layout, sampler.slots, c["points"], r.truth["stack_positions"], labels)
    covered = set(r.truth["hands"]["covered"])
    things = [(d["center_mm"][0], d["center_mm"][1]) for d in r.truth["dice"]]
    if r.truth.get("cube"):
        things.append(tuple(r.truth["cube"]["center_mm"][:2]))
    dmax = 0.55 * prof.spec.checker_diameter_mm
    for i, sl in enumerate(sampler.slots):
        if sl.region in covered:
            labels[i] = HAND  # a hand over the region: the slot must not be read
        elif labels[i] == 0 and any(math.hypot(sl.x - x, sl.y - y) < dmax for x, y in things):
            labels[i] = OBJECT
    return np.ascontiguousarray(patches), np.array(labels, np.int64)


def placed_slot_labels(layout: Any, slots: Any, points: list[list[int]], positions: dict[str, list[int]],
                       packed: list[int]) -> list[int]:
    """The slot classes of the points from the stack positions their checkers take (a truth's
    ``stack_positions``: a played game leaves a checker off the rail end, which :func:`slot_labels`'
    packed stacks cannot say); ``packed`` (the bar's classes) elsewhere.  A point whose positions do not
    account for its count (a checker between positions, -1) is left out of training (:data:`IGNORE`)."""
    cap = layout.spec.row_capacity
    out = list(packed)
    for i, sl in enumerate(slots):
        if sl.region == "bar":
            continue
        w, b = points[int(sl.region[1:]) - 1]
        pos = positions.get(sl.region, [])
        if len(pos) != w + b or any(p < 0 for p in pos):
            out[i] = IGNORE
            continue
        layers = sum(1 for p in pos if p % cap == sl.index)
        out[i] = 0 if layers == 0 else (1 if w >= b else 4) + min(layers, 3) - 1
    return out


HAND_SLOT_FRACTION = 0.1
"""A slot is labelled "hand" when the hand hides at least this share of its patch (either layer)."""

HAND_GRAZE_FRACTION = 0.01
"""A slot the hand hides less than :data:`HAND_SLOT_FRACTION` but at least this share of is left out
of training (neither "hand" nor its class: a grazing hand must not teach reading through hands)."""

IGNORE = -100
"""Label of a slot left out of training (cross-entropy ``ignore_index``)."""


def hand_slot_labels(r: Rendered, y: np.ndarray, patch: int = SLOT_PATCH) -> tuple[np.ndarray, str]:
    """Relabel the "hand" slots of a frame from the hand's geometry: only the slots whose patch the
    hand really hides (:data:`HAND_SLOT_FRACTION`) stay "hand"; the other slots of covered regions get
    their true class.  The mask is recomputed from the scene seed (:func:`hand_mask`); when its covered
    regions differ from the truth's (the simulator changed since the render) the covered regions'
    slots are left out of training (:data:`IGNORE`).  Returns the labels and "kept" / "mask" / "ignored"."""
    import cv2

    from vision.sim.optics import CameraModel
    from vision.sim.truth import covered_regions
    from vision.training.rendered import hand_mask

    covered = set(r.truth["hands"]["covered"])
    if not covered:
        return y, "kept"
    prof = profile_for(r.truth)
    sampler = SlotSampler(prof, patch)
    m = hand_mask(r)
    ok = False
    if m is not None:
        h, w = m.shape
        q = cv2.resize(m, (w // 4, h // 4), interpolation=cv2.INTER_AREA)
        ok = set(covered_regions(prof.layout, CameraModel.from_json(r.truth["camera"]), q)) == covered
    out = y.copy()
    if not ok or m is None:
        for i, sl in enumerate(sampler.slots):
            if sl.region in covered:
                out[i] = IGNORE
        return out, "ignored"
    frac = (sampler.patches(cv2.merge([m, m, m]))[..., 0] > 127).mean(axis=(2, 3)).max(axis=1)
    c = r.truth["counts"]
    base = slot_labels(prof.layout, sampler.slots, c["points"], tuple(c["bar"]))
    if "stack_positions" in r.truth:
        base = placed_slot_labels(prof.layout, sampler.slots, c["points"], r.truth["stack_positions"], base)
    things = [(d["center_mm"][0], d["center_mm"][1]) for d in r.truth["dice"]]
    if r.truth.get("cube"):
        things.append(tuple(r.truth["cube"]["center_mm"][:2]))
    dmax = 0.55 * prof.spec.checker_diameter_mm
    for i, sl in enumerate(sampler.slots):
        if frac[i] >= HAND_SLOT_FRACTION:
            out[i] = HAND
        elif frac[i] >= HAND_GRAZE_FRACTION:
            out[i] = IGNORE
        elif out[i] == HAND:
            b = base[i]
            if b == 0 and any(math.hypot(sl.x - x, sl.y - y) < dmax for x, y in things):
                b = OBJECT
            out[i] = b
    return out, "mask"


HAND_LABEL_KINDS = ("kept", "mask", "ignored")


def cached_hand_labels(r: Rendered, patch: int = SLOT_PATCH) -> tuple[np.ndarray, str]:
    """:func:`hand_slot_labels` of a frame's :func:`cached_slots` labels, cached beside the render cache
    (``slots_handlabels<P>/``: recomputing the hand mask costs ~0.5 s a frame)."""

    def make(fr: Rendered) -> tuple[np.ndarray, np.ndarray]:
        y, kind = hand_slot_labels(fr, cached_slots(fr, patch)[1], patch)
        return np.array([HAND_LABEL_KINDS.index(kind)], np.int64), y

    k, y = cached_arrays(r, f"slots_handlabels{patch}", make)
    return y, HAND_LABEL_KINDS[int(k[0])]


GAME_TRAIN_SEEDS = range(20_006, 20_100)
"""Rendered games whose still frames (``vision.training.games render``) may be trained on: 20000-20005
are the checker stage's tuning set, 20200+ fresh measurements."""


def training_frames(with_trays: bool = False, games: Path | None = None) -> list[Rendered]:
    """Every cached training frame: single renders of ``TRAIN_SEEDS`` (1280x720), the multi-position
    renders (1280x720 and 1920x1080) and the off-rail ones (``offrail_1280x720/``); ``with_trays`` also the
    tray renders (``vision.training.trays``: bear-off positions, so many empty points and an empty bar);
    ``games`` also the still frames of the games of :data:`GAME_TRAIN_SEEDS` saved in that folder."""
    out: list[Rendered] = []
    if games is not None:
        from vision.training.games import game_frames

        if not games.is_dir():
            raise ValueError(f"game stills folder {games}: no such folder")
        found = sorted(s for s in {int(js.stem.split("_")[0]) for js in games.glob("*_*.json")} if s in GAME_TRAIN_SEEDS)
        if not found:
            raise ValueError(f"game stills folder {games}: no stills of the training games {GAME_TRAIN_SEEDS.start}-"
                             f"{GAME_TRAIN_SEEDS.stop - 1} (python -m vision.training.games render SEEDS --out {games})")
        out.extend(game_frames(games, found))
    if with_trays:
        from vision.training.trays import tray_frames

        out.extend(tray_frames(1280, 720))
    d = cache_dir() / "1280x720"
    for js in sorted(d.glob("*.json"), key=lambda p: int(p.stem)):
        if int(js.stem) in TRAIN_SEEDS and js.with_suffix(".png").is_file():
            out.append(Rendered(int(js.stem), js.with_suffix(".png"), json.loads(js.read_text())))
    out.extend(variant_frames(1280, 720))
    out.extend(variant_frames(1920, 1080))
    out.extend(offrail_frames(1280, 720))
    return out


def gapped_slots(layout: Any, positions: dict[str, list[int]] | None) -> np.ndarray:
    """(N_slots,) bool: the slots (``board_slots`` order) of the points whose checkers are not packed from
    the rail (a truth's ``stack_positions``; none without them)."""
    from vision.training.games import gapped

    odd = {k for k, v in (positions or {}).items() if gapped(v)}
    return np.array([sl.region in odd for sl in board_slots(layout)], bool)


def full_row_slots(layout: Any, points: list[list[int]]) -> np.ndarray:
    """(N_slots,) bool: the slots (``board_slots`` order) of the points holding a full row or more
    (row capacity checkers: the points where a second layer can be missed or imagined)."""
    cap = layout.spec.row_capacity
    return np.array([sl.region != "bar" and max(points[int(sl.region[1:]) - 1]) >= cap
                     for sl in board_slots(layout)], bool)


def is_tray_render(r: Rendered) -> bool:
    """A render of ``vision.training.trays`` (``trays_WxH/``), whose scene :func:`scene_of` cannot rebuild."""
    return r.image_path.parent.name.startswith("trays_")


def cached_slots(r: Rendered, patch: int = SLOT_PATCH) -> tuple[np.ndarray, np.ndarray]:
    """:func:`rendered_slots`, cached beside the render cache (``slots_patches<P>/``)."""
    return cached_arrays(r, f"slots_patches{patch}", lambda fr: rendered_slots(fr, patch))


def region_figures(frames: list[Rendered], probs: list[np.ndarray], threshold: float, patch: int = SLOT_PATCH,
                   hand_max: float = 0.3) -> dict[str, Any]:
    """Per-region right/wrong at ``threshold`` and exact boards (frames without hands)."""
    right = wrong = unsure = exact = clear = 0
    wrong_list: list[str] = []
    for r, pr in zip(frames, probs, strict=True):
        prof = profile_for(r.truth)
        slots = board_slots(prof.layout)
        cr = counts_from_slot_probs(slots, pr.astype(np.float32), frozenset(), hand_max)
        c = r.truth["counts"]
        cov = set(r.truth["hands"]["covered"])
        ok_all = True
        got = {f"p{i + 1}": x for i, x in enumerate(cr.points)} | {"bar": cr.bar}
        want = {f"p{i + 1}": tuple(x) for i, x in enumerate(c["points"])} | {"bar": tuple(c["bar"])}
        for k, w in want.items():
            if k in cov:
                continue
            g = got[k]
            if g.confidence < threshold:
                unsure += 1
                ok_all = False
            elif (g.white, g.black) == w:
                right += 1
            else:
                wrong += 1
                ok_all = False
                wrong_list.append(f"{r.image_path.stem}:{k} {g.white}W{g.black}B≠{w} ({g.confidence})")
        if not cov:
            clear += 1
            exact += ok_all
    return {"threshold": threshold, "regions_right": right, "regions_wrong": wrong, "regions_unsure": unsure,
            "frames_without_hands": clear, "exact_boards": exact, "wrong": wrong_list[:20]}


def stack_calibration(frames: list[Rendered], logits: list[np.ndarray], temperatures: tuple[float, ...],
                      hand_max: float = 0.3) -> dict[float, float]:
    """Binary log-loss of "the decoded region count is right" against its confidence, per temperature
    (regions read with confidence 0 - hand-like or contradictory slots - make no claim and are left out)."""
    out: dict[float, float] = {}
    for t in temperatures:
        loss = 0.0
        n = 0
        for r, lg in zip(frames, logits, strict=True):
            prof = profile_for(r.truth)
            cr = counts_from_slot_probs(board_slots(prof.layout), softmax(lg / t), frozenset(), hand_max)
            c = r.truth["counts"]
            cov = set(r.truth["hands"]["covered"])
            for i, g in enumerate((*cr.points, cr.bar)):
                name = "bar" if i == 24 else f"p{i + 1}"
                if name in cov:
                    continue
                w = tuple(c["bar"]) if i == 24 else tuple(c["points"][i])
                if g.confidence == 0.0:
                    continue  # not read (a hand-like or contradictory slot): no claim to calibrate
                p = min(max(g.confidence, 1e-6), 1 - 1e-6)
                loss -= math.log(p) if (g.white, g.black) == w else math.log(1 - p)
                n += 1
        out[t] = round(loss / max(1, n), 5)
    return out


def softmax(logits: np.ndarray) -> np.ndarray:
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    out: np.ndarray = (e / e.sum(axis=1, keepdims=True)).astype(np.float32)
    return out


def train(out: Path, *, seed: int = 7, epochs: int = 8, label_smoothing: float = 0.0, patch: int = SLOT_PATCH,
          max_frames: int | None = None, samples_per_epoch: int = 160_000, init_from: Path | None = None,
          lr: float = 3e-3, hand_labels: bool = False, arch: str = "fast", with_trays: bool = False,
          bar_weight: float = 1.0, full_row_weight: float = 1.0, empty_weight: float = 1.0,
          games: Path | None = None, gapped_weight: float = 1.0) -> dict[str, Any]:
    """Train (or, ``init_from``, fine-tune with the exported batch norms frozen) a slot model on the
    cached frames; ``with_trays`` adds the tray renders; ``bar_weight`` multiplies how often an empty
    bar slot is drawn (the empty bar is the model's typical false "hand"); ``full_row_weight`` how often
    a slot of a point holding a full row or more (:func:`full_row_slots`: where one layer is read as
    two and back, the model's typical stack error) is drawn; ``empty_weight`` how often an empty point
    slot of a frame with no hand at all is drawn (the model's false "hand" on such frames).; ``games`` adds
    the game stills in that folder (:data:`GAME_TRAIN_SEEDS`); ``gapped_weight`` how often a slot of a point
    whose checkers are off the rail end (:func:`gapped_slots`) is drawn."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    frames = training_frames(with_trays, games)
    if max_frames is not None:
        frames = frames[:max_frames]
    train_f = [r for r in frames if r.seed % HOLDOUT_MOD != 0]
    hold_f = [r for r in frames if r.seed % HOLDOUT_MOD == 0]
    xs, ys, bars, fulls, empties, gaps = [], [], [], [], [], []
    how: Counter[str] = Counter()
    for r in train_f:
        x, y = cached_slots(r, patch)
        layout = profile_for(r.truth).layout
        on_bar = np.array([sl.region == "bar" for sl in board_slots(layout)])
        full = full_row_slots(layout, r.truth["counts"]["points"])
        gap = gapped_slots(layout, r.truth.get("stack_positions"))
        if hand_labels and is_tray_render(r):
            if r.truth["hands"]["covered"]:  # scene_of cannot rebuild a tray scene: leave the hand out
                y = np.where(y == HAND, IGNORE, y)
                how["ignored"] += 1
        elif hand_labels and r.truth["hands"]["covered"]:
            y, k = cached_hand_labels(r, patch)
            how[k] += 1
        keep = y != IGNORE
        xs.append(x[keep])
        ys.append(y[keep])
        bars.append((on_bar & (y == 0))[keep])
        fulls.append((full & (y != HAND))[keep])
        empties.append((~on_bar & (y == 0) & (not r.truth["hands"]["present"]))[keep])
        gaps.append(gap[keep])
    x = np.concatenate(xs)
    y = np.concatenate(ys)
    empty_bar = np.concatenate(bars)
    in_full_row = np.concatenate(fulls)
    empty_clear = np.concatenate(empties)
    in_gap = np.concatenate(gaps)
    del xs
    if hand_labels:
        print(f"hand labels per slot: {dict(how)} frames", flush=True)
    counts = Counter(int(v) for v in y)
    print(f"{len(train_f)} training frames ({len(hold_f)} held out), {len(y)} slots {dict(sorted(counts.items()))}"
          f" [{time.time() - t0:.0f}s]", flush=True)
    # oversample the rare classes (stacks, other) so they are learnt
    w = (np.array([1.0 / counts[int(v)] ** 0.5 for v in y]) * np.where(empty_bar, bar_weight, 1.0)
         * np.where(in_full_row, full_row_weight, 1.0) * np.where(empty_clear, empty_weight, 1.0)
         * np.where(in_gap, gapped_weight, 1.0))
    model = slot_net(patch, arch)
    if init_from is not None:
        load_onnx_weights(model, init_from)
        model.frozen_bn = True  # the export folded them into the convolutions: keep them the identity
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)
    per_epoch = min(len(y), samples_per_epoch)
    batch = 256

    report = epoch_printer(epochs, t0)

    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, label_smoothing=label_smoothing, augment=jitter_layers,
                   after_epoch=report, lr=lr, batch=batch, sample_weight=torch.from_numpy(w),
                   samples_per_epoch=per_epoch)
    model.eval()
    del x, xt
    export_onnx(model, torch.zeros(1, 2, patch, patch, 3, dtype=torch.uint8), out, input_name="slots")
    rec: dict[str, Any] = {
        "model": out.name, "arch": arch, "seed": seed, "epochs": epochs, "samples_per_epoch": per_epoch, "batch": batch,
        "patch": patch, "training_frames": len(train_f), "held_out_frames": len(hold_f),
        "data": "cached renders of TRAIN_SEEDS (1280x720) + multi-position renders (slots_WxH/SEED_I); "
                f"frames whose scene seed % {HOLDOUT_MOD} == 0 held out",
        "slots": len(y), "label_smoothing": label_smoothing, "lr": lr, "with_tray_renders": with_trays,
        "empty_bar_weight": bar_weight, "full_row_weight": full_row_weight, "full_row_slots": int(in_full_row.sum()),
        "empty_point_weight_no_hand": empty_weight,
        "game_stills": None if games is None else f"{games}: {sum(1 for r in train_f if 'stack_positions' in r.truth)}"
                                                 " training frames with stack positions (game stills + off-rail)",
        "gapped_weight": gapped_weight, "gapped_slots": int(in_gap.sum()),
        "init_from": None if init_from is None else f"{init_from.name} (weights of the previous model, fine-tuned, "
                                                    "batch norms frozen)",
        "classes": {SLOT_CLASSES[k]: v for k, v in sorted(counts.items())},
        "train_seconds": round(time.time() - t0), "torch": torch.__version__,
        "hand_labels": (f"per slot from the recomputed hand mask (>= {HAND_SLOT_FRACTION:.0%} of the patch hidden): "
                        f"{dict(how)} frames with covered regions") if hand_labels
        else "every slot of a covered region",
    }
    rec.update(calibrate(out, hold_f, patch))
    rec["seconds"] = round(time.time() - t0)
    out.with_suffix(".train.json").write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def calibrate(model_path: Path, frames: list[Rendered], patch: int = SLOT_PATCH) -> dict[str, Any]:
    """Temperature and per-region figures of a model on held-out frames."""
    from vision.checkers import slot_session

    sess = slot_session(model_path)
    name = sess.get_inputs()[0].name
    logits, slot_right, slot_n = [], 0, 0
    for r in frames:
        x, y = cached_slots(r, patch)
        lg = np.asarray(sess.run(None, {name: x})[0], np.float32)
        logits.append(lg)
        slot_right += int((lg.argmax(1) == y).sum())
        slot_n += len(y)
    temps = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.2, 1.5, 2.0)
    loss = stack_calibration(frames, logits, temps)
    best = min(loss, key=lambda t: loss[t])
    figs = [region_figures(frames, [softmax(lg / best) for lg in logits], th, patch) for th in (0.9, 0.99, 0.999)]
    return {"held_out_slot_accuracy": round(slot_right / max(1, slot_n), 5), "stack_logloss_by_temperature":
            {str(k): v for k, v in loss.items()}, "temperature": best, "held_out_regions": figs}


ARCHS = ("fast", "fast64", "v3")
"""Slot-model bodies: "v3" the committed model of session 2 (3x [conv 3x3, max-pool], 16-32-48
channels; ~5 ms for the 130 slots of a frame, one core); "fast" (default) a strided first and second
convolution instead of the pools before them (16-32-48, the same weights count, ~2.2 ms); "fast64"
the same with 64 channels in the last convolution (~2.7 ms)."""


def slot_net(patch: int = SLOT_PATCH, arch: str = "fast") -> Any:
    """The slot classifier: raw (N, 2, P, P, 3) BGR patches (uint8 or float 0..255) -> 9 logits."""
    from torch import nn

    def block(i: int, o: int, stride: int = 1) -> list[nn.Module]:
        return [nn.Conv2d(i, o, 3, stride=stride, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    side = patch // 8
    if arch == "v3":
        layers = [*block(6, 16), nn.MaxPool2d(2), *block(16, 32), nn.MaxPool2d(2), *block(32, 48), nn.MaxPool2d(2)]
        last = 48
    elif arch in ("fast", "fast64"):
        last = 64 if arch == "fast64" else 48
        layers = [*block(6, 16, 2), *block(16, 32, 2), *block(32, last), nn.MaxPool2d(2)]
    else:
        raise ValueError(f"unknown slot-model architecture {arch!r}: expected one of {ARCHS}")

    return pair_net(nn.Sequential(
        *layers, nn.Flatten(), nn.Dropout(0.1), nn.Linear(last * side * side, len(SLOT_CLASSES)),
    ))


def load_onnx_weights(model: Any, path: Path) -> None:
    """Start ``model`` (``slot_net``) from an exported slot model of the same shape: its convolutions
    (batch norm folded in by the export) and its linear layer; batch norms start as identity."""
    load_exported_weights(model, path)

def recalibrate(model_path: Path, patch: int = SLOT_PATCH) -> dict[str, Any]:
    """Refit the temperature of an exported model on today's held-out frames; updates its record."""
    hold = [r for r in training_frames() if r.seed % HOLDOUT_MOD == 0]
    rec_path = model_path.with_suffix(".train.json")
    rec: dict[str, Any] = json.loads(rec_path.read_text()) if rec_path.is_file() else {}
    rec.update(calibrate(model_path, hold, patch))
    rec["held_out_frames"] = len(hold)
    rec_path.write_text(json.dumps(rec, indent=2) + "\n")
    return rec


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.training.slots [--arch fast|fast64|v3] [--epochs N] [--hand-labels] [--out M.onnx]``:
    train a slot model from scratch (or ``--init-from`` an exported one of the same architecture)."""
    import argparse

    from vision.checkers import SLOT_MODEL

    p = argparse.ArgumentParser(prog="python -m vision.training.slots")
    p.add_argument("--arch", choices=ARCHS, default="fast")
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--out", type=Path, default=SLOT_MODEL)
    p.add_argument("--init-from", type=Path, default=None)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--samples-per-epoch", type=int, default=160_000)
    p.add_argument("--label-smoothing", type=float, default=0.0)
    p.add_argument("--hand-labels", action="store_true")
    p.add_argument("--calibrate-only", action="store_true")
    p.add_argument("--games", type=Path, default=None,
                   help="also train on the game stills in this folder (python -m vision.training.games render)")
    p.add_argument("--gapped-weight", type=float, default=1.0,
                   help="draw the slots of points whose checkers are off the rail end this many times as often")
    p.add_argument("--with-trays", action="store_true", help="also train on the tray renders (trays_1280x720/)")
    p.add_argument("--bar-weight", type=float, default=1.0, help="draw empty bar slots this many times as often")
    p.add_argument("--full-row-weight", type=float, default=1.0,
                   help="draw the slots of points holding a full row or more this many times as often")
    p.add_argument("--empty-weight", type=float, default=1.0,
                   help="draw the empty point slots of frames with no hand this many times as often")
    a = p.parse_args(argv)
    if a.games is not None and not a.games.is_dir():
        p.error(f"--games {a.games}: no such folder")
    if a.calibrate_only:
        print(json.dumps(recalibrate(a.out), indent=2))
        return 0
    rec = train(a.out, seed=a.seed, epochs=a.epochs, init_from=a.init_from, lr=a.lr, samples_per_epoch=a.samples_per_epoch,
                label_smoothing=a.label_smoothing, hand_labels=a.hand_labels, arch=a.arch, with_trays=a.with_trays,
                bar_weight=a.bar_weight, full_row_weight=a.full_row_weight, empty_weight=a.empty_weight,
                games=a.games, gapped_weight=a.gapped_weight)
    print(json.dumps(rec, indent=2))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
