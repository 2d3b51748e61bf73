"""Labelled die-face samples from the real photographs (and, when present, rendered frames).

Every sample is a :class:`~vision.preprocess.Square` in an image plus a label: 0 = "not a die",
1..6 = the face up.  Training and evaluation both cut samples with
:func:`vision.preprocess.crop_patch`, the same code inference uses.

Splits are fixed and documented: ``crops_tomitomi3`` files whose index is a multiple of 5 are held
out (240 of 1200); ``webcam_matteop65/Valid`` is held out entirely.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.dice.find import find_candidates
from vision.preprocess import Square, U8Array, to_gray

NOT_A_DIE = 0
WEBCAM = "webcam_matteop65"
TOMI = "crops_tomitomi3"


@dataclass(frozen=True, slots=True)
class Sample:
    image: Path
    square: Square
    label: int
    jitter: float = 0.06
    """Random shift of the crop's centre in training, in sides (a board candidate's is larger)."""


@dataclass(frozen=True, slots=True)
class LabelBox:
    """A YOLO label in pixels: the face and the pip area's box (x, y, w, h)."""

    face: int
    cx: float
    cy: float
    w: float
    h: float


def read_yolo(txt: Path, width: int, height: int) -> list[LabelBox]:
    out = []
    for line in txt.read_text().split("\n"):
        parts = line.split()
        if len(parts) != 5:
            continue
        c, x, y, w, h = (float(v) for v in parts)
        out.append(LabelBox(int(c) + 1, x * width, y * height, w * width, h * height))
    return out


def match_candidates(cands: list[Square], labels: list[LabelBox]) -> list[int | None]:
    """Label each candidate: a face, NOT_A_DIE, or None (ambiguous: left out of training/scoring).

    A candidate is the die with face f when the label's centre lies in its central half, its side is
    at least the label box's longer side, at most 3 times it (the pip box of a 1 is small: then at most
    6 times) and no other label's centre lies inside it.
    """
    out: list[int | None] = []
    for s in cands:
        inside = [lb for lb in labels if _inside(s, lb.cx, lb.cy, 0.5)]
        near = [lb for lb in labels if _inside(s, lb.cx, lb.cy, 1.3)]
        if not near:
            out.append(NOT_A_DIE)
            continue
        if len(inside) != 1 or len(near) != 1:
            out.append(None)
            continue
        lb = inside[0]
        big = max(lb.w, lb.h)
        ratio = s.side / big
        upper = 6.0 if lb.face == 1 else 2.6
        lower = 2.5 if lb.face == 1 else 1.0
        if ratio < 0.8 * lower:
            out.append(NOT_A_DIE)  # a pip or a part of the face
        elif lower <= ratio <= upper:
            out.append(lb.face)
        else:
            out.append(None)
    return out


def _inside(s: Square, x: float, y: float, frac: float) -> bool:
    a = math.radians(s.angle)
    dx, dy = x - s.cx, y - s.cy
    u = dx * math.cos(a) + dy * math.sin(a)
    v = -dx * math.sin(a) + dy * math.cos(a)
    return abs(u) <= frac * s.side / 2 and abs(v) <= frac * s.side / 2


def webcam_samples(root: Path, split: str, config: VisionConfig | None = None) -> Iterator[tuple[Path, list[Square], list[int | None], list[LabelBox]]]:
    """Per image of ``webcam_matteop65/<split>``: candidates, their labels, and the true boxes."""
    folder = root / WEBCAM / split
    for jpg in sorted(folder.glob("*.jpg")):
        img = cv2.imread(str(jpg))
        if img is None:
            continue
        labels = read_yolo(jpg.with_suffix(".txt"), img.shape[1], img.shape[0])
        cands = find_candidates(img, config)
        yield jpg, cands, match_candidates(cands, labels), labels


TOMI_CONFIG = VisionConfig(find_min_side_frac=0.15, find_max_side_frac=0.6)


def tomi_samples(root: Path, held_out: bool) -> Iterator[Sample]:
    """Samples from the 128x128 crops: the die (largest central candidate) and negatives around it."""
    for face in range(1, 7):
        for f in sorted((root / TOMI / str(face)).glob("*.bmp")):
            idx = int(f.stem)
            if (idx % 5 == 0) != held_out:
                continue
            img = load(f)
            cands = find_candidates(img, TOMI_CONFIG)
            centre = [c for c in cands if math.hypot(c.cx - 64, c.cy - 64) < 25 and 30 <= c.side <= 70]
            if centre:
                best = max(centre, key=lambda c: c.side)
            else:
                best = Square(64.0, 64.0, 46.0, 0.0)
            yield Sample(f, best, face)
            if not held_out:
                for c in cands:
                    if not _inside(best, c.cx, c.cy, 1.0) or c.side < 0.5 * best.side:
                        yield Sample(f, c, NOT_A_DIE)


def load(path: Path) -> U8Array:
    """Read an image as grey (the tomitomi .bmp files are PNG inside: decode by content)."""
    data = np.fromfile(str(path), np.uint8)
    img = cv2.imdecode(data, cv2.IMREAD_GRAYSCALE)
    if img is None:
        raise ValueError(f"cannot read image {path}")
    return to_gray(img)


def shared_dir() -> Path:
    """The shared real-data folder: $BGREF_SHARED_DATA, else ../shared/data beside the checkout."""
    import os

    env = os.environ.get("BGREF_SHARED_DATA")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[3] / "shared" / "data"


# ---------------------------------------------------------------------------------------------
# the die detector's training frames (session 5: every rendered training folder with dice)

DETECTOR_FOLDERS = ("1280x720", "dice_cocked/1280x720", "dice_train/1280x720", "slots_1280x720",
                    "trays_1280x720", "cube_side_train")
"""Render-cache folders the detector ``die_detect.onnx`` (session 5) was trained on: the shared
training frames, the cocked-dice and dice training frames, and the multi-position renders of the
slot, tray and cube-side models (dice against checkers, on the bar, in and near the trays, by the
rail; files ``SEED.json`` or ``SEED_K.json``).  Evaluation seeds (``EVAL_SEEDS``) are left out."""


def detector_frames_all(root: Path, folders: tuple[str, ...] = DETECTOR_FOLDERS,
                        ) -> list[tuple[np.ndarray, np.ndarray, int]]:
    """(top view BGR uint8, die centres in top-view px (N, 2), seed) of every rendered frame of
    ``folders`` under ``root`` whose seed is not an evaluation seed (the same top view and centres as
    ``vision.training.faces.detector_frames``, which reads only ``SEED.json`` files)."""
    from vision.training.faces import detector_sample
    from vision.training.rendered import EVAL_SEEDS

    out = []
    for name in folders:
        for js in sorted((root / name).glob("*.json")):
            head = js.stem.split("_")[0]
            if not head.isdigit() or int(head) in EVAL_SEEDS:
                continue
            sample = detector_sample(js)
            if sample is None:
                continue
            top, pts = sample
            out.append((top, pts, int(head)))
    return out


def train_detector_all(out: Path, *, root: Path | None = None, steps: int = 2000, seed: int = 7) -> dict[str, object]:
    """``python -m vision.training.data detector [STEPS [OUT]]``: the die detector trained by
    ``vision.training.faces.train_detector`` (same net, crops, augmentation and loss) on
    :func:`detector_frames_all` of :data:`DETECTOR_FOLDERS`."""
    from vision.training import faces
    from vision.training.rendered import cache_dir

    base = root or cache_dir()
    frames = detector_frames_all(base)
    record = faces.train_detector([base / f for f in DETECTOR_FOLDERS], out, seed=seed, steps=steps, frames=frames)
    record["recipe"] = "python -m vision.training.data detector"
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def finetune_detector(out: Path, *, start: Path | None = None, root: Path | None = None, steps: int = 600,
                      lr: float = 5e-4, seed: int = 7, batch: int = 24,
                      folders: tuple[str, ...] = DETECTOR_FOLDERS) -> dict[str, object]:
    """``python -m vision.training.data finetune-detector [STEPS [OUT [FOLDER,FOLDER...]]]``:
    ``die_detect.onnx``'s weights (its convolutions, batch norm folded in) trained further at a
    constant rate on :func:`detector_frames_all` of ``folders`` (default :data:`DETECTOR_FOLDERS`;
    session 9 added the pose renders ``dice_pose/v2/1280x720``, whose training seeds hold dice
    leaning on checkers, the rail, the bar and the other die), with the crops, augmentation and loss
    of ``vision.training.faces.train_detector`` (torch: development only)."""
    import random
    import time

    import onnx
    import torch
    from onnx import numpy_helper
    from torch import nn

    from vision.dice.detect import DIE_DETECT_MODEL
    from vision.training.faces import detector_step
    from vision.training.fit import export_onnx
    from vision.training.rendered import cache_dir

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = random.Random(seed)
    t0 = time.time()
    src = start or DIE_DETECT_MODEL
    g = onnx.load(str(src)).graph
    init = {i.name: numpy_helper.to_array(i) for i in g.initializer}
    convs = [(init[n.input[1]], init[n.input[2]], n) for n in g.node if n.op_type == "Conv"]
    layers: list[nn.Module] = []
    for k, (w, b, node) in enumerate(convs):
        stride = next((list(a.ints) for a in node.attribute if a.name == "strides"), [1, 1])[0]
        conv = nn.Conv2d(w.shape[1], w.shape[0], w.shape[2], stride, w.shape[2] // 2)
        with torch.no_grad():
            conv.weight.copy_(torch.from_numpy(w.copy()))
            conv.bias.copy_(torch.from_numpy(b.copy()))  # type: ignore[union-attr]
        layers.append(conv)
        if k < len(convs) - 1:
            layers.append(nn.ReLU())
    model = nn.Sequential(*layers)
    frames = detector_frames_all(root or cache_dir(), folders)
    n_dice = sum(len(p) for _, p, _ in frames)
    print(f"{len(frames)} frames, {n_dice} dice in {time.time() - t0:.0f}s", flush=True)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    run = 0.0
    for step in range(steps):
        run = 0.98 * run + 0.02 * detector_step(model, opt, frames, rng, batch)
        if (step + 1) % 50 == 0:
            print(f"step {step + 1}/{steps} loss {run:.4f} {time.time() - t0:.0f}s", flush=True)
            if (step + 1) % 200 == 0:
                model.eval()
                export_onnx(model, torch.zeros(1, 3, 128, 128), out.with_name(f"{out.stem}_{step + 1}.onnx"), input_name="top",
                            output_name="heat", dynamic_axes={"top": {2: "h", 3: "w"}, "heat": {2: "h", 3: "w"}})
    model.eval()
    export_onnx(model, torch.zeros(1, 3, 128, 128), out, input_name="top", output_name="heat",
                dynamic_axes={"top": {2: "h", 3: "w"}, "heat": {2: "h", 3: "w"}})
    record: dict[str, object] = {
        "model": out.name, "recipe": "python -m vision.training.data finetune-detector", "start": src.name,
        "seed": seed, "steps": steps, "batch": batch, "lr": lr, "crop": 128, "frames": len(frames), "dice": n_dice,
        "folders": list(folders), "seconds": round(time.time() - t0), "torch": torch.__version__,
    }
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


if __name__ == "__main__":
    import sys

    a = sys.argv[1:]
    if a and a[0] == "detector":
        from vision.dice.detect import DIE_DETECT_MODEL

        print(train_detector_all(Path(a[2]) if len(a) > 2 else DIE_DETECT_MODEL, steps=int(a[1]) if len(a) > 1 else 2000))
    if a and a[0] == "finetune-detector":
        from vision.dice.detect import DIE_DETECT_MODEL

        print(finetune_detector(Path(a[2]) if len(a) > 2 else DIE_DETECT_MODEL, steps=int(a[1]) if len(a) > 1 else 600,
                                folders=tuple(a[3].split(",")) if len(a) > 3 else DETECTOR_FOLDERS))
