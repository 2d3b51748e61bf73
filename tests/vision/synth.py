"""Small synthetic images for vision tests (drawn, seeded; no renderer, no torch)."""

from __future__ import annotations

import cv2
import numpy as np

from vision.checkers import SLOT_CLASSES
from vision.training.synthetic import draw


def draw_die(img: np.ndarray, cx: float, cy: float, side: float, face: int, angle: float = 0.0,
             body: tuple[int, int, int] = (235, 235, 235), pip: tuple[int, int, int] = (20, 20, 20)) -> None:
    """A die seen from above: a rounded square with pips, rotated by ``angle`` degrees.

    The same drawing as the face model's synthetic training dice, with fixed pip size and spread.
    """
    draw(img, cx, cy, side, face, angle, body, pip, pip_r=0.09, spread=0.27)


def table(w: int = 640, h: int = 480, seed: int = 0, colour: tuple[int, int, int] = (120, 150, 170)) -> np.ndarray:
    """A plain table top with a little texture and noise."""
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w, 3), np.float32) + np.array(colour, np.float32)
    img += cv2.GaussianBlur(rng.normal(0, 12, (h, w, 1)).astype(np.float32), (0, 0), 6)[..., None]
    img += rng.normal(0, 2, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)


def slot_onehot(labels: list[int], p: float) -> np.ndarray:
    """Slot-model output that reads each slot as its label at probability ``p`` (the rest spread evenly)."""
    n = len(SLOT_CLASSES)
    out = np.full((len(labels), n), (1 - p) / (n - 1), np.float32)
    out[np.arange(len(labels)), labels] = p
    return out
