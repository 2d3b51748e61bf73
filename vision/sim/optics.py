"""The simulated camera: a pinhole with Brown-Conrady lens distortion, posed in board millimetres.

World = the board frame of :mod:`vision.geometry` (mm, z up).  ``rvec``/``tvec`` map world
points into the camera frame (OpenCV convention: x right, y down, z forward), exactly as
``cv2.projectPoints`` and ``cv2.solvePnP`` use them, so a calibration can be compared with the
truth directly.

>>> cam = CameraModel.look_at(640, 480, 60.0, eye=(0, 0, 1000), target=(0, 0, 0))
>>> [round(v) for v in cam.project([(0.0, 0.0, 0.0)])[0]]
[320, 240]
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

F32 = npt.NDArray[Any]
F64 = npt.NDArray[Any]


class CameraModelError(ValueError):
    """A camera that cannot be built (size, field of view, a degenerate pose)."""


@dataclass(frozen=True, slots=True)
class CameraModel:
    width: int
    height: int
    fx: float
    fy: float
    cx: float
    cy: float
    dist: tuple[float, float, float, float, float]  # k1, k2, p1, p2, k3 (OpenCV order)
    rvec: tuple[float, float, float]
    tvec: tuple[float, float, float]

    def __post_init__(self) -> None:
        if not (16 <= self.width <= 8192 and 16 <= self.height <= 8192):
            raise CameraModelError(f"image size {self.width}x{self.height} is out of range")

    # ------------------------------------------------------------------ construction
    @classmethod
    def look_at(
        cls,
        width: int,
        height: int,
        hfov_deg: float,
        *,
        eye: Sequence[float],
        target: Sequence[float],
        roll_deg: float = 0.0,
        dist: Sequence[float] = (0.0, 0.0, 0.0, 0.0, 0.0),
        up_hint: Sequence[float] = (0.0, -1.0, 0.0),
    ) -> CameraModel:
        """A camera at ``eye`` looking at ``target``, image "up" toward ``up_hint``, then rolled."""
        if not 10.0 <= hfov_deg <= 150.0:
            raise CameraModelError(f"horizontal field of view {hfov_deg} deg is out of range")
        e = np.asarray(eye, float)
        fwd = np.asarray(target, float) - e
        n = np.linalg.norm(fwd)
        if n < 1e-9:
            raise CameraModelError(f"eye {tuple(eye)} and target {tuple(target)} coincide")
        fwd /= n
        up = np.asarray(up_hint, float)
        right = np.cross(fwd, up)  # camera x (image right) = forward x image-up ... see below
        if np.linalg.norm(right) < 1e-6:
            up = np.array([1.0, 0.0, 0.0])
            right = np.cross(fwd, up)
        right /= np.linalg.norm(right)
        down = np.cross(fwd, right)
        # OpenCV camera frame: x right, y down, z forward; x cross y = z requires right x down = fwd
        if np.dot(np.cross(right, down), fwd) < 0:
            right = -right
        down = np.cross(fwd, right)
        r = math.radians(roll_deg)
        rx = math.cos(r) * right + math.sin(r) * down
        ry = -math.sin(r) * right + math.cos(r) * down
        rot = np.stack([rx, ry, fwd])  # rows: camera axes in world coordinates
        rvec, _ = cv2.Rodrigues(rot)
        tvec = -rot @ e
        f = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
        d = tuple(float(v) for v in dist)
        if len(d) != 5:
            raise CameraModelError(f"distortion needs 5 coefficients (k1 k2 p1 p2 k3), got {len(d)}")
        return cls(
            width, height, f, f, width / 2, height / 2,
            (d[0], d[1], d[2], d[3], d[4]),
            (float(rvec[0, 0]), float(rvec[1, 0]), float(rvec[2, 0])),
            (float(tvec[0]), float(tvec[1]), float(tvec[2])),
        )

    # ------------------------------------------------------------------ matrices
    @property
    def K(self) -> F64:
        return np.array([[self.fx, 0, self.cx], [0, self.fy, self.cy], [0, 0, 1]], float)

    @property
    def R(self) -> F64:
        rot, _ = cv2.Rodrigues(np.asarray(self.rvec, float))
        return np.asarray(rot, float)

    @property
    def center(self) -> F64:
        """The camera's optical centre in board millimetres."""
        return np.asarray(-self.R.T @ np.asarray(self.tvec, float), float)

    @property
    def tilt_deg(self) -> float:
        """Angle between the optical axis and straight down (0 = overhead)."""
        fwd = self.R[2]
        return math.degrees(math.acos(max(-1.0, min(1.0, -fwd[2]))))

    def _r2_max(self) -> float:
        """Largest squared normalised radius where the radial distortion is still monotonic."""
        k1, k2, _, _, k3 = self.dist
        r2 = np.linspace(0, 4.0, 4001)
        g = r2 * (1 + k1 * r2 + k2 * r2**2 + k3 * r2**3) ** 2  # (distorted radius)^2
        bad = np.nonzero(np.diff(g) <= 0)[0]
        return float(r2[bad[0]]) if len(bad) else 4.0

    # ------------------------------------------------------------------ projection
    def to_camera(self, pts: npt.ArrayLike) -> F64:
        p = np.asarray(pts, float).reshape(-1, 3)
        return np.asarray(p @ self.R.T + np.asarray(self.tvec, float), float)

    def project(self, pts: npt.ArrayLike) -> F64:
        """Project Nx3 board points to Nx2 image pixels (with distortion, safe off-image)."""
        pc = self.to_camera(pts)
        z = np.maximum(pc[:, 2], 1e-3)
        x = pc[:, 0] / z
        y = pc[:, 1] / z
        k1, k2, p1, p2, k3 = self.dist
        r2 = x * x + y * y
        lim = _r2_cache(self)
        # beyond the monotonic radius, keep the scale fixed (a real lens never folds back)
        r2c = np.minimum(r2, lim)
        radial = 1 + k1 * r2c + k2 * r2c**2 + k3 * r2c**3
        xd = x * radial + 2 * p1 * x * y + p2 * (r2c + 2 * x * x)
        yd = y * radial + p1 * (r2c + 2 * y * y) + 2 * p2 * x * y
        return np.stack([self.fx * xd + self.cx, self.fy * yd + self.cy], axis=1)

    def depth(self, pts: npt.ArrayLike) -> F64:
        """Distance along the optical axis (for painter's ordering)."""
        return self.to_camera(pts)[:, 2]

    def pixel_rays(self, step: int = 4) -> tuple[F32, F32, F32]:
        """Unit-less ray directions (world) for every pixel: three HxW float32 arrays.

        Undistortion is solved on a grid every ``step`` pixels and interpolated.
        """
        gw = self.width // step + 2
        gh = self.height // step + 2
        gx, gy = np.meshgrid(np.arange(gw) * step, np.arange(gh) * step)
        und = self.undistort_normalised((gx - self.cx) / self.fx, (gy - self.cy) / self.fy)
        xn = _sample_grid(und[..., 0], step, self)
        yn = _sample_grid(und[..., 1], step, self)
        rt = self.R.T.astype(np.float32)
        dx = rt[0, 0] * xn + rt[0, 1] * yn + rt[0, 2]
        dy = rt[1, 0] * xn + rt[1, 1] * yn + rt[1, 2]
        dz = rt[2, 0] * xn + rt[2, 1] * yn + rt[2, 2]
        return dx, dy, dz

    def undistort_normalised(self, xd: F64, yd: F64, iters: int = 25) -> F64:
        """Invert the distortion of :meth:`project` (fixed-point iteration): returns (..., 2)."""
        k1, k2, p1, p2, k3 = self.dist
        lim = _r2_cache(self)
        x, y = xd.astype(float).copy(), yd.astype(float).copy()
        for _ in range(iters):
            r2 = np.minimum(x * x + y * y, lim)
            radial = 1 + k1 * r2 + k2 * r2**2 + k3 * r2**3
            tx = 2 * p1 * x * y + p2 * (r2 + 2 * x * x)
            ty = p1 * (r2 + 2 * y * y) + 2 * p2 * x * y
            x = (xd - tx) / radial
            y = (yd - ty) / radial
        return np.stack([x, y], axis=-1)

    def to_json(self) -> dict[str, Any]:
        return {
            "width": self.width,
            "height": self.height,
            "K": self.K.tolist(),
            "dist": list(self.dist),
            "rvec": list(self.rvec),
            "tvec": list(self.tvec),
            "center_mm": [round(float(v), 3) for v in self.center],
            "tilt_deg": round(self.tilt_deg, 3),
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> CameraModel:
        k = d["K"]
        dist = tuple(float(v) for v in d["dist"])
        rv = tuple(float(v) for v in d["rvec"])
        tv = tuple(float(v) for v in d["tvec"])
        return cls(int(d["width"]), int(d["height"]), float(k[0][0]), float(k[1][1]), float(k[0][2]),
                   float(k[1][2]), (dist[0], dist[1], dist[2], dist[3], dist[4]), (rv[0], rv[1], rv[2]),
                   (tv[0], tv[1], tv[2]))


_R2_CACHE: dict[tuple[float, float, float], float] = {}


def _r2_cache(cam: CameraModel) -> float:
    key = (cam.dist[0], cam.dist[1], cam.dist[4])
    v = _R2_CACHE.get(key)
    if v is None:
        v = cam._r2_max()
        _R2_CACHE[key] = v
    return v


def _sample_grid(grid: F64, step: int, cam: CameraModel) -> F32:
    """Bilinear sample of a coarse grid (values at multiples of ``step``) at every pixel."""
    xs = (np.arange(cam.width, dtype=np.float32) / step)
    ys = (np.arange(cam.height, dtype=np.float32) / step)
    mx, my = np.meshgrid(xs, ys)
    out = cv2.remap(grid.astype(np.float32), mx, my, interpolation=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    return np.asarray(out, np.float32)
