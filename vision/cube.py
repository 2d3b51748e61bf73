"""The doubling cube: where it sits, its rotation, and the numeral on top.

The cube lives in a few known places: centred on the bar (showing 64), or on a player's side (in the
tray column on his long side, or on the rail before him).  ``find_cube`` looks for a cube-sized
square blob in those places on the plane of the cube's top; the position comes from where it is
(board mm), the rotation from the top face's outline.  The numeral is read by the cube model when
one is installed (``vision/models/cube_face.onnx``); without it the face is None (unsure).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import Side
from vision.config import VisionConfig
from vision.geometry import LongSide
from vision.observation import CUBE_FACES, CubePosition, CubeReading
from vision.preprocess import onnx_session, softmax

CUBE_MODEL = Path(__file__).resolve().parent / "models" / "cube_face.onnx"
PATCH = 48
"""Side (pixels) of the rectified crop the cube model reads (unless its record says otherwise)."""
CROP_SIDES = 1.8
"""The crop spans this many cube sides (unless the model's record says otherwise): an unrefined
window may be off the top face's centre by up to half a side (an oblique view shows side faces and
a shadow beside the top)."""
MODEL_FACES: tuple[int, ...] = (2, 4, 8, 16, 32, 64)
CUBE_CLASSES: tuple[tuple[int, int], ...] = ((0, 0), *((f, q) for f in MODEL_FACES for q in range(4)))
"""The model's classes: (0, 0) "not a cube", then (face, quarter turns of the numeral's up from the crop's up)."""
assert set(MODEL_FACES) == set(CUBE_FACES)


@dataclass(frozen=True, slots=True)
class CubeConfig:
    """Thresholds of the cube stage (defaults match VisionConfig's cube fields)."""

    min_confidence: float = 0.9
    """Face probability (summed over the numeral's four turns) below which the face is unsure."""
    min_contrast: float = 18.0
    """Grey-level contrast a cube-sized square needs against its surroundings to count as the cube."""
    middle_band_mm: float = 40.0
    """Position confidence ramps from 0 on the board's long centre line to 1 this far from it."""
    edge_weight: float = 1.0
    """Weight of a window's edge energy (mean gradient magnitude above its ring's) in its cube score."""
    candidates_per_place: int = 3
    """Cube-like windows kept per place for the model to judge."""
    model_candidates: int = 4
    """How many of the best windows (all places together) the model judges."""
    decisive_candidates: int = 3
    decisive_per_place: int = 2
    """The decisive read (:func:`_decisive_read`) judges the best ``decisive_candidates`` of those
    windows, at most ``decisive_per_place`` of a place (``decisive_windows``); when it is not
    decisive, all ``model_candidates`` are judged.  Session 8 (4 and 3 until then): on the seen sets
    (heldout 700000-700039, side_heldout 710000-710019, fresh 715100-715359, frames 900040-900339:
    2860 frames) the same unsure, misplaced and wrong frames (none wrong), and the cube stage 16-19 %
    less CPU.  Judging only 3 windows (at most 2 a place) in full as well read 4 cubes standing
    third on a bar with checkers (700021_3/_4, 715100_7, 715297_5) unsure, hence the full fallback."""
    min_cube_probability: float = 0.5
    """The chosen window must look like a cube to the model at least this much to give a sure position..."""
    rival_cube_probability: float = 0.3
    """...and no window that would give another position may look like a cube this much."""
    max_angle_residual_deg: float = 15.0
    """A read face stands only when the top's edges, measured again on a view aligned with the
    window (:func:`angle_residual`), lie within this of the window's edge angle: a crop turned
    off the top's edges can read another numeral surely (the window's angle comes from a blob of
    top, sides and shadow: 715111_7, a 64 read as 16 at 0.97 in a crop turned 36 degrees, residual
    20.8).  10 until session 7; 15 chosen then on the seen sets (cube sets 700000-700039,
    710000-710019, 715000-715279, validation, random scenes 900040-900339: +3 right, 0 wrong)."""
    rival_of_sure_cube_probability: float = 0.5
    """...unless the chosen window looks like a cube beyond doubt (``decisive_cube_probability``):
    then a rival must look like a cube at least this much (a checker on the bar read 0.35 cube-like
    beside a cube read 0.99: camera 715098 of the seen fresh set, 6 positions left unsure)."""
    ambiguous_ratio: float = 0.7
    """Without a model: a second window with this fraction of the best contrast makes the position unsure."""
    min_position_confidence: float = 0.9
    """Below this a position counts as unsure (VisionConfig.observation_min_confidence)."""
    refine_reach: float = 0.45
    """How far (cube sides) :func:`refine_center` may move a window onto the top face's outline."""
    side_probes: bool = True
    """Check beyond a read window for the cube's top (``side_probe_cube_probability``)."""
    side_probe_cube_probability: float = 0.5
    """A read face is dropped (unsure) when the window a side beyond the chosen one, away from the
    camera, looks like a cube at least this much, or the window half a side beyond does and reads
    another face with at least ``side_probe_face_confidence`` (0.9; 0.5 left more unsure on the
    validation slices, 206 vs 203 right of 215, both 0 wrong): the chosen window is then likely a
    side face (in an oblique view a side face shows its own numeral beside the top, on the camera's
    side, and the model reads it as confidently as a top)."""
    side_probe_face_confidence: float = 0.9
    """See ``side_probe_cube_probability``."""
    decisive_first: bool = True
    """Judge the most contrasted window first, and the others only when its read is not decisive
    (:func:`_decisive_read`): ~0.8 ms less per frame, the same readings on the evaluation sets."""
    decisive_cube_probability: float = 0.99
    """How cube-like the most contrasted window must look for its read to stand alone."""
    decisive_rival_cube_probability: float = 0.05
    """The decisive read judges the windows of other positions as found, not re-centred on a top
    (:func:`refine_center` costs ~65 us a window, and they are rivals only to be ruled out): one
    that looks like a cube even this little sends the frame to the full judgement, where it is
    re-centred and held to ``rival_cube_probability``."""
    shifted_read: bool = True
    """When the chosen window's face is unsure or dropped, read the window half a side beyond it
    (away from the camera) instead, if that read is sure and nothing beyond it looks like the top
    (:func:`_shifted_read`)."""
    middle_64_confidence: float = 0.8
    """A centred cube (owned by nobody, value 1) shows 64 in play, so a read of 64 in the middle
    needs only this probability (``min_confidence`` for any other face or place).  Chosen on the
    seen sets (900040-900339, cube sets 700000-700039, 710000-710019, 715000-715099, where middle
    cubes show any face): it adds 3 right reads of 900040-900339 and no wrong one."""
    deeper_candidates: int = 12
    deeper_per_place: int = 8
    """When none of the ``model_candidates`` windows the full judgement reads looks like a cube
    (``min_cube_probability``), the first ``deeper_candidates`` windows of a search keeping
    ``deeper_per_place`` a place are judged too (:func:`_deeper_windows`; 0: never).  Session 11:
    a cube among checkers on the bar can be the fifth most contrasted window there (900443, a 64 in
    the middle read 1.0 cube-like only as the bar's fifth window), and the reading was then unsure.
    The deeper windows join the judgement only when one of them looks like a cube
    (``min_cube_probability``): every other frame is read as before."""
    look_alike_faces: tuple[int, ...] = (2, 8, 16, 32)
    look_alike_confidence: float = 0.95
    """A read of 2 or 8 (or 16 or 32) needs this probability: on a small or blurred cube the two
    numerals look alike (seen sets: 900111, an 8 read as 2 at 0.889; 900145, a 2 as 8 at 0.57;
    after the session-5 held-out measurement, 715138_7: an 8 read as 2 at 0.909, the only wrong read
    there).  16 and 32 since session 7, after its held-out measurement: 715320_3 (a 32 read as 16 at
    0.944) and 715354_0 (a 16 as 32 at 0.939), cubes of 23-33 px."""
    half_turn_check: bool = True
    """A read face stands only when the same crop turned half a turn reads the same face (the
    model's most likely face of the turned crop): a numeral the model truly reads is read in any
    turn, while its confident misreads (the committed model: a plain 4 read as 2 at 0.99, an 8 as
    2, a 32 as 16, on seen cube sets) read otherwise once turned.  One more model pass of one
    crop (a turned copy: no warp), only for a read the check applies to."""
    half_turn_below: float = 0.99
    """The half-turn check applies to reads below this probability (all reads: 1.01).  On since
    session 9 for reads below 0.99, after its held-out measurement: 715494_2, a defocused 64 read
    as 16 at 0.973 by the decisive read (the crop turned 1, 2, 3 quarter turns reads 64 at 0.91,
    0.92, 0.86), the only wrong read there.  On the seen cube sets (715000-715439, 700000-700039,
    710000-710019, validation: 4215 frames) it costs 7 right reads (4078 -> 4071, 0 wrong either
    way), on all reads 13; random scenes 900040-900539 unchanged (487 / 0 / 13)."""
    look_alike_turns_below: float = 0.999
    """A read of a look-alike face (``look_alike_faces``: 2, 8, 16, 32) below this probability stands
    only when the same crop turned by one, two and three quarter turns reads the same face (the
    model's most likely face of each turned copy; one model pass of 3 crops, no warp); the
    half-turn check then has nothing to add.  Session 10, after its held-out measurement (fresh
    715520-715599): two 16s read as 32, 715521_7 at 0.994 by the decisive read (its crop turned
    reads 16, 32, 16) and 715577_0 at 0.979 by the found-window read.  On the seen cube sets
    (715000-715519, 700000-700039, 710000-710019: 4640 frames) it costs 11 right reads (4490 ->
    4479, 0 wrong either way; 5 of them 16s, 3 8s, 2 2s, read at 0.955-0.998)."""
    shifted_cube_probability: float = 0.99
    """How cube-like the window half a side beyond must look for the shifted read to stand (0.5
    until session 7: on its held-out cameras, 715321_4, a middle cube seen at 45 degrees, the window
    half a side beyond a straddling one was a side face read as 4 at 0.98, 0.9875 cube-like)."""
    shifted_own_cube_probability: float = 0.5
    """How cube-like the chosen window itself must look for the shifted read to stand: one that is
    not the cube (715321_6: 0.025) leaves where the top lies unknown (0 until session 7)."""
    found_read: bool = True
    """When the re-centred chosen window leaves the face unsure, read the window as the search
    found it (:func:`_found_read`)."""
    found_read_cube_probability: float = 0.99
    """How cube-like the found window must look for its read to stand (``decisive_cube_probability``)."""
    turned_read: bool = True
    """When the face is still unsure after every other read (the place sure), read the chosen
    window's crop again turned by ``turned_read_quarters`` (:func:`_turned_read`).  Session 9, on
    the seen cube sets (715000-715439, 700000-700039, 710000-710019, validation 600120-600139 and
    610042-610048: 4215 frames): 4022 / 0 / 193 right / wrong / unsure without, 4078 / 0 / 137 with
    (relief 0.05); random scenes 900040-900539 485 / 0 / 15 -> 487 / 0 / 13."""
    turned_read_quarters: tuple[int, ...] = (1, 2, 3)
    """Quarter turns of the crop's extra copies the turned read judges besides the crop itself."""
    turned_read_relief: float = 0.05
    """The turned read stands when every copy's most likely face is the same and its probability,
    averaged over the copies, reaches the face's own threshold (:func:`_face_threshold`) less this:
    0.9 for 2, 8, 16 and 32, 0.85 for 4 and 64, 0.75 for 64 in the middle.  Chosen on the seen
    sets: 0 gave +28 right reads, 0.05 +56, 0.1 +70, all 0 wrong; 0.2 on 715000-715259 +41 with 1
    wrong (715004_4, a 2 read as 8 at a mean of 0.84: 0.1 keeps it out by 0.009, too thin a
    margin)."""
    turned_read_cube_probability: float = 0.99
    """...and the copies look like a cube this much on average."""
    grid_read: bool = True
    """When the face is still unsure after every other read (the place sure), read a grid of windows
    around the chosen window as the search found it (:func:`_grid_read`).  Session 14, game frames:
    a cube standing near the rail end of the tray column (where a taken cube is put) is found as a
    blob of top, side faces, shadow and the tray's dark border, 7-17 mm off its top, and re-centring
    can slide further off (7492 s12f seq 247: found 10 mm off, re-centred 17 mm off, read "not a
    cube"; the window 1 mm from the top, 0.3 side from the found one, reads 2 at 1.0).  On the seen
    sets: random scenes 900040-900339 292/0/8 -> 293/0/7, cube set 715000-715679 (1336 frames
    cached) 1288/0/48 -> 1290/0/46, places unchanged."""
    grid_step: float = 0.3
    grid_reach: int = 1
    """The grid: each window moved by -1, 0, 1 x ``grid_step`` cube sides along each of its edges."""
    grid_windows: int = 2
    """Grid around the chosen window as found and the next window of the same position (as found)."""
    grid_support: float = 0.9
    """The grid read stands only when every grid window that names a face at least this surely (and
    looks like a cube, ``side_probe_cube_probability``) names the same one..."""
    grid_confidence: float = 0.999
    """...its best window reads it at least this surely, cube-like ``decisive_cube_probability``, in
    each quarter turn of its crop, and it is the top as far as its surroundings tell
    (:func:`_top_is_here`).  At 0.999 (the look-alike turn check's bar): game frame 7482 s12f seq 547,
    a 2 the model reads as 4 at 0.95-0.98 in every window near its top, stays unsure."""
    shifted_own_confidence: float = 0.7
    """The shifted read must name the chosen window's own face when the window reads it at least
    this surely (below, the window straddles the top and a side face and its read is noise: 900207,
    a 64 read as 4 at 0.62 with the 64 half a side beyond it at 1.0)."""

    @classmethod
    def from_vision(cls, cfg: VisionConfig) -> CubeConfig:
        return cls(min_confidence=cfg.cube_min_confidence, min_contrast=cfg.cube_min_contrast,
                   middle_band_mm=cfg.cube_middle_band_mm, min_position_confidence=cfg.observation_min_confidence)


def _cube_config(cfg: VisionConfig | CubeConfig) -> CubeConfig:
    return cfg if isinstance(cfg, CubeConfig) else CubeConfig.from_vision(cfg)


@dataclass(frozen=True, slots=True)
class CropSpec:
    """How the model's crops are cut: recorded with the model (``*.train.json``, key ``"crop"``) by
    the training that made it, and read back by inference, so the two cannot drift.

    >>> CropSpec.of_model(Path("/nonexistent.onnx"))
    CropSpec(patch=48, sides=1.8, refine=False, search_ppm=1.0)
    """

    patch: int = PATCH
    """Side of the crop in pixels."""
    sides: float = CROP_SIDES
    """Cube sides the crop spans."""
    refine: bool = False
    """Windows are re-centred on the top face's outline before cropping (:func:`refine_center`)."""
    search_ppm: float = 1.0
    """Pixels per mm of the search views (``CubeSampler``): where the windows fall depends on it."""
    realign: bool = False
    """Re-centred windows are also turned onto the top's edges (:func:`refine_blobs`; models from
    session 6)."""

    @classmethod
    def of_model(cls, path: Path) -> CropSpec:
        """The record's ``crop`` (how training cut its crops), with the search resolution and the
        realignment its ``inference`` key may set apart (chosen after training, on seen sets)."""
        rec = path.with_suffix(".train.json")
        if not rec.is_file():
            return cls()
        data = json.loads(rec.read_text())
        crop = data.get("crop")
        if not crop:
            return cls()
        inference = data.get("inference") or {}
        return cls(int(crop["patch"]), float(crop["sides"]), bool(crop["refine"]),
                   float(inference.get("search_ppm", crop.get("search_ppm", 1.0))),
                   bool(inference.get("realign", crop.get("realign", False))))

    def to_dict(self) -> dict[str, object]:
        return {"patch": self.patch, "sides": self.sides, "refine": self.refine, "search_ppm": self.search_ppm,
                "realign": self.realign}


def grey(image: npt.NDArray[Any]) -> npt.NDArray[np.uint8]:
    """A BGR or grey uint8 image (or crop) as grey.  The cube stage takes the camera's BGR frame and
    converts only its small views and crops (no full-frame conversion)."""
    if image.ndim == 3:
        return np.asarray(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), np.uint8)
    return np.asarray(image, np.uint8)


@dataclass(frozen=True, slots=True)
class CubeBlob:
    """A cube-like square on the plane of a cube's top: centre and side (board mm), edge angle
    (degrees, 0..90, board frame), its contrast, and the height ``z_mm`` of the plane it was found on."""

    center_mm: tuple[float, float]
    side_mm: float
    rotation_deg: float
    contrast: float
    ambiguous: bool = False
    """Another place showed a similar cube-like contrast: the position is unsure."""
    z_mm: float = 0.0
    place: int = 0
    """Which of the sampler's searched places it was found in (``CubeSampler.views``)."""


def cube_places(profile: Any) -> list[tuple[Any, float]]:
    """(rect in board mm, z of the cube's top) for each place a cube may rest: the bar, and the tray
    column at the other end from the home trays (beside each player's long side)."""
    layout = profile.layout
    s = profile.spec
    out = [(layout.bar_region(), s.rail_height_mm + s.cube_size_mm)]
    lo, hi = layout.tray_columns()
    home = layout.tray_region(Side.WHITE)
    out.append((hi if home.x0 == lo.x0 else lo, s.cube_size_mm))
    return out


class CubeSampler:
    """Precomputed remap maps (per profile) of the places a cube may rest, on its top's plane.

    All places are sampled by one fixed-point ``cv2.remap`` (their maps side by side), from the BGR
    frame; only that small view is converted to grey.
    """

    def __init__(self, profile: Any, ppm: float | None = None) -> None:
        """``ppm``: pixels per mm of the search views; None: the installed model's ``search_ppm``
        (its windows were found at that resolution), 1.0 without a model.  0.75 (models from
        2026-11-22, windows then re-centred at 1 px/mm by ``refine_blobs``): on training frames
        600100-600129 (240), the cube among the 4 best windows in 240 at 1 and 0.75 px/mm, 238 at
        0.5; the best window the cube's in 95 % / 97 % / 92 %; the search 0.55x the cost of 1 px/mm."""
        if ppm is None:
            num = default_numeral()
            ppm = num.crop.search_ppm if num is not None else 1.0
        self.ppm = ppm
        self.profile = profile
        rot, _ = cv2.Rodrigues(np.asarray(profile.rvec, np.float64))
        cam = -rot.T @ np.asarray(profile.tvec, np.float64)
        self.camera_mm = (float(cam[0]), float(cam[1]), float(cam[2]))
        """The camera's centre in board millimetres (side faces show on its side of a cube's top)."""
        self.places = cube_places(profile)
        self.frame = PositionFrame.of(profile)
        """Where a cube centre's position is read (:func:`cube_position`)."""
        self.views: list[tuple[Any, float, slice]] = []
        """(rect, z, columns of the combined view) per searched place."""
        xs: list[npt.NDArray[np.float32]] = []
        ys: list[npt.NDArray[np.float32]] = []
        col = 0
        for rect, z in self.places:
            w = int((rect.x1 - rect.x0) * self.ppm)
            h = int((rect.y1 - rect.y0) * self.ppm)
            if w < 4 or h < 4:
                continue
            gx, gy = np.meshgrid(rect.x0 + (np.arange(w) + 0.5) / self.ppm, rect.y0 + (np.arange(h) + 0.5) / self.ppm)
            pts = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z)], axis=1)
            img = profile.board_to_image(pts).astype(np.float32)
            xs.append(img[:, 0].reshape(h, w))
            ys.append(img[:, 1].reshape(h, w))
            self.views.append((rect, z, slice(col, col + w)))
            col += w
        self.heights = [m.shape[0] for m in xs]
        if xs:
            hmax = max(self.heights)
            mx = np.full((hmax, col), -1.0, np.float32)
            my = np.full((hmax, col), -1.0, np.float32)
            for (_, _, cols), x, y in zip(self.views, xs, ys, strict=True):
                mx[: x.shape[0], cols] = x
                my[: y.shape[0], cols] = y
            self._map1, self._map2 = cv2.convertMaps(mx, my, cv2.CV_16SC2)

    def patches(self, image: npt.NDArray[Any]) -> list[tuple[Any, float, npt.NDArray[np.uint8]]]:
        """(rect, z, grey patch) per place: the frame (BGR or grey) remapped onto the plane of a
        cube's top there."""
        if not self.views:
            return []
        view = grey(cv2.remap(image, self._map1, self._map2, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE))
        return [(rect, z, view[:h, cols]) for (rect, z, cols), h in zip(self.views, self.heights, strict=True)]


def find_cube(gray: npt.NDArray[Any], sampler: CubeSampler, config: VisionConfig | CubeConfig) -> CubeBlob | None:
    """The most contrasted cube-sized square in the places a cube rests (None when nothing stands out)."""
    return _pick(find_cube_candidates(gray, sampler, config), _cube_config(config))


def _pick(found: list[CubeBlob], cfg: CubeConfig) -> CubeBlob | None:
    if not found:
        return None
    best = found[0]
    if len(found) > 1 and found[1].contrast > cfg.ambiguous_ratio * best.contrast:
        best = replace(best, ambiguous=True)
    return best


def find_cube_candidates(image: npt.NDArray[Any], sampler: CubeSampler,
                         config: VisionConfig | CubeConfig, *, refine: bool = False,
                         realign: bool = False, limit: int | None = None) -> list[CubeBlob]:
    """Cube-like squares in the places a cube rests, most cube-like first (``image``: BGR or grey).

    Each place's image on the plane of a cube's top is scored per cube-sized window by its mean
    contrast against the ring around it plus its edge energy (a light cube on a light tray has
    little contrast but sharp edges and a dark numeral); the best few local maxima of each place,
    a cube apart, are kept.  The edge angle (0..90) comes from the window's gradients (four-fold
    symmetric mean orientation).  With ``refine`` each window is then re-centred on the top face
    (:func:`refine_center`): the contrast peak sits on the blob of top, side faces and shadow.
    ``limit``: only the first ``limit`` windows (the same ones, in the same order; the others'
    edge angles are not measured: :func:`read_cube` judges ``model_candidates`` windows at most).
    """
    cfg = _cube_config(config)
    s = sampler.profile.spec
    ppm = sampler.ppm
    size = s.cube_size_mm
    side_px = size * ppm
    k_in = max(3, int(side_px * 0.8))
    k_out = max(k_in + 2, int(side_px * 1.6))
    # inner - ring = (inner - outer) * a_out / (a_out - a_in): one subtraction, no ring image
    gain = (k_out * k_out) / float(k_out * k_out - k_in * k_in)
    r = max(1, int(side_px * 0.5))
    sup = int(side_px * 1.2)
    peaks: list[tuple[float, int, int, int]] = []  # (score, x, y, place) in the places' order
    grads: list[tuple[Any, float, Any, Any, Any]] = []  # (rect, z, gx, gy, magnitude) per place
    for rect, z, patch8 in sampler.patches(image):
        h, w = patch8.shape
        if h < k_out or w < k_in:
            continue
        patch = patch8.astype(np.float32)
        # the 3x3 Sobel gradients of the grey view: exact small integers, both in one pass
        gx, gy = _gradients(patch8)
        mag = cv2.magnitude(gx, gy)
        grads.append((rect, z, gx, gy, mag))
        # grey level and edge energy, stacked so one pass of each box filter serves both
        both = cv2.merge([patch, mag])
        d = cv2.subtract(cv2.blur(both, (k_in, k_in)), cv2.blur(both, (k_out, k_out)))
        score = (np.abs(d[..., 0]) + cfg.edge_weight * np.maximum(d[..., 1], 0.0)) * np.float32(gain)
        # the window must lie inside the place (a cube resting there is inside it)
        m = k_in // 2
        mx = max(0, m - int(0.2 * side_px))
        score[:m, :] = 0
        score[h - m:, :] = 0
        score[:, :mx] = 0
        score[:, w - mx:] = 0
        for _ in range(cfg.candidates_per_place):
            y, x = np.unravel_index(int(np.argmax(score)), score.shape)
            val = float(score[y, x])
            if val < cfg.min_contrast:
                break
            peaks.append((val, int(x), int(y), len(grads) - 1))
            score[max(0, y - sup):y + sup + 1, max(0, x - sup):x + sup + 1] = 0
    peaks.sort(key=lambda pk: -pk[0])  # stable: equal scores keep the places' order
    found: list[CubeBlob] = []
    for val, px, py, i in peaks[:limit]:
        rect, z, gx, gy, mag = grads[i]
        ang = _edge_angle(gx, gy, mag, px, py, r)
        found.append(CubeBlob((rect.x0 + (px + 0.5) / ppm, rect.y0 + (py + 0.5) / ppm), size, ang, val, z_mm=z,
                             place=i))
    if refine:
        found[: cfg.model_candidates] = refine_blobs(image, sampler.profile, found[: cfg.model_candidates],
                                                     cfg.refine_reach, realign=realign)
    return found


REFINE_PPM = 1.0
"""Pixels per mm of the local view a window is re-centred on (finer than the search)."""


def refine_blobs(image: npt.NDArray[Any], profile: Any, blobs: list[CubeBlob], reach: float = 0.45,
                 *, realign: bool = False, again: bool = True) -> list[CubeBlob]:
    """``blobs`` re-centred on the cube's top face (:func:`refine_center`), each in a local view of
    the top's plane at ``REFINE_PPM`` cut from the frame aligned with the window's edges.

    ``realign`` (models whose ``CropSpec.realign`` says so): the edge angle is then measured again
    on the re-centred top in that view (one cube side, as :func:`angle_residual` measures it) and the
    window turned by it: the search's angle comes from a coarse blob of top, side faces and shadow
    and can be off by 10-40 degrees in a close oblique view, where a crop turned off the top's
    edges can read another numeral."""
    if not blobs:
        return []
    side_px = blobs[0].side_mm * REFINE_PPM
    _, c0, n = _fit_geometry(side_px, reach)
    views = cube_patches(image, profile, blobs, n, n / side_px)
    out = []
    half = max(7, round(ANGLE_VIEW_SIDES * side_px)) // 2
    for i, (blob, (du, dv)) in enumerate(zip(blobs, _square_fits(np.vstack(views), len(views), side_px, reach),
                                             strict=True)):
        # view columns run along the edge direction, rows against its perpendicular (cube_patch)
        t = math.radians(blob.rotation_deg)
        rot = blob.rotation_deg
        a = 0.0
        if realign:
            u, v = c0 + int(du), c0 + int(dv)
            sub = views[i][v - half:v + half + 1, u - half:u + half + 1].astype(np.float32)
            gx = cv2.Sobel(sub, cv2.CV_32F, 1, 0, ksize=3)
            gy = cv2.Sobel(sub, cv2.CV_32F, 0, 1, ksize=3)
            a = (_edge_angle(gx, gy, cv2.magnitude(gx, gy), half, half, half) + 45.0) % 90.0 - 45.0
            rot = (blob.rotation_deg + REALIGN_SIGN * a) % 90.0
        du, dv = du / REFINE_PPM, dv / REFINE_PPM
        out.append(replace(blob, center_mm=(blob.center_mm[0] + math.cos(t) * du + math.sin(t) * dv,
                                            blob.center_mm[1] + math.sin(t) * du - math.cos(t) * dv),
                           rotation_deg=rot))
        if realign and again and abs(a) > REALIGN_AGAIN_DEG:
            # turned much: centre and angle were measured on a view turned off the top; once more
            out[-1] = refine_blobs(image, profile, [out[-1]], reach, realign=True, again=False)[0]
    return out


REALIGN_AGAIN_DEG = 4.0
"""A window :func:`refine_blobs` turned by more than this is re-centred and turned once more, on a
view aligned with its new angle."""


REALIGN_SIGN = -1.0
"""The view of :func:`refine_blobs` is mirrored against the board (rows run against the edge's
perpendicular), so an angle measured in it turns the window the other way on the board."""


def _edge_angle(gx: npt.NDArray[Any], gy: npt.NDArray[Any], mag: npt.NDArray[Any], x: int, y: int, r: int) -> float:
    """The four-fold mean gradient orientation (degrees, 0..90) of the window of radius ``r`` at (x, y)."""
    ys, xs = slice(max(0, y - r), y + r + 1), slice(max(0, x - r), x + r + 1)
    a4 = 4 * np.arctan2(gy[ys, xs], gx[ys, xs])
    mw = mag[ys, xs]
    return math.degrees(math.atan2(float((np.sin(a4) * mw).sum()), float((np.cos(a4) * mw).sum())) / 4.0) % 90.0


def refine_center(patch: npt.NDArray[np.float32], x: float, y: float, angle_deg: float, side_px: float,
                  reach: float = 0.45) -> tuple[float, float]:
    """Re-centre a cube window on the cube's top face: the centre (pixels of ``patch``, a view on the
    plane of the cube's top) of the ``side_px`` square at ``angle_deg`` whose four edges carry the
    most gradient energy across them, within ``reach`` sides of (x, y).

    On the top's plane the top face is an exact cube-sized square, while the side faces and the
    shadow of an oblique view smear beside it; a contrast window centres on the whole blob (5-15 mm
    off on the tray column), this fit on the top's outline (86 % within 3 mm on training frames).
    The view is turned so the square is axis-aligned (one small warp), then the edge energy of every
    candidate centre is four shifted sums of box-filtered gradients.
    """
    _, c0, n = _fit_geometry(side_px, reach)
    t = math.radians(angle_deg)
    cs, sn = math.cos(t), math.sin(t)
    m = np.array([[cs, -sn, x - cs * c0 + sn * c0], [sn, cs, y - sn * c0 - cs * c0]], np.float32)
    loc = cv2.warpAffine(patch, m, (n, n), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                         borderMode=cv2.BORDER_REPLICATE)
    du, dv = _square_fits(loc, 1, side_px, reach)[0]
    return x + cs * du - sn * dv, y + sn * du + cs * dv


def _fit_geometry(side_px: float, reach: float) -> tuple[int, int, int]:
    """(search radius, centre, side) in pixels of the square views :func:`_square_fits` reads."""
    k = max(3, round(side_px))
    rr = max(1, round(reach * side_px))
    c0 = rr + k - k // 2 + 2
    return rr, c0, 2 * c0 + 1


def _gradients(view: npt.NDArray[Any]) -> tuple[Any, Any]:
    """The 3x3 Sobel gradients (x, y) of a view as float32; of a uint8 view both in one pass
    (``cv2.spatialGradient``: the same small integers as two ``cv2.Sobel`` calls on its float copy)."""
    if view.dtype == np.uint8:
        sx, sy = cv2.spatialGradient(view)
        return sx.astype(np.float32), sy.astype(np.float32)
    img = np.asarray(view, np.float32)
    return cv2.Sobel(img, cv2.CV_32F, 1, 0, ksize=3), cv2.Sobel(img, cv2.CV_32F, 0, 1, ksize=3)


def _square_fits(views: npt.NDArray[Any], count: int, side_px: float, reach: float) -> list[tuple[float, float]]:
    """For ``count`` square views stacked vertically (each ``_fit_geometry``'s side, the square
    axis-aligned around its centre): the offset (du, dv) from each view's centre of the ``side_px``
    square with the most gradient energy across its four edges.  One gradient and box-filter pass
    for all views (a view's search never reads its neighbours' rows: the vertical box reaches half
    a side, the views have a margin of a side)."""
    k = max(3, round(side_px))
    rr, c0, n = _fit_geometry(side_px, reach)
    hl, hr = k // 2, k - k // 2
    gx, gy = _gradients(views)
    vx = cv2.blur(np.abs(gx), (1, k))  # vertical edge segments
    hy = cv2.blur(np.abs(gy), (k, 1))  # horizontal ones
    lo, hi = c0 - rr, c0 + rr + 1
    a, b = hr - 1, hl  # the square's pixels run from u - hl to u + hr - 1
    out = []
    for i in range(count):
        o = i * n
        score = (vx[o + lo:o + hi, lo - b:hi - b] + vx[o + lo:o + hi, lo + a:hi + a]
                 + hy[o + lo - b:o + hi - b, lo:hi] + hy[o + lo + a:o + hi + a, lo:hi])
        iv, iu = np.unravel_index(int(np.argmax(score)), score.shape)
        out.append((float(iu) - rr, float(iv) - rr))
    return out


def cube_position(profile: Any, center_mm: tuple[float, float],
                  config: VisionConfig | CubeConfig) -> tuple[CubePosition, float]:
    """MIDDLE on the bar; otherwise the side of whoever sits on that long side; with a confidence."""
    return PositionFrame.of(profile).position(center_mm, _cube_config(config))


@dataclass(frozen=True, slots=True)
class PositionFrame:
    """What :func:`cube_position` needs of a profile, computed once (``CubeSampler.frame``: the
    cube stage asks ~5 times a frame, and the bar's rectangle alone cost ~8 us to build)."""

    bar: Any
    """The bar's rectangle (board mm)."""
    half_depth_mm: float
    near: CubePosition
    """The position of a cube on the near long side (y beyond the half depth)."""
    far: CubePosition

    @classmethod
    def of(cls, profile: Any) -> PositionFrame:
        layout = profile.layout
        white_near = layout.seating.side_of(Side.WHITE) is LongSide.NEAR
        white, black = CubePosition.WHITE_SIDE, CubePosition.BLACK_SIDE
        return cls(layout.bar_region(), profile.spec.depth_mm / 2, white if white_near else black,
                   black if white_near else white)

    def position(self, center_mm: tuple[float, float], cfg: CubeConfig) -> tuple[CubePosition, float]:
        """:func:`cube_position` of ``center_mm``."""
        x, y = center_mm
        if self.bar.contains(x, y):  # area_of's BAR (the bar lies inside the outline), ~10x cheaper
            return CubePosition.MIDDLE, 1.0
        conf = min(1.0, abs(y - self.half_depth_mm) / cfg.middle_band_mm)
        return (self.near if y > self.half_depth_mm else self.far), conf


# ---------------------------------------------------------------------- the numeral
def cube_patch(image: npt.NDArray[Any], profile: Any, blob: CubeBlob, px: int = PATCH,
               sides: float = CROP_SIDES) -> npt.NDArray[np.uint8]:
    """The cube's top face rectified on its own plane (``px`` x ``px`` grey), as seen from above.

    ``image``: the BGR frame (or a grey one).  The crop's columns run along the found edge direction
    ``blob.rotation_deg`` (board frame), its rows run against the perpendicular ("up" of the crop =
    board direction rotation_deg + 90 from +x, i.e. the board's +y turned by rotation_deg):
    unmirrored, so a numeral whose up is the crop's up reads upright.  The crop spans ``sides`` cube
    sides (``blob.side_mm`` is the board's cube size for found windows).  Training and inference
    both cut crops here (:func:`cube_patches`).
    """
    return cube_patches(image, profile, [blob], px, sides)[0]


def cube_patches(image: npt.NDArray[Any], profile: Any, blobs: list[CubeBlob], px: int = PATCH,
                 sides: float = CROP_SIDES) -> list[npt.NDArray[np.uint8]]:
    """:func:`cube_patch` of several windows (their corners projected in one call)."""
    if not blobs:
        return []
    # the crops' corners (pixel edges) on their planes; a crop is small enough for lens distortion
    # across it to be a plain perspective map
    corners = np.empty((4 * len(blobs), 3), np.float64)
    signs = ((-1.0, 1.0), (1.0, 1.0), (1.0, -1.0), (-1.0, -1.0))  # (along the edge, along its perpendicular)
    for i, blob in enumerate(blobs):
        h = sides * blob.side_mm / 2
        t = math.radians(blob.rotation_deg)
        c, sn = math.cos(t) * h, math.sin(t) * h
        x, y = blob.center_mm
        for k, (a, b) in enumerate(signs):
            corners[4 * i + k] = (x + a * c - b * sn, y + a * sn + b * c, blob.z_mm)
    img = profile.board_to_image(corners).astype(np.float32)
    src = np.array([[0, 0], [px, 0], [px, px], [0, px]], np.float32)
    # warpPerspective samples pixel centres (i, j) of the crop at m @ (i, j); shift by half a pixel
    half = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1]])
    out = []
    for i in range(len(blobs)):
        m = cv2.getPerspectiveTransform(src, img[4 * i:4 * i + 4]) @ half
        out.append(grey(cv2.warpPerspective(image, m, (px, px), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                            borderMode=cv2.BORDER_REPLICATE)))
    return out


def normalise_cube_patch(patch: npt.NDArray[np.uint8]) -> npt.NDArray[np.float32]:
    """Zero mean, unit spread (float32): the model's input for one crop (training's too)."""
    out: npt.NDArray[np.float32] = normalise_cube_patches([patch])[0, 0]
    return out


def normalise_cube_patches(patches: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float32]:
    """Several crops of one size, each to zero mean and unit spread (its grey level's standard deviation,
    at least 8), stacked (n, 1, patch, patch) in float32: the one normalisation of training and reading."""
    stats = [cv2.meanStdDev(p) for p in patches]
    mean = np.array([m[0, 0] for m, _ in stats], np.float32)
    spread = np.array([max(float(sd[0, 0]), 8.0) for _, sd in stats], np.float32)
    x = np.stack(patches).astype(np.float32)
    x -= mean[:, None, None]
    x /= spread[:, None, None]
    return x[:, None]


def class_of(face: int, rotation_deg: float, crop_deg: float) -> int:
    """The model class of ``face`` whose numeral's up is at ``rotation_deg`` (truth convention: from
    the board's +y, counter-clockwise seen from above) in a crop aligned at ``crop_deg``."""
    q = round(((rotation_deg - crop_deg) % 360.0) / 90.0) % 4
    return CUBE_CLASSES.index((face, q))


def rotation_of(crop_deg: float, quarter_turns: int) -> float:
    """The numeral's rotation (degrees from the board's +y, 0..360) from the crop's angle and the turn."""
    return (crop_deg + 90.0 * quarter_turns) % 360.0


@dataclass(frozen=True, slots=True)
class NumeralRead:
    """What the numeral model says of one crop."""

    face: int | None
    """The most likely face, None when "not a cube" is likelier than any face."""
    confidence: float
    """The face's probability summed over its four turns (of "not a cube" when face is None)."""
    quarter_turns: int
    """Quarter turns (counter-clockwise seen from above) of the numeral's up from the crop's up."""
    cube_probability: float
    """1 - P(not a cube): how cube-like the crop is, used to choose among the found windows."""


class Numeral(Protocol):
    def __call__(self, image: npt.NDArray[Any], profile: Any, blob: CubeBlob) -> NumeralRead: ...


class CubeNumeral:
    """The cube-face model (loaded once) on rectified crops cut as its record says (``crop``)."""

    def __init__(self, path: Path = CUBE_MODEL) -> None:
        self.crop = CropSpec.of_model(path)
        self.session = onnx_session(path, "cube model", "python -m vision.training cube train")
        self.input = self.session.get_inputs()[0].name

    def _softmax(self, x: npt.NDArray[np.float32]) -> npt.NDArray[np.float64]:
        out: npt.NDArray[np.float64] = softmax(np.asarray(self.session.run(None, {self.input: x})[0], np.float64))
        return out

    def cube_probabilities(self, patches: list[npt.NDArray[np.uint8]]) -> npt.NDArray[np.float64]:
        """Class probabilities of several crops, unturned (one model pass)."""
        return self._softmax(normalise_cube_patches(patches))

    @staticmethod
    def decide(p: npt.NDArray[np.float64]) -> NumeralRead:
        """The read of one crop's 25 class probabilities (plain Python on 25 numbers: numpy's
        per-call cost was most of it)."""
        q = p.tolist()
        per_face = [q[1 + 4 * k] + q[2 + 4 * k] + q[3 + 4 * k] + q[4 + 4 * k] for k in range(len(MODEL_FACES))]
        i = max(range(len(per_face)), key=per_face.__getitem__)
        cube_p = 1.0 - q[0]
        if q[0] >= per_face[i]:
            return NumeralRead(None, q[0], 0, cube_p)
        turns = q[1 + 4 * i:5 + 4 * i]
        return NumeralRead(MODEL_FACES[i], per_face[i], max(range(4), key=turns.__getitem__), cube_p)

    def patches(self, image: npt.NDArray[Any], profile: Any, blobs: list[CubeBlob]) -> list[npt.NDArray[np.uint8]]:
        """The crops this model reads, of the given windows."""
        return cube_patches(image, profile, blobs, self.crop.patch, self.crop.sides)

    def __call__(self, image: npt.NDArray[Any], profile: Any, blob: CubeBlob) -> NumeralRead:
        return self.decide(self.cube_probabilities(self.patches(image, profile, [blob]))[0])

    def best(self, image: npt.NDArray[Any], profile: Any, blobs: list[CubeBlob]) -> list[tuple[CubeBlob, NumeralRead]]:
        """All windows judged in one model pass, most cube-like first.  (Averaging the chosen
        crop's four quarter turns was tried: 299/320 right against 303/320 unturned, both 0 wrong,
        at 3 more model runs.)"""
        p = self.cube_probabilities(self.patches(image, profile, blobs))
        order = sorted(range(len(blobs)), key=lambda i: float(p[i, 0]))
        return [(blobs[i], self.decide(p[i])) for i in order]


class NoNumeral:
    """A numeral reader that reads nothing: :func:`read_cube` then finds the cube by contrast alone."""

    def __call__(self, image: npt.NDArray[Any], profile: Any, blob: CubeBlob) -> NumeralRead:
        return NumeralRead(None, 0.0, 0, 0.0)


NO_NUMERAL = NoNumeral()


@functools.lru_cache(maxsize=1)
def default_numeral() -> CubeNumeral | None:
    """The installed cube model, loaded once on first use (None when it is not installed)."""
    return CubeNumeral(CUBE_MODEL) if CUBE_MODEL.is_file() else None


def read_cube(image: npt.NDArray[Any], sampler: CubeSampler, config: VisionConfig | CubeConfig,
              numeral: Numeral | None = None) -> CubeReading | None:
    """Find the cube, say where it sits, read its numeral and its rotation (``image``: the BGR frame,
    or grey; only the small views and crops are converted).

    ``numeral`` defaults to the installed model (:func:`default_numeral`; ``NO_NUMERAL``: none).  With a model, the most
    cube-like of the best found windows is the cube, and the position is unsure when a window in
    another place is nearly as cube-like; without one, the most contrasted window is, and the face
    is None.  The face is None when the model is unsure (below ``min_confidence``); the rotation is
    the numeral's up in board degrees (0 = toward +y, counter-clockwise seen from above) when the
    face is read, else the found edge angle (0..90).  Windows are re-centred on the top face when
    the model was trained on re-centred crops (its ``CropSpec``).
    """
    cfg = _cube_config(config)
    profile = sampler.profile
    if numeral is None:
        numeral = default_numeral()
    refine = isinstance(numeral, CubeNumeral) and numeral.crop.refine
    realign = refine and isinstance(numeral, CubeNumeral) and numeral.crop.realign
    found = find_cube_candidates(image, sampler, cfg, limit=max(2, cfg.model_candidates))
    if not found:
        return None
    if isinstance(numeral, CubeNumeral) and cfg.side_probes and cfg.decisive_first:
        quick = _decisive_read(image, sampler, decisive_windows(found[: cfg.model_candidates], cfg), numeral, cfg,
                               refine, realign)
        if quick is not None:
            return quick
    as_found = found[: cfg.model_candidates]  # before re-centring (``found_read``)
    if refine:
        found[: cfg.model_candidates] = refine_blobs(image, profile, found[: cfg.model_candidates], cfg.refine_reach,
                                                     realign=realign)
    if numeral is None or isinstance(numeral, NoNumeral):
        blob = _pick(found, cfg)
        assert blob is not None
        pos, pconf = sampler.frame.position(blob.center_mm, cfg)
        return CubeReading(None, 0.0, pos, round(blob.rotation_deg, 1),
                           round(min(pconf, 0.5) if blob.ambiguous else pconf, 4))
    top = found[: cfg.model_candidates]
    probe_probs: dict[int, npt.NDArray[np.float64]] = {}
    if isinstance(numeral, CubeNumeral):
        # the probes of the most contrasted window (the cube in ~97 % of frames) ride in the same
        # model pass; another chosen window gets its own pass
        probes = side_probes(sampler, top[0]) if cfg.side_probes else []
        p = numeral.cube_probabilities(numeral.patches(image, profile, top + probes))
        if probes:
            probe_probs[id(top[0])] = p[len(top):]
        p = p[: len(top)]
        if cfg.deeper_candidates > len(top) and 1.0 - float(p[:, 0].min()) < cfg.min_cube_probability:
            # no judged window looks like a cube: judge the next windows of each place (a cube
            # among checkers on the bar may be only the fifth most contrasted window there)
            more_found, more = _deeper_windows(image, sampler, cfg, as_found, refine, realign)
            pm = numeral.cube_probabilities(numeral.patches(image, profile, more)) if more else p[:0]
            if len(pm) and 1.0 - float(pm[:, 0].min()) >= cfg.min_cube_probability:
                top, as_found, p = top + more, as_found + more_found, np.concatenate([p, pm])
        order = sorted(range(len(top)), key=lambda i: float(p[i, 0]))
        reads = [(top[i], numeral.decide(p[i])) for i in order]
    else:
        reads = sorted(((b, numeral(image, profile, b)) for b in top), key=lambda br: -br[1].cube_probability)
    blob, nr = reads[0]
    chosen_as_found = as_found[order[0]] if isinstance(numeral, CubeNumeral) else blob
    pos, pconf = sampler.frame.position(blob.center_mm, cfg)
    size = profile.spec.cube_size_mm
    rivals = [r.cube_probability for b, r in reads[1:]
              if math.dist(b.center_mm, blob.center_mm) > 1.5 * size
              and sampler.frame.position(b.center_mm, cfg)[0] is not pos]
    place_pconf = pconf
    if not place_is_sure(nr.cube_probability, rivals, cfg):
        pconf = min(pconf, 0.5)
    face = nr.face if nr.face is not None and nr.confidence >= _face_threshold(cfg, nr.face, pos) else None
    read_at = blob  # the window whose crop gave the face
    if cfg.side_probes and isinstance(numeral, CubeNumeral):
        beyond = _beyond_reads(image, sampler, blob, numeral, probe_probs.get(id(blob)))
        if face is not None and beyond and not _clear_beyond(face, beyond[0], beyond[1], cfg):
            face = None
        if face is None and beyond and cfg.shifted_read:
            shifted = _shifted_read(image, sampler, blob, numeral, cfg, beyond, nr)
            if shifted is not None:
                face, nr = shifted.face, shifted
                read_at = side_probes(sampler, blob)[0]
    if face is not None and abs(angle_residual(image, profile, blob)) > cfg.max_angle_residual_deg:
        face = None  # the crop is turned off the top's edges: its numeral may read as another
    if (face is not None and isinstance(numeral, CubeNumeral)
            and _half_turn_doubts(numeral, lambda: numeral.patches(image, profile, [read_at])[0], nr, cfg)):
        face = None
    turned_from = blob.rotation_deg
    if (face is None and refine and cfg.found_read and isinstance(numeral, CubeNumeral)
            and chosen_as_found is not blob and place_pconf >= cfg.min_position_confidence):
        alt = _found_read(image, sampler, chosen_as_found, numeral, cfg, nr, pos)
        if alt is not None and place_is_sure(alt.cube_probability, rivals, cfg):
            # the found window is the cube beyond doubt: its place is as sure as the rivals allow
            face, nr, turned_from, pconf = alt.face, alt, chosen_as_found.rotation_deg, place_pconf
    if face is None and cfg.turned_read and isinstance(numeral, CubeNumeral) and pconf >= cfg.min_position_confidence:
        for window in (blob,) if chosen_as_found is blob else (blob, chosen_as_found):
            turned = _turned_read(image, sampler, window, numeral, cfg, pos)
            if turned is not None:
                face, nr, turned_from = turned.face, turned, window.rotation_deg
                break
    if face is None and cfg.grid_read and isinstance(numeral, CubeNumeral) and pconf >= cfg.min_position_confidence:
        same = [b for b in as_found
                if b is not chosen_as_found and sampler.frame.position(b.center_mm, cfg)[0] is pos]
        grid = _grid_read(image, sampler, [chosen_as_found, *same[: cfg.grid_windows - 1]], numeral, cfg, pos)
        if grid is not None:
            face, nr, turned_from = grid[1].face, grid[1], grid[0].rotation_deg
    rotation = rotation_of(turned_from, nr.quarter_turns) if face is not None else blob.rotation_deg
    return CubeReading(face, round(nr.confidence if face is not None else 0.0, 4), pos, round(rotation, 1),
                       round(pconf, 4))


def _deeper_windows(image: npt.NDArray[Any], sampler: CubeSampler, cfg: CubeConfig, judged: list[CubeBlob],
                    refine: bool, realign: bool) -> tuple[list[CubeBlob], list[CubeBlob]]:
    """The windows of :func:`find_cube_candidates` with ``deeper_per_place`` a place, the first
    ``deeper_candidates``, that ``judged`` (windows as found) does not hold: as found, and re-centred
    when ``refine`` (the same windows otherwise)."""
    deeper = find_cube_candidates(image, sampler, replace(cfg, candidates_per_place=cfg.deeper_per_place),
                                  limit=cfg.deeper_candidates)
    seen = {b.center_mm for b in judged}
    more_found = [b for b in deeper if b.center_mm not in seen]
    if not refine or not more_found:
        return more_found, more_found
    return more_found, refine_blobs(image, sampler.profile, more_found, cfg.refine_reach, realign=realign)


def _crops_in_place(image: npt.NDArray[Any], sampler: CubeSampler, window: CubeBlob, numeral: CubeNumeral,
                    cfg: CubeConfig, position: CubePosition) -> list[npt.NDArray[np.uint8]] | None:
    """``window``'s crop followed by its side probes' (:func:`side_probes`), or None when the window
    lies outside the chosen position or has no side probes: what the found and the turned reads start
    from."""
    if sampler.frame.position(window.center_mm, cfg)[0] is not position:
        return None
    probes = side_probes(sampler, window)
    if not probes:
        return None
    return numeral.patches(image, sampler.profile, [window, *probes])


def _found_read(image: npt.NDArray[Any], sampler: CubeSampler, window: CubeBlob, numeral: CubeNumeral,
                cfg: CubeConfig, own: NumeralRead, position: CubePosition) -> NumeralRead | None:
    """The read of the chosen window as the search found it (before :func:`refine_center` moved
    it), when the re-centred window's read left the face unsure: re-centring on the strongest
    square outline can slide onto a side face or a shadow's edge in a close oblique view (seen
    715237_3/_4: from 7-8 mm off the top to 16-17 mm off, read "not a cube", the place unsure; the
    found window reads the numeral at 0.99-1.0), and a small or blurred top can read less surely
    re-centred than as found (715266_1: 4 at 0.59 re-centred, 1.0 as found).  When it stands, the
    place is judged again with its cube probability.  It stands only as a read of the top would: sure
    (:func:`_face_threshold`), cube-like beyond doubt (``found_read_cube_probability``), in the
    chosen position, nothing beyond it looking like the top (:func:`_clear_beyond`, and half a side
    beyond no numeral turned otherwise), aligned with the top's edges (:func:`angle_residual`), and
    the re-centred window's own read, when it names a face at ``shifted_own_confidence``, naming the
    same one.  One model pass of 3 crops, on the few frames whose face is otherwise unsure."""
    crops = _crops_in_place(image, sampler, window, numeral, cfg, position)
    if crops is None:
        return None
    p = numeral.cube_probabilities(crops)
    r = numeral.decide(p[0])
    if not _read_stands(r, cfg, position, cfg.found_read_cube_probability, own):
        return None
    assert r.face is not None  # a read that stands names a face
    if _half_turn_doubts(numeral, lambda: crops[0], r, cfg):
        return None
    half, whole = numeral.decide(p[1]), numeral.decide(p[2])
    return r if _top_is_here(image, sampler.profile, window, r, half, whole, cfg) else None


def _turned_read(image: npt.NDArray[Any], sampler: CubeSampler, window: CubeBlob, numeral: CubeNumeral,
                 cfg: CubeConfig, position: CubePosition) -> NumeralRead | None:
    """The read of ``window``'s crop and its copies turned by ``turned_read_quarters``, when the face
    is unsure after every other read: a small or defocused numeral the model reads at 0.5-0.9 in
    one turn it often reads surely in another, while its misreads of one turn (a 32 read as 16, a
    4 as 8) read the true face once turned (session 9, seen cube sets).  It stands only when every
    copy reads the same face (the model's most likely face of each), at ``turned_read_confidence``
    on average, the copies look like a cube (``turned_read_cube_probability``), the window lies in
    the chosen position, and it is the top as far as its surroundings tell (:func:`_top_is_here`).
    One warp of 3 crops and one model pass, on the few frames whose face is otherwise unsure."""
    crops = _crops_in_place(image, sampler, window, numeral, cfg, position)
    if crops is None:
        return None
    first_turned = len(crops)
    crops += [turned(crops[0], q) for q in cfg.turned_read_quarters]
    p = numeral.cube_probabilities(crops)
    r = numeral.decide(p[0])
    if r.face is None:
        return None
    copies = [p[0], *p[first_turned:]]
    if any(numeral.decide(q).face != r.face for q in copies[1:]):
        return None
    k = 1 + 4 * MODEL_FACES.index(r.face)
    confidence = float(np.mean([q[k:k + 4].sum() for q in copies]))
    cube_probability = 1.0 - float(np.mean([q[0] for q in copies]))
    if (confidence < _face_threshold(cfg, r.face, position) - cfg.turned_read_relief
            or cube_probability < cfg.turned_read_cube_probability):
        return None
    if not _top_is_here(image, sampler.profile, window, r, numeral.decide(p[1]), numeral.decide(p[2]), cfg):
        return None
    return NumeralRead(r.face, confidence, r.quarter_turns, cube_probability)


def grid_windows(window: CubeBlob, step: float, reach: int) -> list[CubeBlob]:
    """``window`` moved by every (i, j) x ``step`` cube sides along its edges, |i|, |j| <= ``reach``,
    (0, 0) left out."""
    t = math.radians(window.rotation_deg)
    ex, ey = math.cos(t) * window.side_mm * step, math.sin(t) * window.side_mm * step
    x, y = window.center_mm
    return [replace(window, center_mm=(x + i * ex - j * ey, y + i * ey + j * ex))
            for i in range(-reach, reach + 1) for j in range(-reach, reach + 1) if i or j]


def _grid_read(image: npt.NDArray[Any], sampler: CubeSampler, windows: list[CubeBlob], numeral: CubeNumeral,
               cfg: CubeConfig, position: CubePosition) -> tuple[CubeBlob, NumeralRead] | None:
    """The best read of a grid of windows around ``windows`` (:func:`grid_windows`, each window
    itself included) in ``position``, when the face is unsure after every other read: the search
    finds a cube near the tray's rail end as a blob of top, side faces, shadow and the tray's dark
    border, up to 0.7 side off its top, and re-centring can slide further off it.  It stands only as
    ``grid_support`` and ``grid_confidence`` say; one model pass of up to 18 crops and one of 5
    (the best window's two probes and three turned copies), on the few frames whose face is
    otherwise unsure.  Returns the window and its read."""
    grid = [g for w in windows for g in [w, *grid_windows(w, cfg.grid_step, cfg.grid_reach)]
            if sampler.frame.position(g.center_mm, cfg)[0] is position]
    if not grid:
        return None
    p = numeral.cube_probabilities(numeral.patches(image, sampler.profile, grid))
    reads = [numeral.decide(q) for q in p]
    named = {r.face for r in reads if r.face is not None and r.confidence >= cfg.grid_support
             and r.cube_probability >= cfg.side_probe_cube_probability}
    if len(named) != 1:
        return None
    best = max(range(len(grid)),
               key=lambda i: (reads[i].face is not None, reads[i].confidence * reads[i].cube_probability))
    r, w = reads[best], grid[best]
    if r.face is None or r.confidence < cfg.grid_confidence or r.cube_probability < cfg.decisive_cube_probability:
        return None
    crops = _crops_in_place(image, sampler, w, numeral, cfg, position)
    if crops is None:
        return None
    pp = numeral.cube_probabilities([*crops[1:], *(turned(crops[0], q) for q in (1, 2, 3))])
    if any(numeral.decide(q).face != r.face for q in pp[2:]):
        return None
    if not _top_is_here(image, sampler.profile, w, r, numeral.decide(pp[0]), numeral.decide(pp[1]), cfg):
        return None
    return w, r


def _read_stands(r: NumeralRead, cfg: CubeConfig, position: CubePosition | None, min_cube_probability: float,
                 own: NumeralRead | None = None) -> bool:
    """The one guard of a read that replaces or bypasses the full judgement (:func:`_decisive_read`,
    :func:`_shifted_read`, :func:`_found_read`): its face is sure (:func:`_face_threshold` at
    ``position``; None: any place), its crop looks like a cube at least ``min_cube_probability``,
    and ``own`` (the read of the chosen window it replaces), when it names a face at
    ``shifted_own_confidence``, names the same one."""
    if r.face is None or r.confidence < _face_threshold(cfg, r.face, position):
        return False
    if r.cube_probability < min_cube_probability:
        return False
    return own is None or own.face is None or own.face == r.face or own.confidence < cfg.shifted_own_confidence


def _top_is_here(image: npt.NDArray[Any], profile: Any, window: CubeBlob, r: NumeralRead, half: NumeralRead,
                 whole: NumeralRead, cfg: CubeConfig) -> bool:
    """Whether ``window``, read ``r``, is the cube's top as far as its surroundings tell: nothing
    beyond it looks like the top (:func:`_clear_beyond` of ``half`` and ``whole``, the reads half a
    side and a side beyond), half a side beyond, if cube-like and read as a numeral, the numeral is
    turned the same way (a side face can show the top's numeral turned otherwise: 900488; a read
    that names no face has no turn: 715066_4, a 16 read surely in every turn, was left unsure by
    such a read's turn 0), and the crop is aligned with the top's edges (:func:`angle_residual`)."""
    if r.face is None or not _clear_beyond(r.face, half, whole, cfg):
        return False
    if half.face is not None and half.cube_probability >= cfg.side_probe_cube_probability:
        period = 2 if r.face in HALF_TURN_SYMMETRIC_FACES else 4
        if (half.quarter_turns - r.quarter_turns) % period:
            return False  # half a side beyond, the numeral turned otherwise: the window may be a side face
    return abs(angle_residual(image, profile, window)) <= cfg.max_angle_residual_deg


HALF_TURN_SYMMETRIC_FACES: tuple[int, ...] = (8,)
"""Faces whose numeral looks the same turned half a turn: the model's quarter turn of an 8 is only
known up to a half turn, so :func:`_top_is_here` compares an 8's turns modulo two quarters (715450_0:
an 8 read in every turn of its crop at 0.92 on average, half a side beyond read 8 two quarters
off, was left unsure)."""


ANGLE_VIEW_SIDES = 1.0
"""Cube sides the view of :func:`angle_residual` spans (the top face alone when centred on it)."""


def angle_residual(image: npt.NDArray[Any], profile: Any, blob: CubeBlob) -> float:
    """Degrees (-45..45) between the edges of what lies under the window (its central cube side,
    on the top's plane, at ``REFINE_PPM``) and the window's own edge angle ``blob.rotation_deg``:
    near 0 when the crop is aligned with the top face."""
    n = max(7, round(ANGLE_VIEW_SIDES * blob.side_mm * REFINE_PPM)) | 1
    gx, gy = _gradients(cube_patches(image, profile, [blob], n, ANGLE_VIEW_SIDES)[0])
    a = _edge_angle(gx, gy, cv2.magnitude(gx, gy), n // 2, n // 2, n // 2)
    return (a + 45.0) % 90.0 - 45.0


def place_is_sure(cube_probability: float, rivals: list[float], cfg: CubeConfig) -> bool:
    """Whether the chosen window's place can be sure: it looks like a cube (``min_cube_probability``)
    and no window of another position (``rivals``: their cube probabilities) looks like one
    (``rival_cube_probability``; ``rival_of_sure_cube_probability`` when the chosen window looks
    like a cube beyond doubt, ``decisive_cube_probability``)."""
    if cube_probability < cfg.min_cube_probability:
        return False
    bar = (cfg.rival_of_sure_cube_probability if cube_probability >= cfg.decisive_cube_probability
           else cfg.rival_cube_probability)
    return all(r <= bar for r in rivals)


def _face_threshold(cfg: CubeConfig, face: int, position: CubePosition | None) -> float:
    """The probability a read of ``face`` at ``position`` (None: any) needs (``middle_64_confidence``,
    ``look_alike_confidence``)."""
    if face in cfg.look_alike_faces:
        return max(cfg.min_confidence, cfg.look_alike_confidence)
    if face == 64 and position is CubePosition.MIDDLE:
        return min(cfg.min_confidence, cfg.middle_64_confidence)
    return cfg.min_confidence


def _decisive_read(image: npt.NDArray[Any], sampler: CubeSampler, top: list[CubeBlob], numeral: CubeNumeral,
                   cfg: CubeConfig, refine: bool, realign: bool = False) -> CubeReading | None:
    """The reading of the most contrasted window alone, when it is decisive; None: judge them all.

    The model judges the most contrasted window (the cube in ~95 % of frames), its side probes, and
    every other window of ``top`` that would give another position (a rival there makes the
    position unsure), in one pass; windows that would give the same position are not judged.  The
    read stands only when the window is cube-like beyond doubt (``decisive_cube_probability``), its
    face is sure, nothing beyond it looks like the top (:func:`_clear_beyond`), the window half a
    side beyond, if cube-like, reads the numeral turned the same way (a side face can show the same
    numeral as the top, turned otherwise: 900488), and no window of
    another position, judged as found, looks like a cube even a little
    (``decisive_rival_cube_probability``): then judging all windows would have chosen this one, or
    another window of the same position that reads it no better.  Otherwise the caller judges all
    windows as before.
    """
    profile = sampler.profile
    pos0 = sampler.frame.position(top[0].center_mm, cfg)[0]
    rivals = [b for b in top[1:] if sampler.frame.position(b.center_mm, cfg)[0] is not pos0]
    blob = refine_blobs(image, profile, top[:1], cfg.refine_reach, realign=realign)[0] if refine else top[0]
    probes = side_probes(sampler, blob)
    if not probes:
        return None
    judged = 1 + len(rivals)
    crops = numeral.patches(image, profile, [blob, *rivals, *probes])
    p = numeral.cube_probabilities(crops)
    nr = numeral.decide(p[0])
    if not _read_stands(nr, cfg, None, cfg.decisive_cube_probability):
        return None
    assert nr.face is not None  # a read that stands names a face
    if any(1.0 - float(q[0]) > cfg.decisive_rival_cube_probability for q in p[1:judged]):
        return None
    if _half_turn_doubts(numeral, lambda: crops[0], nr, cfg):
        return None
    pos, pconf = sampler.frame.position(blob.center_mm, cfg)
    if pos is not pos0:
        return None  # the re-centred window moved across a boundary: judge them all
    half, whole = (numeral.decide(q) for q in p[judged:judged + len(probes)])
    if not _top_is_here(image, profile, blob, nr, half, whole, cfg):
        return None
    return CubeReading(nr.face, round(nr.confidence, 4), pos, round(rotation_of(blob.rotation_deg, nr.quarter_turns), 1),
                       round(pconf, 4))


def decisive_windows(windows: list[CubeBlob], cfg: CubeConfig) -> list[CubeBlob]:
    """The windows the decisive read judges: the first ``decisive_candidates`` of ``windows`` (most
    contrasted first), at most ``decisive_per_place`` of each place."""
    out: list[CubeBlob] = []
    per: dict[int, int] = {}
    for b in windows:
        if per.get(b.place, 0) < cfg.decisive_per_place:
            per[b.place] = per.get(b.place, 0) + 1
            out.append(b)
            if len(out) == cfg.decisive_candidates:
                break
    return out


def half_turned(crop: npt.NDArray[np.uint8]) -> npt.NDArray[np.uint8]:
    """A crop turned half a turn (its numeral's up turned by two quarter turns)."""
    return turned(crop, 2)


def turned(crop: npt.NDArray[np.uint8], quarters: int) -> npt.NDArray[np.uint8]:
    """A crop turned ``quarters`` quarter turns counter-clockwise (its numeral's up with it)."""
    return np.ascontiguousarray(np.rot90(crop, quarters))


def _half_turn_doubts(numeral: CubeNumeral, crop: Callable[[], npt.NDArray[np.uint8]], r: NumeralRead,
                      cfg: CubeConfig) -> bool:
    """Whether the turn checks drop the read ``r`` of ``crop()``: a look-alike face read below
    ``look_alike_turns_below`` is dropped when the crop turned by any quarter turn reads another
    face; any other read below ``half_turn_below`` (``half_turn_check``) when the crop turned half
    a turn does (each copy's most likely face).  One model pass of the turned copies (no warp),
    only when a check applies."""
    if r.face in cfg.look_alike_faces and r.confidence < cfg.look_alike_turns_below:
        c = crop()
        copies = [turned(c, q) for q in (1, 2, 3)]
    elif cfg.half_turn_check and r.confidence < cfg.half_turn_below:
        copies = [half_turned(crop())]
    else:
        return False
    return any(numeral.decide(p).face != r.face for p in numeral.cube_probabilities(copies))


SIDE_PROBES = (0.5, 1.0)
"""Distances (cube sides) beyond a read window, away from the camera, checked for the cube's top."""
SHIFTED_BEYOND = 1.5
"""Distance (cube sides) beyond a window of the probe that checks a read half a side beyond it."""


def side_probes(sampler: CubeSampler, blob: CubeBlob, distances: tuple[float, ...] = SIDE_PROBES) -> list[CubeBlob]:
    """Windows ``SIDE_PROBES`` cube sides beyond ``blob``, away from the camera, on the same plane
    (none when the camera is straight above it: no side face shows)."""
    cx, cy, _ = sampler.camera_mm
    dx, dy = blob.center_mm[0] - cx, blob.center_mm[1] - cy
    d = math.hypot(dx, dy)
    if d < 1e-6:
        return []
    return [replace(blob, center_mm=(blob.center_mm[0] + dx / d * f * blob.side_mm,
                                     blob.center_mm[1] + dy / d * f * blob.side_mm)) for f in distances]


def _beyond_reads(image: npt.NDArray[Any], sampler: CubeSampler, blob: CubeBlob, numeral: CubeNumeral,
                  probs: npt.NDArray[np.float64] | None = None) -> list[NumeralRead]:
    """The model's reads of :func:`side_probes` of ``blob`` (``probs``: their probabilities when
    already computed); empty when the camera is straight above it."""
    if probs is None:
        probes = side_probes(sampler, blob)
        if not probes:
            return []
        probs = numeral.cube_probabilities(numeral.patches(image, sampler.profile, probes))
    return [numeral.decide(p) for p in probs]


def _clear_beyond(face: int, half: NumeralRead, whole: NumeralRead, cfg: CubeConfig, *, strict: bool = False) -> bool:
    """False when the cube's top seems to lie beyond a window that reads ``face`` (away from the
    camera): the window is then likely a side face, whose numeral is not the one on top.  ``half``
    and ``whole``: the reads half a side and a side beyond it.

    A side beyond: the top when the window is on a side face (beyond the top itself lies the
    background); half a side beyond: the top's middle when the window straddles top and side, the
    same top shifted when it is the top, so there only another face counts (``strict``: a
    cube-like window there must read ``face``, however unsure).
    """
    if whole.cube_probability >= cfg.side_probe_cube_probability:
        return False
    if half.cube_probability < cfg.side_probe_cube_probability:
        return True
    if strict:
        return half.face == face
    return not (half.face is not None and half.face != face and half.confidence >= cfg.side_probe_face_confidence)


def _shifted_read(image: npt.NDArray[Any], sampler: CubeSampler, blob: CubeBlob, numeral: CubeNumeral,
                  cfg: CubeConfig, beyond: list[NumeralRead], own: NumeralRead) -> NumeralRead | None:
    """The read of the window half a side beyond ``blob`` (away from the camera), when the read of
    ``blob`` itself is unsure or may be a side face: a window that straddles the top and a side face
    (or sits on the side) has the top's middle half a side beyond it.  That read stands only when it
    is sure (``min_confidence``, cube-like) and nothing beyond *it* suggests the top lies further
    still (:func:`_clear_beyond` of the reads one and one and a half sides beyond ``blob``): beyond
    the top only the background shows, while a window on a side face has the top beyond it.

    ``own``: the read of ``blob`` itself.  When it names a face, however unsurely, the read half a
    side beyond must name the same one: a window on the top has half a side beyond it a crop that
    straddles the top and the background, which the model sometimes reads as another face
    surely (on the fresh cube set 715000-715059, 3 of 480 frames: a 16 on top read 1.0, half a
    side beyond 64 or 32 at 0.91-0.98)."""
    half = beyond[0]
    if not _read_stands(half, cfg, None, max(cfg.min_cube_probability, cfg.shifted_cube_probability), own):
        return None
    if own.cube_probability < cfg.shifted_own_cube_probability:
        return None  # the chosen window is not the cube: where the top lies is unknown
    assert half.face is not None  # a read that stands names a face
    far = side_probes(sampler, blob, (SHIFTED_BEYOND,))
    if not far:
        return None
    far_read = numeral.decide(numeral.cube_probabilities(numeral.patches(image, sampler.profile, far))[0])
    return half if _clear_beyond(half.face, beyond[1], far_read, cfg, strict=True) else None


WATCH_MARGIN_SIDES = 3.5
"""How far (cube sides) beyond a place the cube stage may read: a window's centre lies in the place,
re-centring moves it up to ``refine_reach`` along each edge (0.64 sides), the farthest probe lies
``SHIFTED_BEYOND`` (1.5) sides beyond it, and a crop reaches 0.9 side from its centre along an edge
(1.27 sides to a corner): 3.41 sides."""


@dataclass(frozen=True, slots=True)
class CubeSnapshot:
    """The pixels the cube stage may read in one frame (:meth:`CubeWatch.snapshot`)."""

    crops: tuple[npt.NDArray[np.uint8], ...]


class CubeWatch:
    """The image boxes (and masks) holding every pixel :func:`read_cube` may read for one profile:
    each place a cube rests, on the plane of its top, grown by ``WATCH_MARGIN_SIDES`` cube sides,
    projected into the image (its outline sampled densely, so lens distortion is followed) and
    grown by 2 px for bilinear sampling.

    The live reader keeps a confident cube reading while no pixel there has changed by more than
    the gate's ``motion_threshold`` (in any colour channel) since the frame it was read from
    (:meth:`unchanged`): :func:`read_cube` reads nothing else, so a reading it would make anew can
    differ only by what such sub-threshold differences change.
    """

    def __init__(self, sampler: CubeSampler, image_size: tuple[int, int]) -> None:
        profile = sampler.profile
        w, h = image_size
        grow = WATCH_MARGIN_SIDES * profile.spec.cube_size_mm
        boxes: list[tuple[int, int, int, int]] = []
        masks: list[npt.NDArray[np.bool_]] = []
        for rect, z in sampler.places:
            x0, x1, y0, y1 = rect.x0 - grow, rect.x1 + grow, rect.y0 - grow, rect.y1 + grow
            t = np.linspace(0.0, 1.0, 65)
            ring = np.concatenate([np.stack([x0 + (x1 - x0) * t, np.full_like(t, y0)], 1),
                                   np.stack([np.full_like(t, x1), y0 + (y1 - y0) * t], 1),
                                   np.stack([x1 - (x1 - x0) * t, np.full_like(t, y1)], 1),
                                   np.stack([np.full_like(t, x0), y1 - (y1 - y0) * t], 1)])
            pts = np.asarray(profile.board_to_image(np.column_stack([ring, np.full(len(ring), z)])), np.float64)
            bx0, by0 = (max(0, math.floor(float(v)) - 2) for v in pts.min(axis=0))
            bx1, by1 = (min(int(lim), math.ceil(float(v)) + 3) for v, lim in zip(pts.max(axis=0), (w, h), strict=True))
            if bx1 <= bx0 or by1 <= by0:
                continue
            inside = np.zeros((by1 - by0, bx1 - bx0), np.uint8)
            cv2.fillPoly(inside, [np.round(pts - (bx0, by0)).astype(np.int32)], 1)
            grown = cv2.dilate(inside, np.ones((5, 5), np.uint8))  # the 2 px of bilinear sampling
            boxes.append((bx0, by0, bx1, by1))
            masks.append(np.asarray(grown, bool))
        self.boxes = tuple(boxes)
        self.masks = tuple(masks)
        self.image_size = (int(w), int(h))
        self._flat: dict[tuple[int, int], npt.NDArray[np.uint8]] = {}

    def snapshot(self, image: npt.NDArray[Any]) -> CubeSnapshot:
        """A copy of the watched pixels of ``image`` (BGR or grey)."""
        return CubeSnapshot(tuple(np.array(image[y0:y1, x0:x1]) for x0, y0, x1, y1 in self.boxes))

    def unchanged(self, image: npt.NDArray[Any], snap: CubeSnapshot, threshold: int) -> bool:
        """True when no watched pixel of ``image`` differs from ``snap`` by more than ``threshold``
        in any channel (False for a frame of another size or kind)."""
        if image.shape[1::-1] != self.image_size or len(snap.crops) != len(self.boxes):
            return False
        for i, ((x0, y0, x1, y1), ref) in enumerate(zip(self.boxes, snap.crops, strict=True)):
            cur = image[y0:y1, x0:x1]
            if cur.shape != ref.shape:
                return False
            # every channel of every pixel, compared flat: the largest difference under the mask
            # (two OpenCV passes: the difference, then its masked maximum)
            diff = cv2.absdiff(cur, ref).reshape(ref.shape[0], -1)
            mask = self._flat_mask(i, 1 if ref.ndim == 2 else ref.shape[2])
            if cv2.minMaxLoc(diff, mask)[1] > threshold:
                return False
        return True

    def _flat_mask(self, i: int, channels: int) -> npt.NDArray[np.uint8]:
        """Mask ``i`` as 0/255 with each pixel repeated ``channels`` times along its row."""
        key = (i, channels)
        m = self._flat.get(key)
        if m is None:
            m = np.repeat(self.masks[i].astype(np.uint8) * 255, channels, axis=1)
            self._flat[key] = m
        return m
