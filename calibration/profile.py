"""The calibration profile: camera, board pose, seats, appearance and quality, in one validated file.

A profile is made once per camera set-up (``bgref calibrate``) and passed explicitly to everything that
reads frames.  It maps between image pixels (as the camera delivers them, distortion included) and the
board frame of :mod:`vision.geometry` (millimetres, ``z`` up from the playing surface).

>>> from vision.geometry import BoardSpec
>>> cam = CameraModel.default_for_size(1920, 1080)
>>> prof = CalibrationProfile.from_corners(
...     [(1500, 250), (420, 250), (300, 900), (1620, 900)], cam, BoardSpec.tournament(), method="manual")
>>> prof.image_to_board(prof.board_to_image([(100.0, 200.0)])).round(6).tolist()
[[100.0, 200.0]]
"""

from __future__ import annotations

import datetime as _dt
import functools
import json
import math
from dataclasses import MISSING, dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from calibration._fields import Reader
from calibration.appearance import AppearanceModel
from calibration.camera import SOURCES, CameraModel
from calibration.errors import ProfileError, ProfileFieldError, ProfileVersionError, ResolutionMismatch
from calibration.homography import apply_homography, as_points, check_quad
from rules.position import Side
from vision.geometry import Area, BoardLayout, BoardSpec, HomeEnd, LongSide, Rect, Seating

FloatArray = npt.NDArray[np.float64]

FORMAT = "bgref-calibration"
PROFILE_VERSION = 1
METHODS = ("auto", "manual", "aruco")


@dataclass(frozen=True, slots=True)
class Quality:
    """How good the calibration is, and where it came from."""

    reprojection_px: float
    """RMS distance (px) between the measured corners and the fitted pose's projection of them."""
    corner_confidence: float
    """0..1: how sharply the board's outline edges were found (1 for clean, fully supported edges)."""
    pattern_score: float | None
    """0..1: contrast of the alternating points after fitting (None when not measured)."""
    start_position_ok: bool | None
    """Whether the checkers matched the starting position (None when not checked)."""
    tilt_deg: float
    """Angle between the optical axis and the board's normal."""
    method: str
    created: str
    camera_name: str = ""

    def to_dict(self) -> dict[str, object]:
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_reader(cls, r: Reader) -> Quality:
        ok = r.raw("start_position_ok") if "start_position_ok" in r.data else None
        if ok is not None and not isinstance(ok, bool):
            raise r.fail("start_position_ok", "true, false or null", ok)
        return cls(
            reprojection_px=r.num("reprojection_px", lo=0.0),
            corner_confidence=r.num("corner_confidence", lo=0.0, hi=1.0),
            pattern_score=r.opt_num("pattern_score"),
            start_position_ok=ok,
            tilt_deg=r.num("tilt_deg", lo=0.0, hi=90.0),
            method=r.str_("method", METHODS),
            created=r.str_("created"),
            camera_name=r.str_("camera_name") if r.has("camera_name") else "",
        )


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


def _rt(rvec: tuple[float, ...], tvec: tuple[float, ...]) -> tuple[FloatArray, FloatArray]:
    R, _ = cv2.Rodrigues(np.asarray(rvec, dtype=np.float64))
    return np.asarray(R, dtype=np.float64), np.asarray(tvec, dtype=np.float64)


def focal_from_rectangle(image_corners: FloatArray, width_mm: float, depth_mm: float, cx: float, cy: float) -> float | None:
    """Focal length (px, square pixels, known principal point) from one image of a known rectangle.

    Zhang's two constraints (r1 . r2 = 0, |r1| = |r2|) on the board->image homography, solved in least
    squares for 1/f^2.  None when the view is too frontal to say (the focal length then matters little).
    """
    src = np.array([[0, 0], [width_mm, 0], [width_mm, depth_mm], [0, depth_mm]], np.float64)
    H = cv2.getPerspectiveTransform(src.astype(np.float32), (image_corners - [cx, cy]).astype(np.float32))
    h = np.asarray(H, dtype=np.float64)
    h1, h2 = h[:, 0], h[:, 1]
    a1, b1 = h1[0] * h2[0] + h1[1] * h2[1], h1[2] * h2[2]
    a2, b2 = h1[0] ** 2 + h1[1] ** 2 - h2[0] ** 2 - h2[1] ** 2, h1[2] ** 2 - h2[2] ** 2
    # a/f^2 + b = 0; scale rows so both constraints weigh alike
    rows = []
    for a, b in ((a1, b1), (a2, b2)):
        s = math.hypot(a, b * 1e6)
        if s > 0:
            rows.append((a / s, b / s))
    if not rows:
        return None
    A = np.array([r[0] for r in rows])
    B = np.array([r[1] for r in rows])
    denom = float(A @ A)
    if denom <= 0:
        return None
    u = -float(A @ B) / denom  # u = 1/f^2
    if u <= 0:
        return None
    return 1.0 / math.sqrt(u)


@functools.lru_cache(maxsize=8)
def _rectify_maps(
    camera: CameraModel, rvec: tuple[float, ...], tvec: tuple[float, ...], width_mm: float, depth_mm: float,
    px_per_mm: float, z_mm: float,
) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
    w = max(1, round(width_mm * px_per_mm))
    h = max(1, round(depth_mm * px_per_mm))
    xs = (np.arange(w, dtype=np.float64) + 0.5) / px_per_mm
    ys = (np.arange(h, dtype=np.float64) + 0.5) / px_per_mm
    gx, gy = np.meshgrid(xs, ys)
    obj = np.stack([gx.ravel(), gy.ravel(), np.full(gx.size, z_mm)], axis=1)
    img, _ = cv2.projectPoints(obj, np.asarray(rvec), np.asarray(tvec), camera.matrix, camera.dist_array)
    m = np.asarray(img, dtype=np.float32).reshape(h, w, 2)
    return np.ascontiguousarray(m[..., 0]), np.ascontiguousarray(m[..., 1])


@dataclass(frozen=True, slots=True)
class CalibrationProfile:
    """Everything needed to map a camera's frames onto one board (see the module docstring)."""

    camera: CameraModel
    spec: BoardSpec
    corners_px: tuple[tuple[float, float], ...]
    """The four outer corners of the frame top (z = rail height) as seen, in board order
    (0,0), (W,0), (W,D), (0,D)."""
    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]
    """Board pose in the camera frame (board millimetres -> camera millimetres)."""
    quality: Quality
    seating: Seating = field(default_factory=Seating)
    appearance: AppearanceModel | None = None
    version: int = PROFILE_VERSION

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_corners(
        cls,
        corners_px: npt.ArrayLike,
        camera: CameraModel,
        spec: BoardSpec,
        *,
        seating: Seating | None = None,
        method: str = "manual",
        corner_confidence: float = 1.0,
        camera_name: str = "",
        estimate_focal: bool = True,
    ) -> CalibrationProfile:
        """A profile from the four outer frame corners (board order, as seen in the image).

        With a default camera (no target calibration) and an oblique enough view, the focal length is
        estimated from the board rectangle itself.
        """
        c = as_points(corners_px)
        if c.shape != (4, 2):
            raise ProfileError(f"need 4 corners, got {len(c)}")
        und = camera.undistort_points(c)
        check_quad(und)
        if estimate_focal and camera.source == "default":
            f = focal_from_rectangle(und, spec.width_mm, spec.depth_mm, camera.cx, camera.cy)
            if f is not None and 0.35 * camera.width < f < 6.0 * camera.width:
                camera = replace(camera, fx=f, fy=f)
        rvec, tvec, rms = _solve_pose(und, spec, camera)
        q = Quality(
            reprojection_px=rms, corner_confidence=float(corner_confidence), pattern_score=None,
            start_position_ok=None, tilt_deg=_tilt(rvec), method=method, created=_now(), camera_name=camera_name,
        )
        return cls(
            camera, spec, tuple((float(x), float(y)) for x, y in c),
            (float(rvec[0]), float(rvec[1]), float(rvec[2])), (float(tvec[0]), float(tvec[1]), float(tvec[2])),
            q, seating or Seating(),
        )

    @classmethod
    def from_pose(
        cls,
        camera: CameraModel,
        spec: BoardSpec,
        rvec: npt.ArrayLike,
        tvec: npt.ArrayLike,
        *,
        reprojection_px: float,
        seating: Seating | None = None,
        method: str = "auto",
        corner_confidence: float = 1.0,
        camera_name: str = "",
    ) -> CalibrationProfile:
        """A profile from a fitted pose (the corners are its projection of the frame's top corners)."""
        rv = np.asarray(rvec, dtype=np.float64).ravel()
        tv = np.asarray(tvec, dtype=np.float64).ravel()
        if tv[2] <= 0:
            raise ProfileError("the fitted board lies behind the camera")
        W, D, z = spec.width_mm, spec.depth_mm, spec.rail_height_mm
        img, _ = cv2.projectPoints(np.array([[0, 0, z], [W, 0, z], [W, D, z], [0, D, z]], np.float64), rv, tv,
                                   camera.matrix, camera.dist_array)
        c = np.asarray(img, dtype=np.float64).reshape(4, 2)
        q = Quality(
            reprojection_px=float(reprojection_px), corner_confidence=float(corner_confidence), pattern_score=None,
            start_position_ok=None, tilt_deg=_tilt(rv), method=method, created=_now(), camera_name=camera_name,
        )
        return cls(camera, spec, tuple((float(x), float(y)) for x, y in c),
                   (float(rv[0]), float(rv[1]), float(rv[2])), (float(tv[0]), float(tv[1]), float(tv[2])),
                   q, seating or Seating())

    def with_seating(self, seating: Seating) -> CalibrationProfile:
        return replace(self, seating=seating)

    def with_appearance(self, appearance: AppearanceModel | None) -> CalibrationProfile:
        return replace(self, appearance=appearance)

    def with_quality(self, **changes: Any) -> CalibrationProfile:
        return replace(self, quality=replace(self.quality, **changes))

    # ------------------------------------------------------------------ geometry
    @property
    def layout(self) -> BoardLayout:
        """The board's regions (points, bar, trays, tables) with this profile's seating."""
        return BoardLayout(self.spec, self.seating)

    @property
    def image_size(self) -> tuple[int, int]:
        return (self.camera.width, self.camera.height)

    def homography(self, z_mm: float = 0.0) -> FloatArray:
        """3x3 homography from *undistorted* image pixels to board millimetres on the plane ``z``."""
        R, t = _rt(self.rvec, self.tvec)
        M = np.column_stack([R[:, 0], R[:, 1], t + z_mm * R[:, 2]])
        Hb2i = self.camera.matrix @ M
        Hi2b = np.linalg.inv(Hb2i)
        return np.asarray(Hi2b / Hi2b[2, 2], dtype=np.float64)

    def image_to_board(self, pts: npt.ArrayLike, z_mm: float = 0.0) -> FloatArray:
        """(N, 2) image pixels (as seen) -> (N, 2) board millimetres on the plane at height ``z``."""
        return apply_homography(self.homography(z_mm), self.camera.undistort_points(pts))

    def board_to_image(self, pts: npt.ArrayLike) -> FloatArray:
        """(N, 2) board mm (on the playing surface) or (N, 3) with heights -> (N, 2) image pixels."""
        p = np.asarray(pts, dtype=np.float64)
        if p.ndim == 1:
            p = p.reshape(1, -1)
        if p.shape[1] == 2:
            p = np.hstack([p, np.zeros((len(p), 1))])
        if len(p) == 0:
            return np.zeros((0, 2))
        img, _ = cv2.projectPoints(p.reshape(-1, 1, 3), np.asarray(self.rvec), np.asarray(self.tvec),
                                   self.camera.matrix, self.camera.dist_array)
        return np.asarray(img, dtype=np.float64).reshape(-1, 2)

    def rectify(self, image: npt.NDArray[np.uint8], px_per_mm: float = 1.0, z_mm: float = 0.0) -> npt.NDArray[np.uint8]:
        """A top view of the board: pixel (u, v) shows board point ((u+0.5)/ppm, (v+0.5)/ppm, z).

        The output is ``round(W*ppm)`` wide and ``round(D*ppm)`` high; x grows to the right and y
        downwards, so the NEAR seat (y = D) is at the bottom.  Maps are cached per profile and scale.
        """
        self.check_frame(image)
        if px_per_mm <= 0:
            raise ValueError(f"px_per_mm must be positive, got {px_per_mm}")
        mx, my = _rectify_maps(self.camera, self.rvec, self.tvec, self.spec.width_mm, self.spec.depth_mm,
                               float(px_per_mm), float(z_mm))
        out = cv2.remap(image, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT)
        return np.asarray(out, dtype=np.uint8)

    def check_frame(self, image: npt.NDArray[Any], source: str | None = None) -> None:
        """Raise :class:`ResolutionMismatch` unless ``image`` has the profile's resolution."""
        h, w = image.shape[:2]
        if (w, h) != self.image_size:
            raise ResolutionMismatch(self.image_size, (w, h), source)

    def project_outline(self) -> FloatArray:
        """The four outer corners re-projected by the fitted pose (z = rail height)."""
        W, D, z = self.spec.width_mm, self.spec.depth_mm, self.spec.rail_height_mm
        return self.board_to_image([(0, 0, z), (W, 0, z), (W, D, z), (0, D, z)])

    def region_polygons_mm(self) -> dict[str, FloatArray]:
        """Every named region as a board-frame polygon (mm, on the playing surface).

        ``p1``..``p24`` (triangles), ``bar``, ``tray_w``, ``tray_b``, ``left_table``, ``right_table``,
        ``field``, ``outline``, ``dice_w`` and ``dice_b`` (where each player's dice must land: his
        right-hand table).
        """
        lay = self.layout
        out: dict[str, FloatArray] = {}
        for p in range(1, 25):
            out[f"p{p}"] = np.array(lay.point_polygon(p)[:3], dtype=np.float64)
        out["bar"] = np.array(lay.bar_region().corners())
        out["tray_w"] = np.array(lay.tray_region(Side.WHITE).corners())
        out["tray_b"] = np.array(lay.tray_region(Side.BLACK).corners())
        out["left_table"] = np.array(lay.table_rect(Area.LEFT_TABLE).corners())
        out["right_table"] = np.array(lay.table_rect(Area.RIGHT_TABLE).corners())
        out["field"] = np.array(lay.field().corners())
        out["outline"] = np.array(lay.outline().corners())
        out["dice_w"] = np.array(self.dice_region(Side.WHITE).corners())
        out["dice_b"] = np.array(self.dice_region(Side.BLACK).corners())
        return out

    def region_polygons_image(self) -> dict[str, FloatArray]:
        """:meth:`region_polygons_mm` projected into the image (edges densified so distortion bends them)."""
        return {k: self.board_to_image(_densify(v)) for k, v in self.region_polygons_mm().items()}

    def dice_region(self, side: Side) -> Rect:
        """Where ``side``'s dice must come to rest: the right-hand table as that player sits."""
        return self.layout.table_rect(self.layout.right_hand_table(side))

    # ------------------------------------------------------------------ files
    def to_dict(self) -> dict[str, object]:
        cam = self.camera
        return {
            "format": FORMAT,
            "version": self.version,
            "camera": {
                "width": cam.width, "height": cam.height, "fx": cam.fx, "fy": cam.fy, "cx": cam.cx, "cy": cam.cy,
                "dist": list(cam.dist), "source": cam.source, "rms_px": cam.rms_px,
            },
            "board": {f.name: (list(v) if isinstance(v := getattr(self.spec, f.name), tuple) else v)
                      for f in fields(self.spec)},
            "seating": {"white": self.seating.white.value, "white_home": self.seating.white_home.value},
            "corners_px": [list(c) for c in self.corners_px],
            "pose": {"rvec": list(self.rvec), "tvec": list(self.tvec)},
            "homography_image_to_board": self.homography().tolist(),
            "appearance": self.appearance.to_dict() if self.appearance is not None else None,
            "quality": self.quality.to_dict(),
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def save(self, path: str | Path) -> None:
        p = Path(path)
        tmp = p.with_name(p.name + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(p)

    @classmethod
    def from_dict(cls, data: Any, source: str | None = None) -> CalibrationProfile:
        r = Reader(data, "", source)
        fmt = r.str_("format")
        if fmt != FORMAT:
            raise r.fail("format", repr(FORMAT), fmt)
        version = r.int_("version")
        if version != PROFILE_VERSION:
            raise ProfileVersionError(
                "version", expected=f"{PROFILE_VERSION} (this bgref)", source=source,
                found=f"{version} ({'older' if version < PROFILE_VERSION else 'newer'} format: recalibrate"
                      f"{'' if version < PROFILE_VERSION else ' or upgrade bgref'})",
            )
        c = r.obj("camera")
        dist = c.nums("dist")
        if len(dist) not in (4, 5):
            raise c.fail("dist", "4 or 5 numbers (k1, k2, p1, p2[, k3])", list(dist))
        cam = CameraModel(
            width=c.int_("width", lo=16), height=c.int_("height", lo=16),
            fx=c.num("fx", positive=True), fy=c.num("fy", positive=True), cx=c.num("cx"), cy=c.num("cy"),
            source=c.str_("source", SOURCES), rms_px=c.opt_num("rms_px", lo=0.0),
        ).with_distortion(dist, c.str_("source", SOURCES))
        b = r.obj("board")
        kw: dict[str, Any] = {}
        for f in fields(BoardSpec):
            if f.name == "name":
                kw[f.name] = b.str_("name")
            elif f.name == "die_size_mm":
                lo, hi = b.nums(f.name, 2)
                kw[f.name] = (lo, hi)
            elif f.name in b.data or f.default is MISSING:
                kw[f.name] = b.num(f.name, positive=True)
        try:
            spec = BoardSpec(**kw)
        except (TypeError, ValueError) as exc:
            raise ProfileFieldError("board", expected="consistent board dimensions", found=str(exc), source=source) from None
        s = r.obj("seating")
        seating = Seating(LongSide(s.str_("white", tuple(e.value for e in LongSide))),
                          HomeEnd(s.str_("white_home", tuple(e.value for e in HomeEnd))))
        corners = r.matrix("corners_px", 4, 2)
        for i, (x, y) in enumerate(corners):
            if not (-cam.width <= x <= 2 * cam.width and -cam.height <= y <= 2 * cam.height):
                raise r.fail("corners_px", f"corner {i} near the {cam.width}x{cam.height} image", [x, y])
        p = r.obj("pose")
        rvec = p.nums("rvec", 3)
        tvec = p.nums("tvec", 3)
        if tvec[2] <= 0:
            raise p.fail("tvec", "a board in front of the camera (tvec z > 0)", list(tvec))
        appearance = AppearanceModel.from_reader(r.obj("appearance")) if r.has("appearance") else None
        quality = Quality.from_reader(r.obj("quality"))
        prof = cls(cam, spec, tuple((x, y) for x, y in corners), (rvec[0], rvec[1], rvec[2]),
                   (tvec[0], tvec[1], tvec[2]), quality, seating, appearance, version)
        if r.has("homography_image_to_board"):
            H = np.array(r.matrix("homography_image_to_board", 3, 3))
            mine = prof.homography()
            probe = np.array([[cam.width * 0.25, cam.height * 0.25], [cam.width * 0.75, cam.height * 0.75]])
            if not np.allclose(apply_homography(H, probe), apply_homography(mine, probe), atol=0.5):
                raise r.fail("homography_image_to_board", "the homography implied by camera and pose",
                              "a different one (edited by hand?)")
        return prof

    @classmethod
    def from_json(cls, text: str, source: str | None = None) -> CalibrationProfile:
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            where = f"{source}: " if source else ""
            raise ProfileError(f"{where}not a calibration profile: corrupt JSON ({exc})") from None
        return cls.from_dict(data, source)

    @classmethod
    def load(cls, path: str | Path) -> CalibrationProfile:
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except FileNotFoundError:
            raise ProfileError(f"{p}: no such profile (run `bgref calibrate` first)") from None
        except UnicodeDecodeError:
            raise ProfileError(f"{p}: not a calibration profile (not UTF-8 text)") from None
        return cls.from_json(text, str(p))


def _solve_pose(und_corners: FloatArray, spec: BoardSpec, camera: CameraModel) -> tuple[FloatArray, FloatArray, float]:
    W, D, z = spec.width_mm, spec.depth_mm, spec.rail_height_mm
    obj = np.array([[0, 0, z], [W, 0, z], [W, D, z], [0, D, z]], np.float64)
    ok, rvec, tvec = cv2.solvePnP(obj, und_corners.reshape(-1, 1, 2), camera.matrix, None, flags=cv2.SOLVEPNP_IPPE)
    if not ok:
        raise ProfileError("no camera pose fits these corners")
    rvec, tvec = cv2.solvePnPRefineLM(obj, und_corners.reshape(-1, 1, 2), camera.matrix, None, rvec, tvec)
    proj, _ = cv2.projectPoints(obj, rvec, tvec, camera.matrix, None)
    rms = float(np.sqrt(np.mean(np.sum((proj.reshape(-1, 2) - und_corners) ** 2, axis=1))))
    rv, tv = rvec.ravel().astype(np.float64), tvec.ravel().astype(np.float64)
    if tv[2] <= 0:
        raise ProfileError("the fitted board lies behind the camera: corners are not a board seen from above")
    return rv, tv, rms


def _tilt(rvec: FloatArray) -> float:
    R, _ = cv2.Rodrigues(rvec)
    return float(np.degrees(np.arccos(min(1.0, abs(float(R[2, 2]))))))


def _densify(poly: FloatArray, step_mm: float = 20.0) -> FloatArray:
    out = []
    n = len(poly)
    for i in range(n):
        a, b = poly[i], poly[(i + 1) % n]
        k = max(1, math.ceil(float(np.hypot(*(b - a))) / step_mm))
        for j in range(k):
            out.append(a + (b - a) * j / k)
    return np.array(out)
