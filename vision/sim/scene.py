"""The scene description: a board, its colour scheme, every piece's 3-D pose, the camera and the light.

A :class:`Scene` is plain data (frozen); :func:`random_scene` samples one from a seed and a
:class:`~vision.sim.config.SimConfig`; :mod:`vision.sim.render` turns it into pixels and
:mod:`vision.sim.truth` into its JSON label.  Pieces are placed in board millimetres
(:mod:`vision.geometry`); orientations are 3x3 rotation matrices (local -> board), stored row-major.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, replace
from enum import Enum

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import BAR, OFF, Position, Side
from vision.geometry import Area, BoardLayout, BoardSpec, HomeEnd, LongSide, Rect, Seating
from vision.sim.config import SimConfig
from vision.sim.optics import CameraModel

Vec3 = tuple[float, float, float]
Mat3 = tuple[float, float, float, float, float, float, float, float, float]
BGR = tuple[int, int, int]

IDENTITY: Mat3 = (1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0)


class SceneError(ValueError):
    """A scene that cannot be built (a bad value, a piece that does not fit)."""


def mat(m: Mat3) -> np.ndarray:
    return np.asarray(m, float).reshape(3, 3)


def to_mat3(a: np.ndarray) -> Mat3:
    v = [float(x) for x in np.asarray(a, float).ravel()]
    return (v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8])


def rot_z(deg: float) -> np.ndarray:
    c, s = math.cos(math.radians(deg)), math.sin(math.radians(deg))
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], float)


def rot_axis(axis: np.ndarray, deg: float) -> np.ndarray:
    a = np.asarray(axis, float)
    a = a / np.linalg.norm(a)
    th = math.radians(deg)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.asarray(np.eye(3) + math.sin(th) * k + (1 - math.cos(th)) * (k @ k), float)


# ---------------------------------------------------------------------- colour schemes
class Material(Enum):
    FELT = "felt"
    LEATHER = "leather"
    CORK = "cork"
    WOOD = "wood"


@dataclass(frozen=True, slots=True)
class ColorScheme:
    """Colours (BGR) and materials of a board and its checkers."""

    name: str
    field_material: Material
    field: BGR
    point_a: BGR  # points 1, 3, 5, ... (odd absolute points)
    point_b: BGR
    rail_material: Material
    rail: BGR
    white_checker: BGR  # the checkers of Side.WHITE (may be any light or dark colour)
    black_checker: BGR
    table: BGR  # the table the board stands on
    table_material: Material = Material.WOOD


SCHEMES: dict[str, ColorScheme] = {
    s.name: s
    for s in (
        ColorScheme("green_felt", Material.FELT, (52, 98, 38), (200, 222, 232), (40, 45, 150),
                    Material.WOOD, (38, 62, 104), (205, 222, 232), (38, 36, 40), (60, 92, 140)),
        ColorScheme("tan_leather", Material.LEATHER, (120, 170, 205), (60, 55, 110), (215, 232, 240),
                    Material.LEATHER, (40, 60, 95), (222, 236, 242), (30, 32, 36), (150, 160, 165)),
        ColorScheme("dark_on_dark", Material.LEATHER, (36, 36, 38), (22, 22, 24), (92, 96, 98),
                    Material.LEATHER, (20, 20, 22), (200, 206, 210), (28, 28, 30), (90, 110, 130)),
        ColorScheme("cork_red", Material.CORK, (110, 160, 196), (40, 40, 160), (30, 30, 32),
                    Material.WOOD, (30, 48, 80), (215, 228, 236), (40, 30, 150), (70, 100, 150)),
        ColorScheme("blue_felt", Material.FELT, (120, 70, 30), (225, 230, 232), (70, 40, 20),
                    Material.WOOD, (45, 70, 110), (230, 235, 238), (30, 30, 36), (180, 180, 185)),
        ColorScheme("walnut_inlay", Material.WOOD, (80, 120, 160), (35, 50, 75), (160, 200, 228),
                    Material.WOOD, (30, 45, 70), (190, 215, 230), (40, 45, 120), (110, 120, 125)),
        ColorScheme("burgundy_leather", Material.LEATHER, (40, 30, 90), (205, 215, 220), (30, 30, 30),
                    Material.LEATHER, (25, 25, 45), (225, 232, 238), (20, 20, 120), (60, 80, 110)),
    )
}


class DieStyle(Enum):
    WHITE_BLACK_PIPS = "white"  # white body, black pips
    RED_WHITE_PIPS = "red"
    BLACK_WHITE_PIPS = "black"
    GREEN_WHITE_PIPS = "green"
    IVORY_BLACK_PIPS = "ivory"

    @property
    def body(self) -> BGR:
        return {
            "white": (238, 240, 240), "red": (40, 30, 175), "black": (32, 30, 30),
            "green": (70, 120, 30), "ivory": (200, 228, 238),
        }[self.value]

    @property
    def pip(self) -> BGR:
        return (25, 25, 25) if self.value in ("white", "ivory") else (235, 238, 240)


# ---------------------------------------------------------------------- pieces
@dataclass(frozen=True, slots=True)
class CheckerPose:
    """A checker: ``center`` is the middle of the disc; its axis is the rotation's local z."""

    side: Side
    region: str  # "p1".."p24", "bar", "tray_w", "tray_b", "hand", "loose"
    center: Vec3
    rot: Mat3 = IDENTITY


# faces on the die's local axes: +z 1, -z 6, +x 2, -x 5, +y 3, -y 4 (1-2-3 anticlockwise: Western dice)
DIE_AXES: dict[int, Vec3] = {
    1: (0.0, 0.0, 1.0), 6: (0.0, 0.0, -1.0), 2: (1.0, 0.0, 0.0),
    5: (-1.0, 0.0, 0.0), 3: (0.0, 1.0, 0.0), 4: (0.0, -1.0, 0.0),
}
# cube numerals on local axes (opposite pairs 64/2, 4/32, 8/16)
CUBE_AXES: dict[int, Vec3] = {
    64: (0.0, 0.0, 1.0), 2: (0.0, 0.0, -1.0), 4: (1.0, 0.0, 0.0),
    32: (-1.0, 0.0, 0.0), 8: (0.0, 1.0, 0.0), 16: (0.0, -1.0, 0.0),
}


def orientation_with_up(axes: dict[int, Vec3], face: int, yaw_deg: float) -> np.ndarray:
    """A rotation putting ``face``'s local axis up (+z), then turned ``yaw_deg`` about z."""
    a = np.asarray(axes[face], float)
    z = np.array([0.0, 0.0, 1.0])
    if np.allclose(a, z):
        base = np.eye(3)
    elif np.allclose(a, -z):
        base = rot_axis(np.array([1.0, 0.0, 0.0]), 180)
    else:
        axis = np.cross(a, z)
        base = rot_axis(axis, 90)
    return np.asarray(rot_z(yaw_deg) @ base, float)


def face_up(axes: dict[int, Vec3], rot: np.ndarray) -> int:
    """The face whose normal points most nearly straight up."""
    return max(axes, key=lambda f: float((rot @ np.asarray(axes[f]))[2]))


@dataclass(frozen=True, slots=True)
class DiePose:
    value: int  # the face up (truth)
    size: float  # edge length, mm
    center: Vec3
    rot: Mat3
    style: DieStyle
    tilt_deg: float = 0.0  # angle between the up face's normal and vertical
    leaning_on: str | None = None  # "checker", "rail", "bar", "die", "die_top"
    on_die: bool = False
    owner: Side | None = None

    @property
    def cocked(self) -> bool:
        return self.tilt_deg > 3.0 or self.on_die


@dataclass(frozen=True, slots=True)
class CubePose:
    value: int
    size: float
    center: Vec3
    rot: Mat3
    position: str  # "middle", "white", "black" (the side that owns it)

    @property
    def rotation_deg(self) -> float:
        """How far the numeral's "up" is turned from the board's +y axis, in degrees (0..360)."""
        r = mat(self.rot)
        # numeral up on the top face = local +y for 64; for other faces the texture's up, see render
        up = r @ _numeral_up(self.value)
        return math.degrees(math.atan2(-up[0], up[1])) % 360.0


def _numeral_up(value: int) -> np.ndarray:
    """The local direction of the numeral's "up" on each cube face."""
    a = np.asarray(CUBE_AXES[value], float)
    return np.array([0.0, 1.0, 0.0]) if abs(a[1]) < 0.5 else np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True, slots=True)
class HandPose:
    """A forearm and hand reaching in from ``entry`` (off the board) to ``tip`` (fingertips)."""

    entry: Vec3
    tip: Vec3
    width_mm: float = 85.0
    skin: BGR = (120, 150, 205)
    sleeve: BGR = (90, 60, 40)
    holding: Side | None = None  # a checker pinched between the fingers


@dataclass(frozen=True, slots=True)
class CupPose:
    center: Vec3  # middle of the cup's axis
    rot: Mat3  # local z = axis from the bottom toward the mouth
    height: float = 95.0
    radius: float = 32.0
    color: BGR = (30, 40, 70)


@dataclass(frozen=True, slots=True)
class Lighting:
    direction: Vec3  # unit vector toward the key light
    ambient: float
    key: float
    tint: tuple[float, float, float]  # BGR gains of the light colour
    hotspot_mm: tuple[float, float]
    uneven: float
    vignette: float
    glare: float
    shadow_strength: float
    shadow_blur_px: float


@dataclass(frozen=True, slots=True)
class PostFX:
    noise_sigma: float
    defocus_sigma: float
    jpeg_quality: int
    exposure: float = 1.0
    wb: tuple[float, float, float] = (1.0, 1.0, 1.0)


@dataclass(frozen=True, slots=True)
class BoardPose:
    """Where the board (and everything on it) stands on the table: turned ``turn_deg`` about the
    vertical through the board's centre, then shifted by ``shift_mm`` (x, y).  A nudge during play.

    The camera, the light, the table and the dice cup (standing on the table) stay where they are.
    """

    shift_mm: tuple[float, float] = (0.0, 0.0)
    turn_deg: float = 0.0

    def transform(self, layout: BoardLayout) -> tuple[np.ndarray, np.ndarray]:
        """(R, t) with world = R @ board + t (millimetres)."""
        R = rot_z(self.turn_deg)
        cx, cy = layout.outline().center
        c = np.array([cx, cy, 0.0])
        t = c - R @ c + np.array([self.shift_mm[0], self.shift_mm[1], 0.0])
        return R, t


@dataclass(frozen=True, slots=True)
class Scene:
    layout: BoardLayout
    scheme: ColorScheme
    camera: CameraModel
    lighting: Lighting
    post: PostFX
    checkers: tuple[CheckerPose, ...] = ()
    dice: tuple[DiePose, ...] = ()
    cube: CubePose | None = None
    hands: tuple[HandPose, ...] = ()
    cup: CupPose | None = None
    turn: Side | None = None
    seed: int = 0
    board_pose: BoardPose | None = None
    """None: the board stands where the camera was framed on it (the table frame = the board frame)."""
    table_pose: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """Set by :func:`in_board_frame`: the table's texture at board (x, y) is the table's at
    rot(deg) @ (x, y) + (tx, ty); (tx, ty, deg).  Leave it at zero."""


def in_board_frame(scene: Scene) -> Scene:
    """``scene`` with its :class:`BoardPose` folded into the camera, light, cup and table.

    Everything the renderer and the truth compute is in board millimetres, so a moved board is the
    same as a camera, light and table moved the other way; the result has ``board_pose`` None.
    """
    if scene.board_pose is None:
        return scene
    R, t = scene.board_pose.transform(scene.layout)
    cam = scene.camera
    Rc = cam.R
    rv, _ = cv2.Rodrigues(Rc @ R)
    t2 = Rc @ t + np.asarray(cam.tvec, float)
    camera = replace(cam, rvec=(float(rv[0, 0]), float(rv[1, 0]), float(rv[2, 0])),
                     tvec=(float(t2[0]), float(t2[1]), float(t2[2])))
    li = scene.lighting
    d = R.T @ np.asarray(li.direction, float)
    hs = R.T @ (np.array([li.hotspot_mm[0], li.hotspot_mm[1], 0.0]) - t)
    lighting = replace(li, direction=(float(d[0]), float(d[1]), float(d[2])),
                       hotspot_mm=(float(hs[0]), float(hs[1])))
    cup = scene.cup
    if cup is not None:
        cc = R.T @ (np.asarray(cup.center, float) - t)
        cup = replace(cup, center=(float(cc[0]), float(cc[1]), float(cc[2])), rot=to_mat3(R.T @ mat(cup.rot)))
    tx, ty, deg = scene.table_pose
    # compose: table <- world (R, t) <- board
    Rt = rot_z(deg)
    t_tab = Rt @ t + np.array([tx, ty, 0.0])
    table = (float(t_tab[0]), float(t_tab[1]), deg + scene.board_pose.turn_deg)
    return replace(scene, camera=camera, lighting=lighting, cup=cup, board_pose=None, table_pose=table)


# ---------------------------------------------------------------------- placement
def place_checkers(
    layout: BoardLayout, position: Position, rng: random.Random, jitter_mm: float, tray_lying: bool = False
) -> tuple[CheckerPose, ...]:
    """Checkers for a position, stacked the way players stack them, with small hand offsets."""
    out: list[CheckerPose] = []
    spec = layout.spec
    half_h = spec.checker_height_mm / 2
    for side in Side:
        counts = position.counts(side)
        for own in range(1, 25):
            ab = own if side is Side.WHITE else 25 - own
            for n in range(counts[own]):
                x, y, z = layout.stack_slots(ab, n)
                j = jitter_mm * (0.5 if z > 0 else 1.0)
                x += rng.gauss(0, j * 0.6)
                y += rng.gauss(0, j * 0.4)
                out.append(CheckerPose(side, f"p{ab}", (x, y, z + half_h), to_mat3(rot_z(rng.uniform(0, 360)))))
        for n in range(counts[BAR]):
            x, y, z = layout.bar_slot(side, n)
            out.append(CheckerPose(side, "bar", (x + rng.gauss(0, jitter_mm * 0.5), y + rng.gauss(0, jitter_mm * 0.5),
                                                 z + half_h), to_mat3(rot_z(rng.uniform(0, 360)))))
        region = "tray_w" if side is Side.WHITE else "tray_b"
        tray = layout.tray_region(side)
        for n in range(counts[OFF]):
            x, y, z = layout.tray_slot(side, n, lying=tray_lying)
            x += rng.gauss(0, jitter_mm * 0.4)
            if tray_lying:
                out.append(CheckerPose(side, region, (x, y, z + half_h), to_mat3(rot_z(rng.uniform(0, 360)))))
            else:
                # on edge: axis along y, packed along the tray, slightly leaning
                lean = rng.uniform(-6, 6)
                r = rot_axis(np.array([1.0, 0.0, 0.0]), 90 + lean) @ rot_z(rng.uniform(0, 360))
                cx = min(max(x, tray.x0 + spec.checker_diameter_mm / 2), tray.x1 - spec.checker_diameter_mm / 2)
                out.append(CheckerPose(side, region, (cx, y, spec.checker_diameter_mm / 2 + 0.2), to_mat3(r)))
    return tuple(out)


def _free_spot(
    layout: BoardLayout, area: Area, rng: random.Random, avoid: list[tuple[float, float, float]], size: float,
    checkers: tuple[CheckerPose, ...], margin: float,
) -> tuple[float, float]:
    """A spot in a table, clear of other dice and (mostly) of checkers."""
    rect = layout.table_rect(area)
    r_ch = layout.spec.checker_diameter_mm / 2
    best: tuple[float, float] | None = None
    best_score = -1e9
    for _ in range(60):
        x = rng.uniform(rect.x0 + margin, rect.x1 - margin)
        y = rng.uniform(rect.y0 + margin, rect.y1 - margin)
        score = min((math.hypot(x - ax, y - ay) - ar - size for ax, ay, ar in avoid), default=50.0)
        ch = min((math.hypot(x - c.center[0], y - c.center[1]) - r_ch - size * 0.75 for c in checkers
                  if c.region.startswith("p") or c.region == "bar"), default=50.0)
        score = min(score, ch)
        if score > 4:
            return x, y
        if score > best_score:
            best, best_score = (x, y), score
    assert best is not None
    return best


def place_dice(
    layout: BoardLayout,
    values: tuple[int, ...],
    rng: random.Random,
    *,
    area: Area,
    style: DieStyle,
    size: float,
    checkers: tuple[CheckerPose, ...] = (),
    cocked: str | None = None,
    owner: Side | None = None,
    others: tuple[DiePose, ...] = (),
) -> tuple[DiePose, ...]:
    """Dice lying flat in ``area`` (a table), or the last one cocked.

    ``cocked``: None, "checker", "rail", "bar", "die" (leaning on the other die) or "die_top"
    (resting on top of the other die).
    """
    out: list[DiePose] = []
    avoid: list[tuple[float, float, float]] = [(d.center[0], d.center[1], d.size) for d in others]
    for i, v in enumerate(values):
        last = i == len(values) - 1
        mode = cocked if last else None
        if mode in ("die", "die_top") and not out:
            mode = None
        yaw = rng.uniform(0, 360)
        if mode is None:
            x, y = _free_spot(layout, area, rng, avoid, size, checkers, size)
            rot = orientation_with_up(DIE_AXES, v, yaw)
            out.append(DiePose(v, size, (x, y, size / 2), to_mat3(rot), style, 0.0, None, False, owner))
        elif mode == "die_top":
            base = out[-1]
            bx, by, bz = base.center
            tilt = rng.uniform(0, 6)
            rot = rot_axis(np.array([math.cos(math.radians(yaw)), math.sin(math.radians(yaw)), 0]), tilt) @ \
                orientation_with_up(DIE_AXES, v, yaw)
            x, y = bx + rng.gauss(0, size * 0.12), by + rng.gauss(0, size * 0.12)
            out.append(DiePose(v, size, (x, y, bz + base.size / 2 + size / 2 + 0.3), to_mat3(rot), style,
                               tilt, "die_top", True, owner))
        else:
            out.append(_cocked_die(layout, v, rng, area=area, style=style, size=size, checkers=checkers,
                                   mode=mode, others=out, owner=owner, yaw=yaw))
        avoid.append((out[-1].center[0], out[-1].center[1], size))
    return tuple(out)


def lean_obstacle(
    layout: BoardLayout, rect: Rect, mode: str, rng: random.Random, checkers: tuple[CheckerPose, ...],
    other: DiePose | None,
) -> tuple[str, npt.NDArray[np.float64], npt.NDArray[np.float64], float]:
    """What a cocked die leans on: ``(mode, contact, toward, height)`` - the point at the obstacle's foot
    where the die's lifted side rests, the unit direction from the die to it, the obstacle's height.
    ``mode``: "checker" (a checker in ``rect``; "rail" when there is none), "rail", "bar" or "die"
    (``other``).  Shared by the game renders and the pose-training renders (same random draws)."""
    spec = layout.spec
    if mode == "checker":
        cands = [c for c in checkers if c.region.startswith("p") and c.center[2] < spec.checker_height_mm
                 and rect.contains(c.center[0], c.center[1])]
        if not cands:
            mode = "rail"
        else:
            c = rng.choice(cands)
            ang = rng.uniform(0, 2 * math.pi)
            d = np.array([math.cos(ang), math.sin(ang), 0.0])
            h = spec.checker_height_mm
            contact = np.array([c.center[0], c.center[1], 0.0]) + d * (spec.checker_diameter_mm / 2)
            toward = -d
    if mode in ("rail", "bar"):
        h = spec.rail_height_mm
        f = layout.field()
        if mode == "bar":
            b = layout.bar_region()
            xw = b.x0 if rect.x1 <= b.x0 + 1e-6 else b.x1
            contact = np.array([xw, rng.uniform(f.y0 + 40, f.y1 - 40), 0.0])
            toward = np.array([1.0 if xw == b.x0 else -1.0, 0.0, 0.0])
        else:
            yw = f.y0 if rng.random() < 0.5 else f.y1
            contact = np.array([rng.uniform(rect.x0 + 30, rect.x1 - 30), yw, 0.0])
            toward = np.array([0.0, -1.0 if yw == f.y0 else 1.0, 0.0])  # from the die to the rail
    if mode == "die":
        assert other is not None, "a die leaning on the other die needs the other die"
        o = other
        ang = rng.uniform(0, 2 * math.pi)
        d = np.array([math.cos(ang), math.sin(ang), 0.0])
        contact = np.array([o.center[0], o.center[1], 0.0]) + d * (o.size / 2)
        toward = -d
        h = o.size
    return mode, contact, toward, h


def _cocked_die(
    layout: BoardLayout, v: int, rng: random.Random, *, area: Area, style: DieStyle, size: float,
    checkers: tuple[CheckerPose, ...], mode: str, others: list[DiePose], owner: Side | None, yaw: float,
) -> DiePose:
    """A die with one edge on the surface and its face propped on an obstacle of height ``h``."""
    rect = layout.table_rect(area)
    mode, contact, toward, h = lean_obstacle(layout, rect, mode, rng, checkers, others[-1] if others else None)
    # the lower edge sits on the floor; the bottom face rises toward the obstacle.  A low
    # obstacle (a checker) holds the face up on its top edge at distance L: sin(tilt) = h / L.
    # A tall one (rail, bar, the other die) is a wall the die's raised bottom edge leans on.
    tilt = rng.uniform(12.0, 35.0)
    if h < size * math.sin(math.radians(tilt)):
        L = rng.uniform(max(0.6 * size, h / math.sin(math.radians(40.0))), size)
        tilt = math.degrees(math.asin(h / L))
    else:
        L = size
    # bottom face pivots about a horizontal axis perpendicular to ``toward``
    axis = np.cross(np.array([0.0, 0.0, 1.0]), toward)  # lifting the side toward the obstacle
    # the die's edges run along the pivot: square it to ``toward`` (any quarter turn)
    yaw = math.degrees(math.atan2(toward[1], toward[0])) + 90.0 * rng.randint(0, 3)
    base_rot = orientation_with_up(DIE_AXES, v, yaw)
    rot = rot_axis(axis, -tilt) @ base_rot
    # the floor edge: at distance L back from the contact's foot, then the centre sits half a die
    # along the tilted up-normal and half a die along the tilted face direction
    edge = contact - toward * (L * math.cos(math.radians(tilt)))
    up_n = rot_axis(axis, -tilt) @ np.array([0.0, 0.0, 1.0])
    along = rot_axis(axis, -tilt) @ toward
    center = edge + along * (size / 2) + up_n * (size / 2)
    a = size / 2
    low = min(float((rot @ np.array([x, y, z]))[2]) for x in (-a, a) for y in (-a, a) for z in (-a, a))
    center[2] = -low  # the lowest edge exactly on the surface
    return DiePose(v, size, (float(center[0]), float(center[1]), float(center[2])), to_mat3(rot), style,
                   tilt, mode, False, owner)


def place_cube(
    layout: BoardLayout, value: int, position: str, rng: random.Random, *, yaw_deg: float | None = None,
) -> CubePose:
    """The cube in the middle (on the bar) or on a player's side (by his tray / on the rail before him)."""
    s = layout.spec
    size = s.cube_size_mm
    yaw = rng.uniform(0, 360) if yaw_deg is None else yaw_deg
    if position == "middle":
        b = layout.bar_region()
        x, y = b.center
        y += rng.gauss(0, 2)
        z = s.rail_height_mm + size / 2
    elif position in ("white", "black"):
        side = Side.WHITE if position == "white" else Side.BLACK
        # beside the owner's tray, in the tray column on his long side (the other end from home)
        lo, hi = layout.tray_columns()
        home = layout.tray_region(side)
        col = hi if home.x0 == lo.x0 else lo
        near = layout.seating.side_of(side) is LongSide.NEAR
        x = (col.x0 + col.x1) / 2
        y = col.y1 - size * 1.2 - rng.uniform(0, 30) if near else col.y0 + size * 1.2 + rng.uniform(0, 30)
        z = size / 2
    else:
        raise SceneError(f"cube position {position!r} is not 'middle', 'white' or 'black'")
    rot = orientation_with_up(CUBE_AXES, value, yaw)
    return CubePose(value, size, (x, y, z), to_mat3(rot), position)


# ---------------------------------------------------------------------- camera and light
def frame_camera(
    layout: BoardLayout, width: int, height: int, *, tilt_deg: float, azimuth_deg: float, roll_deg: float,
    hfov_deg: float, fill: float, dist: tuple[float, float, float, float, float], target_jitter: tuple[float, float],
) -> CameraModel:
    """A camera looking at the board centre from ``tilt_deg`` off vertical, backed off until the
    board fills ``fill`` of the image's limiting dimension."""
    o = layout.outline()
    cx, cy = o.center
    target = (cx + target_jitter[0], cy + target_jitter[1], 0.0)
    t, a = math.radians(tilt_deg), math.radians(azimuth_deg)
    # azimuth 0 = camera on the NEAR side (y max), looking toward -y
    direction = np.array([-math.sin(t) * math.sin(a), math.sin(t) * math.cos(a), math.cos(t)])
    up_hint = (math.sin(a), -math.cos(a), 0.0)
    corners = np.array([[x, y, layout.spec.rail_height_mm] for x, y in o.corners()])

    def make(d: float) -> CameraModel:
        eye = np.asarray(target) + direction * d
        return CameraModel.look_at(width, height, hfov_deg, eye=tuple(eye), target=target, roll_deg=roll_deg,
                                   dist=dist, up_hint=up_hint)

    lo, hi = 100.0, 20000.0
    for _ in range(40):
        mid = (lo + hi) / 2
        cam = make(mid)
        p = cam.project(corners)
        span = max((p[:, 0].max() - p[:, 0].min()) / width, (p[:, 1].max() - p[:, 1].min()) / height)
        inside = p[:, 0].min() >= 0 and p[:, 1].min() >= 0 and p[:, 0].max() < width and p[:, 1].max() < height
        if span > fill or not inside:
            lo = mid
        else:
            hi = mid
    return make(hi)


def kelvin_tint(k: float) -> tuple[float, float, float]:
    """Rough BGR gains of a light of colour temperature ``k`` (normalised to green = 1)."""
    t = (k - 5000.0) / 2000.0
    return (float(np.clip(1.0 + 0.16 * t, 0.7, 1.2)), 1.0, float(np.clip(1.0 - 0.12 * t, 0.8, 1.25)))


def sample_lighting(layout: BoardLayout, cfg: SimConfig, rng: random.Random) -> Lighting:
    el, az = math.radians(cfg.light_elevation_deg.sample(rng)), math.radians(cfg.light_azimuth_deg.sample(rng))
    d = (math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el))
    o = layout.outline()
    return Lighting(
        direction=d, ambient=cfg.ambient.sample(rng), key=cfg.key.sample(rng),
        tint=kelvin_tint(cfg.color_temp_k.sample(rng)),
        hotspot_mm=(rng.uniform(o.x0, o.x1), rng.uniform(o.y0, o.y1)),
        uneven=cfg.uneven.sample(rng), vignette=cfg.vignette.sample(rng), glare=cfg.glare.sample(rng),
        shadow_strength=cfg.shadow_strength.sample(rng), shadow_blur_px=cfg.shadow_blur_px.sample(rng),
    )


def sample_camera(layout: BoardLayout, cfg: SimConfig, rng: random.Random, width: int, height: int) -> CameraModel:
    return frame_camera(
        layout, width, height, tilt_deg=cfg.tilt_deg.sample(rng),
        azimuth_deg=rng.choice(cfg.azimuth_sides) + cfg.azimuth_deg.sample(rng),
        roll_deg=cfg.roll_deg.sample(rng), hfov_deg=cfg.hfov_deg.sample(rng), fill=cfg.fill.sample(rng),
        dist=(cfg.k1.sample(rng), cfg.k2.sample(rng), cfg.tangential.sample(rng), cfg.tangential.sample(rng), 0.0),
        target_jitter=(rng.gauss(0, cfg.target_jitter_mm.sample(rng)), rng.gauss(0, cfg.target_jitter_mm.sample(rng))),
    )


def sample_post(cfg: SimConfig, rng: random.Random) -> PostFX:
    e = cfg.exposure_drift.sample(rng)
    w = cfg.wb_drift.sample(rng)
    return PostFX(cfg.noise_sigma.sample(rng), cfg.defocus_sigma.sample(rng), round(cfg.jpeg_quality.sample(rng)),
                  exposure=1.0 + rng.uniform(-e, e), wb=(1.0 + rng.uniform(-w, w), 1.0, 1.0 + rng.uniform(-w, w)))


def random_position(rng: random.Random) -> Position:
    """A plausible mid-game position: random legal-looking counts (15 per side, no shared points)."""
    while True:
        white = [0] * 26
        black = [0] * 26
        taken: set[int] = set()
        for counts, flip in ((white, False), (black, True)):
            left = 15
            stage = rng.random()
            off = rng.randint(0, 6) if stage < 0.25 else 0
            counts[OFF] = off
            left -= off
            bar = 1 if rng.random() < 0.12 else 0
            counts[BAR] = bar
            left -= bar
            while left > 0:
                hi = 6 if off else 24
                p = rng.randint(1, hi) if rng.random() < 0.8 else rng.randint(1, 24 if not off else 6)
                ab = 25 - p if flip else p
                if ab in taken and counts[p] == 0:
                    continue
                n = min(left, rng.choice((1, 2, 2, 2, 3, 3, 4, 5, 6)))
                counts[p] += n
                left -= n
            for p in range(1, 25):
                if counts[p]:
                    taken.add(25 - p if flip else p)
        try:
            pos = Position(tuple(white), tuple(black), Side.WHITE)
        except ValueError:
            continue
        if not pos.problems():
            return pos


@dataclass(frozen=True, slots=True)
class SceneObjects:
    """What lies on a board in a still scene (:func:`sample_objects`)."""

    turn: Side
    checkers: tuple[CheckerPose, ...]
    dice: tuple[DiePose, ...]
    cube: CubePose
    cup: CupPose | None
    hands: tuple[HandPose, ...]


def sample_objects(layout: BoardLayout, position: Position, rng: random.Random, cfg: SimConfig,
                   own_table_p: float = 0.9) -> SceneObjects:
    """The side on turn, the checkers of ``position``, that side's dice thrown (in his right-hand
    table with probability ``own_table_p``, maybe cocked or on the other die), the cube, maybe a cup
    and a hand, all drawn from ``rng`` in a fixed order."""
    turn = rng.choice(list(Side))
    checkers = place_checkers(layout, position, rng, cfg.checker_jitter_mm.sample(rng),
                              tray_lying=rng.random() < cfg.tray_lying_p)
    style = rng.choice(list(DieStyle))
    size = rng.uniform(*layout.spec.die_size_mm)
    area = layout.right_hand_table(turn) if rng.random() < own_table_p else layout.right_hand_table(turn.opponent)
    cocked = None
    if rng.random() < cfg.cocked_p:
        cocked = rng.choice(("checker", "rail", "bar", "die"))
    elif rng.random() < cfg.on_die_p:
        cocked = "die_top"
    dice = place_dice(layout, (rng.randint(1, 6), rng.randint(1, 6)), rng, area=area, style=style, size=size,
                      checkers=checkers, cocked=cocked, owner=turn)
    cube_pos = "middle" if rng.random() > cfg.cube_offset_p else rng.choice(("white", "black"))
    cube_val = 64 if cube_pos == "middle" else rng.choice((2, 4, 8, 16, 32, 64))
    cube = place_cube(layout, cube_val, cube_pos, rng)
    cup = _sample_cup(layout, rng, turn) if rng.random() < cfg.cup_p else None
    hands = (sample_hand(layout, rng, turn),) if rng.random() < cfg.hands_p else ()
    return SceneObjects(turn, checkers, dice, cube, cup, hands)


def random_scene(
    seed: int,
    cfg: SimConfig | None = None,
    *,
    width: int = 1280,
    height: int = 720,
    position: Position | None = None,
) -> Scene:
    """A still scene: a position, dice thrown (maybe cocked), the cube, maybe a hand and a cup."""
    cfg = cfg or SimConfig()
    rng = random.Random(seed)
    spec = BoardSpec.by_name(rng.choice(cfg.boards))
    seating = Seating(rng.choice(list(LongSide)), rng.choice(list(HomeEnd)))
    layout = BoardLayout(spec, seating)
    names = cfg.schemes or tuple(SCHEMES)
    scheme = SCHEMES[rng.choice(names)]
    if position is None:
        position = Position.initial() if rng.random() < 0.15 else random_position(rng)
    obj = sample_objects(layout, position, rng, cfg)
    camera = sample_camera(layout, cfg, rng, width, height)
    lighting = sample_lighting(layout, cfg, rng)
    post = sample_post(cfg, rng)
    return Scene(layout, scheme, camera, lighting, post, obj.checkers, obj.dice, obj.cube, obj.hands, obj.cup, obj.turn,
                 seed)


def _sample_cup(layout: BoardLayout, rng: random.Random, side: Side) -> CupPose:
    """A dice cup standing on the rail or lying beside the board on ``side``'s side."""
    near = layout.seating.side_of(side) is LongSide.NEAR
    o = layout.outline()
    s = layout.spec
    scale = s.checker_diameter_mm / 40.0
    height, radius = 95.0 * scale, 30.0 * scale
    x = rng.uniform(o.x0 + 60, o.x1 - 60)
    y = o.y1 + radius + rng.uniform(5, 40) if near else o.y0 - radius - rng.uniform(5, 40)
    if rng.random() < 0.5:  # upright, mouth up, beside the board
        return CupPose((x, y, height / 2 - 12), to_mat3(np.eye(3)), height, radius)
    yaw = rng.uniform(0, 360)
    rot = rot_z(yaw) @ rot_axis(np.array([1.0, 0.0, 0.0]), 90)
    return CupPose((x, y, radius - 12), to_mat3(rot), height, radius)


def sample_hand(layout: BoardLayout, rng: random.Random, side: Side, target: tuple[float, float] | None = None,
                lift_mm: float | None = None, holding: Side | None = None) -> HandPose:
    """A hand of the player on ``side`` reaching toward ``target`` (default: a random spot)."""
    o = layout.outline()
    near = layout.seating.side_of(side) is LongSide.NEAR
    if target is None:
        f = layout.field()
        target = (rng.uniform(f.x0, f.x1), rng.uniform(f.y0, f.y1))
    ey = o.y1 + 260 if near else o.y0 - 260
    ex = target[0] + rng.uniform(-120, 120)
    lift = rng.uniform(15, 60) if lift_mm is None else lift_mm
    skins = ((120, 150, 205), (95, 125, 180), (70, 95, 140), (60, 80, 120), (140, 170, 220))
    sleeves = ((90, 60, 40), (40, 40, 40), (200, 200, 200), (60, 60, 130), (120, 90, 60))
    scale = layout.spec.checker_diameter_mm / 40.0
    return HandPose((ex, ey, 140.0), (target[0], target[1], lift), rng.uniform(75, 95) * max(0.8, scale),
                    rng.choice(skins), rng.choice(sleeves), holding)


def with_dice(scene: Scene, dice: tuple[DiePose, ...]) -> Scene:
    return replace(scene, dice=dice)
