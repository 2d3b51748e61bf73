"""The full board model fit: pose and lens from every straight edge of the board at once.

The board is a slab with four sunken holes (the two tables and the two tray columns, at z = 0) in a
raised frame (rails, dividers and bar, at the rail height).  Every hole edge is a straight 3-D line: its
rim at the rail height, and, where the hole's wall faces the camera, the wall's foot on the playing
surface, which is then the visible colour edge.  The outer outline is used where its own wall is
hidden (its foot on the table is at an unknown depth).  That gives about twenty long lines spread over
the whole board; the fit searches for the strongest colour edge across each predicted line (sub-pixel),
and a robust Gauss-Newton adjusts pose, and for an uncalibrated camera the focal length, radial
k1, k2 and tangential p1, p2 (weak priors keep an ill-observed lens near a plain one), to minimise the
perpendicular distances.  Search windows shrink from coarse to fine, so a start within about 2 % of
the image width converges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import cv2
import numpy as np
import numpy.typing as npt

from calibration.camera import CameraModel
from calibration.config import LINE_WEIGHTS
from calibration.errors import BoardNotFound
from vision.geometry import BoardLayout, BoardSpec

FloatArray = npt.NDArray[np.float64]
LabImage = npt.NDArray[np.float32]

SKIP_WALLED = True
TRIANGLE_SEARCH_PX = 8.0
"""The points' sides join the fit once the search window (px at 1920 wide) is this narrow."""
WALLED_OUTER_REACH = 0.25
"""An outer top edge with its wall showing below it (``walled_outer``) is searched on the rail-top side and
this fraction of the wall's height down it (the wall's foot, often the stronger edge, stays out of reach)."""
OUTER_FOOT_MM = -12.0
"""Assumed depth of the table under the board's outer wall, only to decide whether that wall shows."""


@dataclass(frozen=True, slots=True)
class Segment:
    """A straight board edge in mm: from ``a`` to ``b``; ``up`` points (in the plane) toward the raised side."""

    a: tuple[float, float]
    b: tuple[float, float]
    up: tuple[float, float]
    outer: bool
    flat: bool = False
    """A colour edge painted on the playing surface (a point's side): seen at z = 0, no wall."""
    out_sign: float = 0.0
    """A point's side: +1 when ``up`` points out of the point, -1 when into it (0: any other edge).  A
    residual times this is the side's displacement away from the point's axis (one sign for all sides),
    so one shared offset widens or narrows all 24 points at once (:func:`fit_pose` ``point_width_px``)."""


def model_segments(spec: BoardSpec) -> tuple[Segment, ...]:
    """The outer outline and the edges of the four holes (tables and tray columns)."""
    lay = BoardLayout(spec)
    out: list[Segment] = []
    o = lay.outline()
    out += [Segment((o.x0, o.y0), (o.x1, o.y0), (0.0, 1.0), True), Segment((o.x1, o.y0), (o.x1, o.y1), (-1.0, 0.0), True),
            Segment((o.x1, o.y1), (o.x0, o.y1), (0.0, -1.0), True), Segment((o.x0, o.y1), (o.x0, o.y0), (1.0, 0.0), True)]
    for r in lay.holes():
        out += [Segment((r.x0, r.y0), (r.x1, r.y0), (0.0, -1.0), False),
                Segment((r.x1, r.y0), (r.x1, r.y1), (1.0, 0.0), False),
                Segment((r.x1, r.y1), (r.x0, r.y1), (0.0, 1.0), False),
                Segment((r.x0, r.y1), (r.x0, r.y0), (-1.0, 0.0), False)]
    return tuple(out)


def triangle_segments(spec: BoardSpec, start: float = 0.45) -> tuple[Segment, ...]:
    """The two long sides of every point, from ``start`` of the way up from the base to the tip (the
    tip halves: the starting position's stacks cover the bases)."""
    lay = BoardLayout(spec)
    out: list[Segment] = []
    for p in range(1, 25):
        (x0, by), (x1, _), (tx, ty), _ = lay.point_polygon(p)
        for bx in (x0, x1):
            a = (bx + (tx - bx) * start, by + (ty - by) * start)
            ln = math.hypot(tx - bx, ty - by)
            up = (-(ty - by) / ln, (tx - bx) / ln)
            out.append(Segment(a, (tx + (bx - tx) * 0.04, ty + (by - ty) * 0.04), up, False, True,
                               1.0 if up[0] * (bx - tx) > 0 else -1.0))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class PoseFit:
    camera: CameraModel
    rvec: FloatArray
    tvec: FloatArray
    support: float
    """Fraction of edge samples (on the lines whose edge should show) found within 1.5 px of the fit."""
    rms_px: float
    n_obs: int

    def corners_px(self, spec: BoardSpec) -> FloatArray:
        W, D, h = spec.width_mm, spec.depth_mm, spec.rail_height_mm
        top = np.array([[0, 0, h], [W, 0, h], [W, D, h], [0, D, h]], np.float64)
        c, _ = cv2.projectPoints(top, self.rvec, self.tvec, self.camera.matrix, self.camera.dist_array)
        return np.asarray(c, dtype=np.float64).reshape(4, 2)


def _project(P: FloatArray, rvec: FloatArray, tvec: FloatArray, K: FloatArray, dist: FloatArray) -> FloatArray:
    img, _ = cv2.projectPoints(P.reshape(-1, 1, 3), rvec, tvec, K, dist)
    return np.asarray(img, dtype=np.float64).reshape(-1, 2)


def observe(
    lab: LabImage, K: FloatArray, dist: FloatArray, rvec: FloatArray, tvec: FloatArray, spec: BoardSpec,
    search: float, step_mm: float = 6.0, segments: tuple[Segment, ...] | None = None,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, int]:
    """Edge observations for the current pose.

    Returns obs (M, 2) image points, P (M, 3) the model edge point each belongs to, T (M, 3) the
    edge's direction, strength (M,), and the number of samples tried.
    """
    obs, P, T, strength, _line, n_try = observe_lines(lab, K, dist, rvec, tvec, spec, search, step_mm, segments)
    return obs, P, T, strength, n_try


def observe_lines(
    lab: LabImage, K: FloatArray, dist: FloatArray, rvec: FloatArray, tvec: FloatArray, spec: BoardSpec,
    search: float, step_mm: float = 6.0, segments: tuple[Segment, ...] | None = None, walled_outer: bool = False,
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, npt.NDArray[np.int64], int]:
    """:func:`observe`, plus the index (into ``segments``) of the line each observation belongs to.

    ``walled_outer``: also the outer top edges whose wall shows below them (searched on the rail-top side
    and half-way down the wall; by default those lines are left out)."""
    use_walled = walled_outer
    segs = segments if segments is not None else model_segments(spec)
    h = spec.rail_height_mm
    A, U, OUT, T, FL, IDX = [], [], [], [], [], []
    for i_seg, s in enumerate(segs):
        a, b = np.array(s.a), np.array(s.b)
        length = float(np.linalg.norm(b - a))
        n = max(6, int(length / step_mm))
        t = np.linspace(0.03, 0.97, n)
        pts = a[None, :] + (b - a)[None, :] * t[:, None]
        A.append(pts)
        U.append(np.tile(s.up, (n, 1)))
        OUT.append(np.full(n, s.outer))
        FL.append(np.full(n, s.flat))
        IDX.append(np.full(n, i_seg, np.int64))
        T.append(np.tile(np.append((b - a) / length, 0.0), (n, 1)))
    pts2 = np.vstack(A)
    up = np.vstack(U)
    outer = np.concatenate(OUT)
    flat = np.concatenate(FL)
    tang = np.vstack(T)
    line = np.concatenate(IDX)
    m = len(pts2)
    rim = np.hstack([pts2, np.full((m, 1), h)])
    foot = np.hstack([pts2, np.where(outer, OUTER_FOOT_MM, 0.0)[:, None]])
    rim_up = rim + np.hstack([up * 3.0, np.zeros((m, 1))])
    proj = _project(np.vstack([rim, foot, rim_up]), rvec, tvec, K, dist).reshape(3, m, 2)
    pr, pf, pu = proj
    u = pu - pr
    u /= np.maximum(np.linalg.norm(u, axis=1, keepdims=True), 1e-9)
    wall = -np.sum((pf - pr) * u, axis=1)  # > 0: the foot shows beyond the rim, on the low side
    use_foot = ((~outer) & (wall > 0.7)) | flat
    walled_outer = outer & (wall > 0.7)
    keep = np.ones(len(outer), bool)
    if SKIP_WALLED and not use_walled:
        keep &= ~walled_outer
    centre = np.where(use_foot[:, None], pf, pr)
    hi = np.where(use_foot & ~flat, np.minimum(search, np.maximum(0.5, wall * 0.5)), search)
    lo = np.where(walled_outer, -np.minimum(search, np.maximum(0.5, wall * (WALLED_OUTER_REACH if use_walled else 0.5))),
                  -search)
    steps = np.arange(-search, search + 0.25, 0.5)
    grid = centre[:, None, :] + steps[None, :, None] * u[:, None, :]
    mx, my = grid[..., 0].astype(np.float32), grid[..., 1].astype(np.float32)
    hh, ww = lab.shape[:2]
    prof = cv2.remap(lab, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE).astype(np.float64)
    valid = (mx >= 2) & (mx < ww - 3) & (my >= 2) & (my < hh - 3)
    deriv = np.linalg.norm(np.gradient(prof, axis=1), axis=2)
    deriv[~valid] = 0.0
    deriv[(steps[None, :] > hi[:, None]) | (steps[None, :] < lo[:, None])] = 0.0
    k = np.clip(np.argmax(deriv, axis=1), 1, len(steps) - 2)
    rows = np.arange(m)
    y0, y1, y2 = deriv[rows, k - 1], deriv[rows, k], deriv[rows, k + 1]
    den = y0 - 2 * y1 + y2
    off = np.where(np.abs(den) > 1e-9, 0.5 * (y0 - y2) / np.where(np.abs(den) > 1e-9, den, 1.0), 0.0)
    sft = steps[k] + np.clip(off, -0.5, 0.5) * 0.5
    ok = keep & valid.all(axis=1) & (y1 > 0)
    obs = centre + sft[:, None] * u
    P = np.where(use_foot[:, None], foot, rim)
    return obs[ok], P[ok], tang[ok], y1[ok], line[ok], int(keep.sum())


def edge_support(lab: LabImage, camera: CameraModel, spec: BoardSpec, rvec: FloatArray, tvec: FloatArray,
                 *, inner_only: bool = True, tol_px: float = 1.5) -> FloatArray:
    """Per board edge (0..1 each, NaN when out of view): the fraction of its samples with a colour edge
    on the line the pose predicts.

    The edges are the fit's own: the rims or wall feet of the tables and tray columns (rails, bar,
    dividers), the two long sides of all 24 points (tip halves), and unless ``inner_only`` the outer
    frame.  A sample is a hit when the strongest gradient within ~6 px (at 1920 wide) across the
    predicted line lies within ``tol_px`` (at 1920 wide, scaled with the image) of it.
    """
    scale = camera.width / 1920.0
    search, tol = max(2.5, 6.0 * scale), max(0.6 * tol_px, tol_px * scale)
    segs = tuple(s for s in model_segments(spec) if not (inner_only and s.outer)) + triangle_segments(spec)
    rvec, tvec = np.asarray(rvec, np.float64).ravel(), np.asarray(tvec, np.float64).ravel()
    K, dist = camera.matrix, camera.dist_array
    out = np.full(len(segs), np.nan)
    for i, seg in enumerate(segs):
        obs, P, T, strength, n_try = observe(lab, K, dist, rvec, tvec, spec, search, step_mm=8.0, segments=(seg,))
        if n_try == 0 or len(obs) == 0:
            continue
        m = len(P)
        proj = _project(np.vstack([P, P + T * 10.0]), rvec, tvec, K, dist).reshape(2, m, 2)
        d = proj[1] - proj[0]
        d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
        e = obs - proj[0]
        r = np.abs(e[:, 0] * d[:, 1] - e[:, 1] * d[:, 0])
        out[i] = float(np.sum((r <= tol) & (strength > 1.0))) / n_try
    return out


def fit_cost(lab: LabImage, camera: CameraModel, spec: BoardSpec, rvec: FloatArray, tvec: FloatArray, *,
             tol_px: float = 1.0, search_px: float = 4.0, hole_offsets: bool = False, walled_outer: bool = False
             ) -> float:
    """0..1, lower is better: how far the board's edges lie from where the pose predicts them.

    Every edge of the fit (the outer outline where its wall is hidden, the rims or wall feet of the
    tables and tray columns, the two long sides of all 24 points) is searched within ``search_px``
    across its predicted line; each sample costs ``min(r, tol)^2 / tol^2`` for a perpendicular
    distance ``r`` (a truncated quadratic: a good fit is rewarded to the sub-pixel, a wrong edge
    costs no more than a missing one), and a sample with no clear edge costs 1.  Unlike a hit
    fraction, it tells apart two placements that both lie within a pixel of most edges (a focal
    length / distance trade-off), and unlike the fit's own residuals it also judges samples the fit
    rejected.  Distances are in px at 1920 wide (scaled with the image).

    ``hole_offsets``: each rim / wall-foot line of the tables and trays is judged after removing its
    own median offset (an inlay line, a bevel or the rail's cast shadow moves the colour edge of a
    hole by up to ~2.5 px the same way along its whole length; such a line still judges the fit's
    direction and curvature, but not its position), as :func:`fit_pose` with ``hole_offset_px``
    fits them.  The outer outline and the points' sides, painted or cut exactly, count as they lie.
    """
    scale = camera.width / 1920.0
    tol, search = max(0.5, tol_px * scale), max(2.0, search_px * scale)
    rvec, tvec = np.asarray(rvec, np.float64).ravel(), np.asarray(tvec, np.float64).ravel()
    K, dist = camera.matrix, camera.dist_array
    segs = model_segments(spec) + triangle_segments(spec)
    obs, P, T, strength, line, n_try = observe_lines(lab, K, dist, rvec, tvec, spec, search, segments=segs,
                                                     walled_outer=walled_outer)
    if n_try == 0 or len(obs) == 0:
        return 1.0
    m = len(P)
    proj = _project(np.vstack([P, P + T * 10.0]), rvec, tvec, K, dist).reshape(2, m, 2)
    d = proj[1] - proj[0]
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    e = obs - proj[0]
    rs = e[:, 0] * d[:, 1] - e[:, 1] * d[:, 0]
    ok = strength > 1.0
    if hole_offsets:
        for i, sg in enumerate(segs):
            k = ok & (line == i)
            if not (sg.outer or sg.flat) and k.sum() >= 3:
                rs[line == i] -= float(np.median(rs[k]))
    r = np.abs(rs)[ok]
    return float((np.sum(np.minimum(r, tol) ** 2) / tol**2 + (n_try - len(r))) / n_try)


def _params_camera(cam: CameraModel, p: FloatArray, free: bool) -> tuple[FloatArray, FloatArray]:
    if not free:
        return cam.matrix, cam.dist_array
    f = cam.fx * math.exp(p[6])
    K = np.array([[f, 0, cam.cx], [0, f, cam.cy], [0, 0, 1.0]])
    return K, np.array([p[7], p[8], p[9], p[10], 0.0])


LINE_OFFSET_SIGMA_PX = 0.6
"""Prior spread (px at 1920 wide) of a line's systematic offset when :func:`fit_pose` estimates them
(the final polish of :func:`calibration.board.find_board`)."""
HOLE_OFFSET_SIGMA_PX = 3.0
"""Prior spread (px at 1920 wide) of the offset of a table's or tray's rim / wall-foot line (inlay lines,
bevels and the rail's cast shadow move those colour edges by up to ~2.5 px on rendered boards)."""
LINE_OFFSET_SEARCH_PX = 5.0
"""Line offsets are estimated once the search window (px at 1920 wide) is this narrow."""

PRIOR_SIGMA = np.array([0.2, 1.0, 0.5, 0.003, 0.003])
"""Weak priors on log(f / f_default), k1, k2, p1, p2 (only the lens terms; the pose is free)."""


def _residuals(p: FloatArray, cam: CameraModel, obs: FloatArray, P: FloatArray, T: FloatArray, free: bool,
               prior0: FloatArray) -> FloatArray:
    K, dist = _params_camera(cam, p, free)
    m = len(P)
    proj = _project(np.vstack([P, P + T * 10.0]), p[:3], p[3:6], K, dist).reshape(2, m, 2)
    d = proj[1] - proj[0]
    d /= np.maximum(np.linalg.norm(d, axis=1, keepdims=True), 1e-9)
    e = obs - proj[0]
    r = e[:, 0] * d[:, 1] - e[:, 1] * d[:, 0]
    if free:
        # the edges' errors are correlated along each line: weigh the prior as if ~20 lines were seen
        r = np.concatenate([r, math.sqrt(m / 20.0) * (p[6:11] - prior0) / PRIOR_SIGMA])
    return np.asarray(r, dtype=np.float64)


def _residuals_jac(p: FloatArray, cam: CameraModel, obs: FloatArray, P: FloatArray, T: FloatArray, free: bool,
                   prior0: FloatArray) -> tuple[FloatArray, FloatArray]:
    """:func:`_residuals` and their Jacobian in ``p`` (11 columns when ``free``, else 6), analytic: one
    ``cv2.projectPoints`` call with its own derivatives (pose, focal length, k1 k2 p1 p2) and the chain rule
    through each residual's line direction, instead of a projection per parameter (session 7: the forward
    differences were about half of a calibration's CPU)."""
    K, dist = _params_camera(cam, p, free)
    m = len(P)
    img, jac = cv2.projectPoints(np.vstack([P, P + T * 10.0]).reshape(-1, 1, 3), p[:3], p[3:6], K, dist)
    proj = np.asarray(img, np.float64).reshape(2, m, 2)
    jac = np.asarray(jac, np.float64).reshape(2, m, 2, -1)
    npar = 11 if free else 6
    Jp = np.empty((2, m, 2, npar))
    Jp[..., :6] = jac[..., :6]
    if free:
        Jp[..., 6] = (jac[..., 6] + jac[..., 7]) * K[0, 0]  # d/d log f, with fx = fy = f
        Jp[..., 7:11] = jac[..., 10:14]
    v = proj[1] - proj[0]
    nv = np.maximum(np.linalg.norm(v, axis=1, keepdims=True), 1e-9)
    d = v / nv
    e = obs - proj[0]
    r = e[:, 0] * d[:, 1] - e[:, 1] * d[:, 0]
    dv = Jp[1] - Jp[0]
    dd = (dv - d[:, :, None] * np.sum(d[:, :, None] * dv, axis=1, keepdims=True)) / nv[:, :, None]
    J = (-Jp[0][:, 0] * d[:, 1, None] + e[:, 0, None] * dd[:, 1]
         + Jp[0][:, 1] * d[:, 0, None] - e[:, 1, None] * dd[:, 0])
    if free:
        w = math.sqrt(m / 20.0)
        r = np.concatenate([r, w * (p[6:11] - prior0) / PRIOR_SIGMA])
        J = np.vstack([J, np.hstack([np.zeros((5, 6)), np.diag(w / PRIOR_SIGMA)])])
    return np.asarray(r, np.float64), np.asarray(J, np.float64)


def fit_pose(
    lab: LabImage, camera: CameraModel, spec: BoardSpec, rvec: FloatArray, tvec: FloatArray, *,
    free_lens: bool | None = None, searches: tuple[float, ...] = (24.0, 14.0, 8.0, 5.0, 3.0, 2.5),
    use_triangles: bool = True, line_offset_px: float | None = None, hole_offset_px: float | None = None,
    walled_outer: bool = False, robust_floor: float = 0.0, point_width_px: float | None = None,
    line_weight: str | None = None,
) -> PoseFit:
    """Refine ``rvec``/``tvec`` (and the lens of a default camera) to the board's edges in ``lab``.

    ``lab`` is :func:`calibration.board.smoothed_lab` of the frame.  Raises :class:`BoardNotFound`
    when too few edges are seen.

    ``line_offset_px`` (px at 1920 wide; None: off): in the fine stages every observed line gets its
    own offset across itself, with this prior spread.  A colour edge is rarely seen exactly where the
    geometry puts it (a rail's cast shadow, a bevel, shading on a wall shift it by a pixel or two, the
    same way along the whole line); with a free offset, a line's many samples can no longer pull the
    pose and the lens as if each were an independent measurement: each line weighs about as much as
    its systematic error allows, and still contributes its direction and curvature in full.

    ``robust_floor``: the robust (Tukey) window is at least this fraction of the current search window
    (0: only 3 robust sigmas).  With a narrow window, a whole line left a few pixels off (a focal length /
    distance trade-off in a near-frontal view) is rejected as an outlier and cannot pull the fit back.

    ``point_width_px`` (px at 1920 wide; None: off): in the fine stages all 24 points' sides share one
    offset away from their points' axes, with this prior spread (a point drawn, painted or seen wider or
    narrower than the board's nominal point width).  At the TRUE pose of rendered scenes every point's
    sides lie ~0.4 px off their nominal place, the same way across the point (both sides of all 24 points,
    every style and tilt: seen 3804-3903, 3986); a fit without that offset trades the near-far scale against it.

    ``line_weight`` (fine stages only; None: every sample weighs the same): ``"contrast"`` weighs each line's
    samples by its median edge strength over the median of all lines (capped at 1), ``"scatter"`` by the
    squared ratio of the overall robust spread to the line's own (capped at 1), so a faint or noisy line
    (a shadowed outer edge, green felt's rims) pulls the fit less than a crisp one.
    """
    if line_weight is not None and line_weight not in LINE_WEIGHTS:
        raise ValueError(f"line_weight {line_weight!r}: expected None or one of {', '.join(LINE_WEIGHTS)}")
    free = (camera.source == "default") if free_lens is None else free_lens
    rvec, tvec = np.asarray(rvec, np.float64).ravel(), np.asarray(tvec, np.float64).ravel()
    f_def = CameraModel.default_for_size(camera.width, camera.height).fx
    if free and abs(math.log(camera.fx / f_def)) > 0.45:
        # an implausible start (a frontal view's focal length from the rectangle): restart from the default
        camera, rvec, tvec = _repose(camera, spec, rvec, tvec, f_def)
    p = np.concatenate([np.asarray(rvec, np.float64).ravel(), np.asarray(tvec, np.float64).ravel(),
                        [0.0, *camera.dist[:4]]])
    prior0 = p[6:11].copy()
    prior0[0] = math.log(f_def / camera.fx)
    scale_px = camera.width / 1920.0
    segs = model_segments(spec)
    segs_fine = segs + triangle_segments(spec) if use_triangles else segs
    # prior spread of each line's offset (px at 1920 wide; inf: no offset for that line)
    seg_sig = np.array([
        (hole_offset_px if hole_offset_px is not None else line_offset_px) if not (sg.outer or sg.flat)
        else line_offset_px for sg in segs_fine], dtype=object)
    seg_sig = np.array([1e-3 if v is None else float(v) for v in seg_sig])
    # the points' shared widening: one more offset, after the lines' own (each side's samples join it with their sign)
    width_id = len(segs_fine)
    seg_sig = np.append(seg_sig, 1e-3 if point_width_px is None else float(point_width_px))
    seg_sign = np.array([s.out_sign for s in segs_fine])
    width_group = point_width_px is not None and use_triangles
    n_par = 11 if free else 6
    obs = np.zeros((0, 2))
    n_try = 1
    for stage, s in enumerate(searches):
        search = max(1.5, s * scale_px)
        K, dist = _params_camera(camera, p, free)
        obs, P, T, strength, line, n_try = observe_lines(
            lab, K, dist, p[:3], p[3:6], spec, search, segments=segs_fine if s <= TRIANGLE_SEARCH_PX else segs,
            walled_outer=walled_outer)
        strong = strength > max(1e-3, 0.25 * float(np.median(strength))) if len(strength) else strength > 0
        obs, P, T, line, strength = obs[strong], P[strong], T[strong], line[strong], strength[strong]
        if len(obs) < 30:
            raise BoardNotFound("the board's edges are not visible enough to fit")
        lens = free and stage >= 1
        npar = n_par if lens else 6
        m = len(obs)
        # per-line offsets (fine stages): columns after the camera's, a prior row each
        use_off = bool((seg_sig > 1e-3).any()) and s <= LINE_OFFSET_SEARCH_PX
        grp, sgn = line, np.ones(m)
        if width_group:
            grp = np.where(seg_sign[line] != 0, width_id, line)
            sgn = np.where(seg_sign[line] != 0, seg_sign[line], 1.0)
        ids, li = np.unique(grp, return_inverse=True) if use_off else (np.zeros(0, np.int64), np.zeros(m, np.int64))
        n_off = len(ids)
        off = np.zeros(n_off)
        sig_off = seg_sig[ids] * scale_px if n_off else np.ones(0)
        fine = line_weight is not None and s <= LINE_OFFSET_SEARCH_PX
        lw = np.ones(m)
        if fine and line_weight == "contrast":
            lines_u, inv = np.unique(line, return_inverse=True)
            med = np.array([np.median(strength[inv == j]) for j in range(len(lines_u))])
            lw = np.minimum(1.0, med / max(float(np.median(med)), 1e-9))[inv]
        for _it in range(6 if not use_off else 8):
            r, J = _residuals_jac(p, camera, obs, P, T, lens, prior0)
            if n_off:
                r[:m] -= sgn * off[li]
            rr = np.abs(r[:m])
            sig = max(0.4 * scale_px, 1.4826 * float(np.median(rr)))
            c = max(3.0 * sig, robust_floor * search)
            w = np.where(rr < c, (1 - (rr / c) ** 2) ** 2, 0.0)  # Tukey
            if fine and line_weight == "scatter":
                lines_u, inv = np.unique(line, return_inverse=True)
                spread = np.array([1.4826 * np.median(rr[inv == j]) for j in range(len(lines_u))])
                lw = np.minimum(1.0, (sig / np.maximum(spread, 1e-9)) ** 2)[inv]
            w = w * lw
            w = np.concatenate([w, np.ones(len(r) - m)])
            Jw = J * w[:, None]
            Amat = Jw.T @ J
            g = Jw.T @ r
            if n_off:
                # the offsets' block is diagonal: eliminate it (Schur complement), then back-substitute
                wd = w[:m]
                Abb = np.bincount(li, weights=wd, minlength=n_off) + 1.0 / sig_off**2
                Apb = -np.stack([np.bincount(li, weights=wd * sgn * J[:m, k], minlength=n_off) for k in range(npar)])
                gb = -np.bincount(li, weights=wd * sgn * r[:m], minlength=n_off) + off / sig_off**2
                Amat = Amat - (Apb / Abb[None, :]) @ Apb.T
                g = g - Apb @ (gb / Abb)
            Amat += np.eye(npar) * 1e-9 * max(float(np.trace(Amat)), 1e-9)
            try:
                step = np.linalg.solve(Amat, -g)
            except np.linalg.LinAlgError:
                break
            p[:npar] += step
            if n_off:
                off += (-gb - Apb.T @ step) / Abb
            if np.abs(step).max() < 1e-8:
                break
    K, dist = _params_camera(camera, p, free)
    r = _residuals(p, camera, obs, P, T, free, prior0)[: len(obs)]
    inl = np.abs(r) < 1.5 * max(1.0, scale_px)
    rms = float(np.sqrt(np.mean(r[inl] ** 2))) if inl.any() else 99.0
    support = float(inl.sum()) / max(n_try, 1)
    cam = camera
    if free:
        cam = replace(camera, fx=float(K[0, 0]), fy=float(K[1, 1]))
        cam = cam.with_distortion(tuple(float(v) for v in dist), "default")
    if p[5] <= 0:
        raise BoardNotFound("the fitted board lies behind the camera")
    return PoseFit(cam, p[:3].copy(), p[3:6].copy(), support, rms, len(obs))


def _repose(camera: CameraModel, spec: BoardSpec, rvec: FloatArray, tvec: FloatArray, f: float
            ) -> tuple[CameraModel, FloatArray, FloatArray]:
    """The same outline seen through a camera of focal length ``f``: pose re-solved from its corners."""
    W, D, h = spec.width_mm, spec.depth_mm, spec.rail_height_mm
    obj = np.array([[0, 0, h], [W, 0, h], [W, D, h], [0, D, h], [W / 2, 0, h], [W / 2, D, h]], np.float64)
    img = _project(obj, rvec, tvec, camera.matrix, camera.dist_array)
    cam = replace(camera, fx=f, fy=f)
    ok, rv, tv = cv2.solvePnP(obj, img.reshape(-1, 1, 2), cam.matrix, cam.dist_array, flags=cv2.SOLVEPNP_ITERATIVE,
                              useExtrinsicGuess=False)
    if not ok:
        return camera, rvec, tvec
    return cam, np.asarray(rv, np.float64).ravel(), np.asarray(tv, np.float64).ravel()
