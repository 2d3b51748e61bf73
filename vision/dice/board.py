"""Dice on a calibrated board: find, read, and place them in board millimetres.

Stages (each a plain function):

1. ``die_candidates``: the profile-free finder run on the board's image area, with the die size in
   pixels known from the profile (no guessing of scale);
2. the face classifier (shared with ``bgref vision dice``) rejects what is not a die and reads faces;
3. ``top_face``: the top face's outline, mapped to board millimetres on the plane of a flat die's top;
4. ``flat_or_cocked``: a flat die's top face, in board mm, is a square of the die's edge; a cocked
   die's top face is tilted, so on that plane it is smaller or not square.  Inside the uncertainty band
   the answer is None ("unsure"), never a guess;
5. area and distance to the nearest boundary from the centre in board mm.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.config import VisionConfig
from vision.dice.classify import FaceClassifier, FaceGuess
from vision.dice.config import DiceConfig
from vision.dice.find import find_candidates, nms
from vision.observation import DieReading
from vision.preprocess import Square, to_gray

DICE = DiceConfig()


@dataclass(frozen=True, slots=True)
class BoardScale:
    """Pixels per millimetre on the board plane, smallest and largest over the board."""

    lo: float
    hi: float


def board_scale(profile: Any) -> BoardScale:
    s = profile.spec
    pts = []
    for x, y in ((0.1, 0.1), (0.9, 0.1), (0.9, 0.9), (0.1, 0.9), (0.5, 0.5)):
        X, Y = x * s.width_mm, y * s.depth_mm
        a = profile.board_to_image(np.array([[X, Y, 0.0], [X + 10, Y, 0.0], [X, Y + 10, 0.0]]))
        pts.append((float(np.linalg.norm(a[1] - a[0])) / 10, float(np.linalg.norm(a[2] - a[0])) / 10))
    v = [p for pair in pts for p in pair]
    return BoardScale(min(v), max(v))


def board_box(profile: Any, margin_mm: float = 30.0) -> tuple[int, int, int, int]:
    s = profile.spec
    c = np.array([[-margin_mm, -margin_mm], [s.width_mm + margin_mm, -margin_mm],
                  [s.width_mm + margin_mm, s.depth_mm + margin_mm], [-margin_mm, s.depth_mm + margin_mm]])
    img = profile.board_to_image(c)
    w, h = profile.image_size
    x0, y0 = np.floor(img.min(axis=0)).astype(int)
    x1, y1 = np.ceil(img.max(axis=0)).astype(int)
    x0, y0 = max(0, int(x0)), max(0, int(y0))
    x1, y1 = min(w, int(x1)), min(h, int(y1))
    return x0, y0, x1 - x0, y1 - y0


class DiceSearch:
    """Per-profile data of the die search: a top view of the board on the plane of a die's top
    (remap maps at ``PPM`` px/mm, a margin around the board included)."""

    PPM = 0.5
    """Top-view resolution of the search (px/mm): a die is ~8 px, enough for a die-sized contrast peak;
    the refinement re-centres the crop (0.5 vs 1.0: 51 vs 50 rendered dice right, 0 vs 1 false)."""
    MARGIN_MM = 30.0

    def __init__(self, profile: Any) -> None:
        s = profile.spec
        self.profile = profile
        dmin, dmax = s.die_size_mm
        self.z = (dmin + dmax) / 2
        m = self.MARGIN_MM
        w = int((s.width_mm + 2 * m) * self.PPM)
        h = int((s.depth_mm + 2 * m) * self.PPM)
        gx, gy = np.meshgrid(-m + (np.arange(w) + 0.5) / self.PPM, -m + (np.arange(h) + 0.5) / self.PPM)
        img = profile.board_to_image(np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, self.z)], axis=1))
        self.map_x = np.ascontiguousarray(img[:, 0].reshape(h, w).astype(np.float32))
        self.map_y = np.ascontiguousarray(img[:, 1].reshape(h, w).astype(np.float32))
        self.k_in = max(3, round(0.8 * dmin * self.PPM))
        self.k_out = max(self.k_in + 4, round(2.0 * dmax * self.PPM))
        self.scale = board_scale(profile)
        self.box = board_box(profile)

    @classmethod
    def for_profile(cls, profile: Any) -> DiceSearch:
        return cls(profile)

    def to_mm(self, u: float, v: float) -> tuple[float, float]:
        return (u + 0.5) / self.PPM - self.MARGIN_MM, (v + 0.5) / self.PPM - self.MARGIN_MM


def _square_contrast(plane: npt.NDArray[Any], k_in: int, k_out: int) -> npt.NDArray[np.float32]:
    f = plane.astype(np.float32)
    inner = cv2.blur(f, (k_in, k_in))
    outer = cv2.blur(f, (k_out, k_out))
    ring = (outer * (k_out * k_out) - inner * (k_in * k_in)) / (k_out * k_out - k_in * k_in)
    return np.abs(inner - ring)


def die_candidates(image: npt.NDArray[Any], profile: Any, config: VisionConfig,
                   search: DiceSearch | None = None, dcfg: DiceConfig = DICE) -> list[Square]:
    """Die-sized candidates on and around the board (image pixels).

    On a top view at the plane of a die's top a die is a square of known size, so candidates are
    the peaks of a die-sized square-contrast score (grey and the Lab a* plane, for red and green
    dice on brown or green boards), best first; the face model then rejects what is not a die.
    """
    search = search or DiceSearch(profile)
    top = cv2.remap(image, search.map_x, search.map_y, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
    planes = [to_gray(top)]
    if top.ndim == 3:
        planes.append(cv2.cvtColor(top, cv2.COLOR_BGR2Lab)[:, :, 1])
    score = _square_contrast(planes[0], search.k_in, search.k_out)
    for extra in planes[1:]:
        score = np.maximum(score, 2.0 * _square_contrast(extra, search.k_in, search.k_out))
    peaks = (score == cv2.dilate(score, np.ones((search.k_in, search.k_in), np.uint8))) & (score >= config.die_min_contrast)
    vs, us = np.nonzero(peaks)
    order = np.argsort(-score[vs, us])[: config.die_max_candidates]
    if len(order) == 0:
        return []
    mm = np.array([search.to_mm(float(us[i]), float(vs[i])) for i in order])
    dmin, dmax = profile.spec.die_size_mm
    half = (dmin + dmax) / 4
    z = search.z
    pts = np.concatenate([
        np.column_stack([mm, np.full(len(mm), z)]),
        np.column_stack([mm[:, 0] + half, mm[:, 1], np.full(len(mm), z)]),
        np.column_stack([mm[:, 0], mm[:, 1] + half, np.full(len(mm), z)]),
    ])
    img = profile.board_to_image(pts)
    n = len(mm)
    centre, ex, ey = img[:n], img[n : 2 * n], img[2 * n :]
    out = []
    for i in range(n):
        side_px = 2.0 * max(float(np.linalg.norm(ex[i] - centre[i])), float(np.linalg.norm(ey[i] - centre[i])))
        out.append(Square(float(centre[i, 0]), float(centre[i, 1]), side_px * dcfg.candidate_side, 0.0))
    return dedupe(out + blob_candidates(image, profile, config, search), dcfg.dedupe_distance)


def dedupe(cands: list[Square], distance: float) -> list[Square]:
    """Drop candidates whose centre lies within ``distance`` sides of an earlier one's (same die)."""
    kept: list[Square] = []
    for c in cands:
        if all(math.hypot(c.cx - k.cx, c.cy - k.cy) > distance * min(c.side, k.side) or
               not 0.8 < c.side / k.side < 1.25 for k in kept):
            kept.append(c)
    return kept


def blob_candidates(image: npt.NDArray[Any], profile: Any, config: VisionConfig, search: DiceSearch) -> list[Square]:
    """The profile-free finder's blobs on the board's image area, die-sized by the profile's scale."""
    sc = search.scale
    dmin, dmax = profile.spec.die_size_mm
    x0, y0, w, h = search.box
    crop = image[y0 : y0 + h, x0 : x0 + w]
    longer = max(w, h)
    cfg = config.replace(find_min_side_frac=0.7 * dmin * sc.lo / longer, find_max_side_frac=1.7 * dmax * sc.hi / longer)
    return [Square(c.cx + x0, c.cy + y0, c.side, c.angle) for c in find_candidates(crop, cfg)]


def refine(gray: npt.NDArray[Any], cands: list[Square], classifier: FaceClassifier,
           dcfg: DiceConfig = DICE) -> tuple[list[Square], list[FaceGuess]]:
    """Classify candidates; re-read the plausible ones on shifted/scaled crops (see :class:`DiceConfig`)."""
    first = classifier.classify(gray, [((c.cx, c.cy), c.side, c.angle) for c in cands], tta=dcfg.tta_first)
    todo = [i for i, g in enumerate(first) if g.not_die < dcfg.refine_max_notdie]
    rc, rg = _refine(gray, [cands[i] for i in todo], classifier, dcfg)
    outc, outg = list(cands), list(first)
    for i, c, g in zip(todo, rc, rg, strict=True):
        if g.not_die < dcfg.refined_max_notdie and g.not_die - 0.2 * g.probability < first[i].not_die - 0.2 * first[i].probability:
            outc[i], outg[i] = c, g
    return outc, outg


def _refine(gray: npt.NDArray[Any], cands: list[Square], classifier: FaceClassifier,
            dcfg: DiceConfig) -> tuple[list[Square], list[FaceGuess]]:
    offs, scales = dcfg.refine_offsets, dcfg.refine_scales
    variants: list[Square] = []
    for c in cands:
        for dx in offs:
            for dy in offs:
                for k in scales:
                    variants.append(Square(c.cx + dx * c.side, c.cy + dy * c.side, c.side * k, c.angle))
    g = classifier.classify(gray, [((v.cx, v.cy), v.side, v.angle) for v in variants], tta=False)
    m = len(offs) ** 2 * len(scales)
    outc: list[Square] = []
    outg: list[FaceGuess] = []
    for i in range(len(cands)):
        j = min(range(i * m, i * m + m), key=lambda k: g[k].not_die - 0.2 * g[k].probability)
        agree = [g[k] for k in range(i * m, i * m + m) if g[k].not_die < dcfg.vote_notdie]
        best = g[j]
        wsum = sum((1 - a.not_die) for a in agree)
        wbest = sum((1 - a.not_die) for a in agree if a.face == best.face)
        if (wsum > 0 and wbest / wsum < dcfg.vote_share) or best.probability < dcfg.refined_min_probability:
            best = FaceGuess(best.face, min(best.probability, 0.5), best.not_die)
        outc.append(variants[j])
        outg.append(best)
    return outc, outg


@dataclass(frozen=True, slots=True)
class TopFace:
    """The top face's outline on the plane of a flat die's top (board mm) and its measures."""

    center_mm: tuple[float, float]
    side_mm: float
    area_ratio: float
    """Measured area over the area of a flat top face of the same edge (1 for a flat die)."""
    squareness: float
    """0 for a perfect square; grows with unequal sides / skew."""
    angle_deg: float


def top_face(gray: npt.NDArray[Any], sq: Square, profile: Any, config: VisionConfig) -> TopFace | None:
    """Segment the die's top face around a candidate and measure it in board millimetres."""
    dmin, dmax = profile.spec.die_size_mm
    z = (dmin + dmax) / 2
    c = profile.image_to_board(np.array([[sq.cx, sq.cy]]), z_mm=z)[0]
    ppm = 3.0
    span = 2.4 * dmax
    n = int(span * ppm)
    g = (np.arange(n) + 0.5) / ppm - span / 2
    gx, gy = np.meshgrid(g + c[0], g + c[1])
    pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)
    img = profile.board_to_image(pts).astype(np.float32)
    patch = cv2.remap(gray, img[:, 0].reshape(n, n), img[:, 1].reshape(n, n), cv2.INTER_LINEAR,
                      borderMode=cv2.BORDER_REPLICATE)
    centre = patch[n // 2 - n // 10 : n // 2 + n // 10, n // 2 - n // 10 : n // 2 + n // 10]
    ring = np.concatenate([patch[0], patch[-1], patch[:, 0], patch[:, -1]])
    face_level = float(np.median(centre))
    bg_level = float(np.median(ring))
    if abs(face_level - bg_level) < 12:
        return None
    thr = (face_level + bg_level) / 2
    mask = (patch > thr) if face_level > bg_level else (patch < thr)
    mask8: Any = mask.astype(np.uint8) * 255
    k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(dmin * ppm * 0.35) | 1,) * 2)
    mask8 = cv2.morphologyEx(mask8, cv2.MORPH_CLOSE, k)
    contours, _ = cv2.findContours(mask8, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    best = None
    for cnt in contours:
        near = cv2.pointPolygonTest(cnt, (n / 2, n / 2), True) > -ppm * 2
        if near and (best is None or cv2.contourArea(cnt) > cv2.contourArea(best)):
            best = cnt
    if best is None:
        return None
    (rx, ry), (rw, rh), ang = cv2.minAreaRect(best)
    if rw < 2 or rh < 2:
        return None
    side = math.sqrt(rw * rh) / ppm
    area = cv2.contourArea(best) / ppm**2
    squareness = abs(rw - rh) / max(rw, rh)
    ratio = area / max(side**2, 1e-6)
    cx = c[0] + (rx + 0.5 - n / 2) / ppm
    cy = c[1] + (ry + 0.5 - n / 2) / ppm
    return TopFace((float(cx), float(cy)), float(side), float(ratio), float(squareness), float(ang % 90))


def flat_or_cocked(face: TopFace | None, profile: Any, config: VisionConfig) -> tuple[bool | None, float]:
    """(cocked, confidence) from the top face's geometry in board mm.

    A clean square of the die's edge on the plane of a flat die's top means flat.  Anything else is
    reported as None ("unsure"), never as cocked: the outline segmentation cannot yet tell a tilted
    top face from a side face of similar colour, and a false "cocked" would void a legal roll.
    """
    if face is None:
        return None, 0.0
    dmin, dmax = profile.spec.die_size_mm
    ok_size = 0.85 * dmin <= face.side_mm <= 1.15 * dmax
    ok_shape = face.squareness <= config.cocked_squareness and face.area_ratio >= config.cocked_area_ratio
    if ok_size and ok_shape:
        return False, 0.9
    return None, 0.5


def read_dice(
    image: npt.NDArray[Any], profile: Any, classifier: FaceClassifier, config: VisionConfig,
    search: DiceSearch | None = None, dcfg: DiceConfig = DICE,
) -> tuple[DieReading, ...]:
    """Every die on (or just off) the board, as :class:`DieReading` values (``image``: BGR frame)."""
    gray = to_gray(image)
    cands = die_candidates(image, profile, config, search, dcfg)
    cands, guesses = refine(gray, cands, classifier, dcfg)
    keep = [i for i, g in enumerate(guesses) if g.not_die < config.notdie_max_prob]
    scores = [(1 - guesses[i].not_die) * guesses[i].probability for i in keep]
    kept = [keep[j] for j in nms([cands[i] for i in keep], scores, config.find_nms_iou)]
    layout = profile.layout
    out: list[DieReading] = []
    for i in kept:
        c, g = cands[i], guesses[i]
        tf = top_face(gray, c, profile, config)
        cocked, cconf = flat_or_cocked(tf, profile, config)
        if tf is not None:
            x, y = tf.center_mm
        else:
            dmin, dmax = profile.spec.die_size_mm
            x, y = (float(v) for v in profile.image_to_board(np.array([[c.cx, c.cy]]), z_mm=(dmin + dmax) / 2)[0])
        face = g.face if g.probability >= config.face_min_confidence else None
        out.append(DieReading(
            face=face, face_confidence=round(g.probability, 4), cocked=cocked, cocked_confidence=round(cconf, 4),
            area=layout.area_of(x, y), boundary_mm=round(float(layout.distance_to_boundary_mm(x, y)), 2),
            center_mm=(round(x, 2), round(y, 2)), image_box=c.box(),
        ))
    return tuple(sorted(out, key=lambda d: d.center_mm))
