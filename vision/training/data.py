"""Labelled die-face samples from the real photographs (and, when present, rendered frames).

Every sample is a :class:`~vision.preprocess.Square` in an image plus a label: 0 = "not a die",
1..6 = the face up.  Training and evaluation both cut samples with
:func:`vision.preprocess.crop_patch`, the same code inference uses.

Splits are fixed and documented: ``crops_tomitomi3`` files whose index is a multiple of 5 are held
out (240 of 1200); ``webcam_matteop65/Valid`` is held out entirely.
"""

from __future__ import annotations

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
