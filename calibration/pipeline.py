"""One frame of the starting position -> a validated :class:`CalibrationProfile`.

>>> # calibrate_frame(cv2.imread("frame.png"), BoardSpec.tournament()).profile.save("profile.json")
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from calibration.appearance import learn_appearance
from calibration.aruco import find_marker_corners
from calibration.board import BoardFit, find_board, pattern_score, refine_manual_fit, smoothed_lab
from calibration.camera import CameraModel
from calibration.config import CalibrationConfig
from calibration.errors import CalibrationError, CornerOutside, FitUntrusted, SeatsUndecided, SidesUntrusted
from calibration.guard import side_contrast, side_support
from calibration.homography import as_points, canonical_corners
from calibration.profile import CalibrationProfile
from calibration.seats import SeatingResult, detect_seating
from vision.geometry import BoardSpec, Seating

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True, slots=True)
class CalibrationResult:
    profile: CalibrationProfile
    fit: BoardFit | None
    seats: SeatingResult | None
    notes: tuple[str, ...]


def calibrate_frame(
    image: Image,
    spec: BoardSpec | None = None,
    *,
    camera: CameraModel | None = None,
    corners: npt.ArrayLike | None = None,
    aruco: bool = False,
    seating: Seating | None = None,
    refine_manual: bool = True,
    config: CalibrationConfig | None = None,
    camera_name: str = "",
) -> CalibrationResult:
    """Calibrate from one frame: automatic, from ArUco markers, or from four manual corners.

    ``seating`` given = trust it; otherwise it is detected from the starting position, and a frame
    that does not show it clearly raises :class:`SeatsUndecided` (calibration abstains rather than
    guess the seats; a frame that shows it with a few slots off gets a note).  An automatic fit whose
    corner confidence is below ``config.min_corner_confidence`` raises :class:`FitUntrusted` (abstains
    rather than decide a placement it cannot vouch for; ``exc.fit`` holds it), unless a near-frontal fit's
    points' sides vouch for it (``config.frontal_vouch_confidence``).  ``spec`` None
    means: guess the board type (tournament or travel) from the fit (manual and ArUco paths then
    assume a tournament board).
    """
    cfg = config or CalibrationConfig()
    h, w = image.shape[:2]
    cam = camera or CameraModel.default_for_size(w, h, cfg)
    if (cam.width, cam.height) != (w, h):
        raise CalibrationError(f"camera intrinsics are for {cam.width}x{cam.height}, the frame is {w}x{h}")
    notes: list[str] = []
    fit: BoardFit | None = None
    given = spec if spec is not None else BoardSpec.tournament()
    if aruco:
        c = find_marker_corners(image)
        prof = CalibrationProfile.from_corners(c, cam, given, method="aruco", camera_name=camera_name)
    elif corners is not None:
        c = canonical_corners(as_points(corners), cam.matrix, given.width_mm / given.depth_mm)
        conf = 1.0
        if refine_manual:
            try:
                fitted, support = refine_manual_fit(image, c, cam, given, cfg)
                if float(np.abs(np.asarray(fitted.corners_px) - c).max()) <= 2 * cfg.edge_search_px:
                    c, cam = np.asarray(fitted.corners_px, dtype=np.float64), fitted.camera
                    conf = support
                    notes.append("manual corners refined to the frame's edges")
            except CalibrationError:
                notes.append("manual corners used as given (no clear edges near them)")
        prof = CalibrationProfile.from_corners(c, cam, given, method="manual", corner_confidence=conf,
                                               camera_name=camera_name, estimate_focal=conf == 1.0)
    else:
        fit = find_board(image, spec, cam, cfg)
        assert fit.profile is not None
        if fit.corner_confidence < cfg.min_corner_confidence:
            if not _frontal_sides_vouch(image, fit, cfg):
                raise FitUntrusted(fit.corner_confidence, cfg.min_corner_confidence, fit)
            notes.append(f"corner confidence {fit.corner_confidence:.2f} under {cfg.min_corner_confidence:.2f}: decided "
                         "because the points' sides lie on their edges (near-frontal view); check the fit with "
                         "`bgref calibrate check`")
        if cfg.min_side_support > 0:
            contrast = side_contrast(image, fit.profile)
            if contrast >= cfg.side_guard_contrast:
                sides = side_support(smoothed_lab(image), fit.profile)
                if sides < cfg.min_side_support:
                    raise SidesUntrusted(fit.corner_confidence, sides, cfg.min_side_support, contrast, fit)
        if cfg.max_corner_outside_px is not None:
            _check_corners_inside(fit, w, h, cfg.max_corner_outside_px)
        prof = replace(fit.profile, quality=replace(fit.profile.quality, camera_name=camera_name,
                                                        corner_confidence=fit.corner_confidence))
    seats: SeatingResult | None = None
    if seating is not None:
        prof = prof.with_seating(seating)
    else:
        seats = detect_seating(image, prof)
        if seats.score < cfg.seat_min_score or seats.margin < cfg.seat_min_margin:
            raise SeatsUndecided(
                f"seats not decided: the frame does not show the 2-5-3-5 starting position clearly (best "
                f"seating WHITE {seats.seating.white.value}, home {seats.seating.white_home.value}: pattern "
                f"{seats.score:.2f}, need {cfg.seat_min_score:.2f}; margin over the next {seats.margin:.2f}, need "
                f"{cfg.seat_min_margin:.2f}); set up the starting position or pass --white and --home"
            )
        prof = prof.with_seating(seats.seating)
        if not seats.start_position_ok:
            notes.append(
                f"the frame does not clearly show the starting position ({seats.mismatched_slots} slots differ): "
                "check the seating drawn by `bgref calibrate check`, or pass --white/--home"
            )
    prof = prof.with_quality(pattern_score=pattern_score(image, prof),
                             start_position_ok=seats.start_position_ok if seats else None)
    try:
        prof = prof.with_appearance(learn_appearance(image, prof.layout, prof.board_to_image))
    except ValueError as exc:
        notes.append(f"appearance not learned: {exc}")
    return CalibrationResult(prof, fit, seats, tuple(notes))


def fitted_tilt_deg(rvec: npt.ArrayLike) -> float:
    """The angle (degrees) between the camera's axis and the board's normal for a board-to-camera rotation."""
    R, _ = cv2.Rodrigues(np.asarray(rvec, dtype=np.float64).reshape(3, 1))
    return float(np.degrees(np.arccos(min(1.0, abs(float(R[2, 2]))))))


def _frontal_sides_vouch(image: Image, fit: BoardFit, cfg: CalibrationConfig) -> bool:
    """Whether a fit under ``min_corner_confidence`` is decided all the same
    (:attr:`CalibrationConfig.frontal_vouch_confidence`): near-frontal, and the points' sides clear and on their edges."""
    if cfg.frontal_vouch_confidence is None or fit.corner_confidence < cfg.frontal_vouch_confidence:
        return False
    assert fit.profile is not None
    if fitted_tilt_deg(fit.profile.rvec) > cfg.frontal_vouch_tilt_deg:
        return False
    if side_contrast(image, fit.profile) < cfg.side_guard_contrast:
        return False
    return side_support(smoothed_lab(image), fit.profile) >= cfg.frontal_vouch_side_support


def _check_corners_inside(fit: BoardFit, width: int, height: int, limit_px: float) -> None:
    """Raise :class:`CornerOutside` when a fitted outer corner lies more than ``limit_px`` (at 1920 wide,
    scaled) outside the ``width`` x ``height`` frame."""
    c = np.asarray(fit.corners_px, dtype=np.float64).reshape(-1, 2)
    outside = np.maximum.reduce([-c[:, 0], c[:, 0] - width, -c[:, 1], c[:, 1] - height, np.zeros(len(c))])
    i = int(np.argmax(outside))
    limit = limit_px * width / 1920.0
    if float(outside[i]) > limit:
        raise CornerOutside(fit.corner_confidence, (float(c[i, 0]), float(c[i, 1])), float(outside[i]), limit,
                            width, height, fit)
