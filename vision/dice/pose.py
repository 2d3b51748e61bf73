"""Flat, cocked or on the other die: the top face's geometry in board coordinates.

A flat die's top face is a square of the die's edge, parallel to the board, at height = the die's
edge.  :func:`pose_patch` rectifies the image around a die on horizontal planes of the board at
``POSE_PLANES`` die edges (0, 0.5, 1, 1.5, 2): on z = one edge a flat die's top is a sharp square of known
size in the middle, on z = two edges the top of a die resting on the other die is, on z = 0 the bottom
edge of a flat die's side face toward the camera is; a tilted top face spans heights, so it is
foreshortened, skewed and shifted differently on each plane, and sharp on none.  How far a flat die's
side face reaches out of its top square depends on the line of sight, so the patch carries it too
(:attr:`PosePatch.view`, the tangent of its angle off vertical at the die: the model reads it as a
constant input plane).
Because the rectification is in board millimetres, a flat die looks the same from any camera angle up
to 45 degrees (its visible side faces fall outside the square, on the side facing the camera), while a
cocked die shows a side face where a flat die cannot.  The patch is turned so that the camera is
always on the same side of it.  A small CNN (``vision/models/die_pose.onnx``, trained on rendered dice
by ``python -m vision.training.pose train``: flat in the open, flat against a checker / the rail / the
bar / the other die, leaning on each at 5-45 degrees, on top of the other die) reads the planes: flat /
cocked (leaning) / on top of the other die.  ``vision.dice.board.pose_of`` turns its probabilities
into flat / cocked / unsure with the :class:`vision.dice.config.DiceConfig` thresholds.

Which tilts can a die actually rest at (statics of a cube of edge a on one bottom edge; the recall is
reported by tilt band so that the renders' spread is not mistaken for the game's):
- on a checker's top edge (height h: 8.5 mm tournament, 6 mm small): sin(tilt) = h / L with L <= a, so at
  least asin(h / a): 26.6-37 degrees for 14-19 mm dice on 8.5 mm checkers, 25-30 for the small spec's
  12-14 mm dice on 6 mm checkers (a worn or bevelled edge: a few degrees less).  The generator draws exactly this (25-45 degrees).
- against a wall (the rail, the bar, the other die's side): the raised edge is held by the wall, the foot
  by the surface's friction.  It stands only if tan(tilt) >= (1 - 2 r mu_w) / (1 + 2 r), r = mu / (1 + mu mu_w)
  (mu: die on the surface, mu_w: die on the wall): 28 degrees at mu = mu_w = 0.3, 18 at 0.5, 13 at felt's
  0.8 with 0.4 on the wall; only near-rubber grip (mu ~ 1) holds a die below ~10 degrees.  The generator
  draws walls uniformly from 5 to 45 degrees, so its 5-15 degree wall leans are mostly dice that would
  slide flat on a real board (the low-tilt training renders 30270-30344 even more so).
- on top of the other die: flat on its top face (tilt 0, raised by an edge).

What limits the recall (session 9, seen 901500-901799): the deciding head leans the right way on 93-94 % of
dice tilted 30-45 degrees (P(leaning) + P(on die) > 0.5), but the threshold that keeps flat dice flat sits
above the flat dice's tail (7 % of them above 0.5, four times as often beside the other die), where only
41-53 % of those dice reach: at 10 % of flat dice called cocked the head would still miss 4 % of them.  The
head's separation, not the threshold, the patch's resolution (a 720p die at its native ~20 px per edge) or
the die's unknown true size (errors even over 13-19 mm), is the limit; leaving the renders' 5-15 degree
wall leans (which slide flat on a real board) out of training did not help (``die_pose.train.json``,
"session9").

The committed model has two heads in one file (``python -m vision.training.pose merge``), run once per
frame on one batch: the deciding head (all planes and the view, trained on the die stage's own centres,
which are 1.8 mm off a die's up face at the median and up to 18 mm) makes the calls; the face-check
head (the v2 model, planes 0.5-2 edges) gives the P(flat) that ``vision.dice.faceread.face_needed``
sets a face's limit by: its limits were tuned on that head, which calls a die far from its found
centre not flat, so such a die's face must be surer (the deciding head alone let 3 faces through
wrong on 900040-900579, session 4).

Training and inference share :func:`pose_patch` and :func:`normalise_pose`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.dice.classify import MODEL_DIR
from vision.dice.config import DiceConfig
from vision.preprocess import onnx_session, softmax

DIE_POSE_MODEL = MODEL_DIR / "die_pose.onnx"
POSE_PATCH = 48
"""Side of the pose patch (pixels)."""
POSE_SPAN = 2.4
"""The pose patch covers this many die edges on each plane (the found centre of a cocked die can be
half an edge off its body's)."""
POSE_PLANES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""Heights of the rectified planes, in die edges: a flat die's top is sharp on 1.0, the top of a die
on the other die on 2.0, a flat die's foot on 0.0; a tilted top face crosses the planes between."""
VIEW_SCALE = 1.0
"""The view plane's value is ``VIEW_SCALE`` x tan(line of sight's angle off vertical) (0 to about 1.2)."""
FLAT, COCKED, ON_DIE = 0, 1, 2
_V2_PLANES = 4
MIRROR_BELOW_FLAT = 0.5
"""A die whose patch the deciding head gives P(flat) below this is read again in its mirror image (across
the camera's direction: the same pose; the training's flip) and the two readings' mean decides; a die
called flat (P(flat) >= ``DiceConfig.flat_min_probability``) is read once.  Seen sets 901550-901649:
132 of 456 cocked dice called cocked instead of 108, 0 of 1339 flat (the sum rule at thresholds tuned
each way on the pose renders' validation slice); only such dice cost a second run."""
CENTRE_CHECK_ABOVE = 0.9
"""The centre check (:meth:`PoseClassifier.classify_at`): a die whose deciding head gives P(leaning) +
P(on the other die) at least this (below every cocked threshold of ``DiceConfig``) is read again at
its centre moved ``CENTRE_CHECK_EDGES`` die edges away from the camera."""
CENTRE_CHECK_EDGES = 0.6
"""How far the centre check moves a die's centre away from the camera (die edges): where the top of a
flat die is when the die stage read its side face toward the camera (its found centre 0.8-0.9 edges
toward the camera: 901685_2, 901717_5 of the seen pose renders)."""
CENTRE_CHECK_MIN_UP = 0.1
"""A die the deciding head calls cocked is called so only when its moved reading's P(leaning) + P(on
the other die) is at least this; else it is unsure.  Seen pose renders 901650-901799 (2042 flat, 751
cocked dice found): of the 313 cocked dice at P(up) >= 0.97 the lowest moved reading is 0.184 (then
0.392), of the 10 flat dice at P(up) >= 0.9 one reads 0.034 there (901685_2, a flat 5 whose side face
the die stage read, P(up) 0.9905: called cocked at the committed 0.98514), the others 0.90-0.998
(centred dice the head misreads: the check leaves them)."""
GATE_OUTPUT = "gate_logits"
"""The second output of a two-head pose model: the v2 model's logits (its P(flat) feeds the face check)."""
"""The v2 model read the planes 0.5-2 edges only, without the view plane."""
_COARSE = 6
"""Samples per side of the grid projected through the lens (the rest is interpolated: < 0.05 px off)."""


@functools.lru_cache(maxsize=4)
def _interpolation(n: int, k: int) -> npt.NDArray[np.float64]:
    """(n, k) weights of linear interpolation from k evenly spaced samples to n (same ends)."""
    t = np.linspace(0.0, k - 1.0, n)
    i0 = np.minimum(np.floor(t).astype(int), k - 2)
    f = t - i0
    w = np.zeros((n, k))
    w[np.arange(n), i0] = 1 - f
    w[np.arange(n), i0 + 1] = f
    return w


@dataclass(frozen=True, slots=True)
class PoseGuess:
    """P(flat), P(cocked: leaning), P(on top of the other die) of the model's deciding head, and, from a
    two-head model (:data:`GATE_OUTPUT`), the face-check head's (flat, leaning, on die): None when the
    model has one head."""

    flat: float
    cocked: float
    on_die: float
    gate: tuple[float, float, float] | None = None
    moved_up: float | None = None
    """The centre check's P(leaning) + P(on the other die) at the centre moved away from the camera
    (:meth:`PoseClassifier.classify_at`), None when the die was not checked."""

    @property
    def face_flat(self) -> float:
        """The P(flat) that sets how sure a die's face must be (``vision.dice.faceread.face_needed``,
        whose limits were tuned on the v2 model's P(flat)): the face-check head's when there is one."""
        return self.flat if self.gate is None else self.gate[0]


def pose_call(g: PoseGuess, dcfg: DiceConfig) -> tuple[bool | None, float, bool, float]:
    """(cocked, confidence, on the other die, P(flat) for the face check) from the deciding head's
    probabilities: cocked when
    P(leaning) or P(on the other die) reaches its own threshold (``DiceConfig.leaning_min_probability``,
    ``on_die_call_min_probability``: one outlier of either kind on the tuning slice no longer holds the
    other back), or, when the two are one pooled threshold, their sum reaches it (the pooled rule's own
    test: its threshold is tuned on the flat dice's sum; seen sets 901550-901649: 132 of 456 cocked dice called cocked
    instead of 123, 0 of 1339 flat), flat when P(flat) reaches ``flat_min_probability``, else None
    (unsure).  A die the centre check read again (:attr:`PoseGuess.moved_up`) is called cocked only
    when that reading's P(up) is at least ``CENTRE_CHECK_MIN_UP`` (else unsure: its found centre may be
    off its top).  The fourth value is :attr:`PoseGuess.face_flat` (the face-check head's P(flat) of a
    two-head model)."""
    face_flat = g.face_flat
    up = g.cocked + g.on_die
    if ((g.cocked >= dcfg.leaning_min_probability or g.on_die >= dcfg.on_die_call_min_probability
            or (dcfg.leaning_min_probability == dcfg.on_die_call_min_probability and up >= dcfg.leaning_min_probability))
            and (g.moved_up is None or g.moved_up >= CENTRE_CHECK_MIN_UP)):
        return (True, up, g.on_die >= dcfg.on_die_min_probability, face_flat)
    if g.flat >= dcfg.flat_min_probability:
        return (False, g.flat, False, face_flat)
    return (None, max(g.flat, up), False, face_flat)


def camera_centre(profile: Any) -> npt.NDArray[np.float64]:
    """The camera's optical centre in board millimetres (x, y, z)."""
    R, _ = cv2.Rodrigues(np.asarray(profile.rvec, np.float64))
    c: npt.NDArray[np.float64] = (-R.T @ np.asarray(profile.tvec, np.float64).reshape(3)).astype(np.float64)
    return c


@dataclass(frozen=True, slots=True)
class PosePatch:
    """The pose model's view of one die: ``planes`` ((len(POSE_PLANES), P, P) grey samples, uint8) and
    ``view``, the tangent of the line of sight's angle off vertical at the die's top (0: straight down)."""

    planes: npt.NDArray[np.uint8]
    view: float


def pose_patch(gray: npt.NDArray[Any], profile: Any, center_mm: tuple[float, float], edge_mm: float,
               camera_mm: npt.NDArray[np.float64] | None = None) -> PosePatch:
    """Grey samples of the planes z = ``POSE_PLANES`` die edges around ``center_mm`` (board mm), turned
    so that the camera lies straight "below" the patch (a flat die's visible side faces then always fall
    on the same side of its top square, whatever the camera's position), and the line of sight's slope."""
    return pose_patches(gray, profile, [center_mm], edge_mm, camera_mm)[0]


def pose_patches(gray: npt.NDArray[Any], profile: Any, centres: list[tuple[float, float]], edge_mm: float,
                 camera_mm: npt.NDArray[np.float64] | None = None) -> list[PosePatch]:
    """:func:`pose_patch` of every centre, with one projection and one resampling for all (speed)."""
    if not centres:
        return []
    n, k, m = POSE_PATCH, _COARSE, len(centres)
    span = POSE_SPAN * edge_mm
    half = span / 2 - span / (2 * n)  # the outermost sample centres
    g = np.linspace(-half, half, k)
    cam = camera_centre(profile) if camera_mm is None else camera_mm
    c = np.asarray(centres, np.float64).reshape(m, 2)
    d = cam[None, :2] - c
    norm = np.hypot(d[:, 0], d[:, 1])
    v = np.where(norm[:, None] > 1e-6, d / np.maximum(norm, 1e-6)[:, None], np.array([[0.0, 1.0]]))
    u = np.stack([-v[:, 1], v[:, 0]], axis=1)
    gu, gv = np.meshgrid(g, g)  # (k, k)
    gx = c[:, 0, None, None] + gu[None] * u[:, 0, None, None] + gv[None] * v[:, 0, None, None]  # (m, k, k)
    gy = c[:, 1, None, None] + gu[None] * u[:, 1, None, None] + gv[None] * v[:, 1, None, None]
    planes_n = len(POSE_PLANES)
    z = np.asarray(POSE_PLANES, np.float64) * edge_mm
    pts = np.empty((m, planes_n, k, k, 3))
    pts[..., 0] = gx[:, None]
    pts[..., 1] = gy[:, None]
    pts[..., 2] = z[None, :, None, None]
    # the lens is smooth over a die's span: project a coarse grid, interpolate it to every sample
    coarse = profile.board_to_image(pts.reshape(-1, 3)).reshape(m * planes_n, k, k, 2).transpose(3, 0, 1, 2)
    w = _interpolation(n, k)
    fine = (w @ coarse @ w.T).astype(np.float32)  # (x|y, die x plane, n, n)
    out = cv2.remap(gray, fine[0].reshape(m * planes_n * n, n), fine[1].reshape(m * planes_n * n, n), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REPLICATE)
    planes = np.asarray(out, np.uint8).reshape(m, planes_n, n, n)
    views = norm / np.maximum(1.0, float(cam[2]) - edge_mm)
    return [PosePatch(planes[i], float(views[i])) for i in range(m)]


def normalise_pose(p: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """Each plane centred on its median and scaled by its spread (float32)."""
    x = p.astype(np.float32)
    m = x.shape[1] * x.shape[2]
    ks = (m // 20, m // 2, m - 1 - m // 20)  # the 5th, 50th and 95th percentiles
    if p.dtype == np.uint8:  # the same order statistics from each plane's histogram (several times faster)
        r = len(p)
        counts = np.bincount((p.reshape(r, -1) + (256 * np.arange(r))[:, None]).ravel(), minlength=256 * r)
        below = np.cumsum(counts.reshape(r, 256), axis=1)  # below[i, v]: samples <= v
        lo, med, hi = ((below <= k).sum(axis=1).astype(np.float32) for k in ks)
    else:
        lo, med, hi = np.partition(x.reshape(len(x), -1), ks, axis=1)[:, ks].T
    spread = np.maximum(hi - lo, 16.0)
    out: npt.NDArray[np.float32] = ((x - med[:, None, None]) / spread[:, None, None]).astype(np.float32)
    return out


def pose_input(p: PosePatch) -> npt.NDArray[np.float32]:
    """The model's input for one patch: its planes normalised (:func:`normalise_pose`), then the view
    plane (constant ``VIEW_SCALE`` x ``p.view``); (len(POSE_PLANES) + 1, P, P) float32."""
    out: npt.NDArray[np.float32] = pose_inputs([p])[0]
    return out


def pose_inputs(patches: list[PosePatch]) -> npt.NDArray[np.float32]:
    """:func:`pose_input` of every patch, (n, len(POSE_PLANES) + 1, P, P): one normalisation over the
    batch's planes (the same numbers; a quarter of the time of one patch at a time)."""
    planes = np.stack([p.planes for p in patches])
    n, k, h, w = planes.shape
    out = np.empty((n, k + 1, h, w), np.float32)
    out[:, :k] = normalise_pose(planes.reshape(n * k, h, w)).reshape(n, k, h, w)
    out[:, k] = (VIEW_SCALE * np.array([p.view for p in patches], np.float32))[:, None, None]
    return out


class PoseClassifier:
    """Loads the ONNX pose model once.  One head (output ``logits``: flat / leaning / on die), or two
    (:data:`GATE_OUTPUT` beside it: the v2 model on the planes 0.5-2 edges, whose P(flat) the face
    check's limits were tuned on), both from one run over one batch."""

    def __init__(self, path: Path = DIE_POSE_MODEL) -> None:
        self._session = onnx_session(path)
        inp = self._session.get_inputs()[0]
        self._input = inp.name
        self._planes = int(inp.shape[1])
        outs = [o.name for o in self._session.get_outputs()]
        self._gate = outs.index(GATE_OUTPUT) if GATE_OUTPUT in outs else None
        if self._planes not in (len(POSE_PLANES) + 1, _V2_PLANES):
            raise ValueError(f"pose model {path} reads {inp.shape[1]} planes, not {len(POSE_PLANES) + 1} "
                             "(retrain: python -m vision.training.pose train)")

    @property
    def two_heads(self) -> bool:
        return self._gate is not None

    def classify(self, patches: list[PosePatch]) -> list[PoseGuess]:
        if not patches:
            return []
        if self._planes == _V2_PLANES:  # the v2 model: planes 0.5-2 edges, no view
            x = np.stack([normalise_pose(p.planes[1:]) for p in patches]).astype(np.float32)
        else:
            x = pose_inputs(patches)
        outs = self._session.run(None, {self._input: x})
        p = softmax(np.asarray(outs[0], np.float32))
        again = np.flatnonzero(p[:, FLAT] < MIRROR_BELOW_FLAT) if self._planes != _V2_PLANES else np.zeros(0, int)
        if len(again):  # a die it may call cocked: seen in the mirror too (the same pose), the mean decides
            pm = softmax(np.asarray(self._session.run(None, {self._input: np.ascontiguousarray(x[again, :, :, ::-1])})[0], np.float32))
            p[again] = (p[again] + pm) / 2
        if self._gate is None:
            return [PoseGuess(float(a), float(b), float(c)) for a, b, c in p]
        q = softmax(np.asarray(outs[self._gate], np.float32))
        return [PoseGuess(float(a), float(b), float(c), (float(d), float(e), float(f)))
                for (a, b, c), (d, e, f) in zip(p, q, strict=True)]


    def classify_at(self, gray: npt.NDArray[Any], profile: Any, centres: list[tuple[float, float]],
                    edge_mm: float) -> list[PoseGuess]:
        """:meth:`classify` of the patches at ``centres`` (board mm), with the centre check: each die whose
        P(leaning) + P(on the other die) is at least ``CENTRE_CHECK_ABOVE`` is read again at its centre
        moved ``CENTRE_CHECK_EDGES`` die edges away from the camera (:attr:`PoseGuess.moved_up`; the
        call, :func:`pose_call`).  A flat die whose side face the die stage read has its found centre
        toward the camera, where the patch shows a top face pushed off the middle; its top is read flat
        at the moved centre, a cocked die's stays cocked.  Only such dice cost a second run."""
        if not centres:
            return []
        cam = camera_centre(profile)
        gs = self.classify(pose_patches(gray, profile, centres, edge_mm, cam))
        todo = [i for i, g in enumerate(gs) if g.cocked + g.on_die >= CENTRE_CHECK_ABOVE]
        if not todo:
            return gs
        c = np.asarray([centres[i] for i in todo], np.float64)
        d = cam[None, :2] - c
        v = d / np.maximum(np.hypot(d[:, 0], d[:, 1]), 1e-6)[:, None]
        moved = c - CENTRE_CHECK_EDGES * edge_mm * v
        again = self.classify(pose_patches(gray, profile, [(float(x), float(y)) for x, y in moved], edge_mm, cam))
        out = list(gs)
        for i, m in zip(todo, again, strict=True):
            out[i] = replace(gs[i], moved_up=m.cocked + m.on_die)
        return out


_POSE: PoseClassifier | None = None


def pose_classifier() -> PoseClassifier | None:
    """The process-wide pose model, or None when its file is absent (flat/cocked then unsure)."""
    global _POSE
    if _POSE is None and DIE_POSE_MODEL.is_file():
        _POSE = PoseClassifier()
    return _POSE


def install_pose_model(path: Path) -> PoseClassifier:
    """Make the model at ``path`` the process-wide pose model (evaluating a candidate before it replaces
    ``die_pose.onnx``)."""
    global _POSE
    _POSE = PoseClassifier(path)
    return _POSE
