"""Board outlines from straight lines: segments -> long lines -> quadrilaterals scored by edge support.

The board is made of long straight edges (its outer frame, the rails' inner edges, the bar, the
tray dividers).  On a downscaled grey copy the line segment detector (``cv2.createLineSegmentDetector``)
finds segments; collinear ones are merged into long lines (their support is the length actually
seen, gaps from checkers, dice or glare do not matter); every pair of roughly parallel lines
crossed by another such pair makes a quadrilateral, scored by how much of its perimeter the
segments cover.  The best few are handed to the pattern check (:func:`calibration.board.pattern_score`),
which reads each as the outer frame or as the inside of the rails.

>>> import numpy as np
>>> img = np.full((300, 400, 3), 90, np.uint8); img[60:240, 80:330] = 200
>>> q = line_quads(img)[0]
>>> bool(np.abs(q - [[79.5, 59.5], [329.5, 59.5], [329.5, 239.5], [79.5, 239.5]]).max() < 3)
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.config import CalibrationConfig
from calibration.errors import CornersError
from calibration.homography import check_quad, order_clockwise
from vision.geometry import BoardLayout, BoardSpec

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class Line:
    """A long line in the work image: unit normal ``n``, offset ``c`` (n . p = c), the covered intervals
    along its direction (t = d . p) and their total length."""

    n: tuple[float, float]
    c: float
    intervals: tuple[tuple[float, float], ...]
    support: float

    @property
    def direction(self) -> FloatArray:
        return np.array([-self.n[1], self.n[0]])

    @property
    def angle(self) -> float:
        """Direction angle in [0, pi)."""
        d = self.direction
        return math.atan2(d[1], d[0]) % math.pi

    def covered(self, t0: float, t1: float) -> float:
        """Length of [t0, t1] covered by the line's segments."""
        lo, hi = min(t0, t1), max(t0, t1)
        return float(sum(max(0.0, min(b, hi) - max(a, lo)) for a, b in self.intervals))


def _segments(gray: npt.NDArray[np.uint8], min_len: float) -> FloatArray:
    lsd = cv2.createLineSegmentDetector(cv2.LSD_REFINE_STD)
    found = lsd.detect(gray)[0]
    if found is None:
        return np.zeros((0, 4))
    s = np.asarray(found, dtype=np.float64).reshape(-1, 4)
    ln = np.hypot(s[:, 2] - s[:, 0], s[:, 3] - s[:, 1])
    return s[ln >= min_len]


def merge_lines(segs: FloatArray, angle_tol_deg: float = 2.0, dist_tol: float = 2.5, gap: float = 4.0) -> list[Line]:
    """Collinear segments grouped into long lines (greedy, longest first)."""
    if len(segs) == 0:
        return []
    ln = np.hypot(segs[:, 2] - segs[:, 0], segs[:, 3] - segs[:, 1])
    order = np.argsort(-ln)
    groups: list[list[int]] = []
    params: list[tuple[FloatArray, float]] = []
    cos_tol = math.cos(math.radians(angle_tol_deg))
    for i in order:
        a, b = segs[i, :2], segs[i, 2:]
        d = (b - a) / ln[i]
        placed = False
        for g, (n, c) in enumerate(params):
            if abs(d @ np.array([-n[1], n[0]])) < cos_tol:
                continue
            if abs(n @ a - c) <= dist_tol and abs(n @ b - c) <= dist_tol:
                groups[g].append(int(i))
                pts = np.vstack([segs[groups[g], :2], segs[groups[g], 2:]])
                wts = np.concatenate([ln[groups[g]], ln[groups[g]]])
                m = (pts * wts[:, None]).sum(0) / wts.sum()
                cov = ((pts - m) * wts[:, None]).T @ (pts - m)
                _, vecs = np.linalg.eigh(cov)
                nn = vecs[:, 0]
                params[g] = (nn, float(nn @ m))
                placed = True
                break
        if not placed:
            n = np.array([-d[1], d[0]])
            groups.append([int(i)])
            params.append((n, float(n @ a)))
    out = []
    for grp, (nv, cv_) in zip(groups, params, strict=True):
        dv = np.array([-nv[1], nv[0]])
        iv = sorted((min(float(segs[i, :2] @ dv), float(segs[i, 2:] @ dv)),
                     max(float(segs[i, :2] @ dv), float(segs[i, 2:] @ dv))) for i in grp)
        merged: list[list[float]] = []
        for lo, hi in iv:
            if merged and lo <= merged[-1][1] + gap:
                merged[-1][1] = max(merged[-1][1], hi)
            else:
                merged.append([lo, hi])
        n, c = nv, cv_
        out.append(Line((float(n[0]), float(n[1])), c, tuple((lo, hi) for lo, hi in merged),
                        float(sum(b - a for a, b in merged))))
    out.sort(key=lambda L: -L.support)
    return out


def _intersect(a: Line, b: Line) -> FloatArray | None:
    A = np.array([a.n, b.n])
    if abs(np.linalg.det(A)) < 1e-6:
        return None
    return np.asarray(np.linalg.solve(A, np.array([a.c, b.c])), dtype=np.float64)


def _angle_diff(a: float, b: float) -> float:
    d = abs(a - b) % math.pi
    return min(d, math.pi - d)


def quads_from_lines(lines: list[Line], size: tuple[int, int], min_area_frac: float, max_lines: int = 28,
                     keep: int = 16, min_cover: float = 0.25) -> list[tuple[float, FloatArray]]:
    """Quadrilaterals made of two pairs of lines, scored by the share of their perimeter seen as edges."""
    w, h = size
    L = lines[:max_lines]
    n = len(L)
    ang = [x.angle for x in L]
    pts: dict[tuple[int, int], FloatArray | None] = {}

    def cross(i: int, j: int) -> FloatArray | None:
        k = (min(i, j), max(i, j))
        if k not in pts:
            pts[k] = _intersect(L[i], L[j])
        return pts[k]

    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)
             if _angle_diff(ang[i], ang[j]) < math.radians(40)
             and abs(L[i].c - L[j].c * float(np.dot(L[i].n, L[j].n))) > 0.08 * min(w, h)]
    margin = 0.04 * max(w, h)
    out: list[tuple[float, FloatArray]] = []
    for pi, (a, b) in enumerate(pairs):
        for c, d in pairs[pi + 1:]:
            if len({a, b, c, d}) < 4:
                continue
            if min(_angle_diff(ang[x], ang[y]) for x in (a, b) for y in (c, d)) < math.radians(25):
                continue
            corners = [cross(a, c), cross(c, b), cross(b, d), cross(d, a)]
            if any(p is None for p in corners):
                continue
            quad = np.array(corners, dtype=np.float64)
            if (quad[:, 0].min() < -margin or quad[:, 1].min() < -margin or quad[:, 0].max() > w + margin
                    or quad[:, 1].max() > h + margin):
                continue
            area = abs(float(cv2.contourArea(quad.astype(np.float32))))
            if area < min_area_frac * w * h:
                continue
            hull = cv2.convexHull(quad.astype(np.float32))
            if len(hull) != 4:
                continue
            sides = ((a, 3, 0), (c, 0, 1), (b, 1, 2), (d, 2, 3))
            cov, per, worst = 0.0, 0.0, 1.0
            for li, i0, i1 in sides:
                dvec = L[li].direction
                t0, t1 = float(quad[i0] @ dvec), float(quad[i1] @ dvec)
                ln = abs(t1 - t0)
                cv_ = L[li].covered(t0, t1)
                cov += cv_
                per += ln
                worst = min(worst, cv_ / max(ln, 1e-9))
            if worst < min_cover:
                continue
            out.append((cov / per * (0.5 + worst), quad))
    out.sort(key=lambda t: -t[0])
    res: list[tuple[float, FloatArray]] = []
    for s, q in out:
        try:
            qc = order_clockwise(q)
            check_quad(qc)
        except CornersError:
            continue
        if all(np.abs(qc - r).max() > 0.01 * max(w, h) for _, r in res):
            res.append((s, qc))
        if len(res) >= keep:
            break
    return res


def long_lines(image: Image, cfg: CalibrationConfig, min_support: float) -> tuple[list[Line], float, tuple[int, int]]:
    """The merged straight lines of a frame at working resolution at least ``min_support`` of its
    shorter side long; with the working scale and size (full-resolution px = working px / scale)."""
    h, w = image.shape[:2]
    scale = min(1.0, cfg.line_work_width / w)
    small = cv2.resize(image, (round(w * scale), round(h * scale)), interpolation=cv2.INTER_AREA) if scale < 1 else image
    gray = np.asarray(cv2.cvtColor(small, cv2.COLOR_BGR2GRAY), dtype=np.uint8)
    sh, sw = gray.shape
    segs = _segments(gray, 0.02 * min(sw, sh))
    return [L for L in merge_lines(segs) if L.support >= min_support * min(sw, sh)], scale, (sw, sh)


def line_quads(image: Image, config: CalibrationConfig | None = None) -> list[FloatArray]:
    """Candidate board quadrilaterals (clockwise, full-resolution px) from long straight lines, best first."""
    cfg = config or CalibrationConfig()
    lines, scale, (sw, sh) = long_lines(image, cfg, 0.06)
    quads = quads_from_lines(lines, (sw, sh), cfg.min_board_fraction, keep=cfg.line_quads)
    return [q / scale for _, q in quads]


# ------------------------------------------------------------------ model-line hypotheses (RANSAC-style)
def model_lines(spec: BoardSpec) -> tuple[FloatArray, FloatArray]:
    """The board's straight edges as positions: x of the edges across the board, y of those along it (mm)."""
    lay = BoardLayout(spec)
    o = lay.outline()
    xs = {o.x0, o.x1}
    ys = {o.y0, o.y1}
    for r in lay.holes():
        xs |= {r.x0, r.x1}
        ys |= {r.y0, r.y1}
    return np.array(sorted(xs)), np.array(sorted(ys))


def _line_segments_px(lines: list[Line]) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Every covered interval of every line as a segment: endpoints a, b (K, 2) and length (K,)."""
    A, B = [], []
    for L in lines:
        n, d = np.array(L.n), L.direction
        for t0, t1 in L.intervals:
            A.append(n * L.c + d * t0)
            B.append(n * L.c + d * t1)
    a, b = np.array(A, np.float64).reshape(-1, 2), np.array(B, np.float64).reshape(-1, 2)
    return a, b, np.linalg.norm(b - a, axis=1)


def _interpretations_of(spec: BoardSpec) -> FloatArray:
    """(xa, xb, ya, yb) for every pair of model x-lines and pair of model y-lines."""
    xs, ys = model_lines(spec)
    out = [(xa, xb, ya, yb) for i, xa in enumerate(xs) for xb in xs[i + 1:] for j, ya in enumerate(ys)
           for yb in ys[j + 1:]]
    return np.array(out, np.float64)


def score_hypotheses(quad: FloatArray, seg_a: FloatArray, seg_b: FloatArray, seg_len: FloatArray,
                     spec: BoardSpec, tol_mm: float, size: tuple[int, int], min_area_frac: float = 0.1,
                     slack: float = 0.03) -> tuple[FloatArray, FloatArray]:
    """For one image quad (clockwise) read as every model rectangle, both axis assignments: the image
    length of line segments lying on model lines.  Returns scores (M,) and the hypotheses (M, 5):
    xa, xb, ya, yb, swap (1 = the quad's first side runs along the board's y)."""
    xs, ys = model_lines(spec)
    inter = _interpretations_of(spec)
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float32)
    Hq = cv2.getPerspectiveTransform(quad.astype(np.float32), unit)
    Hinv = np.linalg.inv(Hq)
    ua = cv2.perspectiveTransform(seg_a.reshape(-1, 1, 2).astype(np.float64), Hq).reshape(-1, 2)
    ub = cv2.perspectiveTransform(seg_b.reshape(-1, 1, 2).astype(np.float64), Hq).reshape(-1, 2)
    W, D = spec.width_mm, spec.depth_mm
    scores, hyps = [], []
    for swap in (0, 1):
        pa = ua[:, ::-1] if swap else ua
        pb = ub[:, ::-1] if swap else ub
        # board coordinates of both endpoints under every interpretation: (M, K)
        sx = (inter[:, 1] - inter[:, 0])[:, None]
        sy = (inter[:, 3] - inter[:, 2])[:, None]
        xa_, ya_ = inter[:, 0][:, None], inter[:, 2][:, None]
        ax, ay = xa_ + pa[None, :, 0] * sx, ya_ + pa[None, :, 1] * sy
        bx, by = xa_ + pb[None, :, 0] * sx, ya_ + pb[None, :, 1] * sy
        inb = ((np.minimum(ax, bx) > -tol_mm) & (np.maximum(ax, bx) < W + tol_mm) & (np.minimum(ay, by) > -tol_mm)
               & (np.maximum(ay, by) < D + tol_mm))
        dxa = np.abs(ax[..., None] - xs[None, None, :])
        dxb = np.abs(bx[..., None] - xs[None, None, :])
        on_x = (np.maximum(dxa, dxb) < tol_mm).any(axis=2)
        dya = np.abs(ay[..., None] - ys[None, None, :])
        dyb = np.abs(by[..., None] - ys[None, None, :])
        on_y = (np.maximum(dya, dyb) < tol_mm).any(axis=2)
        s = ((on_x | on_y) & inb).astype(np.float64) @ seg_len
        # the implied outer outline must lie in the image (a little slack) and be of a plausible size
        uc = np.stack([(np.array([0, W, W, 0])[None, :] - xa_) / sx, (np.array([0, 0, D, D])[None, :] - ya_) / sy],
                      axis=2)
        if swap:
            uc = uc[..., ::-1]
        img = cv2.perspectiveTransform(uc.reshape(-1, 1, 2), Hinv).reshape(-1, 4, 2)
        lo, hi = -slack * size[0], (1 + slack) * np.array(size)
        ok = (img.min(axis=1) > lo).all(axis=1) & (img.max(axis=1) < hi).all(axis=1)
        x0, y0 = img[:, :, 0], img[:, :, 1]
        area = 0.5 * np.abs(np.sum(x0 * np.roll(y0, -1, 1) - np.roll(x0, -1, 1) * y0, axis=1))
        ok &= area > min_area_frac * size[0] * size[1]
        ok &= (sx[:, 0] >= 0.25 * W) & (sy[:, 0] >= 0.25 * D)
        scores.append(np.where(ok, s, -1.0))
        hyps.append(np.hstack([inter, np.full((len(inter), 1), swap)]))
    return np.concatenate(scores), np.vstack(hyps)


def outline_of(quad: FloatArray, hyp: FloatArray, spec: BoardSpec) -> FloatArray:
    """The outer outline (image px, clockwise quad order) implied by reading ``quad`` as hypothesis ``hyp``."""
    xa, xb, ya, yb, swap = hyp
    unit = np.array([[0, 0], [1, 0], [1, 1], [0, 1]], np.float64)
    rect = unit[:, ::-1] if swap else unit
    mm = np.column_stack([xa + rect[:, 0] * (xb - xa), ya + rect[:, 1] * (yb - ya)])
    H = cv2.getPerspectiveTransform(mm.astype(np.float32), quad.astype(np.float32))
    W, D = spec.width_mm, spec.depth_mm
    out = cv2.perspectiveTransform(np.array([[[0, 0], [W, 0], [W, D], [0, D]]], np.float64), H)
    return np.asarray(out, np.float64).reshape(4, 2)


def refine_homography(G: FloatArray, seg_a: FloatArray, seg_b: FloatArray, seg_len: FloatArray, spec: BoardSpec,
                      tols: tuple[float, ...]) -> tuple[FloatArray, float]:
    """Image -> board homography ``G`` re-fitted to every segment lying on a model line (linear least
    squares: for an endpoint p on the line x = xk, G1.p - xk G3.p = 0), with shrinking tolerances.
    Returns G and the image length of the segments on model lines at the last tolerance."""
    xs, ys = model_lines(spec)
    W, D = spec.width_mm, spec.depth_mm
    P = np.vstack([np.hstack([seg_a, np.ones((len(seg_a), 1))]), np.hstack([seg_b, np.ones((len(seg_b), 1))])])
    wts = np.concatenate([seg_len, seg_len])
    k = len(seg_a)
    score = 0.0
    for tol in tols:
        q = P @ G.T
        bx, by = q[:, 0] / q[:, 2], q[:, 1] / q[:, 2]
        inb = (bx > -tol) & (bx < W + tol) & (by > -tol) & (by < D + tol)
        inb = inb[:k] & inb[k:]
        jx = np.argmin(np.abs(bx[:, None] - xs[None, :]), axis=1)
        jy = np.argmin(np.abs(by[:, None] - ys[None, :]), axis=1)
        dx = np.abs(bx - xs[jx])
        dy = np.abs(by - ys[jy])
        on_x = inb & (np.maximum(dx[:k], dx[k:]) < tol) & (jx[:k] == jx[k:])
        on_y = inb & (np.maximum(dy[:k], dy[k:]) < tol) & (jy[:k] == jy[k:])
        score = float(seg_len[on_x | on_y].sum())
        rows, rw = [], []
        for on, j, vals, comp in ((on_x, jx, xs, 0), (on_y, jy, ys, 1)):
            m2 = np.concatenate([on, on])
            if not m2.any():
                continue
            Pm = P[m2]
            t = vals[j[m2]]
            r = np.zeros((len(Pm), 9))
            r[:, comp * 3:comp * 3 + 3] = Pm
            r[:, 6:9] = -t[:, None] * Pm
            rows.append(r)
            rw.append(wts[m2])
        if not rows:
            break
        Am = np.vstack(rows) * np.sqrt(np.concatenate(rw))[:, None]
        if len(Am) < 12 or not (on_x.any() and on_y.any()):
            break
        # normalise: scale the image coordinates for conditioning
        _, _, vt = np.linalg.svd(Am)
        Gn = vt[-1].reshape(3, 3)
        if abs(np.linalg.det(Gn)) < 1e-15:
            break
        G = Gn / np.linalg.norm(Gn)
    return G, score


def outline_hypotheses(image: Image, specs: list[BoardSpec], config: CalibrationConfig | None = None
                       ) -> list[tuple[float, BoardSpec, FloatArray]]:
    """Outer outlines (full-resolution px, clockwise) from quadrilaterals of long lines read as any
    rectangle of the board model (its outline, a table, a tray, the field between the rails, ...),
    scored by the image length of all line segments that then lie on the model's edges."""
    cfg = config or CalibrationConfig()
    w = image.shape[1]
    lines, scale, (sw, sh) = long_lines(image, cfg, 0.05)
    if len(lines) < 4:
        return []
    seg_a, seg_b, seg_len = _line_segments_px(lines[:60])
    quads = quads_from_lines(lines, (sw, sh), 0.02, max_lines=cfg.hyp_lines, keep=cfg.hyp_quads, min_cover=0.45)
    out: list[tuple[float, BoardSpec, FloatArray]] = []
    for spec in specs:
        tol = 0.4 * spec.rail_mm
        for _, q in quads:
            s, hy = score_hypotheses(q, seg_a, seg_b, seg_len, spec, tol, (sw, sh), cfg.min_board_fraction)
            for k in np.argsort(-s)[:3]:
                if s[k] <= 0:
                    break
                o = outline_of(q, hy[k], spec)
                if (o[:, 0].min() < -0.02 * sw or o[:, 1].min() < -0.02 * sh or o[:, 0].max() > 1.02 * sw
                        or o[:, 1].max() > 1.02 * sh):
                    continue
                out.append((float(s[k]), spec, o))
    out.sort(key=lambda t: -t[0])
    refined: list[tuple[float, BoardSpec, FloatArray]] = []
    for _, spec, o in out[: cfg.hyp_refine]:
        W, D = spec.width_mm, spec.depth_mm
        mm = np.array([[0, 0], [W, 0], [W, D], [0, D]], np.float64)
        G = np.linalg.inv(cv2.getPerspectiveTransform(mm.astype(np.float32), o.astype(np.float32)))
        G, sc = refine_homography(G / np.linalg.norm(G), seg_a, seg_b, seg_len, spec,
                                  (0.5 * spec.rail_mm, 0.3 * spec.rail_mm, 0.2 * spec.rail_mm))
        try:
            o2 = cv2.perspectiveTransform(mm.reshape(-1, 1, 2), np.linalg.inv(G)).reshape(4, 2)
        except np.linalg.LinAlgError:
            continue
        refined.append((sc, spec, (o2 / scale).astype(np.float64)))
    out = sorted(refined, key=lambda t: -t[0]) + [(sc, sp, o / scale) for sc, sp, o in out[: cfg.hyp_refine]]
    res: list[tuple[float, BoardSpec, FloatArray]] = []
    for s_, sp, o in out:
        try:
            oc = order_clockwise(o)
            check_quad(oc)
        except CornersError:
            continue
        if all(np.abs(oc - r).max() > 0.006 * w or sp.name != rs.name for _, rs, r in res):
            res.append((s_, sp, oc))
    return res
