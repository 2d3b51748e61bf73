"""The die-face classifier (ONNX, loaded once): 0 = not a die, 1..6 = the face up."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.dice.topface import normalise_fast
from vision.preprocess import FloatArray, U8Array, crop_patch, onnx_session, softmax
from vision.preprocess import ModelError as ModelError  # re-exported: callers catch it from here

MODEL_DIR = Path(__file__).resolve().parent.parent / "models"
DIE_FACE_MODEL = MODEL_DIR / "die_face.onnx"
DIE_FACE_BOARD_MODEL = MODEL_DIR / "die_face_board.onnx"
"""The face model for dice on a calibrated board: trained on the board search's own candidate crops
of rendered dice (``die_face.onnx`` stays the model of the profile-free photo finder)."""
DIE_FACE_TOP_MODEL = MODEL_DIR / "die_face_top.onnx"
"""The face model of dice on a calibrated board read on their rectified up face
(:mod:`vision.dice.topface`); when present, ``read_dice`` reads with it."""


ALL_VIEWS = (0, 1, 2, 3, 4, 5, 6, 7)
"""A patch's 8 orientations: k < 4 is turned k quarters, k >= 4 is turned k - 4 quarters, then
mirrored left-right."""


@dataclass(frozen=True, slots=True)
class FaceGuess:
    """The classifier's answer for one patch: the best face, its probability, P(not a die)."""

    face: int
    probability: float
    not_die: float

    @property
    def doubt(self) -> float:
        """How far the reading is from a surely read die (P(not a die) - 0.2 P(face)): of several
        readings of one candidate, the lowest is the most die-like."""
        return self.not_die - 0.2 * self.probability


class FaceClassifier:
    """Loads the ONNX model once; classifies normalised patches in one batch."""

    def __init__(self, path: Path = DIE_FACE_MODEL) -> None:
        self.path = path
        self._session = onnx_session(path)
        self._input = self._session.get_inputs()[0].name

    def probabilities(self, x: FloatArray) -> npt.NDArray[np.float32]:
        """(N, 1, P, P) -> (N, 7) softmax probabilities."""
        if len(x) == 0:
            return np.zeros((0, 7), np.float32)
        out: npt.NDArray[np.float32] = softmax(np.asarray(self._session.run(None, {self._input: x})[0], np.float32))
        return out

    def classify_patches(self, patches: list[U8Array], *, tta: bool = True,
                         views: tuple[int, ...] = ALL_VIEWS) -> list[FaceGuess]:
        """Classify patches (normalised as :func:`vision.preprocess.normalise_patches`, by its faster
        twin :func:`vision.dice.topface.normalise_fast`); with ``tta`` each is read in its orientations
        ``views`` (of :data:`ALL_VIEWS`: a face's pip pattern is the same face turned or mirrored) and
        the probabilities averaged (calibrated, fewer unsure)."""
        return [face_guess(p) for p in self.mean_probabilities(patches, tta=tta, views=views)]

    def mean_probabilities(self, patches: list[U8Array], *, tta: bool = True,
                           views: tuple[int, ...] = ALL_VIEWS) -> npt.NDArray[np.float32]:
        """(N, 7): each patch's probabilities, with ``tta`` the mean over its ``views``."""
        if not tta:
            return self.probabilities(normalise_fast(patches))
        out: npt.NDArray[np.float32] = self.view_probabilities(patches, views).mean(axis=0)
        return out

    def view_probabilities(self, patches: list[U8Array], views: tuple[int, ...] = ALL_VIEWS) -> npt.NDArray[np.float32]:
        """(len(views), N, 7): each patch's probabilities in each of its orientations ``views``, from
        one model run."""
        return self.read_both([], patches, views)[1]

    def read_both(self, plain: list[U8Array], turned: list[U8Array],
                  views: tuple[int, ...]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """((N1, 7), (len(views), N2, 7)): the probabilities of the ``plain`` patches as they are and
        of the ``turned`` ones in each of their ``views``, from one model run (two reads of one frame
        that do not depend on each other: one run's fixed cost instead of two)."""
        x = normalise_fast(turned)
        turns = [np.rot90(x, k % 4, axes=(2, 3)) for k in views]
        views_ = [v[:, :, :, ::-1] if k >= 4 else v for k, v in zip(views, turns, strict=True)]
        probs = self.probabilities(np.ascontiguousarray(np.concatenate([normalise_fast(plain), *views_])))
        n = len(plain)
        out: npt.NDArray[np.float32] = probs[n:].reshape(len(views), len(x), 7)
        return probs[:n], out

    def classify(
        self, gray: U8Array, squares: list[tuple[tuple[float, float], float, float]], *, tta: bool = True,
        scales: tuple[float, ...] = (1.0,),
    ) -> list[FaceGuess]:
        """Classify squares ((cx, cy), side, angle) of a grey image, each cut at its side times every
        one of ``scales`` and the probabilities averaged (a photo's candidate square may cut the
        face's corner pips: ``DiceConfig.photo_read_scales``)."""
        if not squares:
            return []
        patches = [crop_patch(gray, c, s * k, a) for k in scales for c, s, a in squares]
        probs = self.mean_probabilities(patches, tta=tta).reshape(len(scales), len(squares), -1)
        return [face_guess(p) for p in probs.mean(axis=0)]


def face_guess(p: npt.NDArray[np.float32]) -> FaceGuess:
    """The reading of one (7,) probability vector (P(not a die), P(1)..P(6))."""
    faces = p[1:]
    k = int(faces.argmax())
    total = float(faces.sum())
    return FaceGuess(k + 1, float(faces[k] / total) if total > 0 else 0.0, float(p[0]))


_LOADED: dict[Path, FaceClassifier] = {}


def _loaded(path: Path) -> FaceClassifier:
    """The board face models, each loaded once."""
    if path not in _LOADED:
        _LOADED[path] = FaceClassifier(path)
    return _LOADED[path]


def board_classifier(given: FaceClassifier) -> FaceClassifier:
    """The classifier ``read_dice`` uses: the board face model (loaded once) when the caller passed
    the default photo model and the board model exists; otherwise the caller's own classifier."""
    if getattr(given, "path", None) != DIE_FACE_MODEL or not DIE_FACE_BOARD_MODEL.is_file():
        return given
    return _loaded(DIE_FACE_BOARD_MODEL)


def top_classifier(given: FaceClassifier) -> FaceClassifier | None:
    """The rectified up-face model (loaded once) when the caller passed the default photo model and
    the model exists; None otherwise (``read_dice`` then reads image squares with
    :func:`board_classifier`)."""
    if getattr(given, "path", None) != DIE_FACE_MODEL or not DIE_FACE_TOP_MODEL.is_file():
        return None
    return _loaded(DIE_FACE_TOP_MODEL)
