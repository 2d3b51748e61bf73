"""Hands: is a hand or an arm anywhere in the frame?  A second opinion beside the slot model's "hand".

The slot model (:mod:`vision.checkers`) gives every slot a "hand" probability, and a hand-like slot
leaves its point and the points beside it unread.  On frames with no hand at all it is the largest
loss of whole boards: an empty bar of tan leather, a cork point or a glare looks like skin to a
24-pixel patch.  A hand, though, comes with an arm reaching in from the edge of the picture: a small
whole-frame classifier (``checker_hand.onnx``, trained by ``python -m vision.training.hands``) sees
that on a thumbnail of the whole frame (:func:`thumbnail`, the same function in training and at run
time).  Where it says "no hand" at ``VisionConfig.hand_free_max`` or below, the slot model's "hand"
is not evidence (:func:`vision.checkers.without_hands`); where it says there may be one, every hand
guard stands as before.  The motion gate (skin and motion, :mod:`vision.motion`) still marks covered
regions on its own: this only decides whether the slot model's own "hand" counts.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.preprocess import onnx_session, softmax

THUMB_SIZE = (128, 72)
"""(width, height) of the whole-frame thumbnail the hand model reads (any frame size, squeezed to this)."""
HAND_CLASSES = ("no hand", "hand")
HAND_MODEL = Path(os.environ.get("BGREF_HAND_MODEL") or Path(__file__).resolve().parent / "models" / "checker_hand.onnx")
"""The hand model; ``BGREF_HAND_MODEL`` points at another one (evaluating a candidate)."""


def thumbnail(image: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """(72, 128, 3) BGR uint8: the whole frame sampled down (``cv2.INTER_LINEAR``: 0.03 ms at 720p, where
    averaging costs 0.8) to ``THUMB_SIZE``; an arm is tens of pixels wide even there."""
    out: npt.NDArray[np.uint8] = np.asarray(cv2.resize(image, THUMB_SIZE, interpolation=cv2.INTER_LINEAR), np.uint8)
    return out


class HandClassifier:
    """The whole-frame hand model (ONNX), loaded once: a thumbnail -> P(a hand or arm is in the frame)."""

    def __init__(self, path: Path = HAND_MODEL) -> None:
        self._session = onnx_session(path, "hand model", "python -m vision.training.hands")
        self._input = self._session.get_inputs()[0].name

    def logits(self, thumbs: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        """(N, 2) logits of (N, 72, 128, 3) thumbnails."""
        return np.asarray(self._session.run(None, {self._input: np.ascontiguousarray(thumbs)})[0], np.float32)

    def probability(self, image: npt.NDArray[Any]) -> float:
        """P(a hand or arm is in ``image``), a whole frame of any size."""
        return float(softmax(self.logits(thumbnail(image)[None]).astype(np.float64))[0, 1])


def hand_model_or_none(path: Path = HAND_MODEL) -> HandClassifier | None:
    """The hand model when its file exists (the reader runs without it: every slot "hand" then counts)."""
    return HandClassifier(path) if path.is_file() else None
