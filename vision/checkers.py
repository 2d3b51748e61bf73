"""Checkers: how many of each colour on every point and on the bar, from slot patches.

Players stack checkers in rows from the rail (``BoardLayout.stack_slots``): slot k of a point holds
checker k, k + cap, k + 2 cap, ... (one layer per row filled).  For every slot the
:class:`SlotSampler` cuts a small top-view patch of the board twice: rectified at the height of a
first-layer checker's top and at the height of a second-layer top.  In an oblique view a taller
stack lines up in the second patch and a single checker does not (parallax), which is what lets the
slot classifier (ONNX, ``checker_slot.onnx``) tell 1, 2 or 3 layers apart.  Its classes are
``SLOT_CLASSES``: "object" means a die, the cube or a cup lies on the slot (the checker classes are
then read without it), "hand" that a hand covers it (never read).

All patch coordinates are precomputed per profile, so a frame costs one ``cv2.remap`` call and one
batched model run.  Borne-off checkers are derived (15 minus what is on the board and bar) with the
weakest confidence of the rest, because upright checkers packed in a tray cannot be counted from
above reliably.
"""

from __future__ import annotations

import functools
import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import CHECKERS, Side
from vision.config import VisionConfig
from vision.geometry import BoardLayout, LongSide
from vision.observation import CountReading
from vision.preprocess import fitted_temperature, onnx_session, softmax

SLOT_PATCH = 24
"""Side of one slot patch in pixels."""
SLOT_SPAN = 1.3
"""A slot patch covers this many checker diameters."""
SLOT_CLASSES = ("empty", "white1", "white2", "white3", "black1", "black2", "black3", "object", "hand")
OBJECT = 7
"""A die, the cube or a cup lies on the slot: read what is under/around it from the other classes."""
HAND = 8
"""A hand or arm covers the slot: it is not read."""
OTHER = HAND
_DEFAULTS = VisionConfig()
HOME_SIZE = 6
TRAY_DOUBT = 0.5
"""Confidence cap of a derived tray count (or of the regions holding a colour) that the board's
totals contradict: more than 15 of a colour, or borne-off checkers beside checkers outside home."""
FULL_ROW_FLOOR = 1e-4
"""The full-row error weight leaves a tall stack's confidence at least this (not 0, which means "do
not read": a hand or contradictory slots), so that ``totals_cross_check`` can still confirm it."""
GAP_PRIOR = 0.1
"""Prior weight (against 1 for a stack packed from the rail) of a point's first-row checkers with a gap
(:func:`gap_patterns`): in a played game the hitter's checker rests in the second position with the
rail-end position empty until another checker arrives (session 12: about half of a rendered game's still
frames hold such a point, read unsure or as two before)."""
ALTERNATIVES = 3
"""At most this many other readings per region in ``CountReading.alternatives``..."""
ALTERNATIVE_MIN = 1e-3
"""...each with at least this probability (the decoder's posterior)."""
MODEL_DIR = Path(__file__).resolve().parent / "models"
SLOT_MODEL = Path(os.environ.get("BGREF_SLOT_MODEL") or MODEL_DIR / "checker_slot.onnx")
"""The slot model; ``BGREF_SLOT_MODEL`` points at another one (evaluating a candidate before committing it)."""


@dataclass(frozen=True, slots=True)
class Slot:
    """One stack position: region ("p1".."p24" or "bar"), index in the row, owner side for bar
    slots, and the centre of the first checker's bottom (board mm)."""

    region: str
    index: int
    side: Side | None
    x: float
    y: float
    z: float


def slot_session(path: Path = SLOT_MODEL) -> Any:
    """A single-threaded onnxruntime session for a slot model (the live loop shares 2 cores)."""
    return onnx_session(path, "slot model", "python -m vision.training slots")


class SlotClassifier:
    """The checker-slot model (ONNX), loaded once.

    Models trained by ``vision.training.slots`` take the raw patches (uint8, normalising inside the
    model) and record their fitted softmax temperature in ``<model>.train.json``; an older model
    takes ``normalise_slots`` floats.  ``patch`` is the model's input side (the sampler cuts that)."""

    def __init__(self, path: Path = SLOT_MODEL) -> None:
        self._session = slot_session(path)
        inp = self._session.get_inputs()[0]
        self._input = inp.name
        self._raw = inp.type == "tensor(uint8)"
        self.patch = int(inp.shape[-2] if self._raw else inp.shape[-1])
        self.temperature = fitted_temperature(path)

    def logits(self, patches: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        x = np.ascontiguousarray(patches) if self._raw else normalise_slots(patches)
        return np.asarray(self._session.run(None, {self._input: x})[0], np.float32)

    def probabilities(self, patches: npt.NDArray[np.uint8], temperature: float | None = None) -> npt.NDArray[np.float32]:
        """Class probabilities per slot; ``temperature`` None: the model's fitted one."""
        logits = self.logits(patches) / np.float32(self.temperature if temperature is None else temperature)
        out: npt.NDArray[np.float32] = softmax(logits)
        assert out.shape[1] == len(SLOT_CLASSES)
        return out


def bar_capacity(layout: BoardLayout) -> int:
    b = layout.bar_region()
    ym = (b.y0 + b.y1) / 2
    return max(1, int((b.y1 - ym - 10) // layout.spec.checker_diameter_mm))


def board_slots(layout: BoardLayout) -> tuple[Slot, ...]:
    """Every slot of the board: 24 points x row capacity, then each side's bar slots."""
    out: list[Slot] = []
    cap = layout.spec.row_capacity
    for p in range(1, 25):
        for k in range(cap):
            x, y, z = layout.stack_slots(p, k)
            out.append(Slot(f"p{p}", k, None, x, y, z))
    for side in Side:
        for k in range(bar_capacity(layout)):
            x, y, z = layout.bar_slot(side, k)
            out.append(Slot("bar", k, side, x, y, z))
    return tuple(out)


def slot_layers(n: int, k: int, cap: int) -> int:
    """How many checkers of a stack of ``n`` sit on slot ``k`` (row capacity ``cap``)."""
    return 0 if k >= n else math.ceil((n - k) / cap)


class SlotSampler:
    """Precomputed remap coordinates for all slot patches of one profile (``patch`` px a side; the
    slot model's input size).  The maps are fixed-point (``cv2.convertMaps``): one remap per frame."""

    def __init__(self, profile: Any, patch: int = SLOT_PATCH) -> None:
        layout: BoardLayout = profile.layout
        self.layout = layout
        self.slots = board_slots(layout)
        self.patch = patch
        s = layout.spec
        span = SLOT_SPAN * s.checker_diameter_mm
        g = (np.arange(patch, dtype=np.float64) + 0.5) / patch * span - span / 2
        gx, gy = np.meshgrid(g, g)
        # orient every patch so that "up" points from the slot toward the point's tip / bar middle:
        pts: list[npt.NDArray[np.float64]] = []
        for sl in self.slots:
            flip = self._flip(sl)
            for layer in (1, 2):
                z = sl.z + layer * s.checker_height_mm
                xx = sl.x + gx * (-1 if flip else 1)
                yy = sl.y + gy * (-1 if flip else 1)
                pts.append(np.stack([xx.ravel(), yy.ravel(), np.full(xx.size, z)], axis=1))
        allp = np.concatenate(pts)
        img = profile.board_to_image(allp).astype(np.float32)
        # the patches one after another in a wide mosaic (rows of 16 patch widths: a wide map remaps
        # faster than a tall thin strip), flat order patch by patch: the remap's output is then
        # the patches themselves (one reshape, no transposing copy); padded with the first point
        width = 16 * patch
        self._size = len(allp)
        pad = -self._size % width
        mx = np.concatenate([img[:, 0], np.full(pad, img[0, 0], np.float32)]).reshape(-1, width)
        my = np.concatenate([img[:, 1], np.full(pad, img[0, 1], np.float32)]).reshape(-1, width)
        self.map1, self.map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)

    def _flip(self, sl: Slot) -> bool:
        """Rotate far-side patches by 180° so every stack grows the same way in its patch."""
        if sl.region == "bar":
            return self.layout.seating.side_of(sl.side) is LongSide.FAR if sl.side is not None else False
        mid = self.layout.spec.depth_mm / 2
        return sl.y < mid

    def patches(self, image: npt.NDArray[Any]) -> npt.NDArray[Any]:
        """(N_slots, 2, P, P, 3) BGR patches of this frame."""
        P = self.patch
        mosaic = cv2.remap(image, self.map1, self.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        return np.asarray(mosaic).reshape(-1, 3)[: self._size].reshape(len(self.slots), 2, P, P, 3)


TRAY_LENGTH = 128
"""Strip length (px) along a tray, from its outer end (where bearing off starts)."""
TRAY_WIDTH = 24
"""Strip width (px) across a tray."""
TRAY_MARGIN = 0.2
"""The strip reaches this many checker diameters beyond each long side of the tray (leaning checkers)."""
TRAY_CLASSES = (*(str(n) for n in range(CHECKERS + 1)), "hand")
"""Tray-model classes: 0..15 borne-off checkers, or a hand covering the tray."""
TRAY_HAND = CHECKERS + 1
_COUNTS = np.arange(CHECKERS + 1)
TRAY_MODEL = Path(os.environ.get("BGREF_TRAY_MODEL") or MODEL_DIR / "checker_tray.onnx")
"""The tray model; ``BGREF_TRAY_MODEL`` points at another one."""


class TraySampler:
    """Precomputed remap coordinates for the two trays of one profile (WHITE's, BLACK's).

    Each tray is cut as a strip along its length, starting at its outer end (where checkers borne off
    are packed first: upright on edge in a row, or lying in piles of five), rectified twice: at the
    height of a lying checker's top and at the height of an upright checker's top edge (one
    checker diameter), like the slot patches' two layers.  One fixed-point remap for both trays."""

    SHAPE = (2, TRAY_LENGTH, TRAY_WIDTH, 3)
    """One tray's input to the model: (planes, length, width, BGR)."""

    def __init__(self, profile: Any) -> None:
        layout: BoardLayout = profile.layout
        s = layout.spec
        pts: list[npt.NDArray[np.float64]] = []
        for side in Side:
            r = layout.tray_region(side)
            near = layout.seating.side_of(side) is LongSide.NEAR
            y0, sy = (r.y1, -1.0) if near else (r.y0, 1.0)
            m = TRAY_MARGIN * s.checker_diameter_mm
            u = (np.arange(TRAY_LENGTH) + 0.5) / TRAY_LENGTH * (r.y1 - r.y0)
            v = (np.arange(TRAY_WIDTH) + 0.5) / TRAY_WIDTH * (r.x1 - r.x0 + 2 * m) - (r.x1 - r.x0) / 2 - m
            uu, vv = np.meshgrid(u, v, indexing="ij")
            # a rotation, not a mirror: far trays are turned by 180 degrees
            xx = (r.x0 + r.x1) / 2 + sy * vv
            yy = y0 + sy * uu
            for z in (s.checker_height_mm, s.checker_diameter_mm):
                pts.append(np.stack([xx.ravel(), yy.ravel(), np.full(xx.size, z)], axis=1))
        img = profile.board_to_image(np.concatenate(pts)).astype(np.float32)
        # four strips side by side: (L, 4 W)
        mx = img[:, 0].reshape(4, TRAY_LENGTH, TRAY_WIDTH).transpose(1, 0, 2).reshape(TRAY_LENGTH, 4 * TRAY_WIDTH)
        my = img[:, 1].reshape(4, TRAY_LENGTH, TRAY_WIDTH).transpose(1, 0, 2).reshape(TRAY_LENGTH, 4 * TRAY_WIDTH)
        self.map1, self.map2 = cv2.convertMaps(np.ascontiguousarray(mx), np.ascontiguousarray(my), cv2.CV_16SC2)

    def strips(self, image: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
        """(2 trays, 2 planes, L, W, 3) BGR strips of this frame, WHITE's tray first."""
        m = cv2.remap(image, self.map1, self.map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        out: npt.NDArray[np.uint8] = np.ascontiguousarray(
            np.asarray(m).reshape(TRAY_LENGTH, 2, 2, TRAY_WIDTH, 3).transpose(1, 2, 0, 3, 4))
        return out


class TrayClassifier:
    """The tray model (ONNX), loaded once: raw strips -> probabilities over ``TRAY_CLASSES``, with
    the softmax temperature fitted at training time (``checker_tray.train.json``)."""

    def __init__(self, path: Path = TRAY_MODEL) -> None:
        self._session = onnx_session(path, "tray model", "python -m vision.training.trays train")
        self._input = self._session.get_inputs()[0].name
        self.temperature = fitted_temperature(path)

    def logits(self, strips: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
        return np.asarray(self._session.run(None, {self._input: np.ascontiguousarray(strips)})[0], np.float32)

    def probabilities(self, strips: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
        """(2, len(TRAY_CLASSES)) probabilities, WHITE's tray first."""
        out: npt.NDArray[np.float64] = softmax(self.logits(strips).astype(np.float64) / self.temperature)
        return out


def normalise_slots(patches: npt.NDArray[Any]) -> npt.NDArray[np.float32]:
    """(N, 2, P, P, 3) uint8 -> (N, 6, P, P) float32: per-frame scaling only (colour matters)."""
    n, P = len(patches), patches.shape[2]
    x = patches.transpose(0, 1, 4, 2, 3).reshape(n, 6, P, P).astype(np.float32)
    out: npt.NDArray[np.float32] = np.ascontiguousarray(x * np.float32(1 / 127.5) - np.float32(1.0))
    return out


def slot_labels(layout: BoardLayout, slots: tuple[Slot, ...], points: list[tuple[int, int]],
                bar: tuple[int, int]) -> list[int]:
    """The slot classes of a known position (for training and evaluation)."""
    cap = layout.spec.row_capacity
    bcap = bar_capacity(layout)
    out = []
    for sl in slots:
        if sl.region == "bar":
            assert sl.side is not None
            n = bar[0] if sl.side is Side.WHITE else bar[1]
            layers = slot_layers(n, sl.index, bcap)
            colour = sl.side
        else:
            w, b = points[int(sl.region[1:]) - 1]
            colour = Side.WHITE if w >= b else Side.BLACK
            layers = slot_layers(max(w, b), sl.index, cap)
        if layers == 0:
            out.append(0)
        else:
            out.append((1 if colour is Side.WHITE else 4) + min(layers, 3) - 1)
    return out


@dataclass(frozen=True, slots=True)
class CheckerReadings:
    points: tuple[CountReading, ...]
    bar: CountReading
    trays: tuple[CountReading, CountReading]


def counts_from_slot_probs(
    slots: tuple[Slot, ...], probs: npt.NDArray[np.float32], covered: frozenset[str] = frozenset(),
    hand_max: float = 0.3, layer_error_factor: float = 1.0, neighbour_hand_max: float | None = None,
    object_weight: float | None = None, trays: npt.NDArray[np.float64] | None = None,
    tray_disagree_factor: float | None = None, bar_hand_corroboration: float | None = None,
    hand_pair_max: float | None = None, layer_error_cap: float | None = None,
    stack_probs: Callable[[list[int]], npt.NDArray[np.float64]] | None = None,
    stack_config: VisionConfig | None = None, hand_probability: Callable[[], float] | None = None,
) -> CheckerReadings:
    """Turn per-slot class probabilities into counts with confidences, one stack at a time.

    Each stack is decoded jointly (:func:`decode_stack`): the count whose slot pattern best explains
    all its slots, with the posterior of that count as its confidence; on a point a count's patterns are
    its stack packed from the rail and, at ``GAP_PRIOR``, the first-row gaps a played game leaves
    (:func:`gap_patterns`: a hitter's checker resting off the rail).  The confidence is 0 when a
    slot's most likely class is "hand" or any slot gives "hand" at least ``hand_max``, when the
    slots' own best classes mix colours or leave a gap in the stack that no pattern explains, or when the region is covered - or a neighbouring region (``neighbours``) has a slot
    giving "hand" at least ``neighbour_hand_max`` (None: ``hand_max``): a hand covers more than one
    point, and the slots at the edge of a hand can look like plain checkers.  ``neighbour_hand_max``
    and ``object_weight`` (:func:`stack_posteriors`) default to ``VisionConfig``'s
    ``slot_neighbour_hand_max`` and ``slot_object_weight``.

    A point read as a full row or more has its error probability multiplied by
    ``layer_error_factor`` but kept at most ``layer_error_cap`` (None:
    ``VisionConfig.slot_layer_error_cap``), or the decoder's own error when that is higher: a
    missed or phantom second layer is the model's typical error, at a rate that does not grow
    with its own error as fast as x30 (see the config).

    Each reading's ``alternatives`` are the decoder's next likeliest hypotheses (posterior, with the
    full-row error weight moved onto them); none for a region a hand may hide.

    The bar's own "hand" slots count only when a slot off the bar gives "hand" at least
    ``bar_hand_corroboration`` (None: ``VisionConfig.slot_bar_hand_corroboration``;
    :func:`corroborated_hands`): an empty bar alone is the slot model's typical false "hand";
    uncorroborated, the bar is decoded from its other classes and does not doubt its neighbours.

    A point with two or more slots giving "hand" at least ``hand_pair_max`` (None:
    ``VisionConfig.slot_hand_pair_max``) is not read either: a hand over a point's tip shows as two
    weak "hand" slots, each under ``hand_max``.

    ``stack_probs``: the stack model (:mod:`vision.stacks`) on a list of points (1..24), giving one
    row of ``STACK_CLASSES`` probabilities per point; asked only about the points decoded as
    ``VisionConfig.stack_min_count`` or more, whose reading is then :func:`vision.stacks.combine`'s
    (the product of the two models, unsure when they disagree) instead of the full-row error weight;
    ``stack_config`` holds its ``stack_*`` settings (None: ``VisionConfig``'s defaults).

    ``trays``: the tray model's probabilities (:meth:`TrayClassifier.probabilities`, WHITE's tray
    first): the trays are then read from the image (:func:`tray_readings`, cross-checked with the
    board's totals); None: derived (15 minus the checkers on the board and bar).

    ``hand_probability``: the whole-frame hand model (:mod:`vision.hands`, P(a hand or arm is in the
    frame)), asked only when a slot's, the stack model's or a tray's "hand" could leave a region unread
    (:class:`HandEvidence`).  At ``VisionConfig.hand_free_max`` (``stack_config``'s) or below, no
    model's "hand" counts on this frame (:func:`without_hands`); the gate's ``covered`` always does.
    """
    nb_max = _DEFAULTS.slot_neighbour_hand_max if neighbour_hand_max is None else neighbour_hand_max
    ow = _DEFAULTS.slot_object_weight if object_weight is None else object_weight
    cap = _DEFAULTS.slot_layer_error_cap if layer_error_cap is None else layer_error_cap
    groups, perm, starts = _slot_index(slots)
    probs64 = np.asarray(probs, np.float64)
    pair = _DEFAULTS.slot_hand_pair_max if hand_pair_max is None else hand_pair_max
    # a hand is wider than a point: a region beside one with a hand-like slot is not read either
    probs64 = corroborated_hands(slots, probs64, _DEFAULTS.slot_bar_hand_corroboration
                                 if bar_hand_corroboration is None else bar_hand_corroboration)
    if hand_probability is not None:
        hands = HandEvidence(hand_probability, (stack_config or _DEFAULTS).hand_free_max)
        if _hands_could_cap(probs64, groups, perm, starts, min(hand_max, nb_max), pair) and hands.free():
            probs64 = without_hands(probs64, HAND)
        stack_probs = hands.stacks(stack_probs, hand_max)
        trays = hands.trays(trays, hand_max)
    hand = dict(zip(groups, np.maximum.reduceat(probs64[perm, HAND], starts).tolist(), strict=True))
    readings: dict[str, CountReading] = {}
    handy: set[str] = set()
    pts = [f"p{i}" for i in range(1, 25)]
    if all(r in groups for r in pts) and len({len(groups[r]) for r in pts}) == 1:
        # all 24 points at once (same number of slots each)
        block = probs64[np.stack([groups[r] for r in pts])]
        hyps, post = stack_posteriors(block, (Side.WHITE, Side.BLACK), ow, gap_prior=GAP_PRIOR)
        decided = _decide_stacks(block, hyps, post, hand_max, gaps=GAP_PRIOR > 0)
        order = np.argsort(-post, axis=1)[:, 1 : ALTERNATIVES + 1]
        contradicted = {i for i, (_, _, c, h) in enumerate(decided) if c <= 0.0 and not h}
        for i, (w, b, c, h) in enumerate(decided):
            r = pts[i]
            scale = 1.0
            if max(w, b) >= block.shape[1]:
                # a full row or more: a missed second layer on a slot is the model's typical error
                # (weighted up, but not beyond the cap unless the decoder's own error is higher)
                p = float(post[i].max())
                c2 = max(FULL_ROW_FLOOR, 1.0 - min(layer_error_factor * (1.0 - p), max(1.0 - p, cap)))
                scale = (1.0 - c2) / (1.0 - p) if p < 1.0 else 1.0
                c = min(c, c2)
            readings[r] = CountReading(w, b, c, _alternatives(hyps, post[i], scale, order[i]))
            if h:
                handy.add(r)
        for i, (rd, h) in _second_look(readings, hyps, post, stack_probs, hand_max,
                                        stack_config or _DEFAULTS, block.shape[1], contradicted).items():
            readings[pts[i]] = rd
            if h:
                handy.add(pts[i])
    for region, ix in groups.items():
        if region in readings:
            continue
        if region == "bar":
            readings[region], h = _read_bar(slots, probs64, ix, hand_max)  # the cube may hide a bar checker
        else:
            ps = probs64[ix]
            hyps, post = stack_posteriors(ps[None], (Side.WHITE, Side.BLACK), ow, gap_prior=GAP_PRIOR)
            (w, b, conf, h), = _decide_stacks(ps[None], hyps, post, hand_max, gaps=GAP_PRIOR > 0)
            readings[region] = CountReading(w, b, conf, _alternatives(hyps, post[0]))
        if h:
            handy.add(region)
    for region, ix in groups.items():
        if region != "bar" and int((probs64[ix, HAND] >= pair).sum()) >= 2:
            handy.add(region)
    for region, rd in readings.items():
        if region in covered or region in handy or any(hand[n] >= nb_max for n in neighbours(region) if n in hand):
            # a hand (or its edge) may hide anything here: no reading, no alternatives
            readings[region] = CountReading(rd.white, rd.black, 0.0)
        else:
            readings[region] = CountReading(rd.white, rd.black, round(float(rd.confidence), 4), rd.alternatives)
    points = tuple(readings[f"p{i}"] for i in range(1, 25))
    bar = readings["bar"]
    on_w = sum(r.white for r in points) + bar.white
    on_b = sum(r.black for r in points) + bar.black
    for side, on in ((Side.WHITE, on_w), (Side.BLACK, on_b)):
        if on > CHECKERS:
            # more than 15 of a colour: the readings holding that colour cannot all be right
            *pts_, bar = blamed((*points, bar), side, CHECKERS - on, full_row=len(groups["p1"]) if "p1" in groups else None)
            points = tuple(pts_)
    if trays is not None:
        tw, tb = tray_readings(trays, (on_w, on_b), (*points, bar), covered,
                               _DEFAULTS.tray_disagree_factor if tray_disagree_factor is None else tray_disagree_factor,
                               hand_max)
        regions = totals_cross_check((*points, bar), (tw, tb), full_row=len(groups["p1"]) if "p1" in groups else None)
        return CheckerReadings(regions[:24], regions[24], (tw, tb))
    weakest = min(r.confidence for r in (*points, bar))
    tw = CountReading(max(0, CHECKERS - on_w), 0, weakest if on_w <= CHECKERS else 0.0,
                      _tray_alternatives((*points, bar), Side.WHITE, on_w))
    tb = CountReading(0, max(0, CHECKERS - on_b), weakest if on_b <= CHECKERS else 0.0,
                      _tray_alternatives((*points, bar), Side.BLACK, on_b))
    # borne-off checkers while the side still has checkers outside its home board (WHITE: 1-6, BLACK:
    # 19-24): legal only after a hit during the bear-off, and the typical trace of a missed checker
    # (a 6-stack read as 5 becomes "one borne off"): the tray is not trusted then
    if tw.white and any(r.white for r in points[HOME_SIZE:]):
        tw = CountReading(tw.white, 0, min(tw.confidence, TRAY_DOUBT), tw.alternatives)
    if tb.black and any(r.black for r in points[: 24 - HOME_SIZE]):
        tb = CountReading(0, tb.black, min(tb.confidence, TRAY_DOUBT), tb.alternatives)
    if "tray_w" in covered:
        tw = CountReading(tw.white, 0, 0.0)
    if "tray_b" in covered:
        tb = CountReading(0, tb.black, 0.0)
    return CheckerReadings(points, bar, (tw, tb))


def _second_look(readings: dict[str, CountReading], hyps: tuple[tuple[Side, int], ...],
                 post: npt.NDArray[np.float64], stack_probs: Callable[[list[int]], npt.NDArray[np.float64]] | None,
                 hand_max: float, cfg: VisionConfig, full_row: int,
                 contradicted: set[int] | frozenset[int] = frozenset()) -> dict[int, tuple[CountReading, bool]]:
    """The points (0-based) the stack model looks at too (read by the slots alone, ``readings``, as
    ``cfg.stack_min_count`` or more; below a full row, ``full_row`` checkers, only when that reading's
    confidence is under ``cfg.stack_ask_below``; and, whatever their count, the ``contradicted`` ones:
    points whose slots' own best classes mix colours or leave a gap, no hand among them): their joint
    readings (:func:`vision.stacks.combine`, with ``cfg``'s stack settings; a contradicted point is read
    only where the stack model is sure of the joint count, ``cfg.stack_contradiction_min``), and
    whether the stack model sees a hand there; none without ``stack_probs``."""
    from vision.stacks import combine

    alone = [readings[f"p{i}"] for i in range(1, 25)]
    rescue = cfg.stack_contradiction_min <= 1.0
    tall = [i for i, rd in enumerate(alone) if ((n := max(rd.white, rd.black)) >= cfg.stack_min_count
            and (n >= full_row or rd.confidence < cfg.stack_ask_below)) or (rescue and i in contradicted)]
    if stack_probs is None or not tall:
        return {}
    q = stack_probs([i + 1 for i in tall])
    return {i: combine(hyps, post[i], q[j], alone[i], hand_max, cfg.stack_slot_power, cfg.stack_disagree_cap,
                       cfg.stack_agree_min, cfg.stack_contradiction_min if i in contradicted else None)
            for j, i in enumerate(tall)}


def _hands_could_cap(probs: npt.NDArray[np.float64], groups: dict[str, npt.NDArray[np.intp]], perm: npt.NDArray[np.intp],
                     starts: npt.NDArray[np.intp], strong: float, pair: float) -> bool:
    """Could the slots' "hand" (after :func:`corroborated_hands`) leave any region unread?  A slot at
    ``strong`` or more or whose best class is "hand", or two slots of one point at ``pair`` or more
    (the guards of :func:`counts_from_slot_probs`); else the hand model need not be asked."""
    h = probs[:, HAND]
    if float(h.max()) >= strong or bool((probs.argmax(axis=1) == HAND).any()):
        return True
    paired = np.add.reduceat((h[perm] >= pair).astype(np.intp), starts)
    return any(int(n) >= 2 for region, n in zip(groups, paired, strict=True) if region != "bar")


class HandEvidence:
    """Whether the models' "hand" counts on one frame: the whole-frame hand model
    (``hand_probability``, called at most once, and only when some "hand" could leave a region
    unread) says no hand at ``free_max`` or below -> every "hand" is dropped (:func:`without_hands`)."""

    def __init__(self, hand_probability: Callable[[], float], free_max: float) -> None:
        self._p = hand_probability
        self._free: bool | None = None
        self.free_max = free_max

    def free(self) -> bool:
        """True when the hand model sees no hand in the frame (asked once)."""
        if self._free is None:
            self._free = self._p() <= self.free_max
        return self._free

    def stacks(self, stack_probs: Callable[[list[int]], npt.NDArray[np.float64]] | None, hand_max: float
               ) -> Callable[[list[int]], npt.NDArray[np.float64]] | None:
        """The stack model's probabilities, without "hand" where it could count on a hand-free frame."""
        if stack_probs is None:
            return None
        from vision.stacks import STACK_HAND

        inner = stack_probs

        def probs(points: list[int]) -> npt.NDArray[np.float64]:
            return self._cleared(inner(points), STACK_HAND, hand_max)

        return probs

    def trays(self, probs: npt.NDArray[np.float64] | None, hand_max: float) -> npt.NDArray[np.float64] | None:
        """The tray model's probabilities, without "hand" where it could count on a hand-free frame."""
        return None if probs is None else self._cleared(probs, TRAY_HAND, hand_max)

    def _cleared(self, probs: npt.NDArray[np.float64], hand: int, hand_max: float) -> npt.NDArray[np.float64]:
        """``probs`` without class ``hand`` when some row's "hand" reaches ``hand_max`` (it could count) and
        the frame is hand-free; else as they are."""
        if len(probs) and float(probs[:, hand].max()) >= hand_max and self.free():
            return without_hands(probs, hand)
        return probs


def without_hands(probs: npt.NDArray[np.float64], hand: int) -> npt.NDArray[np.float64]:
    """Class probabilities (one row per slot, strip or tray) with class ``hand`` removed and each row
    renormalised over the other classes (a row that was all "hand" becomes uniform over them)."""
    out = np.array(probs, np.float64)
    out[:, hand] = 0.0
    total = out.sum(axis=1, keepdims=True)
    flat = total[:, 0] <= 0.0
    out[flat] = 1.0
    out[flat, hand] = 0.0
    total[flat] = out.shape[1] - 1
    out /= total
    return out


def corroborated_hands(slots: tuple[Slot, ...], probs: npt.NDArray[np.float64],
                       corroboration: float) -> npt.NDArray[np.float64]:
    """``probs`` with the bar's "hand" probabilities set to 0 when no slot off the bar gives "hand"
    at least ``corroboration`` (a hand reaching the bar is wider than it and comes from a side, so
    it shows on the points too; an empty bar alone is the slot model's typical false "hand"); else
    ``probs`` itself.  The stack decoder ignores the "hand" class, so the bar is then decoded from
    its other classes, and its neighbours are not doubted for it."""
    groups = _region_index(slots)
    if "bar" not in groups or len(groups) < 2:
        return probs
    bar = groups["bar"]
    if float(probs[bar, HAND].max()) <= 0.0:
        return probs
    off = np.ones(len(probs), bool)
    off[bar] = False
    if float(probs[off, HAND].max()) >= corroboration:
        return probs
    out = probs.copy()
    out[bar, HAND] = 0.0
    return out


def tray_readings(probs: npt.NDArray[np.float64], on_board: tuple[int, int], readings: tuple[CountReading, ...],
                  covered: frozenset[str] = frozenset(), disagree_factor: float = 1.0,
                  hand_max: float = 0.3) -> tuple[CountReading, CountReading]:
    """Both trays read from the image and cross-checked with the board (WHITE's tray first).

    ``probs``: the tray model's (2, ``TRAY_CLASSES``) probabilities; ``on_board``: how many of each
    colour the board readings (points and bar) hold; ``readings``: those readings.  The count is the
    model's most likely one and its probability the confidence (a tray that may be covered by a hand,
    "hand" >= ``hand_max``, reads 0).  Cross-check with the board: when the board's total says the
    same count (15 minus what is on the board), the two independent readings agree and the tray's
    error probability is multiplied by the board's (at most the sum of its regions' errors; and per
    other count k, at most how likely the regions are off by the compensating amount: their
    alternatives that shift that colour so plus their unlisted error mass); when
    it says another count, the tray's error probability is multiplied by ``disagree_factor`` (one
    of the two is wrong, or a checker is off the board: a hit not put on the bar).  The
    alternatives are the model's next likeliest counts."""
    err_board = min(1.0, sum(1.0 - r.confidence for r in readings))
    shifts: tuple[float, dict[Side, npt.NDArray[np.float64]]] | None = None
    out = []
    for i, (side, region) in enumerate(((Side.WHITE, "tray_w"), (Side.BLACK, "tray_b"))):
        p = np.asarray(probs[i], np.float64)
        counts = p[: CHECKERS + 1]
        t = int(counts.argmax())
        err = 1.0 - float(counts[t])
        derived = CHECKERS - on_board[i]
        if t == derived:
            # the tray being k instead needs the board off by t - k in that colour: bounded per k
            # by the regions' alternatives that shift it so and all their unlisted error mass
            if shifts is None:
                shifts = _board_shifts(readings)
            unlisted, by_side = shifts
            # need[k]: how likely the board is off by t - k (index t - k + CHECKERS of by_side)
            need = np.minimum(1.0, unlisted + by_side[side][t + CHECKERS - _COUNTS])
            need[t] = 0.0
            err = min(err * err_board, float(p[TRAY_HAND]) * err_board + float(counts @ need))
        else:
            err = min(1.0, err * disagree_factor)
        conf = 0.0 if region in covered or float(p[TRAY_HAND]) >= hand_max else round(1.0 - err, 6)
        order = [int(k) for k in np.argsort(-counts) if int(k) != t][:ALTERNATIVES]
        alts = tuple((k, 0, round(float(counts[k]), 6)) if side is Side.WHITE else (0, k, round(float(counts[k]), 6))
                     for k in order if counts[k] >= ALTERNATIVE_MIN) if conf > 0 else ()
        out.append(CountReading(t, 0, conf, alts) if side is Side.WHITE else CountReading(0, t, conf, alts))
    return out[0], out[1]


def _count(w: int, b: int, side: Side) -> int:
    return w if side is Side.WHITE else b


def _board_shifts(readings: tuple[CountReading, ...]) -> tuple[float, dict[Side, npt.NDArray[np.float64]]]:
    """The readings' error mass their alternatives do not list (summed), and per side the summed
    probability of their alternatives per shift of that side's count (alternative minus reading;
    index shift + ``CHECKERS``)."""
    unlisted = 0.0
    white = [0.0] * (2 * CHECKERS + 1)
    black = [0.0] * (2 * CHECKERS + 1)
    for r in readings:
        listed = 0.0
        for w, b, p in r.alternatives:
            listed += p
            if w != r.white:
                white[w - r.white + CHECKERS] += p
            if b != r.black:
                black[b - r.black + CHECKERS] += p
        unlisted += max(0.0, (1.0 - r.confidence) - listed)
    return unlisted, {Side.WHITE: np.asarray(white), Side.BLACK: np.asarray(black)}


def totals_cross_check(readings: tuple[CountReading, ...], trays: tuple[CountReading, CountReading],
                       trust: float = TRAY_DOUBT, full_row: int | None = None) -> tuple[CountReading, ...]:
    """The board's readings (points and bar) checked against the trays read from the image: each
    side has 15 checkers.

    When a side's board total plus its tray makes 15, a region's alternative that would change that
    side's count by ``d`` needs a second, compensating error elsewhere (another region or the tray
    off by ``-d`` in that colour): its probability is multiplied by a bound of that
    (:class:`_Compensations`: the other readings' listed alternatives that shift that colour by
    ``-d``, plus all of their unlisted error mass; no relief when it reaches 1, e.g. when a region
    is unread).  This is what lets a tall
    stack (whose full-row error weight makes it unsure alone) be read confidently when everything
    else adds up.  When the total is off while the tray is read at ``trust`` or better (capping is the
    safe direction, so a tray read at ``TRAY_DOUBT`` is enough), every region with an alternative that
    would make it add up, and every point of that colour holding a full row or more (``full_row``
    checkers: its typical error is a missed or phantom second layer even where the decoder lists no
    alternative), is capped at ``TRAY_DOUBT``; a board that is off with no such region stays as read
    (a checker is off the board: a hit not put on the bar).  Two full-row points of a colour whose
    one-layer alternatives would cancel get no relief from each other (:func:`_layer_twin`)."""
    th = trust
    sides = (Side.WHITE, Side.BLACK)
    errs = [1.0 - r.confidence for r in readings]
    board_err = sum(errs)
    holds: dict[Side, float] = {}
    fix: dict[Side, int] = {}
    for side, tray in zip(sides, trays, strict=True):
        total = sum(_count(r.white, r.black, side) for r in readings)
        expected = CHECKERS - _count(tray.white, tray.black, side)
        if total == expected:
            holds[side] = board_err + (1.0 - tray.confidence)
        elif tray.confidence >= th:
            fix[side] = expected - total
    if not holds and not fix:
        return readings
    comp = _Compensations(readings, errs, trays) if holds else None
    blamed_by: dict[Side, tuple[CountReading, ...]] = {}
    out = []
    for i, (r, err) in enumerate(zip(readings, errs, strict=True)):
        tall = full_row is not None and i < 24 and any(_count(r.white, r.black, sd) >= full_row for sd in fix)
        if r.confidence <= 0.0 or not (r.alternatives or tall):
            out.append(r)
            continue
        if tall or any(_count(w, b, sd) - _count(r.white, r.black, sd) == d for w, b, _ in r.alternatives
                       for sd, d in fix.items()):
            for sd, d in fix.items():
                if sd not in blamed_by:
                    blamed_by[sd] = blamed(readings, sd, d, trays[sides.index(sd)], full_row)
            out.append(min((blamed_by[sd][i] for sd in fix), key=lambda x: x.confidence))
            continue
        relief = 0.0
        alts = []
        for w, b, p in r.alternatives:
            # how likely another reading (a region or the tray) is wrong the other way
            other = max((comp.against(i, sd, _count(w, b, sd) - _count(r.white, r.black, sd)) for sd in holds
                         if comp is not None and _count(w, b, sd) != _count(r.white, r.black, sd)), default=None)
            if other is not None and _layer_twin(readings, i, (w, b), holds, full_row):
                other = 1.0  # two full rows whose layer errors would cancel: not independent, no relief
            if other is not None and other < 1.0:
                relief += p * (1.0 - other)
                p = round(p * other, 6)
            if p >= ALTERNATIVE_MIN:
                alts.append((w, b, p))
        out.append(CountReading(r.white, r.black, round(1.0 - max(0.0, err - relief), 4), tuple(alts)))
    return tuple(out)


def _layer_twin(readings: tuple[CountReading, ...], i: int, alt: tuple[int, int], sides: dict[Side, float],
                full_row: int | None) -> bool:
    """Is region ``i`` (a point holding a full row or more) read one layer off by alternative ``alt``
    exactly where another full-row point of that colour lists the opposite shift?  The two models'
    layer errors on one frame (one camera angle, one light) are not independent: such a pair must not
    confirm each other through the totals (session 11, 903331: a white 5 read 6 and a white 6 read 5,
    each unsure alone, confirmed each other at 0.9992-0.9993).  ``sides``: the colours whose totals
    hold."""
    if full_row is None or i >= 24:
        return False
    r = readings[i]
    for sd in sides:
        d = _count(*alt, sd) - _count(r.white, r.black, sd)
        if not d or _count(r.white, r.black, sd) < full_row:
            continue
        for j, o in enumerate(readings[:24]):
            if j != i and _count(o.white, o.black, sd) >= full_row and any(
                    _count(w, b, sd) - _count(o.white, o.black, sd) == -d for w, b, _ in o.alternatives):
                return True
    return False


class _Compensations:
    """For :func:`totals_cross_check`: how likely the readings other than region ``i`` are wrong by
    exactly ``-d`` checkers of a side (what region ``i`` being ``d`` off would need for the totals to
    still make 15).  Each reading's listed alternatives count where they shift that side by ``-d``;
    the error mass its list leaves out (``1 - confidence`` minus the listed alternatives) counts in
    full, as if it could be any shift.  An upper bound (a union over the readings), no guess."""

    def __init__(self, readings: tuple[CountReading, ...], errs: list[float],
                 trays: tuple[CountReading, CountReading]) -> None:
        sides = (Side.WHITE, Side.BLACK)
        self.unlisted = [max(0.0, e - sum(p for _, _, p in r.alternatives)) for r, e in zip(readings, errs, strict=True)]
        self.total_unlisted = sum(self.unlisted)
        self.own: list[dict[tuple[Side, int], float]] = []
        self.shift: dict[tuple[Side, int], float] = {}
        for r in readings:
            mine: dict[tuple[Side, int], float] = {}
            for w, b, p in r.alternatives:
                for sd in sides:
                    d = _count(w, b, sd) - _count(r.white, r.black, sd)
                    if d:
                        mine[(sd, d)] = mine.get((sd, d), 0.0) + p
                        self.shift[(sd, d)] = self.shift.get((sd, d), 0.0) + p
            self.own.append(mine)
        self.tray: dict[Side, tuple[float, dict[int, float]]] = {}
        for sd, t in zip(sides, trays, strict=True):
            n = _count(t.white, t.black, sd)
            alts: dict[int, float] = {}
            for w, b, p in t.alternatives:
                alts[_count(w, b, sd) - n] = alts.get(_count(w, b, sd) - n, 0.0) + p
            self.tray[sd] = (max(0.0, (1.0 - t.confidence) - sum(alts.values())), alts)

    def against(self, i: int, side: Side, d: int) -> float:
        """The bound for region ``i`` read ``d`` checkers of ``side`` short of its alternative."""
        t_unl, t_alts = self.tray[side]
        return (self.total_unlisted - self.unlisted[i] + t_unl + t_alts.get(-d, 0.0)
                + self.shift.get((side, -d), 0.0) - self.own[i].get((side, -d), 0.0))


def _tray_alternatives(readings: tuple[CountReading, ...], side: Side, on_board: int) -> tuple[tuple[int, int, float], ...]:
    """Other derived tray counts of ``side``: each region's alternative that changes how many of
    that colour are on the board shifts the tray the other way, with that alternative's probability
    (one region wrong at a time; the same count from several regions adds up)."""
    acc: dict[int, float] = {}
    for r in readings:
        own = r.white if side is Side.WHITE else r.black
        for w, b, p in r.alternatives:
            n = on_board - own + (w if side is Side.WHITE else b)
            if n != on_board and 0 <= n <= CHECKERS:
                acc[CHECKERS - n] = acc.get(CHECKERS - n, 0.0) + p
    best = sorted(acc.items(), key=lambda kv: -kv[1])[:ALTERNATIVES]
    return tuple((t, 0, round(p, 6)) if side is Side.WHITE else (0, t, round(p, 6)) for t, p in best)


BLAME_FLOOR = 1e-4
"""Every reading that could be the wrong one counts as at least this likely to be (a reading at 1.0 is
not beyond doubt when the totals say something is wrong)."""


def blamed(readings: tuple[CountReading, ...], side: Side, d: int,
           tray: CountReading | None = None, full_row: int | None = None) -> tuple[CountReading, ...]:
    """The board's readings (points, then the bar) when ``side``'s total is certainly wrong and needs
    ``d`` more checkers of that colour (negative: fewer) to be right: which reading is the wrong one?

    Each reading that could make up ``d`` (holding at least ``-d`` of ``side``; for ``d`` > 0 holding
    ``side`` or empty) is blamed with the probability of its alternatives that shift ``side`` by
    exactly ``d``, plus its error mass no alternative lists (any shift), at least ``BLAME_FLOOR`` (a
    full row's error already carries the full-row weight or the stack model's doubt); the ``tray``
    read from the image (when given) is blamed with its own error.  One reading is wrong, so
    each is wrong with its share of the blame: its confidence is capped at 1 minus that share.  A
    merely unsure point whose alternative fixes the total takes the blame, and the sure points of its
    colour stay sure (session 10: the demo's set-up, a 5-stack read 6 at 0.51, capped every black
    point at ``TRAY_DOUBT``); a total off with no reading much likelier than the others leaves them all
    unsure, and with no reading listing an alternative that fixes it each one that could is capped at
    ``TRAY_DOUBT``, as before.

    A point holding ``full_row`` or more of ``side`` (None: no such rule) is blamed at least
    ``VisionConfig.slot_layer_error_cap`` for its own cap (a missed or phantom layer is the models' typical
    error even where both agree and list no alternative; session 12, game 7430: a white 6 read 5 by both
    went from 0.5 to 0.98 sure once an empty point's weak "lone checker" alternative took the blame),
    which only ever lowers that point's confidence: the others keep their share of the plain blame."""
    blame: list[float] = []
    offered = 0.0
    for r in readings:
        own = _count(r.white, r.black, side)
        if (own < -d) if d < 0 else (own == 0 and (r.white or r.black)):
            blame.append(0.0)
            continue
        listed = sum(p for _, _, p in r.alternatives)
        fixes = sum(p for w, b, p in r.alternatives if _count(w, b, side) - own == d)
        offered += fixes
        blame.append(max(BLAME_FLOOR, fixes + max(0.0, 1.0 - r.confidence - listed)))
    total = sum(blame) + (max(BLAME_FLOOR, 1.0 - tray.confidence) if tray is not None else 0.0)
    layer = [full_row is not None and i < 24 and b > 0.0 and _count(r.white, r.black, side) >= full_row
             for i, (r, b) in enumerate(zip(readings, blame, strict=True))]
    floor = _DEFAULTS.slot_layer_error_cap
    total_layer = total + sum(max(0.0, floor - b) for b, f in zip(blame, layer, strict=True) if f)
    out = []
    for r, b, f in zip(readings, blame, layer, strict=True):
        if b <= 0.0:
            out.append(r)
            continue
        c = 1.0 - b / total if offered > 0.0 else TRAY_DOUBT
        if f and offered > 0.0:
            c = min(c, 1.0 - max(b, floor) / total_layer)
        out.append(CountReading(r.white, r.black, round(min(r.confidence, c), 4), r.alternatives))
    return tuple(out)


def _read_bar(slots: tuple[Slot, ...], probs: npt.NDArray[np.float64], ix: npt.NDArray[np.intp],
              hand_max: float, object_weight: float = 1.0) -> tuple[CountReading, bool]:
    """The bar: each side's half decoded on its own (only that side's colour), the joint posterior
    the product of the two; and whether a slot looks like a hand."""
    halves = []
    handy = False
    conf = 1.0
    for side in Side:
        ps = probs[[i for i in ix if slots[i].side is side]]
        hyps, post = stack_posteriors(ps[None], (side,), object_weight)
        j = int(post[0].argmax())
        c = float(post[0, j])
        if float(ps[:, HAND].max()) >= hand_max or bool((ps.argmax(axis=1) == HAND).any()):
            handy = True
            c = 0.0
        if _argmax_doubt(ps, side):
            c = 0.0  # a checker on the wrong half of the bar, a gap: do not guess
        conf = min(conf, c)
        order = np.argsort(-post[0])[: ALTERNATIVES + 1]
        halves.append([(hyps[int(k)][1], float(post[0, k])) for k in order])
    (nw, _), (nb, _) = halves[0][0], halves[1][0]
    joint = sorted(((pw * pb, w, b) for w, pw in halves[0] for b, pb in halves[1]), reverse=True)
    alts = tuple((w, b, round(p, 6)) for p, w, b in joint if (w, b) != (nw, nb) and p >= ALTERNATIVE_MIN)
    return CountReading(nw, nb, conf, alts[:ALTERNATIVES]), handy


@functools.lru_cache(maxsize=32)
def neighbours(region: str) -> tuple[str, ...]:
    """Regions next to ``region`` on the board: the adjacent points on the same side of the field
    (points 1-12 and 13-24 run along opposite long sides) and the bar beside points 6/7 and 18/19."""
    if region == "bar":
        return ("p6", "p7", "p18", "p19")
    p = int(region[1:])
    lo, hi = (1, 12) if p <= 12 else (13, 24)
    out = [f"p{q}" for q in (p - 1, p + 1) if lo <= q <= hi]
    if p in (6, 7, 18, 19):
        out.append("bar")
    return tuple(out)


_INDEX: dict[int, tuple[tuple[Slot, ...], dict[str, npt.NDArray[np.intp]], npt.NDArray[np.intp], npt.NDArray[np.intp]]] = {}


def _slot_index(slots: tuple[Slot, ...]) -> tuple[dict[str, npt.NDArray[np.intp]], npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Slot indices of each region (in slot order), and the permutation and group starts that put
    the regions' slots one after another (for one ``reduceat`` per frame).  Cached per slots tuple
    (by identity: hashing 130 slots every frame costs more than the decoding)."""
    hit = _INDEX.get(id(slots))
    if hit is not None and hit[0] is slots:
        return hit[1], hit[2], hit[3]
    out: dict[str, list[int]] = {}
    for i, sl in enumerate(slots):
        out.setdefault(sl.region, []).append(i)
    groups = {r: np.asarray(v, np.intp) for r, v in out.items()}
    perm = np.concatenate(list(groups.values()))
    starts = np.cumsum([0, *[len(v) for v in groups.values()][:-1]]).astype(np.intp)
    if len(_INDEX) > 8:
        _INDEX.clear()
    _INDEX[id(slots)] = (slots, groups, perm, starts)
    return groups, perm, starts


def _region_index(slots: tuple[Slot, ...]) -> dict[str, npt.NDArray[np.intp]]:
    """Slot indices of each region, in slot order."""
    return _slot_index(slots)[0]


def stack_posteriors(ps: npt.NDArray[np.float64], colours: tuple[Side, ...],
                     object_weight: float = 1.0, cap: int | None = None,
                     gap_prior: float = 0.0) -> tuple[tuple[tuple[Side, int], ...], npt.NDArray[np.float64]]:
    """The posterior of every stack hypothesis (``stack_hypotheses``, uniform prior) for many stacks
    with the same number of slots: ``ps`` is (stacks, slots, classes); returns the hypotheses and a
    (stacks, hypotheses) array whose rows sum to 1.  An "object" slot (a die or the cube) counts as
    empty, and as any checker class with weight ``object_weight`` (1: no evidence either way; 0: empty;
    the slot model labels a checker with a die on it as the checker, so "object" leans to empty).
    ``cap``: the row capacity (None: the number of slots).  ``gap_prior`` > 0: a count is also explained
    by the first-row patterns with a gap (:func:`gap_patterns`), each with that prior weight against 1
    for the packed pattern (an "object" slot is no checker in them - a die resting alone at a point's
    tip must not offer a lone checker under it - and at the rail end no empty place either); the count's
    posterior sums its patterns'."""
    _, k, _ = ps.shape
    q = np.array(ps[:, :, :OBJECT], np.float64)
    q[:, :, 0] += ps[:, :, OBJECT]
    if object_weight > 0:
        q[:, :, 1:] += object_weight * ps[:, :, OBJECT, None]
    hyps, cls = stack_hypotheses(k, k if cap is None else cap, colours)
    logq = np.log(np.maximum(q, 1e-12))
    ll = logq[:, np.arange(k)[None, :], cls].sum(axis=2)  # (stacks, hypotheses)
    if gap_prior <= 0 or k < 2:
        post = np.exp(ll - ll.max(axis=1, keepdims=True))
        post /= post.sum(axis=1, keepdims=True)
        return hyps, post
    owner, gcls = gap_patterns(k, k if cap is None else cap, colours)
    # a die alone on a point is no checker under it, and a die on the rail-end position may hide one (a packed
    # stack whose first checker carries a die must not read as one shifted from the rail): "object" counts as
    # empty beyond the rail end only
    qg = np.array(ps[:, :, :OBJECT], np.float64)
    qg[:, 1:, 0] += ps[:, 1:, OBJECT]
    logqg = np.log(np.maximum(qg, 1e-12))
    gl = logqg[:, np.arange(k)[None, :], gcls].sum(axis=2) + math.log(gap_prior)  # (stacks, gap patterns)
    top = np.maximum(ll.max(axis=1, keepdims=True), gl.max(axis=1, keepdims=True))
    post = np.exp(ll - top)
    np.add.at(post.T, owner, np.exp(gl - top).T)
    post /= post.sum(axis=1, keepdims=True)
    return hyps, post


@functools.lru_cache(maxsize=64)
def gap_patterns(n_slots: int, cap: int, colours: tuple[Side, ...]) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """The first-row patterns with a gap a played game leaves on a point, one layer high: a lone checker
    at any position but the rail end, and 2..``n_slots``-1 checkers shifted one position from the rail
    (the rail-end position empty).  Returns each pattern's hypothesis (index into
    ``stack_hypotheses(n_slots, cap, colours)``) and its slot classes."""
    hyps, _ = stack_hypotheses(n_slots, cap, colours)
    index = {h: i for i, h in enumerate(hyps)}
    owner: list[int] = []
    rows: list[tuple[int, ...]] = []
    for colour in colours:
        one = 1 if colour is Side.WHITE else 4
        for j in range(1, n_slots):  # a lone checker at position j
            owner.append(index[(colour, 1)])
            rows.append(tuple(one if s == j else 0 for s in range(n_slots)))
        for n in range(2, n_slots):  # n checkers at positions 1..n
            owner.append(index[(colour, n)])
            rows.append(tuple(one if 1 <= s <= n else 0 for s in range(n_slots)))
    o, t = np.asarray(owner, np.intp), np.asarray(rows, np.intp)
    o.setflags(write=False)
    t.setflags(write=False)
    return o, t


def decode_stacks(ps: npt.NDArray[np.float64], colours: tuple[Side, ...],
                  hand_max: float = 0.3) -> list[tuple[int, int, float]]:
    """:func:`decode_stack` and the argmax doubt check of ``counts_from_slot_probs`` for many
    stacks with the same number of slots at once: ``ps`` is (stacks, slots, classes)."""
    hyps, post = stack_posteriors(ps, colours)
    return [(w, b, c) for w, b, c, _ in _decide_stacks(ps, hyps, post, hand_max)]


def _decide_stacks(ps: npt.NDArray[np.float64], hyps: tuple[tuple[Side, int], ...], post: npt.NDArray[np.float64],
                   hand_max: float, gaps: bool = False) -> list[tuple[int, int, float, bool]]:
    """(white, black, confidence, hand-like) per stack: the most likely hypothesis, its posterior as
    the confidence, 0 when a slot looks like a hand or the slots' own best classes mix colours or
    leave a gap (``gaps``: a gap other than :func:`gap_patterns`' - a lone checker, or a row shifted
    one position from the rail - with the rail-end slot's best class "empty", not a die)."""
    m = len(post)
    best = post.argmax(axis=1)
    conf = post[np.arange(m), best]
    am = ps.argmax(axis=2)
    handy = (ps[:, :, HAND].max(axis=1) >= hand_max) | (am == HAND).any(axis=1)
    ks = np.where(am == OBJECT, 0, am)
    white = ((ks >= 1) & (ks <= 3)).any(axis=1)
    black = ((ks >= 4) & (ks <= 6)).any(axis=1)
    occ = ks != 0
    gap = (occ[:, 1:] & ~occ[:, :-1]).any(axis=1)
    if gaps:  # a gap of gap_patterns' where the rail end is plainly empty (not a die that may hide a checker)
        rest = occ[:, 1:]
        shifted = ~(rest[:, 1:] & ~rest[:, :-1]).any(axis=1) | (occ.sum(axis=1) == 1)
        gap &= ~((am[:, 0] == 0) & shifted)
    doubt = handy | (white & black) | gap
    out = []
    for i in range(m):
        colour, n = hyps[int(best[i])]
        c = 0.0 if doubt[i] else float(conf[i])
        out.append((n, 0, c, bool(handy[i])) if colour is Side.WHITE else (0, n, c, bool(handy[i])))
    return out


def _alternatives(hyps: tuple[tuple[Side, int], ...], post: npt.NDArray[np.float64], scale: float = 1.0,
                  order: npt.NDArray[np.intp] | None = None) -> tuple[tuple[int, int, float], ...]:
    """The likeliest hypotheses after the best one, as ``(white, black, probability)``: at most
    ``ALTERNATIVES`` of them, each at least ``ALTERNATIVE_MIN`` (after multiplying by ``scale``).
    ``order``: the hypotheses after the best, likeliest first (computed here when None)."""
    if order is None:
        order = np.argsort(-post)[1 : ALTERNATIVES + 1]
    out = []
    for j in order.tolist():
        p = float(post[j]) * scale
        if p < ALTERNATIVE_MIN:
            break
        colour, n = hyps[j]
        out.append((n, 0, round(p, 6)) if colour is Side.WHITE else (0, n, round(p, 6)))
    return tuple(out)


@functools.lru_cache(maxsize=64)
def stack_hypotheses(n_slots: int, cap: int, colours: tuple[Side, ...]) -> tuple[tuple[tuple[Side, int], ...], npt.NDArray[np.intp]]:
    """Every distinguishable (colour, count) of one stack and the slot classes it implies.

    Counts run 0..15; counts whose slot patterns coincide (more than 3 layers) keep the smallest.
    """
    hyps: list[tuple[Side, int]] = []
    seen: list[tuple[int, ...]] = []
    for ci, colour in enumerate(colours):
        base = 1 if colour is Side.WHITE else 4
        for n in range(0 if ci == 0 else 1, CHECKERS + 1):
            cls = tuple(0 if (lay := slot_layers(n, k, cap)) == 0 else base + min(lay, 3) - 1 for k in range(n_slots))
            if cls in seen:
                continue
            hyps.append((colour, n))
            seen.append(cls)
    table = np.asarray(seen, np.intp)
    table.setflags(write=False)
    return tuple(hyps), table


def decode_stack(ps: npt.NDArray[np.float64], cap: int, colours: tuple[Side, ...],
                 hand_max: float = 0.3, object_hides: bool = True) -> tuple[int, int, float]:
    """Joint reading of one stack: (white, black, confidence) from its slots' probabilities.

    A stack fills its slots in order (``slot_layers``), so only a few slot patterns are possible:
    the count whose pattern has the highest likelihood (product over slots) wins, and its posterior
    (uniform prior over counts) is the confidence.  "object" (a die or the cube on an empty slot)
    is no evidence either way (``object_hides``: the cube in the middle can cover a bar checker, a
    die can rest on a checker, and the model then sees the object, not the checker), or counts
    as empty (``object_hides=False``).  Any slot that looks like a hand makes the confidence 0.
    """
    if len(ps) == 0:
        return 0, 0, 0.0
    hyps, post = stack_posteriors(ps[None], colours, 1.0 if object_hides else 0.0, cap)
    i = int(post[0].argmax())
    colour, n = hyps[i]
    conf = float(post[0, i])
    if float(ps[:, HAND].max()) >= hand_max or bool((ps.argmax(axis=1) == HAND).any()):
        conf = 0.0
    return (n, 0, conf) if colour is Side.WHITE else (0, n, conf)


def _argmax_doubt(ps: npt.NDArray[np.float64], side: Side | None) -> bool:
    """True when the slots' own best classes contradict any stack: colours mixed, a gap in the
    stack, or (bar) a checker of the other colour on ``side``'s half."""
    ks = [int(k) for k in ps.argmax(axis=1)]
    ks = [0 if k == OBJECT else k for k in ks]
    colours = {1 if 1 <= k <= 3 else 2 for k in ks if 1 <= k <= 6}
    if len(colours) > 1:
        return True
    if side is not None and colours and colours != {1 if side is Side.WHITE else 2}:
        return True
    occupied = [k != 0 for k in ks]
    return any(occupied[j + 1] and not occupied[j] for j in range(len(occupied) - 1))
