"""Tracking the board during play: notice a nudge, stop judging, re-fit from the live frame.

Every ``track_every_n``-th frame the board's inner edges predicted by the profile are checked against
the image (:func:`board_support`: per edge of the tables, trays, bar and of every point's sides, the
fraction of samples with a colour edge on the predicted line; :func:`support_score` keeps the 70th
percentile over the edges).  The score must stay above a fraction of its value on the reference frame,
so a board whose edges are faint by nature raises no alarm while still.  A hand over the rail lowers
the support for a moment; a moved board or camera lowers it until fixed.  After ``track_confirm_checks`` failing checks the tracker estimates the motion with ORB
features matched between the last good frame and this one (RANSAC homography: moved checkers and
hands are outliers), moves the corners by it, re-fits them to sub-pixel edges, and hands back a new
profile (same camera, seats and colours; ``method`` kept, a fresh ``created``).  The game itself is
untouched: the caller pauses judging while the status is not OK and resumes with the new profile.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import cv2
import numpy as np
import numpy.typing as npt

from calibration.board import edge_points, smoothed_lab
from calibration.config import CalibrationConfig
from calibration.errors import CalibrationError
from calibration.homography import apply_homography
from calibration.model import edge_support, fit_pose
from calibration.profile import CalibrationProfile

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


class TrackStatus(Enum):
    OK = "ok"
    """The board is where the profile says."""
    SUSPECT = "suspect"
    """The outline is not confirmed on this frame (a hand, or a move not yet confirmed): pause judging."""
    REFITTED = "refitted"
    """The board moved and was re-fitted: ``profile`` is the new one."""
    LOST = "lost"
    """The board moved and could not be re-fitted: recalibrate."""


@dataclass(frozen=True, slots=True)
class TrackUpdate:
    status: TrackStatus
    profile: CalibrationProfile
    support: float
    shift_px: float
    """How far the outline's corners moved in the last re-fit (0 when none)."""
    t: float


def _outline_segments(profile: CalibrationProfile) -> list[tuple[FloatArray, FloatArray, FloatArray, FloatArray]]:
    """Per side: top edge (z = rail height) and bottom edge (z = 0) as image segments."""
    s = profile.spec
    W, D, h = s.width_mm, s.depth_mm, s.rail_height_mm
    base = [(0, 0), (W, 0), (W, D), (0, D)]
    top = profile.board_to_image([(x, y, h) for x, y in base])
    bot = profile.board_to_image([(x, y, 0.0) for x, y in base])
    return [(top[i], top[(i + 1) % 4], bot[i], bot[(i + 1) % 4]) for i in range(4)]


def outline_support(
    image: Image, profile: CalibrationProfile, config: CalibrationConfig | None = None, tol_px: float = 2.0,
    lab: npt.NDArray[np.float32] | None = None,
) -> float:
    """Fraction of outline samples (0..1) with a strong colour edge within ``tol_px`` of the prediction."""
    cfg = config or CalibrationConfig()
    lab = lab if lab is not None else smoothed_lab(image)
    centre = profile.board_to_image([(profile.spec.width_mm / 2, profile.spec.depth_mm / 2, 0.0)])[0]
    hits, total = 0, 0
    for a, b, a0, b0 in _outline_segments(profile):
        d = (b - a) / max(float(np.linalg.norm(b - a)), 1e-9)
        nrm = np.array([-d[1], d[0]])
        if nrm @ (centre - (a + b) / 2) < 0:
            nrm = -nrm
        # the bottom edge shows only when the wall faces the camera: search out to it
        wall = max(0.0, float(-(((a0 + b0) / 2 - (a + b) / 2) @ nrm)))
        search = tol_px + 3.0 + wall
        pts, strength = edge_points(lab, a - nrm * wall / 2, b - nrm * wall / 2, nrm, search, cfg.edge_samples // 2)
        # distance of the found edge to the top line or to the bottom line
        off_top = np.abs((pts - a) @ nrm)
        off_bot = np.abs((pts - a0) @ nrm)
        near = np.minimum(off_top, off_bot) <= tol_px
        hits += int(np.sum(near & (strength > 1.5)))
        total += len(pts)
    return hits / max(total, 1)


def board_support(
    image: Image, profile: CalibrationProfile, lab: npt.NDArray[np.float32] | None = None,
) -> FloatArray:
    """Per inner edge of the board (0..1 each): the fraction of its samples with a colour edge on the line
    the profile predicts (:func:`calibration.model.edge_support`: the tables', trays' and bar's edges and
    the sides of all 24 points, not the outer frame, which may match the table)."""
    lab = lab if lab is not None else smoothed_lab(image)
    return edge_support(lab, profile.camera, profile.spec, np.asarray(profile.rvec), np.asarray(profile.tvec))


def support_score(per_edge: FloatArray) -> float:
    """One figure from :func:`board_support`: the 70th percentile of the edges' hit fractions (a hand or
    stacks of checkers hide some edges; a moved board misses them all)."""
    v = per_edge[np.isfinite(per_edge)]
    return float(np.percentile(v, 70)) if len(v) else 0.0


def estimate_motion(reference: Image, current: Image, mask: npt.NDArray[np.uint8] | None = None) -> FloatArray | None:
    """Homography reference -> current from ORB features (RANSAC), or None when too few agree."""
    orb = cv2.ORB.create(nfeatures=3000, fastThreshold=10)
    g0 = cv2.cvtColor(reference, cv2.COLOR_BGR2GRAY) if reference.ndim == 3 else reference
    g1 = cv2.cvtColor(current, cv2.COLOR_BGR2GRAY) if current.ndim == 3 else current
    k0, d0 = orb.detectAndCompute(g0, mask)
    k1, d1 = orb.detectAndCompute(g1, None)
    if d0 is None or d1 is None or len(k0) < 12 or len(k1) < 12:
        return None
    matcher = cv2.BFMatcher(cv2.NORM_HAMMING, crossCheck=True)
    matches = matcher.match(d0, d1)
    if len(matches) < 12:
        return None
    src = np.array([k0[m.queryIdx].pt for m in matches], np.float32)
    dst = np.array([k1[m.trainIdx].pt for m in matches], np.float32)
    H, inl = cv2.findHomography(src, dst, cv2.RANSAC, 3.0)
    if H is None or inl is None or int(inl.sum()) < 12:
        return None
    return np.asarray(H, dtype=np.float64)


def board_mask(profile: CalibrationProfile, margin_mm: float = 20.0) -> npt.NDArray[np.uint8]:
    s = profile.spec
    m = margin_mm
    poly = profile.board_to_image([(-m, -m, 0), (s.width_mm + m, -m, 0), (s.width_mm + m, s.depth_mm + m, 0),
                                   (-m, s.depth_mm + m, 0)])
    mask = np.zeros((profile.camera.height, profile.camera.width), np.uint8)
    cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 255)
    return mask


def refit(
    reference: Image, current: Image, profile: CalibrationProfile, config: CalibrationConfig | None = None
) -> CalibrationProfile:
    """A profile for ``current`` after the board or camera moved since ``reference``; raises CalibrationError."""
    del config  # thresholds of the re-fit live in the model fit
    H = estimate_motion(reference, current, board_mask(profile))
    if H is None:
        raise CalibrationError("the board moved and its new place could not be found: recalibrate")
    guess = apply_homography(H, np.array(profile.corners_px))
    try:
        start = CalibrationProfile.from_corners(guess, profile.camera, profile.spec, estimate_focal=False)
        fit = fit_pose(smoothed_lab(current), profile.camera, profile.spec, np.asarray(start.rvec),
                       np.asarray(start.tvec), free_lens=False, searches=(12.0, 6.0, 3.0, 2.5))
    except (ValueError, cv2.error) as exc:
        raise CalibrationError(f"the board moved and could not be re-fitted: {exc}") from None
    new = CalibrationProfile.from_pose(profile.camera, profile.spec, fit.rvec, fit.tvec, reprojection_px=fit.rms_px,
                                       seating=profile.seating, method=profile.quality.method,
                                       camera_name=profile.quality.camera_name, corner_confidence=fit.support)
    return new.with_appearance(profile.appearance).with_quality(pattern_score=profile.quality.pattern_score)


class BoardTracker:
    """Feed it every frame (``update(image, t)``); it answers whether the profile still holds.

    The check is :func:`board_support` on the board's inner edges and the points' sides (not the outer
    frame, which may match the table), compared with its value on the reference frame given at
    construction (so a board whose edges are faint by nature does not raise an alarm while still).
    """

    def __init__(self, profile: CalibrationProfile, reference: Image, config: CalibrationConfig | None = None) -> None:
        self.config = config or CalibrationConfig()
        self.profile = profile
        self._reference = reference
        self._baseline = support_score(board_support(reference, profile))
        self._fails = 0
        self._n = 0
        self._last = TrackUpdate(TrackStatus.OK, profile, self._baseline, 0.0, 0.0)

    @property
    def threshold(self) -> float:
        """The support below which a check fails."""
        cfg = self.config
        return max(cfg.track_support_floor, cfg.track_support_min * self._baseline)

    def update(self, image: Image, t: float = 0.0) -> TrackUpdate:
        cfg = self.config
        self._n += 1
        if (self._n - 1) % cfg.track_every_n and self._last.status is TrackStatus.OK:
            return TrackUpdate(TrackStatus.OK, self.profile, self._last.support, 0.0, t)
        lab = smoothed_lab(image)
        support = support_score(board_support(image, self.profile, lab))
        if support >= self.threshold:
            self._fails = 0
            self._reference = image
            self._last = TrackUpdate(TrackStatus.OK, self.profile, support, 0.0, t)
            return self._last
        self._fails += 1
        if self._fails < cfg.track_confirm_checks:
            self._last = TrackUpdate(TrackStatus.SUSPECT, self.profile, support, 0.0, t)
            return self._last
        try:
            new = refit(self._reference, image, self.profile, cfg)
        except CalibrationError:
            self._last = TrackUpdate(TrackStatus.LOST, self.profile, support, 0.0, t)
            return self._last
        new_support = support_score(board_support(image, new, lab))
        shift = float(np.abs(np.array(new.corners_px) - np.array(self.profile.corners_px)).max())
        if new_support < self.threshold or shift < cfg.track_shift_px:
            # not a move we can confirm (a hand over the rail?): keep waiting
            self._last = TrackUpdate(TrackStatus.SUSPECT, self.profile, support, 0.0, t)
            return self._last
        self.profile = new
        self._reference = image
        self._baseline = max(new_support, self._baseline)
        self._fails = 0
        self._last = TrackUpdate(TrackStatus.REFITTED, new, new_support, shift, t)
        return self._last
