"""Small synthetic images for vision tests (drawn, seeded; no renderer, no torch)."""

from __future__ import annotations

import cv2
import numpy as np

PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def draw_die(img: np.ndarray, cx: float, cy: float, side: float, face: int, angle: float = 0.0,
             body: tuple[int, int, int] = (235, 235, 235), pip: tuple[int, int, int] = (20, 20, 20)) -> None:
    """A die seen from above: a rounded square with pips, rotated by ``angle`` degrees."""
    a = np.radians(angle)
    rot = np.array([[np.cos(a), -np.sin(a)], [np.sin(a), np.cos(a)]])
    h = side / 2
    corners = np.array([[-h, -h], [h, -h], [h, h], [-h, h]]) @ rot.T + (cx, cy)
    cv2.fillConvexPoly(img, np.round(corners * 16).astype(np.int32), body, cv2.LINE_AA, 4)
    for u, v in PIPS[face]:
        p = np.array([u, v]) * side * 0.27 @ rot.T + (cx, cy)
        cv2.circle(img, (round(p[0] * 16), round(p[1] * 16)), int(side * 0.09 * 16), pip, -1, cv2.LINE_AA, 4)


def table(w: int = 640, h: int = 480, seed: int = 0, colour: tuple[int, int, int] = (120, 150, 170)) -> np.ndarray:
    """A plain table top with a little texture and noise."""
    rng = np.random.default_rng(seed)
    img = np.zeros((h, w, 3), np.float32) + np.array(colour, np.float32)
    img += cv2.GaussianBlur(rng.normal(0, 12, (h, w, 1)).astype(np.float32), (0, 0), 6)[..., None]
    img += rng.normal(0, 2, (h, w, 3))
    return np.clip(img, 0, 255).astype(np.uint8)
