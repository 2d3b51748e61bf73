"""Procedural surface textures (felt, leather, cork, wood) from seeded noise, and die/cube face images."""

from __future__ import annotations

import functools
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.sim.scene import BGR, Material

F32 = npt.NDArray[Any]
U8 = npt.NDArray[Any]


def fbm(h: int, w: int, rng: np.random.Generator, scales: tuple[float, ...], weights: tuple[float, ...]) -> F32:
    """Fractal noise in about [-1, 1]: random grids of several cell sizes (px), upsampled smoothly."""
    out = np.zeros((h, w), np.float32)
    for cell, wt in zip(scales, weights, strict=True):
        gh, gw = max(2, int(h / cell) + 2), max(2, int(w / cell) + 2)
        g = rng.standard_normal((gh, gw)).astype(np.float32)
        up = cv2.resize(g, (w, h), interpolation=cv2.INTER_CUBIC)
        out += wt * up
    return out / max(1e-6, float(sum(weights)))


def material_texture(material: Material, h: int, w: int, ppm: float, base: BGR, rng: np.random.Generator) -> F32:
    """An HxWx3 float32 BGR texture (0..255) of ``material`` with base colour ``base``; ``ppm`` px per mm."""
    b = np.asarray(base, np.float32).reshape(1, 1, 3)
    if material is Material.FELT:
        n = fbm(h, w, rng, (max(1.0, 0.6 * ppm), 6 * ppm, 60 * ppm), (0.5, 0.3, 0.4))
        mod = 1.0 + 0.07 * n
    elif material is Material.LEATHER:
        n = fbm(h, w, rng, (max(1.0, 0.8 * ppm), 4 * ppm, 25 * ppm, 120 * ppm), (0.25, 0.35, 0.3, 0.4))
        mod = 1.0 + 0.09 * n
    elif material is Material.CORK:
        n = fbm(h, w, rng, (max(1.0, 0.7 * ppm), 2.5 * ppm, 40 * ppm), (0.5, 0.6, 0.3))
        speck = (rng.random((h, w)) < 0.02).astype(np.float32)
        speck = np.asarray(cv2.GaussianBlur(speck, (0, 0), max(0.5, 0.6 * ppm)), np.float32)
        mod = 1.0 + 0.16 * n - 1.5 * speck
    else:  # wood: grain along x, warped by low-frequency noise
        warp = fbm(h, w, rng, (40 * ppm, 150 * ppm), (0.6, 0.4))
        yy = np.arange(h, dtype=np.float32).reshape(-1, 1) / max(ppm, 1e-6)
        rings = np.sin((yy + 9.0 * warp) * (2 * np.pi / rng.uniform(3.0, 6.0)))
        fine = fbm(h, w, rng, (max(1.0, 0.5 * ppm), 3 * ppm), (0.4, 0.4))
        mod = 1.0 + 0.10 * rings + 0.05 * fine + 0.06 * warp
    return np.clip(b * mod[..., None], 0, 255).astype(np.float32)


# ---------------------------------------------------------------------- die and cube faces
PIP_LAYOUT: dict[int, tuple[tuple[float, float], ...]] = {
    1: ((0.5, 0.5),),
    2: ((0.25, 0.25), (0.75, 0.75)),
    3: ((0.25, 0.25), (0.5, 0.5), (0.75, 0.75)),
    4: ((0.25, 0.25), (0.75, 0.25), (0.25, 0.75), (0.75, 0.75)),
    5: ((0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)),
    6: ((0.25, 0.22), (0.25, 0.5), (0.25, 0.78), (0.75, 0.22), (0.75, 0.5), (0.75, 0.78)),
}


@functools.lru_cache(maxsize=256)
def die_face(value: int, body: BGR, pip: BGR, px: int = 64) -> U8:
    """A die face (px x px BGR): pips as soft-edged dimples, the 1 slightly larger."""
    img = np.empty((px, px, 3), np.uint8)
    img[:] = body
    scale = 16
    r = (0.105 if value != 1 else 0.14) * px
    for u, v in PIP_LAYOUT[value]:
        c = (round(u * px * scale), round(v * px * scale))
        cv2.circle(img, c, round(r * scale), pip, -1, cv2.LINE_AA, shift=4)
        # a thin darker rim where the dimple starts
        rim = tuple(int(0.75 * a + 0.25 * b) for a, b in zip(body, pip, strict=True))
        cv2.circle(img, c, round(r * scale), rim, max(1, px // 64), cv2.LINE_AA, shift=4)
    return img


@functools.lru_cache(maxsize=64)
def cube_face(value: int, px: int = 96) -> U8:
    """A doubling-cube face: the numeral centred, dark on ivory, "up" toward row 0."""
    img = np.empty((px, px, 3), np.uint8)
    img[:] = (215, 235, 242)
    text = str(value)
    font = cv2.FONT_HERSHEY_DUPLEX
    target = 0.62 * px
    (tw, th), _ = cv2.getTextSize(text, font, 1.0, 2)
    scale = target / max(tw, th * 1.3)
    thick = max(1, round(scale * 2.2))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thick)
    org = ((px - tw) // 2, (px + th) // 2)
    cv2.putText(img, text, org, font, scale, (30, 30, 35), thick, cv2.LINE_AA)
    cv2.rectangle(img, (2, 2), (px - 3, px - 3), (150, 175, 190), max(1, px // 48), cv2.LINE_AA)
    return img
