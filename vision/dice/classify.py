"""The die-face classifier (ONNX, loaded once): 0 = not a die, 1..6 = the face up."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

from vision.config import VisionConfig
from vision.dice.config import DiceConfig
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
    by_turns: bool = False
    """The face stands only because every turn of the check read it (``DiceConfig.top_unanimous_*``):
    its probability is the bar's, not the model's."""

    @property
    def doubt(self) -> float:
        """How far the reading is from a surely read die (P(not a die) - 0.2 P(face)): of several
        readings of one candidate, the lowest is the most die-like."""
        return self.not_die - 0.2 * self.probability


@dataclass(frozen=True, slots=True)
class TopWindows:
    """How an unsure photo square is confirmed on its top face alone (``FaceClassifier.classify``).

    A die seen at an angle fills its square with its top AND one or two side faces whose pips are
    as large as the top's, so the whole square's reading splits between faces (webcam_matteop65
    valid_16: a 3 above a 6 read 3 at 0.58).  Smaller windows (``sides`` of the square's side),
    centred ``shifts`` of the side away from its centre in 8 directions of the square's own frame,
    each hold less of the other faces; one of them showing the SAME face as the whole square at
    ``min_probability`` or more, surely a die (P(not a die) below ``max_notdie``), confirms it.  A
    window can show a side face surely too (valid_67: a 2 at 0.96), which is why it confirms the
    whole square's face and never replaces it.  Only squares read below ``below`` and not rejected
    (P(not a die) below ``max_square_notdie``) are re-read."""

    sides: tuple[float, ...] = ()
    shifts: tuple[float, ...] = ()
    min_probability: float = 0.98
    max_notdie: float = 0.02
    below: float = 0.9
    max_square_notdie: float = 0.3

    @classmethod
    def of(cls, dcfg: DiceConfig, cfg: VisionConfig) -> TopWindows:
        """The photo finder's windows: ``DiceConfig.photo_top_*``, re-reading squares the finder
        would call unsure (``VisionConfig.face_min_confidence``) but not reject
        (``photo_notdie_max_prob``)."""
        return cls(dcfg.photo_top_sides, dcfg.photo_top_shifts, dcfg.photo_top_min_probability,
                   dcfg.photo_top_max_notdie, cfg.face_min_confidence, cfg.photo_notdie_max_prob)

    def centres(self, center: tuple[float, float], side: float, angle: float) -> list[tuple[tuple[float, float], float]]:
        """The windows of the square (centre, side, angle in degrees, cv2's sense): (centre, side)."""
        a = math.radians(angle)
        out = []
        for f in self.sides:
            for d in self.shifts:
                for k in range(8 if d > 0 else 1):
                    t = k * math.pi / 4
                    ux, uy = d * side * math.cos(t), d * side * math.sin(t)
                    x = center[0] + ux * math.cos(a) + uy * math.sin(a)
                    y = center[1] - ux * math.sin(a) + uy * math.cos(a)
                    out.append(((x, y), side * f))
        return out


NO_WINDOWS = TopWindows()
"""No confirmation: a square's reading is its own."""


class FaceClassifier:
    """Loads the ONNX model once; classifies normalised patches in one batch.

    ``windows``: how :meth:`classify` confirms an unsure square on its top face
    (:class:`TopWindows`); by default the photo model (``die_face.onnx``) uses
    ``DiceConfig.photo_top_windows`` and every other model none."""

    def __init__(self, path: Path = DIE_FACE_MODEL, windows: TopWindows | None = None) -> None:
        self.path = path
        self._session = onnx_session(path)
        self._input = self._session.get_inputs()[0].name
        if windows is None:
            windows = TopWindows.of(DiceConfig(), VisionConfig()) if path == DIE_FACE_MODEL else NO_WINDOWS
        self.windows = windows

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
        scales: tuple[float, ...] = (1.0,), windows: TopWindows | None = None,
    ) -> list[FaceGuess]:
        """Classify squares ((cx, cy), side, angle) of a grey image, each cut at its side times every
        one of ``scales`` and the probabilities averaged (a photo's candidate square may cut the
        face's corner pips: ``DiceConfig.photo_read_scales``); a square read unsure is then confirmed
        on its top face by ``windows`` (default: the classifier's own, :class:`TopWindows`)."""
        if not squares:
            return []
        patches = [crop_patch(gray, c, s * k, a) for k in scales for c, s, a in squares]
        probs = self.mean_probabilities(patches, tta=tta).reshape(len(scales), len(squares), -1)
        out = [face_guess(p) for p in probs.mean(axis=0)]
        win = self.windows if windows is None else windows
        if win.sides and win.shifts:
            out = self.confirm_on_top(gray, squares, out, win, tta=tta)
        return out

    def confirm_on_top(self, gray: U8Array, squares: list[tuple[tuple[float, float], float, float]],
                       guesses: list[FaceGuess], win: TopWindows, *, tta: bool = True) -> list[FaceGuess]:
        """``guesses`` of ``squares`` with each unsure one (below ``win.below``, P(not a die) below
        ``win.max_square_notdie``) confirmed by its top-face windows (:class:`TopWindows`): it takes
        the surest window that reads its own face at ``win.min_probability`` with P(not a die) below
        ``win.max_notdie``, keeping its own P(not a die); else it stays as it was."""
        todo = [i for i, g in enumerate(guesses) if g.probability < win.below and g.not_die < win.max_square_notdie]
        if not todo:
            return guesses
        spots = [win.centres(squares[i][0], squares[i][1], squares[i][2]) for i in todo]
        patches = [crop_patch(gray, c, s, squares[i][2]) for i, sp in zip(todo, spots, strict=True) for c, s in sp]
        reads = [face_guess(p) for p in self.mean_probabilities(patches, tta=tta)]
        out = list(guesses)
        n = len(spots[0])
        for j, i in enumerate(todo):
            g = guesses[i]
            ok = [r.probability for r in reads[j * n : (j + 1) * n]
                  if r.face == g.face and r.not_die < win.max_notdie and r.probability >= win.min_probability]
            if ok:
                out[i] = FaceGuess(g.face, max(ok), g.not_die)
        return out


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
    if getattr(given, "path", None) != DIE_FACE_MODEL:
        return None
    if DIE_FACE_TOP_MODEL in _LOADED:  # loaded: no file-system look-up per frame
        return _LOADED[DIE_FACE_TOP_MODEL]
    return _loaded(DIE_FACE_TOP_MODEL) if DIE_FACE_TOP_MODEL.is_file() else None
