"""Crop and normalise code shared by training and inference, so the two cannot drift.

A die (or cube) candidate is a square in an image: centre, side and rotation.  ``crop_patch``
cuts it out (a little larger than the face) and resamples it to ``PATCH`` x ``PATCH`` grey pixels;
``normalise_patch`` fixes polarity (pips always darker than the face, so white-pipped red dice read
like black-pipped white dice), stretches contrast and returns float32 in about [-1, 1].

>>> import numpy as np
>>> img = np.full((100, 100), 200, np.uint8); img[45:55, 45:55] = 20
>>> x = normalise_patch(crop_patch(img, (50.0, 50.0), 40.0))
>>> x.shape, x.dtype, float(x[PATCH // 2, PATCH // 2]) < 0 < float(x[2, 2])
((32, 32), dtype('float32'), True)
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

PATCH = 32
"""Side of the classifier's input patch, in pixels."""
CONTEXT = 1.15
"""The patch covers the candidate's side times this (a margin around the face)."""

class ModelError(ValueError):
    """A model file that is missing or cannot be loaded."""


def onnx_session(path: Path, what: str = "model file", train: str = "python -m vision.training") -> Any:
    """One single-threaded onnxruntime session for a committed model (the live loop shares 2 cores);
    a missing or unloadable file is a :class:`ModelError` naming it and the command that trains it."""
    import onnxruntime as ort

    if not path.is_file():
        raise ModelError(f"{what} {str(path)!r} not found (train it with `{train}`)")
    opts = ort.SessionOptions()
    opts.intra_op_num_threads = 1
    opts.inter_op_num_threads = 1
    opts.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])
    except Exception as exc:  # onnxruntime's own error types (a corrupt or truncated file, another format)
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"{what} {str(path)!r} cannot be loaded ({why}); train it again with `{train}`") from None


def softmax(logits: npt.NDArray[Any]) -> npt.NDArray[Any]:
    """Row-wise softmax of (N, C) logits, in their own dtype (each row's maximum subtracted first)."""
    e = np.exp(logits - logits.max(axis=1, keepdims=True))
    return np.asarray(e / e.sum(axis=1, keepdims=True), logits.dtype)


def fitted_temperature(model: Path) -> float:
    """The softmax temperature fitted when ``model`` was trained (``temperature`` in its
    ``<model>.train.json``); 1.0 when it records none."""
    rec = model.with_suffix(".train.json")
    t = json.loads(rec.read_text()).get("temperature") if rec.is_file() else None
    return float(t) if isinstance(t, (int, float)) else 1.0


FloatArray = npt.NDArray[np.float32]
U8Array = npt.NDArray[Any]
"""uint8 images (typed loosely: OpenCV's stubs return generic arrays)."""


@dataclass(frozen=True, slots=True)
class Square:
    """A square candidate in an image: centre (x, y), side and rotation (degrees), in pixels."""

    cx: float
    cy: float
    side: float
    angle: float = 0.0

    def box(self) -> tuple[int, int, int, int]:
        """Axis-aligned (x, y, w, h) enclosing the rotated square."""
        r = self.side * (abs(math.cos(math.radians(self.angle))) + abs(math.sin(math.radians(self.angle)))) / 2
        x0, y0 = round(self.cx - r), round(self.cy - r)
        s = round(2 * r)
        return (x0, y0, s, s)


def to_gray(image: U8Array) -> U8Array:
    """BGR or grey uint8 image -> grey uint8."""
    if image.ndim == 3:
        return cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    return image


def crop_patch(
    gray: U8Array, center: tuple[float, float], side: float, angle: float = 0.0, *, context: float = CONTEXT
) -> U8Array:
    """Resample the square (centre, side*context, rotated by ``angle`` degrees) to PATCH x PATCH."""
    span = max(side * context, 2.0)
    scale = PATCH / span
    m = cv2.getRotationMatrix2D((float(center[0]), float(center[1])), float(angle), scale)
    m[0, 2] += PATCH / 2 - center[0]
    m[1, 2] += PATCH / 2 - center[1]
    interp = cv2.INTER_AREA if scale < 1 else cv2.INTER_LINEAR
    return cv2.warpAffine(gray, m, (PATCH, PATCH), flags=interp, borderMode=cv2.BORDER_REPLICATE)


def pips_are_light(patch: U8Array) -> bool:
    """True when the minority extreme of the central area is brighter than the face (light pips)."""
    c = patch[PATCH // 6 : PATCH - PATCH // 6, PATCH // 6 : PATCH - PATCH // 6]
    lo, med, hi = np.percentile(c, (3, 50, 97))
    return bool((hi - med) > (med - lo))


def normalise_patch(patch: U8Array) -> FloatArray:
    """Polarity-normalised, contrast-stretched float32 patch (pips dark, face light)."""
    p = patch.astype(np.float32)
    if pips_are_light(patch):
        p = 255.0 - p
    lo, hi = np.percentile(p, (2, 98))
    p = (p - lo) / max(float(hi - lo), 8.0)
    out: FloatArray = np.clip(p * 2.0 - 1.0, -1.5, 1.5).astype(np.float32)
    return out


def normalise_patches(patches: list[U8Array]) -> FloatArray:
    """:func:`normalise_patch` of many patches at once, as an (N, 1, PATCH, PATCH) model input
    (the same numbers, computed with one percentile call per statistic instead of per patch)."""
    if not patches:
        return np.zeros((0, 1, PATCH, PATCH), np.float32)
    raw = np.stack(patches)
    n = len(raw)
    k = PATCH // 6
    c = raw[:, k : PATCH - k, k : PATCH - k].reshape(n, -1)
    lo, med, hi = np.percentile(c, (3, 50, 97), axis=1)
    light = (hi - med) > (med - lo)
    p = raw.astype(np.float32)
    p[light] = 255.0 - p[light]
    lo2, hi2 = np.percentile(p.reshape(n, -1), (2, 98), axis=1)
    scale = np.maximum(hi2 - lo2, 8.0).astype(np.float32)
    p = (p - lo2.astype(np.float32)[:, None, None]) / scale[:, None, None]
    out: FloatArray = np.clip(p * 2.0 - 1.0, -1.5, 1.5).astype(np.float32)[:, None]
    return out


def batch(patches: list[FloatArray]) -> FloatArray:
    """Stack normalised patches as an (N, 1, PATCH, PATCH) model input."""
    if not patches:
        return np.zeros((0, 1, PATCH, PATCH), np.float32)
    return np.stack(patches)[:, None, :, :].astype(np.float32)
