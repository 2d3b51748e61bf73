"""Drawn dice (top views, many colour schemes and pip sizes) as extra face-classifier training data.

Seeded; written once to a cache folder so samples are ordinary image files like the real ones.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.preprocess import Square
from vision.training.data import Sample

PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}
SCHEMES = [((235, 235, 235), (20, 20, 20)), ((40, 40, 175), (245, 245, 245)), ((30, 30, 30), (240, 240, 240)),
           ((200, 225, 235), (30, 30, 30)), ((40, 120, 40), (240, 240, 240)), ((160, 60, 20), (250, 250, 250))]


def draw(img: np.ndarray, cx: float, cy: float, side: float, face: int, angle: float, body: tuple[int, int, int],
         pip: tuple[int, int, int], pip_r: float, spread: float) -> None:
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = side / 2
    corners = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + (cx, cy)
    cv2.fillConvexPoly(img, np.round(corners * 16).astype(np.int32), body, cv2.LINE_AA, 4)
    for u, v in PIPS[face]:
        p = np.array([u, v]) * side * spread @ rot.T + (cx, cy)
        cv2.circle(img, (round(p[0] * 16), round(p[1] * 16)), max(16, int(side * pip_r * 16)), pip, -1, cv2.LINE_AA, 4)


def synthetic_samples(folder: Path, n_per_face: int = 100, seed: int = 11) -> list[Sample]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seed)
    out: list[Sample] = []
    for face in range(1, 7):
        for i in range(n_per_face):
            path = folder / f"{face}_{i}.png"
            side = rng.uniform(18, 80)
            w = int(side * 3)
            cx = cy = w / 2
            angle = rng.uniform(0, 360)
            body, pip = rng.choice(SCHEMES)
            bg = tuple(rng.randint(20, 230) for _ in range(3))
            if not path.is_file():
                img: Any = np.zeros((w, w, 3), np.uint8) + np.array(bg, np.uint8)
                draw(img, cx, cy, side, face, angle, body, pip, rng.uniform(0.07, 0.12), rng.uniform(0.24, 0.3))
                img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.3, 1.2))
                cv2.imwrite(str(path), img)
            out.append(Sample(path, Square(cx, cy, side * rng.uniform(1.0, 1.35), angle % 90), face))
    return out
