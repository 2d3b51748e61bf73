"""The rasteriser and compositor: a :class:`~vision.sim.scene.Scene` to a camera frame.

The board (field, points, rails, bar, trays, the table it stands on) is ray-cast once per
camera and light: every pixel's ray is intersected with the rail-top plane, the field plane and
the table plane, which gives exact lens distortion, visible rail walls at oblique angles and
the rail's cast shadow.  That static layer is cached.  Pieces are true 3-D meshes (bevelled
cylinders, chamfered cubes, tapered arms) projected through the same camera and filled with
per-face Lambert + specular shading in painter's order; shadows are their silhouettes projected
along the light onto the surface beneath.  Then the sensor: exposure and white-balance drift,
defocus, noise and JPEG.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from rules.position import Side
from vision.geometry import BoardLayout
from vision.sim.optics import CameraModel
from vision.sim.scene import (
    BGR,
    CUBE_AXES,
    DIE_AXES,
    CheckerPose,
    ColorScheme,
    CubePose,
    CupPose,
    DiePose,
    HandPose,
    Lighting,
    Material,
    PostFX,
    Scene,
    in_board_frame,
    mat,
)
from vision.sim.textures import cube_face, die_face, material_texture

F32 = npt.NDArray[Any]
F64 = npt.NDArray[Any]
U8 = npt.NDArray[Any]

TABLE_Z = -12.0  # the table top, below the playing surface
SHIFT = 4
SCALE = 1 << SHIFT
GLOSS = {Material.FELT: 0.08, Material.CORK: 0.12, Material.LEATHER: 0.55, Material.WOOD: 0.8}


# ---------------------------------------------------------------------- static board
@dataclass(frozen=True, slots=True)
class StaticBoard:
    """The board as the camera sees it with no pieces: image plus what pieces need to be lit."""

    image: U8
    light: F32  # HxW: the light falling on the surface (ambient + key, uneven, vignetting)
    floor_xy: tuple[F32, F32]  # board mm hit by each pixel's ray on the field plane


_STATIC_CACHE: dict[tuple[object, ...], StaticBoard] = {}


def static_board(layout: BoardLayout, scheme: ColorScheme, camera: CameraModel, lighting: Lighting,
                 seed: int, table_pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> StaticBoard:
    """``table_pose`` (tx, ty, deg): the table's texture at board (x, y) is at rot(deg) @ (x, y) + (tx, ty)."""
    key = (layout, scheme, camera, lighting, seed, table_pose)
    hit = _STATIC_CACHE.get(key)
    if hit is None:
        if len(_STATIC_CACHE) > 6:
            _STATIC_CACHE.clear()
        hit = _build_static(layout, scheme, camera, lighting, seed, table_pose)
        _STATIC_CACHE[key] = hit
    return hit


def _raised(layout: BoardLayout, x: F32, y: F32) -> npt.NDArray[np.bool_]:
    o = layout.outline()
    inside = (x >= o.x0) & (x <= o.x1) & (y >= o.y0) & (y <= o.y1)
    for r in layout.holes():
        inside &= ~((x > r.x0) & (x < r.x1) & (y > r.y0) & (y < r.y1))
    return inside


def _top_texture(layout: BoardLayout, scheme: ColorScheme, ppm: float, rng: np.random.Generator) -> F32:
    s = layout.spec
    w, h = math.ceil(s.width_mm * ppm) + 2, math.ceil(s.depth_mm * ppm) + 2
    base = np.empty((h, w, 3), np.float32)
    base[:] = scheme.field
    for p in range(1, 25):
        poly = layout.point_polygon(p)
        pts = np.array([[round(x * ppm * SCALE), round(y * ppm * SCALE)] for x, y in poly[:3]], np.int32)
        color = scheme.point_a if p % 2 else scheme.point_b
        cv2.fillConvexPoly(base, pts, color, cv2.LINE_AA, SHIFT)
    floor = material_texture(scheme.field_material, h, w, ppm, (100, 100, 100), rng) / 100.0
    rail_mod = material_texture(scheme.rail_material, h, w, ppm, (100, 100, 100), rng) / 100.0
    ys, xs = np.mgrid[0:h, 0:w].astype(np.float32)
    raised = _raised(layout, xs / ppm, ys / ppm)
    out = base * floor
    rail = np.asarray(scheme.rail, np.float32) * rail_mod
    out[raised] = rail[raised]
    # a thin inlay line around each table and tray, as most boards have
    for r in layout.holes():
        cv2.rectangle(out, (round(r.x0 * ppm * SCALE), round(r.y0 * ppm * SCALE)),
                      (round(r.x1 * ppm * SCALE), round(r.y1 * ppm * SCALE)),
                      tuple(float(min(255, c * 1.35 + 20)) for c in scheme.rail), max(1, round(ppm * 1.2)),
                      cv2.LINE_AA, SHIFT)
    return out


def _build_static(layout: BoardLayout, scheme: ColorScheme, camera: CameraModel, lighting: Lighting,
                  seed: int, table_pose: tuple[float, float, float] = (0.0, 0.0, 0.0)) -> StaticBoard:
    rng = np.random.default_rng(seed + 7919)
    spec = layout.spec
    o = layout.outline()
    corners = camera.project([(x, y, spec.rail_height_mm) for x, y in o.corners()])
    px_per_mm = float(np.hypot(*(corners[1] - corners[0]))) / spec.width_mm
    ppm = float(np.clip(px_per_mm * 1.25, 0.8, 6.0))
    top = _top_texture(layout, scheme, ppm, rng)
    # the table the board stands on: a larger, coarser texture centred on the board
    margin = 1500.0
    tppm = max(0.4, ppm * 0.5)
    tw, th = int((spec.width_mm + 2 * margin) * tppm), int((spec.depth_mm + 2 * margin) * tppm)
    table = material_texture(scheme.table_material, th, tw, tppm, scheme.table, rng)

    dx, dy, dz = camera.pixel_rays()
    c = camera.center.astype(np.float32)
    dz = np.minimum(dz, -1e-4)  # rays that miss the planes (above the horizon) still hit far away

    def hit(z: float) -> tuple[F32, F32]:
        t = (z - c[2]) / dz
        return c[0] + t * dx, c[1] + t * dy

    hx, hy = hit(spec.rail_height_mm)
    fx, fy = hit(0.0)
    bx, by = hit(TABLE_Z)
    rail_top = _raised(layout, hx, hy)
    in_outline_h = (hx >= o.x0) & (hx <= o.x1) & (hy >= o.y0) & (hy <= o.y1)
    floor_vis = ~rail_top & in_outline_h & ~_raised(layout, fx, fy) & (fx >= o.x0) & (fx <= o.x1) & \
        (fy >= o.y0) & (fy <= o.y1)
    inner_wall = ~rail_top & in_outline_h & ~floor_vis
    outside = ~in_outline_h
    b_in = (bx >= o.x0) & (bx <= o.x1) & (by >= o.y0) & (by <= o.y1)
    outer_wall = outside & b_in
    table_vis = outside & ~b_in

    # texture coordinates: top texture for rail tops and the floor; walls take the rail's texture
    sx = np.where(rail_top, hx, np.where(floor_vis, fx, np.clip(fx, o.x0, o.x1)))
    sy = np.where(rail_top, hy, np.where(floor_vis, fy, np.clip(fy, o.y0, o.y1)))
    sx = np.where(outer_wall, np.clip(bx, o.x0 + 1, o.x1 - 1), sx)
    sy = np.where(outer_wall, np.clip(by, o.y0 + 1, o.y1 - 1), sy)
    img = cv2.remap(top, (sx * ppm).astype(np.float32), (sy * ppm).astype(np.float32), cv2.INTER_LINEAR,
                    borderMode=cv2.BORDER_REFLECT)
    tbx, tby = bx, by
    if table_pose != (0.0, 0.0, 0.0):  # the board was moved on the table: the table stays put
        ca, sa = math.cos(math.radians(table_pose[2])), math.sin(math.radians(table_pose[2]))
        tbx, tby = ca * bx - sa * by + table_pose[0], sa * bx + ca * by + table_pose[1]
    timg = cv2.remap(table, ((tbx + margin) * tppm).astype(np.float32), ((tby + margin) * tppm).astype(np.float32),
                     cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    img[table_vis] = timg[table_vis]

    # normals: tops up; walls horizontal, facing the side the ray came from
    lx, ly, lz = lighting.direction
    nz = np.ones(dx.shape, np.float32)
    nx = np.zeros(dx.shape, np.float32)
    ny = np.zeros(dx.shape, np.float32)
    walls = inner_wall | outer_wall
    # a wall faces back along the ray's horizontal direction, snapped to the nearest axis
    ax_x = np.abs(dx) > np.abs(dy)
    nx[walls & ax_x] = -np.sign(dx[walls & ax_x])
    ny[walls & ~ax_x] = -np.sign(dy[walls & ~ax_x])
    nz[walls] = 0.0
    lam = np.maximum(0.0, nx * lx + ny * ly + nz * lz)
    # cast shadows: the rail onto the field, the board onto the table
    h = spec.rail_height_mm
    qx, qy = fx + lx / lz * h * 0.5, fy + ly / lz * h * 0.5
    qx2, qy2 = fx + lx / lz * h, fy + ly / lz * h
    shadow = floor_vis & (_raised(layout, qx, qy) | _raised(layout, qx2, qy2))
    tq = h - TABLE_Z
    bqx, bqy = bx + lx / lz * tq, by + ly / lz * tq
    shadow |= table_vis & (bqx >= o.x0) & (bqx <= o.x1) & (bqy >= o.y0) & (bqy <= o.y1)
    sh = cv2.GaussianBlur(shadow.astype(np.float32), (0, 0), max(0.8, lighting.shadow_blur_px * 1.5))
    direct = lam * (1.0 - sh)
    # uneven light: a soft hotspot on the board plane; vignetting in the image
    px = np.where(table_vis, bx, fx)
    py = np.where(table_vis, by, fy)
    hx0, hy0 = lighting.hotspot_mm
    d2 = ((px - hx0) ** 2 + (py - hy0) ** 2) / (spec.width_mm**2)
    uneven = 1.0 - lighting.uneven * np.clip(d2, 0, 1.5)
    H, W = dx.shape
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    r2 = ((xx - W / 2) ** 2 + (yy - H / 2) ** 2) / ((W / 2) ** 2 + (H / 2) ** 2)
    vign = 1.0 - lighting.vignette * r2
    light = ((lighting.ambient + lighting.key * direct) * uneven * vign).astype(np.float32)
    # glare: specular reflection of the key light on glossy surfaces
    vx, vy, vz = -dx, -dy, -dz
    vn = np.sqrt(vx * vx + vy * vy + vz * vz)
    hxv, hyv, hzv = vx / vn + lx, vy / vn + ly, vz / vn + lz
    hn = np.sqrt(hxv * hxv + hyv * hyv + hzv * hzv)
    ndoth = np.maximum(0.0, (nx * hxv + ny * hyv + nz * hzv) / hn)
    gloss = np.where(rail_top | walls, GLOSS[scheme.rail_material], GLOSS[scheme.field_material])
    gloss = np.where(table_vis, 0.3, gloss)
    spec_l = lighting.glare * gloss * (ndoth**30) * (1.0 - sh) * 255.0
    tint = np.asarray(lighting.tint, np.float32)
    out = img * light[..., None] * tint + (spec_l[..., None] * tint)
    return StaticBoard(np.clip(out, 0, 255).astype(np.uint8), light, (fx, fy))


# ---------------------------------------------------------------------- shading helpers
@dataclass(slots=True)
class _Shader:
    camera: CameraModel
    lighting: Lighting
    light_map: F32
    gains: tuple[float, float, float] = (1.0, 1.0, 1.0)
    L: F64 = field(init=False)
    C: F64 = field(init=False)
    tint: F64 = field(init=False)

    def __post_init__(self) -> None:
        self.L = np.asarray(self.lighting.direction, float)
        self.C = self.camera.center
        self.tint = np.asarray(self.lighting.tint, float) * np.asarray(self.gains, float)

    def local_light(self, p_img: F64) -> float:
        h, w = self.light_map.shape
        x = int(np.clip(p_img[0], 0, w - 1))
        y = int(np.clip(p_img[1], 0, h - 1))
        lm = float(self.light_map[y, x])
        base = self.lighting.ambient + self.lighting.key * max(0.0, self.L[2])
        return float(lm / max(base, 1e-3))  # the uneven/vignette factor at that spot

    def colors(self, base: BGR, normals: F64, points: F64, gloss: float, shin: float, local: float) -> F64:
        """Shaded BGR per face (N x 3) for unit normals and face centres (N x 3)."""
        lam = np.maximum(0.0, normals @ self.L)
        v = self.C[None, :] - points
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        hv = v + self.L[None, :]
        hv /= np.linalg.norm(hv, axis=1, keepdims=True)
        spec = np.maximum(0.0, np.sum(normals * hv, axis=1)) ** shin
        lit = (self.lighting.ambient + self.lighting.key * lam) * local
        col = np.asarray(base, float)[None, :] * lit[:, None] * self.tint[None, :]
        col += (gloss * (0.35 + self.lighting.glare) * spec * 255.0)[:, None] * self.tint[None, :]
        return np.asarray(np.clip(col, 0, 255), float)

    def facing(self, normals: F64, points: F64) -> npt.NDArray[np.bool_]:
        v = self.C[None, :] - points
        return np.asarray(np.sum(normals * v, axis=1) > 0)


def _fill(img: U8, pts: F64, color: F64 | tuple[float, ...]) -> None:
    p = np.round(pts * SCALE).astype(np.int32)
    cv2.fillConvexPoly(img, p, tuple(float(c) for c in color), cv2.LINE_AA, SHIFT)


def _fill_poly(img: U8, pts: F64, color: F64 | tuple[float, ...]) -> None:
    p = np.round(pts * SCALE).astype(np.int32)
    cv2.fillPoly(img, [p], tuple(float(c) for c in color), cv2.LINE_AA, SHIFT)


# ---------------------------------------------------------------------- meshes
_N_RING = 28
_ANG = np.linspace(0, 2 * np.pi, _N_RING, endpoint=False)
_COS, _SIN = np.cos(_ANG), np.sin(_ANG)


def _checker_rings(r: float, h: float) -> tuple[F64, F64, F64, F64]:
    """Local rings (N x 3) of a bevelled checker centred at the origin, axis z."""
    b = min(1.6, 0.18 * h)
    ring = np.stack([_COS, _SIN, np.zeros_like(_COS)], axis=1)
    bottom = ring * r + np.array([0, 0, -h / 2])
    side_top = ring * r + np.array([0, 0, h / 2 - b])
    top = ring * (r - b) + np.array([0, 0, h / 2])
    groove = ring * (r * 0.72) + np.array([0, 0, h / 2])
    return bottom, side_top, top, groove


def _checker_colors(scheme: ColorScheme, side: Side) -> BGR:
    return scheme.white_checker if side is Side.WHITE else scheme.black_checker


def draw_checker(img: U8, sh: _Shader, c: CheckerPose, scheme: ColorScheme, r: float, h: float) -> None:
    rot = mat(c.rot)
    ctr = np.asarray(c.center, float)
    bottom, side_top, top, groove = (q @ rot.T + ctr for q in _checker_rings(r, h))
    cam = sh.camera
    P = cam.project(np.concatenate([bottom, side_top, top, groove]))
    pb, ps, pt, pg = P[:_N_RING], P[_N_RING:2 * _N_RING], P[2 * _N_RING:3 * _N_RING], P[3 * _N_RING:]
    base = _checker_colors(scheme, c.side)
    local = sh.local_light(P[2 * _N_RING])
    axis = rot[:, 2]
    # side band: quads around the rim
    mids = (bottom + np.roll(bottom, -1, axis=0) + side_top + np.roll(side_top, -1, axis=0)) / 4
    radial = mids - ctr - np.outer((mids - ctr) @ axis, axis)
    radial /= np.linalg.norm(radial, axis=1, keepdims=True)
    bevel_n = radial + axis[None, :]
    bevel_n /= np.linalg.norm(bevel_n, axis=1, keepdims=True)
    top_mids = (side_top + np.roll(side_top, -1, axis=0) + top + np.roll(top, -1, axis=0)) / 4
    side_c = sh.colors(base, radial, mids, 0.45, 20.0, local) * 0.92
    bevel_c = sh.colors(base, bevel_n, top_mids, 0.6, 30.0, local)
    up = axis if axis @ (sh.C - ctr) > 0 else -axis
    hull = cv2.convexHull(np.concatenate([pb, ps, pt]).astype(np.float32)).reshape(-1, 2).astype(float)
    _fill(img, hull, side_c.mean(axis=0) * 0.9)
    vis_side = sh.facing(radial, mids)
    for i in np.nonzero(vis_side)[0]:
        j = (i + 1) % _N_RING
        _fill(img, np.array([pb[i], pb[j], ps[j], ps[i]]), side_c[i])
    top_visible = bool(up @ axis > 0)
    if top_visible:
        vis_bevel = sh.facing(bevel_n, top_mids)
        for i in np.nonzero(vis_bevel)[0]:
            j = (i + 1) % _N_RING
            _fill(img, np.array([ps[i], ps[j], pt[j], pt[i]]), bevel_c[i])
        top_c = sh.colors(base, axis[None, :], ctr[None, :] + axis * h / 2, 0.5, 40.0, local)[0]
        _fill(img, pt, top_c)
        # the embossed ring most tournament checkers carry
        ring_c = top_c * 0.86 + 4
        cv2.polylines(img, [np.round(pg * SCALE).astype(np.int32)], True, tuple(float(v) for v in ring_c),
                      max(1, round(SCALE * 0.9)) // SCALE + 1, cv2.LINE_AA, SHIFT)
    else:  # bottom visible (a checker held or lying face down): flat disc
        bot_c = sh.colors(base, -axis[None, :], ctr[None, :] - axis * h / 2, 0.3, 20.0, local)[0]
        _fill(img, pb, bot_c)


def _chamfer_cube(s: float, b: float) -> tuple[list[tuple[F64, F64, int]], F64]:
    """Polygons (local vertices, local normal, face id or 0) of a cube of edge ``s`` chamfered by ``b``."""
    a, c = s / 2, s / 2 - b
    polys: list[tuple[F64, F64, int]] = []
    axes = [np.array(v) for v in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1))]
    for n in axes:
        k = int(np.argmax(np.abs(n)))
        u_ax, v_ax = [i for i in range(3) if i != k]
        verts = []
        for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            p = np.zeros(3)
            p[k] = n[k] * a
            p[u_ax] = su * c
            p[v_ax] = sv * c
            verts.append(p)
        polys.append((np.array(verts), n.astype(float), 1))
    # edges: between each pair of adjacent faces
    for i in range(3):
        for si in (-1, 1):
            for j in range(i + 1, 3):
                for sj in (-1, 1):
                    k = 3 - i - j
                    n = np.zeros(3)
                    n[i], n[j] = si, sj
                    verts = []
                    for sk, first in ((-1, True), (1, True), (1, False), (-1, False)):
                        p = np.zeros(3)
                        p[k] = sk * c
                        if first:
                            p[i], p[j] = si * a, sj * c
                        else:
                            p[i], p[j] = si * c, sj * a
                        verts.append(p)
                    polys.append((np.array(verts), n / np.linalg.norm(n), 0))
    for sx in (-1, 1):
        for sy in (-1, 1):
            for sz in (-1, 1):
                cverts = np.array([[sx * a, sy * c, sz * c], [sx * c, sy * a, sz * c], [sx * c, sy * c, sz * a]])
                cn = np.array([sx, sy, sz], float) / math.sqrt(3)
                polys.append((cverts, cn, 0))
    corners = np.array([[x, y, z] for x in (-a, a) for y in (-a, a) for z in (-a, a)], float)
    return polys, corners


def _face_value(axes: dict[int, tuple[float, float, float]], n: F64) -> int:
    for v, ax in axes.items():
        if np.allclose(ax, n):
            return v
    raise AssertionError(n)


def _face_texture_frame(n: F64) -> tuple[F64, F64]:
    """(u, v) local directions of a face's texture: right and down as seen from outside."""
    up = np.array([0.0, 1.0, 0.0]) if abs(n[1]) < 0.5 else np.array([0.0, 0.0, 1.0])
    right = np.cross(up, n)
    return right, -up


@functools.lru_cache(maxsize=64)
def _box_mesh(size: float, bevel: float, axes_key: str) -> tuple[F64, F64, F64, tuple[int, ...], tuple[F64, ...]]:
    """Flattened chamfered-cube mesh: all vertices (P*4 x 3, triangles padded), normals, face
    values (0 for bevels), and per face the texture quad in local coordinates."""
    polys, corners = _chamfer_cube(size, bevel)
    axes = DIE_AXES if axes_key == "die" else CUBE_AXES
    verts = np.zeros((len(polys), 4, 3))
    normals = np.zeros((len(polys), 3))
    values: list[int] = []
    quads: list[F64] = []
    cc = size / 2 - bevel
    for i, (v, n, is_face) in enumerate(polys):
        verts[i, : len(v)] = v
        if len(v) == 3:
            verts[i, 3] = v[2]
        normals[i] = n
        if is_face:
            value = _face_value(axes, n)
            right, down = _face_texture_frame(n)
            face_c = n * size / 2
            quads.append(np.array([face_c + (-right - down) * cc, face_c + (right - down) * cc,
                                   face_c + (right + down) * cc, face_c + (-right + down) * cc]))
        else:
            value = 0
            quads.append(np.zeros((4, 3)))
        values.append(value)
    return verts, normals, corners, tuple(values), tuple(quads)


def draw_box(
    img: U8, sh: _Shader, center: F64, rot: F64, size: float, body: BGR, tex: Callable[[int], U8],
    axes_key: str, gloss: float, bevel: float,
) -> F64:
    """A chamfered cube with textured faces; returns the 8 projected corners (8 x 2)."""
    verts, normals, corners, values, quads = _box_mesh(round(size, 3), round(bevel, 3), axes_key)
    n_p = len(values)
    wv = verts.reshape(-1, 3) @ rot.T + center
    wn = normals @ rot.T
    mids = wv.reshape(n_p, 4, 3).mean(axis=1)
    vis = sh.facing(wn, mids)
    idx = np.nonzero(vis)[0]
    face_idx = [i for i in idx if values[i]]
    quad_w = np.concatenate([quads[i] for i in face_idx]) @ rot.T + center if face_idx else np.zeros((0, 3))
    world_c = corners @ rot.T + center
    allp = sh.camera.project(np.concatenate([wv.reshape(n_p, 4, 3)[idx].reshape(-1, 3), quad_w, world_c,
                                             center[None, :]]))
    k = len(idx) * 4
    pimg = allp[:k].reshape(-1, 4, 2)
    qimg = allp[k:k + 4 * len(face_idx)].reshape(-1, 4, 2)
    local = sh.local_light(allp[-1])
    colors = sh.colors(body, wn[idx], mids[idx], gloss, 35.0, local)
    fq = 0
    bodyf = np.maximum(np.asarray(body, float), 1.0)
    for j, i in enumerate(idx):
        if not values[i]:
            _fill(img, pimg[j], colors[j])
            continue
        _warp_into(img, tex(values[i]), qimg[fq].astype(np.float32), colors[j] / bodyf)
        fq += 1
    return np.asarray(allp[k + 4 * len(face_idx):-1], float)


def _warp_into(img: U8, tex: U8, quad: npt.NDArray[np.float32], gain: F64) -> None:
    x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 1
    x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 2
    H, W = img.shape[:2]
    x0c, y0c, x1c, y1c = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1c <= x0c or y1c <= y0c:
        return
    tp = tex.shape[0]
    src = np.array([[0, 0], [tp, 0], [tp, tp], [0, tp]], np.float32)
    M = cv2.getPerspectiveTransform(src, (quad - np.array([x0c, y0c], np.float32)).astype(np.float32))
    roi = img[y0c:y1c, x0c:x1c]
    shaded = np.clip(tex.astype(np.float32) * gain.astype(np.float32)[None, None, :], 0, 255).astype(np.uint8)
    warped = cv2.warpPerspective(shaded, M, (x1c - x0c, y1c - y0c), flags=cv2.INTER_LINEAR)
    mask = cv2.warpPerspective(np.full((tp, tp), 255, np.uint8), M, (x1c - x0c, y1c - y0c), flags=cv2.INTER_LINEAR)
    a = (mask.astype(np.float32) / 255.0)[..., None]
    roi[:] = (roi * (1 - a) + warped * a).astype(np.uint8)


def draw_die(img: U8, sh: _Shader, d: DiePose) -> F64:
    style = d.style
    return draw_box(img, sh, np.asarray(d.center, float), mat(d.rot), d.size, style.body,
                    lambda v: die_face(v, style.body, style.pip), "die", 0.55, 0.14 * d.size)


def draw_cube(img: U8, sh: _Shader, c: CubePose) -> F64:
    return draw_box(img, sh, np.asarray(c.center, float), mat(c.rot), c.size, (215, 235, 242),
                    lambda v: cube_face(v), "cube", 0.3, 0.07 * c.size)


def _tube(path: F64, widths: F64) -> tuple[F64, F64]:
    """Left/right outline points (3-D) of a flat-ish tube along ``path`` (N x 3)."""
    d = np.gradient(path, axis=0)
    side = np.cross(d, np.array([0.0, 0.0, 1.0]))
    side /= np.maximum(np.linalg.norm(side, axis=1, keepdims=True), 1e-9)
    return path + side * widths[:, None] / 2, path - side * widths[:, None] / 2


def hand_geometry(h: HandPose) -> list[tuple[F64, str]]:
    """Closed 3-D outlines of the sleeve, forearm, palm and fingers, in drawing order."""
    e, t = np.asarray(h.entry, float), np.asarray(h.tip, float)
    d = t - e
    d_xy = d.copy()
    d_xy[2] = 0
    length = np.linalg.norm(d_xy)
    u = d_xy / max(length, 1e-6)
    w = h.width_mm
    palm_len = 0.95 * w
    wrist = t - u * (palm_len + 0.2 * w)
    wrist[2] = t[2] + 0.45 * w
    parts: list[tuple[F64, str]] = []
    n = 12
    s = np.linspace(0, 1, n)[:, None]
    arm_path = e[None, :] * (1 - s) + wrist[None, :] * s
    arm_w = np.linspace(0.85 * w, 0.62 * w, n)
    cut = n // 2
    for frac, kind in ((1.0, "skin_lo"), (0.7, "skin"), (0.35, "skin_hi")):
        left, right = _tube(arm_path, arm_w * frac)
        parts.append((np.concatenate([left, right[::-1]]), kind))
    for frac, kind in ((1.04, "sleeve_lo"), (0.6, "sleeve")):
        left, right = _tube(arm_path[:cut], arm_w[:cut] * frac)
        parts.append((np.concatenate([left, right[::-1]]), kind))
    # palm: a rounded quadrilateral from the wrist toward the fingers
    side = np.cross(u, np.array([0.0, 0.0, 1.0]))
    knuckle = wrist + u * palm_len * 0.85
    knuckle[2] = t[2] + 0.25 * w
    palm = [wrist + side * 0.33 * w, wrist + side * 0.42 * w + u * 0.3 * w, knuckle + side * 0.45 * w,
            knuckle + u * 0.12 * w, knuckle - side * 0.45 * w, wrist - side * 0.40 * w + u * 0.3 * w,
            wrist - side * 0.33 * w]
    parts.append((np.array(palm), "palm"))
    # fingers curling down toward the tip, thumb from the side
    for k, off in enumerate((-0.3, -0.1, 0.1, 0.3)):
        base = knuckle + side * off * w
        tip = t + side * off * 0.25 * w - u * (0.05 * w if k in (0, 3) else 0.0)
        path = np.stack([base, base * 0.5 + tip * 0.5 + np.array([0, 0, 0.08 * w]), tip])
        lf, rf = _tube(path, np.array([0.19, 0.18, 0.16]) * w)
        parts.append((np.concatenate([lf, rf[::-1]]), "finger"))
        lf, rf = _tube(path[:2], np.array([0.08, 0.07]) * w)
        parts.append((np.concatenate([lf, rf[::-1]]), "skin_hi"))
    thumb_base = wrist + side * 0.35 * w + u * 0.25 * w
    thumb_tip = t + side * 0.2 * w - u * 0.1 * w
    path = np.stack([thumb_base, (thumb_base + thumb_tip) / 2 + side * 0.15 * w, thumb_tip])
    lf, rf = _tube(path, np.array([0.24, 0.2, 0.17]) * w)
    parts.append((np.concatenate([lf, rf[::-1]]), "finger"))
    return parts


def draw_hand(img: U8, sh: _Shader, h: HandPose, mask: U8 | None) -> None:
    local = sh.local_light(sh.camera.project(np.asarray(h.tip, float)[None, :])[0])
    up = np.array([[0.0, 0.0, 1.0]])
    gain = {"skin_lo": 0.8, "skin": 0.95, "skin_hi": 1.06, "finger": 0.9, "sleeve_lo": 0.78, "sleeve": 0.95, "palm": 0.92}
    for outline, kind in hand_geometry(h):
        base = h.sleeve if kind.startswith("sleeve") else h.skin
        col = sh.colors(base, up, outline.mean(axis=0)[None, :], 0.1, 8.0, local)[0] * gain[kind]
        p = sh.camera.project(outline)
        _fill_poly(img, p, np.clip(col, 0, 255))
        if kind in ("finger", "palm"):  # palm and fingers: a lighter middle for roundness
            mid = outline.mean(axis=0)
            inner = (outline - mid) * np.array([0.5, 0.5, 1.0]) + mid
            _fill_poly(img, sh.camera.project(inner), np.clip(col * 1.07, 0, 255))
        if mask is not None:
            _fill_poly(mask, p, (255.0,))


def draw_cup(img: U8, sh: _Shader, cup: CupPose) -> None:
    rot = mat(cup.rot)
    ctr = np.asarray(cup.center, float)
    axis = rot[:, 2]
    ring = np.stack([_COS, _SIN, np.zeros_like(_COS)], axis=1)
    bottom = (ring * cup.radius * 0.88 + np.array([0, 0, -cup.height / 2])) @ rot.T + ctr
    mouth = (ring * cup.radius + np.array([0, 0, cup.height / 2])) @ rot.T + ctr
    lip = (ring * cup.radius * 0.86 + np.array([0, 0, cup.height / 2])) @ rot.T + ctr
    local = sh.local_light(sh.camera.project(ctr[None, :])[0])
    pb, pm, pl = (sh.camera.project(q) for q in (bottom, mouth, lip))
    mids = (bottom + np.roll(bottom, -1, 0) + mouth + np.roll(mouth, -1, 0)) / 4
    radial = mids - ctr - np.outer((mids - ctr) @ axis, axis)
    radial /= np.linalg.norm(radial, axis=1, keepdims=True)
    cols = sh.colors(cup.color, radial, mids, 0.25, 12.0, local)
    hull = cv2.convexHull(np.concatenate([pb, pm]).astype(np.float32)).reshape(-1, 2).astype(float)
    _fill(img, hull, cols.mean(axis=0))
    for i in np.nonzero(sh.facing(radial, mids))[0]:
        j = (i + 1) % _N_RING
        _fill(img, np.array([pb[i], pb[j], pm[j], pm[i]]), cols[i])
    if axis @ (sh.C - ctr) > 0:
        _fill(img, pm, cols.mean(axis=0) * 1.1)
        _fill(img, pl, np.asarray(cup.color, float) * 0.25)


# ---------------------------------------------------------------------- shadows
def _shadow_points(points: F64, L: F64, surface_z: float) -> F64:
    t = (points[:, 2] - surface_z) / max(L[2], 0.05)
    return points - np.outer(t, L)


def _checker_hull(c: CheckerPose, r: float, h: float) -> F64:
    rot = mat(c.rot)
    bottom, _, top, _ = _checker_rings(r, h)
    return np.asarray(np.concatenate([bottom, top]) @ rot.T + np.asarray(c.center, float), float)


def _box_corners(center: tuple[float, float, float], rot: F64, size: float) -> F64:
    a = size / 2
    corners = np.array([[x, y, z] for x in (-a, a) for y in (-a, a) for z in (-a, a)], float)
    return np.asarray(corners @ rot.T + np.asarray(center, float), float)


def _surface_z_of(layout: BoardLayout, x: float, y: float) -> float:
    if not layout.outline().contains(x, y):
        return TABLE_Z
    return layout.surface_z(x, y)


def _shadow_polys(cam: CameraModel, lighting: Lighting, layout: BoardLayout, solids: list[F64],
                  hands: list[list[F64]]) -> list[tuple[F64, int, bool]]:
    """Image polygons of cast shadows: (points, darkness 0..255, convex)."""
    L = np.asarray(lighting.direction, float)
    out: list[tuple[F64, int, bool]] = []
    for pts in solids:
        zs = _surface_z_of(layout, float(pts[:, 0].mean()), float(pts[:, 1].mean()))
        sp = cam.project(_shadow_points(pts, L, zs))
        out.append((cv2.convexHull(sp.astype(np.float32)).reshape(-1, 2).astype(float), 255, True))
    for outlines in hands:
        for pts in outlines:
            out.append((cam.project(_shadow_points(pts, L, 0.0)), 200, False))
    return out


def _darken(img: U8, lighting: Lighting, box: tuple[int, int, int, int], polys: list[tuple[F64, int, bool]],
            flats: list[F64], cam: CameraModel) -> None:
    x0, y0, x1, y1 = box
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    k = max(0.8, lighting.shadow_blur_px)
    off = np.array([x0, y0], float)
    m = np.zeros((y1 - y0, x1 - x0), np.uint8)
    for pts, val, convex in polys:
        (_fill if convex else _fill_poly)(m, pts - off, (float(val),))
    m = cv2.GaussianBlur(m, (0, 0), k)
    strength = lighting.shadow_strength * lighting.key / (lighting.key + lighting.ambient) * 1.6
    f = strength * m.astype(np.float32) / 255.0
    if flats:
        occl = np.zeros_like(m)
        for pts in flats:  # contact shadow: a dark rim right at the base
            p = cam.project(pts) - off
            _fill(occl, cv2.convexHull(p.astype(np.float32)).reshape(-1, 2).astype(float), (255.0,))
        occl = cv2.GaussianBlur(occl, (0, 0), max(1.0, k * 0.6))
        f += 0.25 * occl.astype(np.float32) / 255.0
    f = 1.0 - np.clip(f, 0, 0.85)
    roi = img[y0:y1, x0:x1]
    roi[:] = (roi.astype(np.float32) * f[..., None]).astype(np.uint8)


def draw_shadows(img: U8, cam: CameraModel, lighting: Lighting, layout: BoardLayout,
                 solids: list[F64], flats: list[F64], hands: list[list[F64]], *, per_object: bool = False) -> None:
    """Darken the board under ``solids`` (convex point clouds) and hands, with contact shadows
    under ``flats``.  ``per_object`` blurs each shadow in its own small window (few, small objects)."""
    polys = _shadow_polys(cam, lighting, layout, solids, hands)
    if not polys:
        return
    pad = int(4 * max(0.8, lighting.shadow_blur_px)) + 6

    def box_of(pts: F64) -> tuple[int, int, int, int]:
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        return (int(lo[0]) - pad, int(lo[1]) - pad, int(hi[0]) + pad + 1, int(hi[1]) + pad + 1)

    if per_object:
        for poly in polys:
            _darken(img, lighting, box_of(poly[0]), [poly], [], cam)
        return
    allp = np.concatenate([p for p, _, _ in polys])
    _darken(img, lighting, box_of(allp), polys, flats, cam)


# ---------------------------------------------------------------------- the frame
@dataclass(frozen=True, slots=True)
class RenderInfo:
    """What the rasteriser knows that the truth needs: image corners of dice and cube, the hand mask."""

    die_corners: tuple[F64, ...]  # 8 x 2 projected corners per die
    cube_corners: F64 | None
    hand_mask: U8 | None  # quarter-resolution mask of hands/arms


def checker_layer(scene: Scene, base: U8 | None = None) -> U8:
    """The board with every resting checker and its shadow (no dice, cube, hands)."""
    scene = in_board_frame(scene)
    st = static_board(scene.layout, scene.scheme, scene.camera, scene.lighting, scene.seed, scene.table_pose)
    img = st.image.copy() if base is None else base
    sh = _Shader(scene.camera, scene.lighting, st.light)
    spec = scene.layout.spec
    r, h = spec.checker_diameter_mm / 2, spec.checker_height_mm
    resting = [c for c in scene.checkers if c.region != "hand"]
    solids = [_checker_hull(c, r, h) for c in resting]
    flats = [_checker_hull(c, r * 1.02, h)[: _N_RING] for c in resting if c.center[2] < h]
    draw_shadows(img, scene.camera, scene.lighting, scene.layout, solids, flats, [])
    depth = scene.camera.depth(np.array([c.center for c in resting])) if resting else np.zeros(0)
    for i in np.argsort(-depth):
        draw_checker(img, sh, resting[i], scene.scheme, r, h)
    return img


def render_pieces(scene: Scene, img: U8, *, with_hand_mask: bool = True,
                  gains: tuple[float, float, float] = (1.0, 1.0, 1.0)) -> RenderInfo:
    """Draw dice, cube, cup, held checkers and hands (with shadows) onto ``img`` (the checker layer).

    ``gains``: exposure/white-balance gains already applied to ``img``, so the pieces match.
    """
    scene = in_board_frame(scene)
    st = static_board(scene.layout, scene.scheme, scene.camera, scene.lighting, scene.seed, scene.table_pose)
    sh = _Shader(scene.camera, scene.lighting, st.light, gains)
    spec = scene.layout.spec
    r, h = spec.checker_diameter_mm / 2, spec.checker_height_mm
    held = [c for c in scene.checkers if c.region == "hand"]
    solids: list[F64] = [_box_corners(d.center, mat(d.rot), d.size) for d in scene.dice]
    if scene.cube is not None:
        solids.append(_box_corners(scene.cube.center, mat(scene.cube.rot), scene.cube.size))
    if scene.cup is not None:
        cup = scene.cup
        solids.append(_box_corners(cup.center, mat(cup.rot), cup.radius * 2) * 1.0)
    draw_shadows(img, scene.camera, scene.lighting, scene.layout, solids, [], [], per_object=True)
    items: list[tuple[float, Callable[[], object]]] = []
    die_corners: list[F64] = []
    def die_drawer(d: DiePose) -> Callable[[], object]:
        return lambda: die_corners.append(draw_die(img, sh, d))

    for d in scene.dice:
        items.append((float(scene.camera.depth([d.center])[0]), die_drawer(d)))
    cube_c: list[F64] = []
    if scene.cube is not None:
        cb = scene.cube
        items.append((float(scene.camera.depth([cb.center])[0]), lambda: cube_c.append(draw_cube(img, sh, cb))))
    if scene.cup is not None:
        cp = scene.cup
        items.append((float(scene.camera.depth([cp.center])[0]), lambda: draw_cup(img, sh, cp)))
    # dice drawn in painter's order; die_corners must follow scene.dice order, so draw then reorder
    order = sorted(range(len(items)), key=lambda i: -items[i][0])
    for i in order:
        items[i][1]()
    # die_corners were appended in draw order: restore scene order
    dice_order = [i for i in order if i < len(scene.dice)]
    corners_by_die: list[F64 | None] = [None] * len(scene.dice)
    for k, i in enumerate(dice_order):
        corners_by_die[i] = die_corners[k]
    _redraw_occluders(img, sh, scene, corners_by_die, cube_c[0] if cube_c else None, r, h)
    mask: U8 | None = None
    if scene.hands or held:
        hand_parts = [[o for o, _ in hand_geometry(hd)] for hd in scene.hands]
        draw_shadows(img, scene.camera, scene.lighting, scene.layout,
                     [_checker_hull(c, r, h) for c in held], [], hand_parts)
        for c in held:
            draw_checker(img, sh, c, scene.scheme, r, h)
        H, W = img.shape[:2]
        full_mask = np.zeros((H, W), np.uint8) if with_hand_mask else None
        for hd in scene.hands:
            draw_hand(img, sh, hd, full_mask)
        if full_mask is not None:
            mask = cv2.resize(full_mask, (W // 4, H // 4), interpolation=cv2.INTER_AREA)
    return RenderInfo(tuple(c for c in corners_by_die if c is not None), cube_c[0] if cube_c else None, mask)


def _redraw_occluders(img: U8, sh: _Shader, scene: Scene, die_corners: list[F64 | None], cube_corners: F64 | None,
                      r: float, h: float) -> None:
    """Checkers nearer the camera than a die or the cube and overlapping it in the image are drawn
    again on top, so a die behind a stack is hidden by it as a camera would see."""
    boxes: list[tuple[F64, float]] = []
    for d, c in zip(scene.dice, die_corners, strict=True):
        if c is not None:
            boxes.append((c, float(scene.camera.depth([d.center])[0])))
    if scene.cube is not None and cube_corners is not None:
        boxes.append((cube_corners, float(scene.camera.depth([scene.cube.center])[0])))
    if not boxes:
        return
    resting = [c for c in scene.checkers if c.region != "hand"]
    if not resting:
        return
    centers = np.array([c.center for c in resting])
    depth = scene.camera.depth(centers)
    proj = scene.camera.project(centers)
    radius_px = np.abs(sh.camera.fx * r / np.maximum(depth, 1.0)) * 1.3 + 2
    redraw: set[int] = set()
    for corners, dd in boxes:
        lo, hi = corners.min(axis=0), corners.max(axis=0)
        near = depth < dd - 2.0
        over = (proj[:, 0] + radius_px > lo[0]) & (proj[:, 0] - radius_px < hi[0]) & \
            (proj[:, 1] + radius_px > lo[1]) & (proj[:, 1] - radius_px < hi[1])
        redraw.update(int(i) for i in np.nonzero(near & over)[0])
    for i in sorted(redraw, key=lambda k: -depth[k]):
        draw_checker(img, sh, resting[i], scene.scheme, r, h)


class Sensor:
    """Exposure/white-balance drift, defocus, noise and JPEG, with a bank of noise frames per size."""

    def __init__(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed + 104729)
        self._bank: dict[tuple[int, int, int], list[tuple[U8, U8]]] = {}

    def _noise(self, h: int, w: int, sigma: float) -> tuple[U8, U8]:
        key = (h, w, round(sigma * 4))
        bank = self._bank.get(key)
        if bank is None:
            bank = []
            for _ in range(4):
                n = self.rng.normal(0, sigma, (h, w, 1)).astype(np.float32)
                n = n + self.rng.normal(0, sigma * 0.35, (h, w, 3)).astype(np.float32)  # some chroma noise
                bank.append((np.clip(n, 0, 255).astype(np.uint8), np.clip(-n, 0, 255).astype(np.uint8)))
            self._bank = {key: bank}
        return bank[int(self.rng.integers(len(bank)))]

    def apply(self, img: U8, post: PostFX, *, jpeg: bool = True) -> U8:
        """The sensor and encoder; ``jpeg=False`` when a video codec compresses the frame anyway."""
        gains = [float(g) * post.exposure for g in post.wb]
        if any(abs(g - 1.0) > 1e-3 for g in gains):
            img = np.asarray(cv2.multiply(img, (gains[0], gains[1], gains[2], 0.0)), np.uint8)  # type: ignore[call-overload]
        if post.defocus_sigma > 0.3:
            img = cv2.GaussianBlur(img, (0, 0), post.defocus_sigma)
        if post.noise_sigma > 0.2:
            pos, neg = self._noise(img.shape[0], img.shape[1], post.noise_sigma)
            img = cv2.subtract(cv2.add(img, pos), neg)
        if jpeg and post.jpeg_quality < 100:
            ok, buf = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(post.jpeg_quality)])
            if ok:
                img = np.asarray(cv2.imdecode(buf, cv2.IMREAD_COLOR), np.uint8)
        return np.asarray(img, np.uint8)


def apply_gains(img: U8, post: PostFX) -> tuple[U8, tuple[float, float, float]]:
    """Exposure and white balance as per-channel gains (a new image); returns the gains used."""
    g = (post.wb[0] * post.exposure, post.wb[1] * post.exposure, post.wb[2] * post.exposure)
    if all(abs(v - 1.0) < 1e-3 for v in g):
        return img.copy(), (1.0, 1.0, 1.0)
    return np.asarray(cv2.multiply(img, (g[0], g[1], g[2], 0.0)), np.uint8), g  # type: ignore[call-overload]


def render(scene: Scene, *, sensor: Sensor | None = None, jpeg: bool = True) -> tuple[U8, RenderInfo]:
    """Render a still scene: the camera frame (BGR uint8) and what the truth needs."""
    scene = in_board_frame(scene)
    layer = checker_layer(scene)
    img, gains = apply_gains(layer, scene.post)
    info = render_pieces(scene, img, gains=gains)
    out = (sensor or Sensor(scene.seed)).apply(img, replace(scene.post, exposure=1.0, wb=(1.0, 1.0, 1.0)), jpeg=jpeg)
    return out, info


def motion_blur(img: U8, box: tuple[int, int, int, int], direction: tuple[float, float], length: float) -> None:
    """Smear a region along ``direction`` (image px) by ``length`` px, in place."""
    x0, y0, x1, y1 = box
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x1 - x0 < 3 or y1 - y0 < 3 or length < 1.5:
        return
    n = int(length) | 1
    k = np.zeros((n, n), np.float32)
    ang = math.atan2(direction[1], direction[0])
    c = n // 2
    for i in range(n):
        t = i - c
        k[round(c + t * math.sin(ang)), round(c + t * math.cos(ang))] = 1
    k /= k.sum()
    img[y0:y1, x0:x1] = cv2.filter2D(img[y0:y1, x0:x1], -1, k)
