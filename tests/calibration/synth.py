"""A small synthetic board renderer for calibration tests (flat textures warped by a known pose).

Not the project's simulator (vision/sim): just enough to test the maths and the board finder with
exactly known geometry, fast.  The frame, bar and dividers are drawn at the rail height, the tables and
tray columns at z = 0, with shaded walls between (the board model of :mod:`calibration.model`).
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import Position, Side
from vision.geometry import BoardLayout, BoardSpec, Seating

Image = npt.NDArray[np.uint8]


@dataclass(frozen=True)
class Style:
    rail: tuple[int, int, int] = (40, 70, 110)
    field: tuple[int, int, int] = (150, 200, 225)
    point_a: tuple[int, int, int] = (30, 30, 160)
    point_b: tuple[int, int, int] = (235, 235, 235)
    white: tuple[int, int, int] = (225, 240, 245)
    black: tuple[int, int, int] = (35, 30, 30)
    table: tuple[int, int, int] = (70, 110, 60)
    wall_shade: float = 0.6
    """Brightness of the walls (rail colour in shade) relative to the rail top."""


def look_at_pose(spec: BoardSpec, tilt_deg: float, yaw_deg: float, distance_mm: float,
                 shift_mm: tuple[float, float] = (0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """rvec, tvec of a camera looking at the board centre from the NEAR side, tilted from vertical."""
    c = np.array([spec.width_mm / 2 + shift_mm[0], spec.depth_mm / 2 + shift_mm[1], 0.0])
    t, y = np.radians(tilt_deg), np.radians(yaw_deg)
    # camera position: above the board, moved toward +y (near side) by the tilt, rotated by yaw about z
    offs = np.array([np.sin(t) * np.sin(y), np.sin(t) * np.cos(y), np.cos(t)]) * distance_mm
    eye = c + offs
    fwd = (c - eye) / np.linalg.norm(c - eye)
    # image "down" should point toward the near side (+y) projected on the image plane
    down_hint = np.array([np.sin(y), np.cos(y), 0.0]) if tilt_deg > 1 else np.array([0.0, 1.0, 0.0])
    right = np.cross(down_hint, fwd)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])  # world -> camera rows
    rvec, _ = cv2.Rodrigues(R)
    tvec = -R @ eye
    return rvec.ravel(), tvec


def top_view(layout: BoardLayout, ppm: float, style: Style, position: Position | None) -> Image:
    s = layout.spec
    W, D = round(s.width_mm * ppm), round(s.depth_mm * ppm)
    img = np.zeros((D, W, 3), np.uint8)
    img[:] = style.rail

    def rect(r, colour):  # type: ignore[no-untyped-def]
        cv2.rectangle(img, (int(r.x0 * ppm), int(r.y0 * ppm)), (int(r.x1 * ppm) - 1, int(r.y1 * ppm) - 1), colour, -1)

    from vision.geometry import Area

    for a in (Area.LEFT_TABLE, Area.RIGHT_TABLE):
        rect(layout.table_rect(a), style.field)
    for col in layout.tray_columns():
        rect(col, tuple(int(v * 0.8) for v in style.field))
    for p in range(1, 25):
        poly = np.array(layout.point_polygon(p)[:3]) * ppm
        cv2.fillPoly(img, [np.round(poly * 16).astype(np.int32)], style.point_a if p % 2 else style.point_b, cv2.LINE_AA, 4)
    if position is not None:
        for p in range(1, 25):
            w, b = position.at(p)
            for side, n in ((Side.WHITE, w), (Side.BLACK, b)):
                for k in range(n):
                    x, y, _ = layout.stack_slots(p, k)
                    col = style.white if side is Side.WHITE else style.black
                    cv2.circle(img, (round(x * ppm * 16), round(y * ppm * 16)),
                               int(s.checker_diameter_mm / 2 * ppm * 16), col, -1, cv2.LINE_AA, 4)
                    cv2.circle(img, (round(x * ppm * 16), round(y * ppm * 16)),
                               int(s.checker_diameter_mm / 2 * ppm * 16), (90, 90, 90), max(1, int(ppm)), cv2.LINE_AA, 4)
    return img


def render(
    layout: BoardLayout,
    K: np.ndarray,
    rvec: np.ndarray,
    tvec: np.ndarray,
    size: tuple[int, int] = (1920, 1080),
    style: Style | None = None,
    position: Position | None = None,
    ppm: float = 3.0,
    seed: int = 0,
    noise: float = 2.0,
) -> tuple[Image, np.ndarray]:
    """The camera image and the true outer corners (z = rail height, board order)."""
    style = style or Style()
    rng = np.random.default_rng(seed)
    s = layout.spec
    tex = top_view(layout, ppm, style, position if position is not None else Position.initial())
    w, h = size
    img = np.zeros((h, w, 3), np.uint8)
    img[:] = style.table
    # a mildly textured table
    img = np.clip(img.astype(np.int16) + rng.normal(0, 6, (h, w, 1)).astype(np.int16), 0, 255).astype(np.uint8)
    R, _ = cv2.Rodrigues(np.asarray(rvec, float))
    t = np.asarray(tvec, float).ravel()
    S = np.diag([1 / ppm, 1 / ppm, 1.0])

    def H(z: float) -> np.ndarray:
        return K @ np.column_stack([R[:, 0], R[:, 1], t + z * R[:, 2]]) @ S

    # the holes (both tables, both tray columns) lie at z = 0; the frame, bar and dividers stand at the rail
    # height.  Their walls are the rail's colour in shade (the z = 0 layer under every raised part, darker),
    # so a wall that faces the camera shows between a rim and the floor, as on a real board
    hole_mask = np.zeros(tex.shape[:2], np.uint8)
    for r in layout.holes():
        cv2.rectangle(hole_mask, (int(r.x0 * ppm), int(r.y0 * ppm)), (int(r.x1 * ppm) - 1, int(r.y1 * ppm) - 1), 255, -1)
    rail_mask = 255 - hole_mask
    walls = np.where(rail_mask[..., None] > 0, (tex * style.wall_shade).astype(np.uint8), tex)
    for z, m, layer in ((0.0, np.full_like(hole_mask, 255), walls), (s.rail_height_mm, rail_mask, tex)):
        warped = cv2.warpPerspective(layer, H(z), (w, h), flags=cv2.INTER_AREA)
        wm = cv2.warpPerspective(m, H(z), (w, h), flags=cv2.INTER_LINEAR).astype(np.float32)[..., None] / 255.0
        img = (img * (1 - wm) + warped * wm).astype(np.uint8)
    img = np.clip(img.astype(np.int16) + rng.normal(0, noise, img.shape).astype(np.int16), 0, 255).astype(np.uint8)
    W, Dm, z = s.width_mm, s.depth_mm, s.rail_height_mm
    obj = np.array([[0, 0, z], [W, 0, z], [W, Dm, z], [0, Dm, z]], float)
    corners, _ = cv2.projectPoints(obj, np.asarray(rvec, float), t, K, None)
    return img, corners.reshape(4, 2)


def default_scene(tilt: float = 25.0, yaw: float = 0.0, seating: Seating | None = None, spec: BoardSpec | None = None,
                  seed: int = 0, style: Style | None = None, size: tuple[int, int] = (1920, 1080),
                  distance: float | None = None, f: float = 1400.0) -> tuple[Image, np.ndarray, np.ndarray, BoardLayout]:
    spec = spec or BoardSpec.tournament()
    lay = BoardLayout(spec, seating or Seating())
    K = np.array([[f, 0, (size[0] - 1) / 2], [0, f, (size[1] - 1) / 2], [0, 0, 1]])
    dist = distance or spec.width_mm * f / (size[0] * 0.62)
    rvec, tvec = look_at_pose(spec, tilt, yaw, dist)
    img, corners = render(lay, K, rvec, tvec, size, style, seed=seed)
    return img, corners, K, lay
