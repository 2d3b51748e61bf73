"""Dice on a calibrated board: find, read, and place them in board millimetres.

Stages (each a plain function):

1. detection: peaks of the learned detector on the top view at die height
   (:mod:`vision.dice.detect`), as board points on the plane of a flat die's top;
2. ``read_top_faces`` (:mod:`vision.dice.faceread`): each peak's up face rectified on that plane (:mod:`vision.dice.topface`,
   ``die_face_top.onnx``): the face model rejects what is not a die and reads the face, re-reading
   a plausible candidate on a 3 x 3 grid of shifted squares (the face is unsure unless they agree);
   without that model, ``die_candidates`` + ``refine`` read oblique image squares with
   ``die_face_board.onnx`` (the previous reader);
3. one die, one reading: a reading on the line toward the camera within ~1.4 edges of another is
   that die's side face (``side_face_readings``), and readings closer than an edge are one die;
   a face the pose model doubts is flat is unsure when one edge farther from the camera another
   face reads as a die nobody read (``unread_tops``: the side face of a die whose top was missed);
4. ``pose_of``: flat / cocked / on the other die from the top face's geometry in board coordinates
   (:mod:`vision.dice.pose`: the image rectified on the planes z = edge and z = 2 edges); inside the
   uncertainty band the answer is None ("unsure"), never a guess; a die left unsure that the model
   finds likely leaning (``likely_leaning``) has no face, as a die called leaning has none;
5. area and distance to the nearest boundary from the centre in board mm; owner by body colour.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import Side
from vision.config import VisionConfig
from vision.dice.classify import FaceClassifier, FaceGuess, board_classifier, top_classifier
from vision.dice.config import DiceConfig
from vision.dice.detect import STRIDE, cell_centre, centre_refiner, detector, top_view
from vision.dice.faceread import choose, face_needed, read_top_faces
from vision.dice.find import nms
from vision.dice.pose import PoseGuess, pose_call, pose_classifier
from vision.dice.topface import top_face_patches
from vision.observation import DieReading
from vision.preprocess import Square, crop_patch, to_gray

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
        self.fixed_maps = cv2.convertMaps(self.map_x, self.map_y, cv2.CV_16SC2)
        """The same maps in OpenCV's fixed-point form (remap ~25 % faster; at most 2 grey levels apart)."""
        self.k_in = max(3, round(0.8 * dmin * self.PPM))
        self.k_out = max(self.k_in + 4, round(2.0 * dmax * self.PPM))
        self.scale = board_scale(profile)
        self.box = board_box(profile)
        rot, _ = cv2.Rodrigues(np.asarray(profile.rvec, np.float64).reshape(3, 1))
        cam = -rot.T @ np.asarray(profile.tvec, np.float64).reshape(3)
        self.camera_xy = (float(cam[0]), float(cam[1]))
        """The camera's foot on the board plane (board mm): the side faces a die shows lie toward it."""

    @classmethod
    def for_profile(cls, profile: Any) -> DiceSearch:
        return cls(profile)

    def to_mm(self, u: float, v: float) -> tuple[float, float]:
        return (u + 0.5) / self.PPM - self.MARGIN_MM, (v + 0.5) / self.PPM - self.MARGIN_MM


def die_candidates(image: npt.NDArray[Any], profile: Any, config: VisionConfig,
                   search: DiceSearch | None = None, dcfg: DiceConfig = DICE) -> list[Square]:
    """Die-sized candidates on and around the board (image pixels), best first."""
    return [c for c, _ in scored_candidates(image, profile, search, dcfg)]


def scored_candidates(image: npt.NDArray[Any], profile: Any, search: DiceSearch | None = None,
                      dcfg: DiceConfig = DICE) -> list[tuple[Square, float]]:
    """Candidates and their detector scores.

    On the top view at the plane of a die's top a die is a small square of known size wherever the
    camera is; the learned detector (:mod:`vision.dice.detect`) scores each 8 mm cell and regresses
    the die's centre.  Each peak becomes an image square of the die's projected edge at die height,
    so the face classifier sees what it was trained on.
    """
    search = search or DiceSearch(profile)
    top = top_view(image, search.map_x, search.map_y)
    peaks = detector().peaks(top, dcfg.detect_min_score, dcfg.detect_max_peaks, centroid=dcfg.detect_centroid)
    if not peaks:
        return []
    mm = np.array([search.to_mm(p.u, p.v) for p in peaks])
    return list(zip(squares_at(profile, mm, search.z, dcfg.candidate_side), [p.score for p in peaks], strict=True))


def squares_at(profile: Any, mm: npt.NDArray[Any], z: float, side: float = 1.0) -> list[Square]:
    """Image squares of a die's projected edge (times ``side``) centred on board points at height ``z``."""
    dmin, dmax = profile.spec.die_size_mm
    half = (dmin + dmax) / 4
    n = len(mm)
    zz = np.full(n, z)
    pts = np.concatenate([
        np.column_stack([mm[:, 0], mm[:, 1], zz]),
        np.column_stack([mm[:, 0] + half, mm[:, 1], zz]),
        np.column_stack([mm[:, 0], mm[:, 1] + half, zz]),
    ])
    img = profile.board_to_image(pts)
    centre, ex, ey = img[:n], img[n : 2 * n], img[2 * n :]
    out = []
    for i in range(n):
        side_px = 2.0 * max(float(np.linalg.norm(ex[i] - centre[i])), float(np.linalg.norm(ey[i] - centre[i])))
        out.append(Square(float(centre[i, 0]), float(centre[i, 1]), side_px * side, 0.0))
    return out


def dedupe(cands: list[Square], distance: float) -> list[Square]:
    """Drop candidates whose centre lies within ``distance`` sides of an earlier one's (same die)."""
    kept: list[Square] = []
    for c in cands:
        if all(math.hypot(c.cx - k.cx, c.cy - k.cy) > distance * min(c.side, k.side) or
               not 0.8 < c.side / k.side < 1.25 for k in kept):
            kept.append(c)
    return kept


def refine(gray: npt.NDArray[Any], cands: list[Square], classifier: FaceClassifier,
           dcfg: DiceConfig = DICE) -> tuple[list[Square], list[FaceGuess]]:
    """Classify candidates; re-read the plausible ones on shifted/scaled crops (see :class:`DiceConfig`)."""
    first = classifier.classify(gray, [((c.cx, c.cy), c.side, c.angle) for c in cands], tta=dcfg.tta_first)
    todo = [i for i, g in enumerate(first) if g.not_die < dcfg.refine_max_notdie]
    rc, rg = _refine(gray, [cands[i] for i in todo], classifier, dcfg)
    outc, outg = list(cands), list(first)
    for i, c, g in zip(todo, rc, rg, strict=True):
        if g.not_die < dcfg.refined_max_notdie and g.doubt < first[i].doubt:
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
        j, best = choose(g[i * m : i * m + m], dcfg.vote_notdie, dcfg.vote_share, dcfg.refined_min_probability)
        outc.append(variants[i * m + j])
        outg.append(best)
    return outc, outg


def side_face_readings(mm: npt.NDArray[Any], camera_xy: tuple[float, float], edge: float,
                       dcfg: DiceConfig = DICE, faces: list[FaceGuess] | None = None,
                       yields: frozenset[int] = frozenset()) -> set[int]:
    """Readings that are another die's side face: of two readings closer than
    ``DiceConfig.side_face_edges`` die edges whose line points at the camera's foot (within
    ``side_face_angle_deg``), the one nearer the camera.  Rectified on the plane of the top, the side
    face a die shows the camera lies between the die and the camera; read on its own it would be a
    false die with the side's number.  With the readings' ``faces``, two faces both read at
    ``side_face_min_pair_probability`` that are the same or opposite (a die's sides are neither)
    are two dice.  Of a pair with one reading in ``yields`` (the near look's), that one is dropped."""
    out: set[int] = set()
    cos_max = math.cos(math.radians(dcfg.side_face_angle_deg))
    cx, cy = camera_xy
    for a in range(len(mm)):
        for b in range(a + 1, len(mm)):
            dx, dy = float(mm[b, 0] - mm[a, 0]), float(mm[b, 1] - mm[a, 1])
            dist = math.hypot(dx, dy)
            if dist >= dcfg.side_face_edges * edge or dist == 0.0:
                continue
            mx, my = (mm[a, 0] + mm[b, 0]) / 2, (mm[a, 1] + mm[b, 1]) / 2
            tx, ty = cx - mx, cy - my
            tn = math.hypot(tx, ty)
            if tn == 0.0:
                continue
            cos = (dx * tx + dy * ty) / (dist * tn)
            if faces is not None and _not_a_side(faces[a], faces[b], dcfg):
                continue
            if abs(cos) >= cos_max and (a in yields) != (b in yields):
                out.add(a if a in yields else b)
            elif cos >= cos_max:
                out.add(b)  # b lies toward the camera from a
            elif cos <= -cos_max:
                out.add(a)
    return out


def _not_a_side(a: FaceGuess, b: FaceGuess, dcfg: DiceConfig) -> bool:
    """Two readings, both sure (``side_face_min_pair_probability``), of the same face or of opposite
    faces: neither can be the other's side face."""
    sure = min(a.probability, b.probability) >= dcfg.side_face_min_pair_probability
    return sure and (a.face == b.face or a.face + b.face == 7)


def unread_tops(gray: npt.NDArray[np.uint8], profile: Any, mm: npt.NDArray[Any], camera_xy: tuple[float, float],
                z: float, guesses: list[FaceGuess], model: FaceClassifier, which: list[int],
                dcfg: DiceConfig = DICE) -> set[int]:
    """Of the readings ``which`` (board mm ``mm``, their ``guesses``), those that are the side face of
    a die whose top was not read: the point ``DiceConfig.side_face_away_edges`` die edges (``z``)
    farther from the camera's foot reads as a die (P(not a die) below ``side_face_away_max_notdie``; with
    another face unless ``side_face_away_any_face``), and no reading lies within ``same_die_edges`` of it (a die touching another behind
    it is not doubted: that one is read).  :func:`side_face_readings` drops a side face when its top
    is read too; this catches the side read alone."""
    if dcfg.side_face_away_edges <= 0 or not which:
        return set()
    cx, cy = camera_xy
    d = mm[:, :2] - np.array([cx, cy])
    n = np.linalg.norm(d, axis=1, keepdims=True)
    away = mm[:, :2] + dcfg.side_face_away_edges * z * d / np.maximum(n, 1e-9)
    free = [i for i in which if np.linalg.norm(mm[:, :2] - away[i], axis=1).min() >= dcfg.same_die_edges * z]
    if not free:
        return set()
    g = first_readings(gray, profile, away[free], z, model)
    return {i for i, a in zip(free, g, strict=True)
            if a.not_die < dcfg.side_face_away_max_notdie and (dcfg.side_face_away_any_face or a.face != guesses[i].face)}


def pose_of(gray: npt.NDArray[Any], profile: Any, centres: list[tuple[float, float]],
            dcfg: DiceConfig = DICE) -> list[tuple[bool | None, float, bool, float]]:
    """(cocked, confidence, on the other die, P(flat)) per die centre (board mm), from the top face's
    geometry in board coordinates (:mod:`vision.dice.pose`, its calls by ``pose.pose_call``).  Between
    the thresholds of :class:`DiceConfig` the answer is None ("unsure"), never a guess: a false
    "cocked" voids a legal roll, a false "flat" lets a cocked die stand."""
    return pose_calls(pose_guesses(gray, profile, centres), len(centres), dcfg)


def pose_calls(guesses: list[PoseGuess] | None, n: int, dcfg: DiceConfig = DICE) -> list[tuple[bool | None, float, bool, float]]:
    """:func:`vision.dice.pose.pose_call` of each of :func:`pose_guesses`' ``guesses`` (``n`` unsure
    calls when there are none)."""
    return [(None, 0.0, False, 0.0)] * n if guesses is None else [pose_call(g, dcfg) for g in guesses]


def pose_guesses(gray: npt.NDArray[Any], profile: Any, centres: list[tuple[float, float]]) -> list[PoseGuess] | None:
    """The pose model's probabilities per die centre (board mm; :func:`pose_of` calls them), None
    without the model or centres."""
    model = pose_classifier()
    if model is None or not centres:
        return None
    dmin, dmax = profile.spec.die_size_mm
    return model.classify_at(gray, profile, centres, (dmin + dmax) / 2)  # with its centre check


def likely_leaning(guess: PoseGuess, dcfg: DiceConfig = DICE) -> bool:
    """A die the pose model did not call cocked but finds likely leaning: P(leaning) at least
    ``DiceConfig.likely_leaning_min_probability`` with a face-check P(flat) below
    ``likely_leaning_max_flat``.  Its face is unsure, as a leaning die's is: the crop it was read on
    shows a side face almost as much as its top."""
    return guess.cocked >= dcfg.likely_leaning_min_probability and guess.face_flat < dcfg.likely_leaning_max_flat


def die_colour(image: npt.NDArray[Any], sq: Square) -> tuple[float, float, float]:
    """The die body's colour (CIE Lab, OpenCV 8-bit scale): the median of the central part of its
    square, which the pips (at most a third of it) do not move much."""
    if image.ndim == 2:
        v = float(np.median(crop_patch(image, (sq.cx, sq.cy), sq.side * 0.6, context=1.0)))
        return (v, 128.0, 128.0)
    h = max(2.0, sq.side * 0.3)
    x0, x1 = max(0, int(sq.cx - h)), min(image.shape[1], int(sq.cx + h) + 1)
    y0, y1 = max(0, int(sq.cy - h)), min(image.shape[0], int(sq.cy + h) + 1)
    roi = image[y0:y1, x0:x1]
    if roi.size == 0:
        return (0.0, 128.0, 128.0)
    lab = cv2.cvtColor(np.ascontiguousarray(roi), cv2.COLOR_BGR2Lab).reshape(-1, 3).astype(np.float32)
    m = np.median(lab, axis=0)
    return (float(m[0]), float(m[1]), float(m[2]))


def owner_of(colour: tuple[float, float, float], dcfg: DiceConfig = DICE) -> Side | None:
    """Whose die this is, by body colour, when the two pairs differ in colour (``DiceConfig``
    ``white_dice_bgr`` / ``black_dice_bgr`` set); None when not configured or not clearly nearer one
    pair's colour than the other's."""
    if dcfg.white_dice_bgr is None or dcfg.black_dice_bgr is None:
        return None
    ref = cv2.cvtColor(np.array([[dcfg.white_dice_bgr, dcfg.black_dice_bgr]], np.uint8), cv2.COLOR_BGR2Lab)[0].astype(np.float32)
    c = np.array(colour, np.float32)
    dw, db = (float(np.linalg.norm(c - r)) for r in ref)
    if float(np.linalg.norm(ref[0] - ref[1])) < dcfg.owner_min_separation:
        return None
    if dw * dcfg.owner_margin <= db:
        return Side.WHITE
    if db * dcfg.owner_margin <= dw:
        return Side.BLACK
    return None


def refine_centres(gray: npt.NDArray[np.uint8], profile: Any, mm: npt.NDArray[Any],
                   z: float, dcfg: DiceConfig = DICE) -> npt.NDArray[np.float64]:
    """The detector's centres (board mm) moved by the centre model (:class:`vision.dice.detect.CentreRefiner`)
    onto the die its window shows (the best ``centre_peaks`` of them, in the detector's order),
    ``centre_passes`` times (each pass from the last one's window); a
    centre whose total move would exceed ``centre_max_move_edges`` die edges stays where the detector
    put it (its window shows no die near its middle).  Without the model, the centres unchanged."""
    model = centre_refiner()
    start = np.asarray(mm, np.float64)
    if model is None or not len(start) or dcfg.centre_passes <= 0:
        return start
    n = min(len(start), dcfg.centre_peaks)
    cur = start[:n, :2].copy()
    for _ in range(dcfg.centre_passes):
        cur = cur + model.offsets(gray, profile, cur, z)
    out = start.copy()
    ok = np.linalg.norm(cur - start[:n, :2], axis=1) <= dcfg.centre_max_move_edges * z
    out[np.flatnonzero(ok), :2] = cur[ok]
    return out


def first_readings(gray: npt.NDArray[np.uint8], profile: Any, centres: npt.NDArray[Any], z: float,
                   model: FaceClassifier) -> list[FaceGuess]:
    """One reading per centre (board mm) of its rectified up face, the square unmoved and in one
    orientation (the first reading of :func:`vision.dice.faceread.read_top_faces`)."""
    c = np.asarray(centres, np.float64).reshape(-1, 2)
    return model.classify_patches(top_face_patches(gray, profile, c, z, z), tta=False) if len(c) else []


def recentre(gray: npt.NDArray[np.uint8], profile: Any, mm: npt.NDArray[Any],
             guesses: list[FaceGuess], z: float, model: FaceClassifier,
             dcfg: DiceConfig = DICE) -> tuple[npt.NDArray[np.float64], list[FaceGuess]]:
    """Candidates the up-face reading rejects, but not outright (``DiceConfig.recentre_*``), read
    again at centres moved by ``recentre_edges`` die edges in 8 directions: each moved centre once
    (:func:`first_readings`), then the ``recentre_climbers`` most die-like of them that the up-face
    reading would re-read (P(not a die) below ``top_refine_max_notdie``) in full
    (:func:`vision.dice.faceread.read_top_faces`: the shifted grids and the 8-turn check); the most
    die-like full reading replaces the candidate's when it is surely a die (P(not a die) below
    ``recentre_moved_max_notdie`` and ``top_notdie_max``) with a face that stands
    (``top_min_probability``).  Returns the (maybe moved) centres and the readings."""
    todo = [i for i, g in enumerate(guesses) if dcfg.top_notdie_max <= g.not_die < dcfg.recentre_max_notdie]
    if not todo:
        return mm, guesses
    d = dcfg.recentre_edges * z
    dirs = np.array([(dx, dy) for dx in (-1.0, 0.0, 1.0) for dy in (-1.0, 0.0, 1.0) if dx or dy])
    dirs /= np.linalg.norm(dirs, axis=1)[:, None]
    alt = np.concatenate([mm[i, :2][None, :] + d * dirs for i in todo])
    k = len(dirs)
    ag = first_readings(gray, profile, alt, z, model)
    climb: list[int] = []  # the moved centres read in full, per candidate the most die-like first
    for n in range(len(todo)):
        cand = sorted((a for a in range(n * k, n * k + k) if ag[a].not_die < dcfg.top_refine_max_notdie),
                      key=lambda a: ag[a].doubt)
        climb.extend(cand[: dcfg.recentre_climbers] if dcfg.recentre_climbers > 0 else cand)
    out_mm, out_g = mm.copy(), list(guesses)
    if not climb:
        return out_mm, out_g
    cmm, cg = read_top_faces(gray, profile, alt[climb], z, model, dcfg)
    best: dict[int, int] = {}
    for m, a in enumerate(climb):
        n = a // k
        if n not in best or cg[m].doubt < cg[best[n]].doubt:
            best[n] = m
    for n, m in best.items():
        if cg[m].not_die < min(dcfg.top_notdie_max, dcfg.recentre_moved_max_notdie) and cg[m].probability >= dcfg.top_min_probability:
            out_mm[todo[n], :2], out_g[todo[n]] = cmm[m, :2], cg[m]
    return out_mm, out_g


def _read_candidates(gray: npt.NDArray[np.uint8], profile: Any, mm: npt.NDArray[Any], z: float,
                     model: FaceClassifier, dcfg: DiceConfig) -> tuple[npt.NDArray[np.float64], list[FaceGuess]]:
    """Detector centres (board mm) moved by the centre model and read on their up faces."""
    if not len(mm):
        return np.zeros((0, 2)), []
    if dcfg.centre_passes > 0:
        mm = refine_centres(gray, profile, mm, z, dcfg)
    return read_top_faces(gray, profile, mm, z, model, dcfg)


def second_look(gray: npt.NDArray[np.uint8], profile: Any, mm: npt.NDArray[Any], z: float,
                model: FaceClassifier, dcfg: DiceConfig = DICE) -> tuple[npt.NDArray[np.float64], list[FaceGuess]]:
    """The detector peaks the first look did not read (board mm, best first), read the same way
    (:func:`_read_candidates`), when the first look found fewer than ``DiceConfig.second_look_below``
    dice: those surely a die (P(not a die) below ``second_look_max_notdie``) with a face read at
    ``second_look_min_probability`` (their centres and readings); most such peaks are board texture,
    so the bar is higher than :func:`is_found`'s."""
    return _sure_dice(gray, profile, mm, z, model, dcfg, dcfg.second_look_max_notdie, dcfg.second_look_min_probability)


def _sure_dice(gray: npt.NDArray[np.uint8], profile: Any, mm: npt.NDArray[Any], z: float, model: FaceClassifier,
               dcfg: DiceConfig, max_notdie: float, min_probability: float) -> tuple[npt.NDArray[np.float64], list[FaceGuess]]:
    """Candidate points (board mm) read at their first readings, those that pass
    ``second_look_first_max_notdie`` read again as :func:`_read_candidates` reads them, and kept when surely a
    die (P(not a die) below ``max_notdie``) with a face read at ``min_probability``: their centres and readings."""
    if not len(mm):
        return np.zeros((0, 2)), []
    g0 = first_readings(gray, profile, mm, z, model)
    mm = np.asarray(mm)[[i for i, r in enumerate(g0) if r.not_die < dcfg.second_look_first_max_notdie]]
    cmm, g = _read_candidates(gray, profile, mm, z, model, dcfg)
    ok = [i for i, r in enumerate(g) if r.not_die < max_notdie and r.probability >= min_probability]
    return cmm[ok], [g[i] for i in ok]


def near_cells(heat: npt.NDArray[np.float32], search: DiceSearch, found: npt.NDArray[Any],
               read: npt.NDArray[Any], dcfg: DiceConfig = DICE) -> npt.NDArray[np.float64]:
    """Board points (mm) of the near look (``DiceConfig.near_look_edges``): beside each found die
    (``found``, board mm) the detector's best cell (its regressed centre) between the two distances,
    at ``near_look_min_score`` or more, farther than ``same_die_edges`` from every point already
    read (``read``) and from every other found die; one per found die, none twice."""
    r0, r1 = (e * search.z for e in dcfg.near_look_edges)
    s = heat[0]
    cell = STRIDE / search.PPM  # mm
    xs = (np.arange(s.shape[1]) + 0.5) * cell - search.MARGIN_MM
    ys = (np.arange(s.shape[0]) + 0.5) * cell - search.MARGIN_MM
    near = dcfg.same_die_edges * search.z
    avoid = np.concatenate([np.asarray(read, np.float64).reshape(-1, 2)[:, :2], np.asarray(found, np.float64)[:, :2]])
    out: list[tuple[float, float]] = []
    for x, y in np.asarray(found, np.float64)[:, :2]:
        u0, u1 = max(0, int((x - r1 + search.MARGIN_MM) // cell)), min(s.shape[1], int((x + r1 + search.MARGIN_MM) // cell) + 1)
        v0, v1 = max(0, int((y - r1 + search.MARGIN_MM) // cell)), min(s.shape[0], int((y + r1 + search.MARGIN_MM) // cell) + 1)
        if u0 >= u1 or v0 >= v1:
            continue
        gx, gy = np.meshgrid(xs[u0:u1], ys[v0:v1])
        d = np.hypot(gx - x, gy - y)
        sc = np.where((d >= r0) & (d <= r1), s[v0:v1, u0:u1], -1.0)
        for k in np.argsort(-sc, axis=None):
            if sc.flat[k] < dcfg.near_look_min_score:
                break
            v, u = divmod(int(k), u1 - u0)
            v, u = v + v0, u + u0
            p = search.to_mm(*cell_centre(heat, v, u))
            taken = np.concatenate([avoid, np.array(out).reshape(-1, 2)])
            if np.hypot(taken[:, 0] - p[0], taken[:, 1] - p[1]).min() >= near:
                out.append(p)
                break
    return np.array(out, np.float64).reshape(-1, 2)


def near_look(gray: npt.NDArray[np.uint8], profile: Any, cells: npt.NDArray[Any], z: float,
              model: FaceClassifier, dcfg: DiceConfig = DICE) -> tuple[npt.NDArray[np.float64], list[FaceGuess]]:
    """The points :func:`near_cells` gave, read as :func:`second_look` reads its peaks: kept when
    surely a die (``near_look_max_notdie``) with a face at ``near_look_min_probability``."""
    return _sure_dice(gray, profile, cells, z, model, dcfg, dcfg.near_look_max_notdie, dcfg.near_look_min_probability)


def is_found(g: FaceGuess, dcfg: DiceConfig = DICE) -> bool:
    """A rectified up-face reading is a die: P(not a die) below ``top_notdie_max``, or below
    ``sure_face_max_notdie`` with a face that stands at ``sure_face_min_probability`` (a die the face
    model half doubts, defocused or beside a checker, is found only when its face is read surely)."""
    if g.not_die < dcfg.top_notdie_max:
        return True
    return g.not_die < dcfg.sure_face_max_notdie and g.probability >= dcfg.sure_face_min_probability


def read_dice(
    image: npt.NDArray[Any], profile: Any, classifier: FaceClassifier, config: VisionConfig,
    search: DiceSearch | None = None, dcfg: DiceConfig = DICE,
) -> tuple[DieReading, ...]:
    """Every die on (or just off) the board, as :class:`DieReading` values (``image``: BGR frame)."""
    search = search or DiceSearch(profile)
    top_model = top_classifier(classifier)
    near: frozenset[int] = frozenset()  # the near look's readings (positions in ``kept``)
    if top_model is not None:
        top = top_view(image, *search.fixed_maps)
        look_below = max(dcfg.second_look_below, dcfg.second_look_found_below)  # (0: no second look)
        look = look_below > 0
        heat = detector().heat(top)
        peaks = detector().peaks_in(heat, min(dcfg.detect_min_score, dcfg.second_look_min_score) if look else dcfg.detect_min_score,
                                    max(dcfg.detect_max_peaks, dcfg.second_look_peaks) if look else dcfg.detect_max_peaks,
                                    centroid=dcfg.detect_centroid)
        first = [i < dcfg.detect_max_peaks and p.score >= dcfg.detect_min_score for i, p in enumerate(peaks)]
        if not peaks:
            return ()
        allmm = np.array([search.to_mm(p.u, p.v) for p in peaks])
        gray = to_gray(image)
        mm, guesses = _read_candidates(gray, profile, allmm[first], search.z, top_model, dcfg)
        if dcfg.recentre_edges > 0:
            mm, guesses = recentre(gray, profile, mm, guesses, search.z, top_model, dcfg)
        kept = [i for i, g in enumerate(guesses) if is_found(g, dcfg)]
        scores = [(1 - guesses[i].not_die) * guesses[i].probability for i in kept]
        if len(kept) < look_below and not all(first):
            reads = dcfg.second_look_max_reads if len(kept) < dcfg.second_look_below else dcfg.second_look_found_reads
            lmm, lg = second_look(gray, profile, allmm[[not f for f in first]][:reads], search.z, top_model, dcfg)
            kept += range(len(guesses), len(guesses) + len(lg))
            scores += [(1 - g.not_die) * g.probability - 1.0 for g in lg]  # after every first reading
            mm, guesses = np.concatenate([mm, lmm]), guesses + lg
        if dcfg.near_look_edges[1] > 0 and kept:
            cells = near_cells(heat, search, mm[kept], np.concatenate([allmm[first], mm]), dcfg)
            nmm, ng = near_look(gray, profile, cells, search.z, top_model, dcfg)
            if dcfg.near_look_yields:
                near = frozenset(range(len(kept), len(kept) + len(ng)))
            kept += range(len(guesses), len(guesses) + len(ng))
            scores += [(1 - g.not_die) * g.probability - 2.0 for g in ng]  # after every other reading
            mm, guesses = np.concatenate([mm, nmm]), guesses + ng
        mm = mm[kept]
    else:
        gray = to_gray(image)
        classifier = board_classifier(classifier)
        cands = die_candidates(image, profile, config, search, dcfg)
        cands, guesses = refine(gray, cands, classifier, dcfg)
        keep = [i for i, g in enumerate(guesses) if g.not_die < dcfg.board_notdie_max]
        nms_scores = [(1 - guesses[i].not_die) * guesses[i].probability for i in keep]
        kept = [keep[j] for j in nms([cands[i] for i in keep], nms_scores, config.find_nms_iou)]
        scores = [nms_scores[keep.index(i)] for i in kept]
        if kept:
            mm = profile.image_to_board(np.array([[cands[i].cx, cands[i].cy] for i in kept]), z_mm=search.z)
    if not kept:
        return ()
    layout = profile.layout
    # one die read twice (its top and a side face, or two crops): keep the better reading
    edge = search.z
    side = side_face_readings(mm[:, :2], search.camera_xy, edge, dcfg, [guesses[i] for i in kept], near)
    order = sorted((j for j in range(len(kept)) if j not in side), key=lambda j: -scores[j])
    chosen: list[int] = []
    for j in order:
        if all(math.hypot(mm[j, 0] - mm[k, 0], mm[j, 1] - mm[k, 1]) >= dcfg.same_die_edges * edge for k in chosen):
            chosen.append(j)
    chosen.sort()
    kept = [kept[j] for j in chosen]
    mm = mm[chosen]
    centres = [(float(x), float(y)) for x, y in mm[:, :2]]
    pg = pose_guesses(gray, profile, centres)
    poses = pose_calls(pg, len(centres), dcfg)
    doubt = set() if pg is None else {j for j, p in enumerate(pg) if likely_leaning(p, dcfg)}
    # a face standing on a reading the pose model doubts is flat, or below the call bar, may be a side face read alone
    doubted = [j for j, (i, p) in enumerate(zip(kept, poses, strict=True))
               if (p[3] < 0.5 or guesses[i].probability < dcfg.side_face_check_below)
               and guesses[i].probability >= face_needed(p[3], config, dcfg)]
    sides = unread_tops(gray, profile, mm, search.camera_xy, edge, [guesses[i] for i in kept], top_model,
                        doubted, dcfg) if top_model is not None else set()
    out: list[DieReading] = []
    if top_model is not None:  # image squares of the dice read (boxes, body colour)
        cands = [Square(0, 0, 0)] * len(guesses)
        for i, sq in zip(kept, squares_at(profile, mm, search.z), strict=True):
            cands[i] = sq
    for j, (i, (x, y), (cocked, cconf, on_die, p_flat)) in enumerate(zip(kept, centres, poses, strict=True)):
        c, g = cands[i], guesses[i]
        owner = owner_of(die_colour(image, c), dcfg) if dcfg.white_dice_bgr is not None else None
        need = face_needed(p_flat, config, dcfg)
        leaning = cocked is True and not on_die  # a die on the other die lies flat on it: its top is level
        turns_only = g.by_turns and p_flat < dcfg.top_unanimous_min_flat  # a face at the bar needs a flat die
        face = (g.face if g.probability >= need and (dcfg.cocked_face or not leaning) and j not in sides | doubt
                and not turns_only else None)
        out.append(DieReading(
            face=face, face_confidence=round(g.probability, 4), cocked=cocked, cocked_confidence=round(cconf, 4),
            area=layout.area_of(x, y), boundary_mm=round(float(layout.distance_to_boundary_mm(x, y)), 2),
            center_mm=(round(x, 2), round(y, 2)), image_box=c.box(), on_die=on_die, owner=owner,
        ))
    return tuple(sorted(out, key=lambda d: d.center_mm))
