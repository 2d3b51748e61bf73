"""The learned die detector: a tiny fully convolutional net on the board's top view at die height.

On a top view rectified at the plane of a flat die's top (``DiceSearch``: 0.5 px/mm, the board and
a margin), a die is a small square of known size wherever the camera is; the net
(``vision/models/die_detect.onnx``, trained by ``python -m vision.training.faces detector``) scores
every 8 mm cell (stride 4) for "a die's centre is here" and regresses the centre's offset inside
the cell.  Peaks above ``DiceConfig.detect_min_score`` are the candidates the face classifier reads.

Training and inference share :func:`top_view` and :func:`net_input`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice.classify import MODEL_DIR
from vision.dice.topface import top_face_patches
from vision.preprocess import CONTEXT, PATCH, onnx_session

DIE_DETECT_MODEL = MODEL_DIR / "die_detect.onnx"
DIE_CENTRE_MODEL = MODEL_DIR / "die_centre.onnx"
CENTRE_WINDOW = 1.75
"""Side of the centre model's window in face-patch sides (``edge * CONTEXT``): 32 mm for a 16 mm die,
so a die whose centre is up to ~8 mm off the candidate's still lies wholly inside it."""
STRIDE = 4
"""Output cell of the net, in top-view pixels (8 mm at 0.5 px/mm)."""


@dataclass(frozen=True, slots=True)
class Peak:
    """A detected die centre in top-view pixels (sub-pixel) and its score (0..1)."""

    u: float
    v: float
    score: float


def top_view(image: npt.NDArray[Any], map_x: npt.NDArray[Any], map_y: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """The BGR top view of the board on the plane of a die's top (remap maps of ``DiceSearch``:
    float x and y, or the fixed-point pair ``DiceSearch.fixed_maps``)."""
    src: Any = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR) if image.ndim == 2 else image
    out: Any = cv2.remap(src, map_x, map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    top: npt.NDArray[np.uint8] = out
    return top


def net_input(top: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """(H, W, 3) uint8 -> (1, 3, H', W') float32 with H', W' multiples of STRIDE; each channel
    centred on its median (of every 4th pixel in x and y) and scaled (exposure and white balance
    drop out)."""
    h, w = top.shape[:2]
    h2, w2 = h - h % STRIDE, w - w % STRIDE
    med = channel_medians(np.ascontiguousarray(top[:h2:4, :w2:4]).reshape(-1, 3))
    x = np.empty((1, 3, h2, w2), np.float32)
    for c in range(3):
        np.subtract(top[:h2, :w2, c], med[c], out=x[0, c], dtype=np.float32)
    x *= np.float32(1 / 64)
    return x


def channel_medians(pixels: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """``np.median(pixels, axis=0)`` of (N, C) uint8 pixels from each channel's histogram (the mean
    of the two middle values when N is even), without sorting.

    >>> p = np.array([[1, 9], [3, 9], [2, 7], [250, 8]], np.uint8)
    >>> channel_medians(p).tolist(), np.median(p, axis=0).tolist()
    ([2.5, 8.5], [2.5, 8.5])
    """
    n = len(pixels)
    out = np.zeros(pixels.shape[1], np.float32)
    if n == 0:
        return out
    for c in range(pixels.shape[1]):
        cum = np.cumsum(np.bincount(pixels[:, c], minlength=256))
        lo = int(np.searchsorted(cum, (n - 1) // 2 + 1))
        hi = int(np.searchsorted(cum, n // 2 + 1))
        out[c] = (lo + hi) / 2
    return out


_DV, _DU = np.mgrid[0:3, 0:3]
"""Row and column offsets of the 3 x 3 cells around a peak, in a map padded by one cell."""


class DieDetector:
    """Loads the ONNX detector once; returns peaks on a top view."""

    def __init__(self, path: Path = DIE_DETECT_MODEL) -> None:
        self._session = onnx_session(path)
        self._input = self._session.get_inputs()[0].name

    def heat(self, top: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        """(3, H/4, W/4): die-centre score (0..1) and the centre's offset (dx, dy) in cells."""
        out = np.asarray(self._session.run(None, {self._input: net_input(top)})[0], np.float32)[0]
        out[0] = 1.0 / (1.0 + np.exp(-out[0]))
        heat: npt.NDArray[np.float32] = out
        return heat

    def peaks(self, top: npt.NDArray[np.uint8], min_score: float, max_peaks: int, *, centroid: bool = False) -> list[Peak]:
        """Local maxima (3x3 cells) of the score above ``min_score``, best first.  The centre is the
        peak cell's regressed centre, or with ``centroid`` the score-weighted mean of the regressed
        centres of the 3x3 cells around it (tuning seeds 901000-901159, 303 peaks on dice: median
        error 2.12 -> 2.05 mm, peaks more than 5 mm off 33 -> 27)."""
        return self.peaks_in(self.heat(top), min_score, max_peaks, centroid=centroid)

    def peaks_in(self, h: npt.NDArray[np.float32], min_score: float, max_peaks: int, *, centroid: bool = False) -> list[Peak]:
        """:meth:`peaks` of a heat map :meth:`heat` gave."""
        s = h[0]
        mx = cv2.dilate(s, np.ones((3, 3), np.uint8))
        vs, us = np.nonzero((s >= mx) & (s >= min_score))
        order = np.argsort(-s[vs, us])[:max_peaks]
        vs, us = vs[order], us[order]
        score = s[vs, us]
        if centroid:  # the 3x3 cells around each peak (cells off the map weigh 0)
            vv, uu = vs[:, None, None] + _DV[None], us[:, None, None] + _DU[None]  # padded-map indices
            inside = (vv >= 1) & (vv <= s.shape[0]) & (uu >= 1) & (uu <= s.shape[1])
            vi, ui = np.clip(vv - 1, 0, s.shape[0] - 1), np.clip(uu - 1, 0, s.shape[1] - 1)
            w = np.where(inside, s[vi, ui], np.float32(0))
            ox = np.where(inside, np.clip(h[1][vi, ui], -1, 1), np.float32(0))
            oy = np.where(inside, np.clip(h[2][vi, ui], -1, 1), np.float32(0))
            wsum = w.sum(axis=(1, 2))
            cu = ((uu - 0.5 + ox) * w).sum(axis=(1, 2)) / wsum
            cv = ((vv - 0.5 + oy) * w).sum(axis=(1, 2)) / wsum
        else:
            return [Peak(*cell_centre(h, int(v), int(u)), float(c)) for v, u, c in zip(vs, us, score, strict=True)]
        return [Peak(float(a) * STRIDE - 0.5, float(b) * STRIDE - 0.5, float(c)) for a, b, c in zip(cu, cv, score, strict=True)]


def cell_centre(h: npt.NDArray[np.float32], v: int, u: int) -> tuple[float, float]:
    """The regressed centre (top-view px) of cell (``v``, ``u``) of a heat map :meth:`DieDetector.heat` gave."""
    return ((u + 0.5 + float(np.clip(h[1, v, u], -1, 1))) * STRIDE - 0.5,
            (v + 0.5 + float(np.clip(h[2, v, u], -1, 1))) * STRIDE - 0.5)


def centre_window_mm(edge: float) -> float:
    """Side (board mm) of the centre model's window around a candidate."""
    return edge * CONTEXT * CENTRE_WINDOW


def centre_windows(gray: npt.NDArray[np.uint8], profile: Any, centres: npt.NDArray[Any], z: float) -> npt.NDArray[np.float32]:
    """(N, 1, PATCH, PATCH) inputs of the centre model: the board square of side
    :func:`centre_window_mm` around each candidate (board mm) on the plane of a flat die's top
    (``z`` = the die's edge), board x along the columns and y along the rows, each centred on its
    median and scaled by its 10-90 % spread.  Training and inference cut windows here."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    if not len(c):
        return np.zeros((0, 1, PATCH, PATCH), np.float32)
    raw = np.stack(top_face_patches(gray, profile, c, z, z, scales=np.full(len(c), CENTRE_WINDOW))).astype(np.float32)
    lo, med, hi = _percentiles(raw.reshape(len(c), -1), (10, 50, 90))
    x = (raw - med[:, None, None]) / np.maximum(hi - lo, 8.0)[:, None, None]
    out: npt.NDArray[np.float32] = np.clip(x, -3, 3).astype(np.float32)[:, None]
    return out


def _percentiles(a: npt.NDArray[np.float32], qs: tuple[float, ...]) -> list[npt.NDArray[np.float64]]:
    """Row-wise ``np.percentile(a, q, axis=1)`` (linear) for each q, from one partial sort."""
    n = a.shape[1]
    at = [(int(q / 100 * (n - 1)), q / 100 * (n - 1) % 1) for q in qs]
    kth = sorted({k for i, _ in at for k in (i, min(i + 1, n - 1))})
    part = np.partition(a, kth, axis=1)
    return [part[:, i] + f * (part[:, min(i + 1, n - 1)] - part[:, i]) for i, f in at]


class CentreRefiner:
    """Loads the ONNX centre model once: the offset (board mm) from a candidate to the centre of the
    die in its window (``vision/models/die_centre.onnx``, trained by
    ``python -m vision.training.detector_centre``)."""

    def __init__(self, path: Path = DIE_CENTRE_MODEL) -> None:
        self._session = onnx_session(path, "die centre model", "python -m vision.training.detector_centre")
        self._input = self._session.get_inputs()[0].name

    def offsets(self, gray: npt.NDArray[np.uint8], profile: Any, centres: npt.NDArray[Any], z: float) -> npt.NDArray[np.float64]:
        """(N, 2) board-mm offsets from ``centres`` to the die centres the model sees."""
        x = centre_windows(gray, profile, centres, z)
        if not len(x):
            return np.zeros((0, 2))
        out = np.asarray(self._session.run(None, {self._input: x})[0], np.float64)
        d: npt.NDArray[np.float64] = out[:, :2] * centre_window_mm(z) / 2
        return d


_CENTRE: CentreRefiner | None = None


def centre_refiner() -> CentreRefiner | None:
    """The process-wide centre model, or None when its file is absent."""
    global _CENTRE
    if _CENTRE is None and DIE_CENTRE_MODEL.is_file():
        _CENTRE = CentreRefiner()
    return _CENTRE


_DETECTOR: DieDetector | None = None


def detector() -> DieDetector:
    """The process-wide detector (the model is loaded once)."""
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = DieDetector()
    return _DETECTOR
