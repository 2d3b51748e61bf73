"""Finding dice anywhere in a photo, with no calibration profile (classical candidates).

Candidates are compact, nearly square blobs that stand out from their surroundings in either
polarity (a light die on a dark board or a dark die on a light one), found on a local-contrast image
at a few scales.  The face classifier (with its "not a die" outcome) then decides which are dice.
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.preprocess import Square, U8Array, to_gray


def _blobs(mask: U8Array, min_side: float, max_side: float, scale: float) -> list[Square]:
    out: list[Square] = []
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    for c in contours:
        area = cv2.contourArea(c)
        if area < (min_side * scale) ** 2 * 0.5 or area > (max_side * scale) ** 2 * 1.3:
            continue
        (cx, cy), (w, h), ang = cv2.minAreaRect(c)
        if w < 2 or h < 2:
            continue
        if max(w, h) / min(w, h) > 1.6:
            continue
        if area / (w * h) < 0.6:
            continue
        side = math.sqrt(w * h) / scale
        if not min_side <= side <= max_side:
            continue
        out.append(Square(cx / scale, cy / scale, side, float(ang % 90.0)))
    return out


def find_candidates(image: U8Array, config: VisionConfig | None = None) -> list[Square]:
    """Square die candidates in a photo, in both polarities, before classification."""
    cfg = config or VisionConfig()
    gray = to_gray(image)
    planes = [gray]
    if image.ndim == 3:
        # red and green dice hardly differ from a brown or green board in grey: add the Lab a* plane
        planes.append(cv2.cvtColor(image, cv2.COLOR_BGR2Lab)[:, :, 1])
    h, w = gray.shape
    longer = max(h, w)
    min_side = cfg.find_min_side_frac * longer
    max_side = cfg.find_max_side_frac * longer
    # Work at a resolution where the smallest die is ~8 px across.
    scale = min(1.0, 8.0 / max(min_side, 1.0))
    k = max(3, int(max_side * scale * 2.0) | 1)
    found: list[Square] = []
    ok = max(3, int(min_side * scale * 0.5) | 1)
    pk = max(3, int(min_side * scale * 0.35) | 1)
    close_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (pk, pk))
    open_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (ok, ok))
    for plane, gain in zip(planes, (1, 3), strict=False):
        small = cv2.resize(plane, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA) if scale < 1 else plane
        bg = cv2.blur(small, (k, k)).astype(np.int16)
        diff = (small.astype(np.int16) - bg) * gain
        found.extend(_search(diff, min_side, max_side, scale, close_k, open_k))
    return found


def _search(diff: np.ndarray, min_side: float, max_side: float, scale: float, close_k: U8Array,
            open_k: U8Array) -> list[Square]:
    found: list[Square] = []
    for sign in (1, -1):
        hat = np.clip(diff * sign, 0, 255).astype(np.uint8)
        _ts = _thresholds(hat)
        for thr in _ts:
            mask = (hat >= thr).astype(np.uint8) * 255
            mask = cv2.morphologyEx(mask, cv2.MORPH_CLOSE, close_k)
            found.extend(_blobs(mask, min_side, max_side, scale))
            if thr == max(_ts):  # split touching dice once, at the stricter threshold
                found.extend(_blobs(cv2.morphologyEx(mask, cv2.MORPH_OPEN, open_k), min_side, max_side, scale))
    return found


def _thresholds(hat: U8Array) -> list[float]:
    otsu, _ = cv2.threshold(hat, 0, 255, cv2.THRESH_BINARY | cv2.THRESH_OTSU)
    hist = np.bincount(hat.ravel(), minlength=256).cumsum()
    hi = float(np.searchsorted(hist, 0.995 * hist[-1]))
    ts = {max(12.0, float(otsu)), max(12.0, 0.5 * hi)}
    return sorted(ts)


def nms(squares: list[Square], scores: list[float], iou: float) -> list[int]:
    """Indices kept by non-maximum suppression on the squares' boxes, best first."""
    order = sorted(range(len(squares)), key=lambda i: -scores[i])
    keep: list[int] = []
    for i in order:
        if all(_iou(squares[i].box(), squares[j].box()) < iou for j in keep):
            keep.append(i)
    return keep


def _iou(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> float:
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    ix = max(0, min(ax + aw, bx + bw) - max(ax, bx))
    iy = max(0, min(ay + ah, by + bh) - max(ay, by))
    inter = ix * iy
    union = aw * ah + bw * bh - inter
    return inter / union if union > 0 else 0.0
