"""Stacks: a second, whole-point look at the tall stacks the slot decoder reads.

The slot model (:mod:`vision.checkers`) sees one checker-sized patch per slot; its typical
confident error is a missed or phantom second-layer checker (a 6-stack read as 5 or 7).  The
stack model sees a whole point at once: a strip along the point from the rail to past the last
slot of the first row (:class:`StackSampler`), rectified twice, at the height of a first-layer
checker's top and of a second-layer top (as the slot patches and the tray strips), and gives the
point's colour and count 0..15, or "hand" (``STACK_CLASSES``).

It runs only on the points whose slot decoding says ``VisionConfig.stack_min_count`` checkers or
more (a few per frame), and :func:`combine` joins the two independent readings: the posterior is
the product of the slot decoder's and the stack model's (uniform prior), a point the two models
read differently is unsure, and one they agree on keeps the product's confidence.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import CHECKERS, Side
from vision.config import VisionConfig
from vision.geometry import BoardLayout
from vision.observation import CountReading
from vision.preprocess import fitted_temperature, onnx_session, softmax

_DEFAULTS = VisionConfig()
STACK_LENGTH = 96
"""Strip length (px) along a point, from the rail."""
STACK_WIDTH = 24
"""Strip width (px) across a point."""
STACK_SPAN = 1.3
"""The strip is this many checker diameters wide, and reaches 0.15 diameters beyond the row at each end."""
STACK_CLASSES = ("empty", *(f"white{n}" for n in range(1, CHECKERS + 1)), *(f"black{n}" for n in range(1, CHECKERS + 1)),
                 "hand")
"""Stack-model classes: an empty point, WHITE 1..15, BLACK 1..15, or a hand covering the point."""
STACK_HAND = len(STACK_CLASSES) - 1
CONTRADICTION_SLOT_MIN = 0.05
"""A point whose slots contradict every stack is read by the stack model (:func:`combine`,
``contradiction_min``) only where the slot decoder's own posterior of that count is at least this: the
slots may be confused, but two models that rule each other's count out leave the point unread (on seen
900040-900339 the lowest slot posterior of a right joint count was 0.106: a black 2 on dark-on-dark read
white; on 900340-900579 0.045, with the stack model at 0.90)."""
STACK_MODEL = Path(os.environ.get("BGREF_STACK_MODEL") or Path(__file__).resolve().parent / "models" / "checker_stack.onnx")
"""The stack model; ``BGREF_STACK_MODEL`` points at another one (evaluating a candidate)."""


def stack_class(white: int, black: int) -> int:
    """The class of a point holding ``white`` and ``black`` checkers (one of them 0)."""
    if white and black:
        raise ValueError(f"a point holds one colour, not {white} white and {black} black")
    if white > CHECKERS or black > CHECKERS or white < 0 or black < 0:
        raise ValueError(f"a point holds 0..{CHECKERS} checkers, not {white} white / {black} black")
    return white if white else (CHECKERS + black if black else 0)


def class_counts(k: int) -> tuple[int, int]:
    """(white, black) of stack class ``k`` (not the hand class)."""
    if not 0 <= k < STACK_HAND:
        raise ValueError(f"stack class {k} is no count (0..{STACK_HAND - 1})")
    return (k, 0) if k <= CHECKERS else (0, k - CHECKERS)


class StackSampler:
    """Precomputed remap coordinates of the 24 point strips of one profile.

    Strip ``i`` (point ``i + 1``) is (2 planes, ``STACK_LENGTH``, ``STACK_WIDTH``, BGR): rows run from
    the rail toward the tip, the far side's strips turned by 180 degrees (a rotation, not a mirror),
    so that every stack grows the same way in its strip.  :meth:`strips` cuts only the points asked
    for (one small remap each: the model runs on a few points per frame)."""

    SHAPE = (2, STACK_LENGTH, STACK_WIDTH, 3)

    def __init__(self, profile: Any) -> None:
        layout: BoardLayout = profile.layout
        s = layout.spec
        cap = s.row_capacity
        d = s.checker_diameter_mm
        pts: list[npt.NDArray[np.float64]] = []
        for p in range(1, 25):
            x0, y0, _ = layout.stack_slots(p, 0)
            _, y1, _ = layout.stack_slots(p, cap - 1)
            sy = 1.0 if y1 >= y0 else -1.0
            length = abs(y1 - y0) + d * (1 + 2 * 0.15)
            u = (np.arange(STACK_LENGTH) + 0.5) / STACK_LENGTH * length - (0.5 + 0.15) * d
            v = (np.arange(STACK_WIDTH) + 0.5) / STACK_WIDTH * STACK_SPAN * d - STACK_SPAN * d / 2
            uu, vv = np.meshgrid(u, v, indexing="ij")
            xx = x0 - sy * vv
            yy = y0 + sy * uu
            for layer in (1, 2):
                pts.append(np.stack([xx.ravel(), yy.ravel(), np.full(xx.size, layer * s.checker_height_mm)], axis=1))
        img = profile.board_to_image(np.concatenate(pts)).astype(np.float32)
        # per point: the two planes one above the other, (2 L, W)
        mx = img[:, 0].reshape(24, 2 * STACK_LENGTH, STACK_WIDTH)
        my = img[:, 1].reshape(24, 2 * STACK_LENGTH, STACK_WIDTH)
        self.maps = [cv2.convertMaps(np.ascontiguousarray(mx[i]), np.ascontiguousarray(my[i]), cv2.CV_16SC2)
                     for i in range(24)]

    def strips(self, image: npt.NDArray[Any], points: list[int] | None = None) -> npt.NDArray[np.uint8]:
        """(len(points), 2, L, W, 3) BGR strips of points ``points`` (1..24; None: all 24): the asked
        points' maps side by side, one remap (session 10: one per point before)."""
        ps = list(range(1, 25)) if points is None else points
        if not ps:
            return np.empty((0, *self.SHAPE), np.uint8)
        m1 = np.concatenate([self.maps[p - 1][0] for p in ps], axis=1)
        m2 = np.concatenate([self.maps[p - 1][1] for p in ps], axis=1)
        m = np.asarray(cv2.remap(image, m1, m2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), np.uint8)
        out: npt.NDArray[np.uint8] = np.ascontiguousarray(
            m.reshape(2 * STACK_LENGTH, len(ps), STACK_WIDTH, 3).transpose(1, 0, 2, 3)).reshape(len(ps), *self.SHAPE)
        return out


class StackClassifier:
    """The stack model (ONNX), loaded once: raw strips -> probabilities over ``STACK_CLASSES``, with
    the softmax temperature fitted at training time (``checker_stack.train.json``)."""

    def __init__(self, path: Path = STACK_MODEL) -> None:
        self._session = onnx_session(path, "stack model", "python -m vision.training.stacks train")
        self._input = self._session.get_inputs()[0].name
        self.temperature = fitted_temperature(path)

    def logits(self, strips: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        return np.asarray(self._session.run(None, {self._input: np.ascontiguousarray(strips)})[0], np.float32)

    def probabilities(self, strips: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
        """(len(strips), len(STACK_CLASSES)) probabilities."""
        if len(strips) == 0:
            return np.zeros((0, len(STACK_CLASSES)))
        out: npt.NDArray[np.float64] = softmax(self.logits(strips).astype(np.float64) / self.temperature)
        return out


@functools.lru_cache(maxsize=16)
def hypothesis_classes(hyps: tuple[tuple[Side, int], ...]) -> npt.NDArray[np.intp]:
    """The stack class of each slot-decoder hypothesis ``(colour, count)`` (read-only; cached: the
    decoder's hypotheses are the same few tuples every frame)."""
    out = np.asarray([stack_class(n, 0) if c is Side.WHITE else stack_class(0, n) for c, n in hyps], np.intp)
    out.setflags(write=False)
    return out


def combine(hyps: tuple[tuple[Side, int], ...], post: npt.NDArray[np.float64], q: npt.NDArray[np.float64],
            alone: CountReading, hand_max: float, slot_power: float | None = None,
            disagree_cap: float | None = None, agree_min: float | None = None,
            contradiction_min: float | None = None) -> tuple[CountReading, bool]:
    """One point read by both models.  ``post``: the slot decoder's posterior over ``hyps``;
    ``alone``: the slots' own reading of the point (its confidence with the full-row error weight);
    ``q``: the stack model's probabilities.  The joint posterior is ``post`` (raised to
    ``slot_power``) times the stack model's probabilities of the same counts, renormalised; its best
    count is the reading.  Two looks at the same pixels are not independent, so the product is only
    trusted where the stack model's own best count is that reading, with probability at least
    ``agree_min``: the confidence is then the higher
    of the joint posterior and ``alone``'s (when ``alone`` reads the same); otherwise at most
    ``disagree_cap`` (and at most ``alone``'s when the reading is ``alone``'s).  The stack model's
    "hand" at least ``hand_max`` makes the point unread (confidence 0, and True: hand-like); a point
    ``alone`` does not read (confidence 0: a hand, contradictory slots) stays unread, except with
    ``contradiction_min`` (a point whose slots' best classes contradict every stack, no hand among
    them: a die on the first checker, a glare on it, a dark checker's colour): it is then read where
    the stack model's own best count is the joint one with at least that probability and the slot
    decoder gives it at least ``CONTRADICTION_SLOT_MIN``, at the lower of the joint posterior and the
    stack model's probability (session 11: right on all of them on the seen random scenes, but on
    rendered games it called off-centre blots 2 at 0.99-1.0: ``VisionConfig.stack_contradiction_min``
    is off).  Defaults:
    ``VisionConfig.stack_slot_power``, ``stack_disagree_cap`` and ``stack_agree_min``."""
    from vision.checkers import ALTERNATIVES, _alternatives

    power = _DEFAULTS.stack_slot_power if slot_power is None else slot_power
    cap = _DEFAULTS.stack_disagree_cap if disagree_cap is None else disagree_cap
    agree = _DEFAULTS.stack_agree_min if agree_min is None else agree_min
    cls = hypothesis_classes(hyps)
    joint = np.power(np.maximum(post, 1e-300), power) * q[cls]
    if not joint.sum() > 0.0:
        joint = np.asarray(post, np.float64)
    joint = joint / joint.sum()
    order = np.argsort(-joint)
    best = int(order[0])
    colour, n = hyps[best]
    w, b = (n, 0) if colour is Side.WHITE else (0, n)
    same = (w, b) == (alone.white, alone.black)
    conf = float(joint[best])
    stack_best = int(np.argmax(q[:STACK_HAND]))
    if stack_best == int(cls[best]) and float(q[cls[best]]) >= agree:
        conf = max(conf, alone.confidence) if same else conf
    else:
        conf = min(conf, cap, alone.confidence) if same else min(conf, cap)
    if alone.confidence <= 0.0 and contradiction_min is not None:
        # contradictory slots: only the stack model, sure of the same count, reads the point
        sure = (stack_best == int(cls[best]) and float(q[stack_best]) >= contradiction_min
                and float(post[best]) >= CONTRADICTION_SLOT_MIN)
        conf = min(float(joint[best]), float(q[stack_best])) if sure else 0.0
        alone = CountReading(alone.white, alone.black, conf)
    hand = bool(q[STACK_HAND] >= hand_max)
    if hand or alone.confidence <= 0.0:
        conf = 0.0
    # the other counts share the error the confidence leaves (the totals cross-check weighs them)
    scale = (1.0 - conf) / (1.0 - float(joint[best])) if 0.0 < conf < float(joint[best]) < 1.0 else 1.0
    alts = _alternatives(hyps, joint, scale, order[1 : ALTERNATIVES + 1])
    return CountReading(w, b, conf, alts), hand
