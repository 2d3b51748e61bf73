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
from vision.preprocess import onnx_session

DIE_DETECT_MODEL = MODEL_DIR / "die_detect.onnx"
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
    centred on its median and scaled (exposure and white balance drop out)."""
    h, w = top.shape[:2]
    h2, w2 = h - h % STRIDE, w - w % STRIDE
    med = np.median(top[:h2:4, :w2:4].reshape(-1, 3), axis=0).astype(np.float32)
    x = np.empty((1, 3, h2, w2), np.float32)
    for c in range(3):
        np.subtract(top[:h2, :w2, c], med[c], out=x[0, c], dtype=np.float32)
    x *= np.float32(1 / 64)
    return x


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
        h = self.heat(top)
        s = h[0]
        mx = cv2.dilate(s, np.ones((3, 3), np.uint8))
        vs, us = np.nonzero((s >= mx) & (s >= min_score))
        order = np.argsort(-s[vs, us])[:max_peaks]
        off = np.clip(h[1:3], -1, 1)
        out = []
        for i in order:
            v, u = int(vs[i]), int(us[i])
            if centroid:
                v0, v1, u0, u1 = max(0, v - 1), min(s.shape[0], v + 2), max(0, u - 1), min(s.shape[1], u + 2)
                w = s[v0:v1, u0:u1]
                vv, uu = np.mgrid[v0:v1, u0:u1]
                cu = float(((uu + 0.5 + off[0, v0:v1, u0:u1]) * w).sum() / w.sum())
                cv = float(((vv + 0.5 + off[1, v0:v1, u0:u1]) * w).sum() / w.sum())
            else:
                cu, cv = u + 0.5 + float(off[0, v, u]), v + 0.5 + float(off[1, v, u])
            out.append(Peak(cu * STRIDE - 0.5, cv * STRIDE - 0.5, float(s[v, u])))
        return out


_DETECTOR: DieDetector | None = None


def detector() -> DieDetector:
    """The process-wide detector (the model is loaded once)."""
    global _DETECTOR
    if _DETECTOR is None:
        _DETECTOR = DieDetector()
    return _DETECTOR
