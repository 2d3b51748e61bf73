"""Appearance: robust colour models of the checkers, points, surface, rail, dice and cube.

Each model is a Gaussian in CIE Lab fitted with trimming (the 15% least typical samples dropped and the
fit repeated), so highlights, shadows and the odd stray pixel do not drag it.  Models are learned from a
frame of the starting position, where we know exactly which points hold which colour.

>>> m = ColourModel.fit(np.array([[50, 0, 0], [52, 1, -1], [48, -1, 1], [51, 0, 1]], float))
>>> bool(m.distance(np.array([[50.0, 0.0, 0.0]]))[0] < 1.5)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration._fields import Reader
from rules.position import Position, Side
from vision.geometry import BoardLayout, Quad, Rect

FloatArray = npt.NDArray[np.float64]
Projector = Callable[[npt.NDArray[np.float64]], npt.NDArray[np.float64]]
"""(N, 3) board millimetres -> (N, 2) image pixels."""

NAMES = (
    "white_checker", "black_checker", "point_odd", "point_even", "field", "rail", "bar",
    "white_dice", "black_dice", "cube",
)
REQUIRED = ("white_checker", "black_checker", "point_odd", "point_even", "field", "rail")


def to_lab(pixels_bgr: npt.ArrayLike) -> FloatArray:
    """(N, 3) BGR uint8 -> (N, 3) Lab floats (L 0..100, a/b about -128..127)."""
    p = np.asarray(pixels_bgr, dtype=np.float32).reshape(-1, 1, 3) / 255.0
    lab = cv2.cvtColor(p, cv2.COLOR_BGR2LAB)
    return np.asarray(lab.reshape(-1, 3), dtype=np.float64)


@dataclass(frozen=True, slots=True)
class ColourModel:
    """A Gaussian colour model in Lab: mean, covariance (regularised) and sample count."""

    mean: tuple[float, float, float]
    cov: tuple[tuple[float, float, float], tuple[float, float, float], tuple[float, float, float]]
    n: int

    @classmethod
    def fit(cls, lab: FloatArray, trim: float = 0.15, floor: float = 4.0) -> ColourModel:
        x = np.asarray(lab, dtype=np.float64).reshape(-1, 3)
        if len(x) < 3:
            raise ValueError(f"a colour model needs at least 3 samples, got {len(x)}")
        keep = x
        for _ in range(2):
            mu = keep.mean(axis=0)
            c = np.cov(keep.T) + np.eye(3) * floor
            d = _mahalanobis(x, mu, c)
            cut = np.quantile(d, 1.0 - trim)
            keep = x[d <= cut] if (d <= cut).sum() >= 3 else x
        mu = keep.mean(axis=0)
        c = np.cov(keep.T) + np.eye(3) * floor
        return cls(
            (float(mu[0]), float(mu[1]), float(mu[2])),
            tuple(tuple(float(v) for v in row) for row in c),  # type: ignore[arg-type]
            len(x),
        )

    @property
    def mean_array(self) -> FloatArray:
        return np.array(self.mean)

    @property
    def cov_array(self) -> FloatArray:
        return np.array(self.cov)

    def distance(self, lab: FloatArray) -> FloatArray:
        """Mahalanobis distance of (N, 3) Lab samples to the model."""
        return _mahalanobis(np.asarray(lab, dtype=np.float64).reshape(-1, 3), self.mean_array, self.cov_array)

    def bgr(self) -> tuple[int, int, int]:
        """The mean colour as BGR bytes (for drawing)."""
        lab = np.array(self.mean, np.float32).reshape(1, 1, 3)
        bgr = cv2.cvtColor(lab, cv2.COLOR_LAB2BGR).reshape(3)
        b, g, r = (int(np.clip(round(float(v) * 255), 0, 255)) for v in bgr)
        return (b, g, r)

    def to_dict(self) -> dict[str, object]:
        return {"mean": list(self.mean), "cov": [list(r) for r in self.cov], "n": self.n}

    @classmethod
    def from_reader(cls, r: Reader) -> ColourModel:
        mean = r.nums("mean", 3)
        cov = r.matrix("cov", 3, 3)
        c = np.array(cov)
        if not np.allclose(c, c.T, atol=1e-6) or np.linalg.eigvalsh(c).min() <= 0:
            raise r.fail("cov", "a symmetric positive-definite 3x3 matrix", [list(row) for row in cov])
        return cls((mean[0], mean[1], mean[2]), cov, r.int_("n", lo=3))  # type: ignore[arg-type]


def _mahalanobis(x: FloatArray, mu: FloatArray, c: FloatArray) -> FloatArray:
    inv = np.linalg.inv(c)
    d = x - mu
    return np.asarray(np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", d, inv, d), 0.0)), dtype=np.float64)


@dataclass(frozen=True, slots=True)
class AppearanceModel:
    """Named colour models; the required ones always present, dice and cube when they were seen."""

    models: tuple[tuple[str, ColourModel], ...]

    def __post_init__(self) -> None:
        names = [n for n, _ in self.models]
        for n in names:
            if n not in NAMES:
                raise ValueError(f"unknown appearance model {n!r}: expected one of {', '.join(NAMES)}")
        missing = [n for n in REQUIRED if n not in names]
        if missing:
            raise ValueError(f"appearance lacks {', '.join(missing)}")

    def __getitem__(self, name: str) -> ColourModel:
        for n, m in self.models:
            if n == name:
                return m
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        return any(n == name for n, _ in self.models)

    def __iter__(self) -> Iterator[str]:
        return (n for n, _ in self.models)

    def checker(self, side: Side) -> ColourModel:
        return self["white_checker" if side is Side.WHITE else "black_checker"]

    def classify(self, lab: FloatArray, names: tuple[str, ...]) -> tuple[npt.NDArray[np.int64], FloatArray]:
        """For each sample, the index into ``names`` of the nearest model and that distance."""
        d = np.stack([self[n].distance(lab) for n in names], axis=1)
        idx = np.argmin(d, axis=1)
        return idx.astype(np.int64), d[np.arange(len(d)), idx]

    def to_dict(self) -> dict[str, object]:
        return {n: m.to_dict() for n, m in self.models}

    @classmethod
    def from_reader(cls, r: Reader) -> AppearanceModel:
        for key in r.data:
            if key not in NAMES:
                raise r.fail(key, "a model named one of " + ", ".join(NAMES), key)
        for key in REQUIRED:
            if not r.has(key):
                raise r.fail(key, "a colour model", None)
        return cls(tuple((n, ColourModel.from_reader(r.obj(n))) for n in NAMES if r.has(n)))


# ---------------------------------------------------------------------------------------------- sampling
def polygon_mask(shape: tuple[int, int], poly_px: FloatArray) -> npt.NDArray[np.uint8]:
    mask = np.zeros(shape, np.uint8)
    cv2.fillPoly(mask, [np.round(poly_px * 16).astype(np.int32).reshape(-1, 1, 2)], 255, cv2.LINE_8, 4)
    return mask


def _quad3(q: Quad | tuple[tuple[float, float], ...], z: float = 0.0) -> FloatArray:
    return np.array([[x, y, z] for x, y in q], dtype=np.float64)


def _shrink(rect: Rect, m: float) -> Rect:
    return Rect(rect.x0 + m, rect.y0 + m, rect.x1 - m, rect.y1 - m)


def _disc(cx: float, cy: float, r: float, z: float, n: int = 16) -> FloatArray:
    a = np.linspace(0, 2 * np.pi, n, endpoint=False)
    return np.stack([cx + r * np.cos(a), cy + r * np.sin(a), np.full(n, z)], axis=1)


def sample_pixels(image: npt.NDArray[np.uint8], project: Projector, polys_mm: list[FloatArray]) -> FloatArray:
    """Lab samples of every image pixel inside the projected (N, 3) board polygons."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    for poly in polys_mm:
        mask |= polygon_mask((h, w), project(poly))
    px = image[mask > 0]
    return to_lab(px) if len(px) else np.zeros((0, 3))


def starting_checker_discs(layout: BoardLayout, side: Side, shrink: float = 0.55) -> list[FloatArray]:
    """Top-face discs (mm, z = checker height) of ``side``'s checkers in the starting position."""
    pos = Position.initial()
    s = layout.spec
    out = []
    for p in range(1, 25):
        w, b = pos.at(p)
        n = w if side is Side.WHITE else b
        for k in range(n):
            x, y, z = layout.stack_slots(p, k)
            out.append(_disc(x, y, s.checker_diameter_mm / 2 * shrink, z + s.checker_height_mm))
    return out


def empty_point_triangles(layout: BoardLayout, parity: int) -> list[FloatArray]:
    """Inner parts of the points that are empty in the starting position, odd (1) or even (0) ones."""
    pos = Position.initial()
    out = []
    for p in range(1, 25):
        if p % 2 != parity or any(pos.at(p)):
            continue
        (x0, by), (x1, _), (_, ty), _ = layout.point_polygon(p)
        # the base half of the triangle, shrunk away from its edges
        cx = (x0 + x1) / 2
        hw = (x1 - x0) / 2
        ym = by + (ty - by) * 0.55
        yb = by + (ty - by) * 0.06
        out.append(np.array([[cx - hw * 0.6, yb, 0], [cx + hw * 0.6, yb, 0], [cx + hw * 0.2, ym, 0],
                             [cx - hw * 0.2, ym, 0]]))
    return out


def learn_appearance(
    image: npt.NDArray[np.uint8], layout: BoardLayout, project: Projector
) -> AppearanceModel:
    """Learn every colour model from a frame of the starting position seen through ``project``."""
    s = layout.spec
    models: list[tuple[str, ColourModel]] = []
    models.append(("white_checker", ColourModel.fit(sample_pixels(image, project, starting_checker_discs(layout, Side.WHITE)))))
    models.append(("black_checker", ColourModel.fit(sample_pixels(image, project, starting_checker_discs(layout, Side.BLACK)))))
    models.append(("point_odd", ColourModel.fit(sample_pixels(image, project, empty_point_triangles(layout, 1)))))
    models.append(("point_even", ColourModel.fit(sample_pixels(image, project, empty_point_triangles(layout, 0)))))
    f = layout.field()
    bar = layout.bar_region()
    ym0 = f.y0 + s.point_length_mm + 8
    ym1 = f.y1 - s.point_length_mm - 8
    mid = [_quad3(Rect(f.x0 + 6, ym0, bar.x0 - 6, ym1).corners()), _quad3(Rect(bar.x1 + 6, ym0, f.x1 - 6, ym1).corners())]
    field_lab = sample_pixels(image, project, mid)
    models.append(("field", ColourModel.fit(field_lab)))
    r = s.rail_mm
    W, D = s.width_mm, s.depth_mm
    z = s.rail_height_mm
    rails = [_quad3(Rect(r * 0.2, r * 0.2, W - r * 0.2, r * 0.8).corners(), z),
             _quad3(Rect(r * 0.2, D - r * 0.8, W - r * 0.2, D - r * 0.2).corners(), z)]
    models.append(("rail", ColourModel.fit(sample_pixels(image, project, rails))))
    bar_lab = sample_pixels(image, project, [_quad3(_shrink(bar, 4).corners())])
    if len(bar_lab) >= 20:
        models.append(("bar", ColourModel.fit(bar_lab)))
    # dice and cube: outlier blobs on the field's middle strip (dice) and the bar (cube), when present
    field_m = models[4][1]
    for side in (Side.WHITE, Side.BLACK):
        table = layout.table_rect(layout.right_hand_table(side))
        half = Rect(table.x0 + 4, ym0, table.x1 - 4, ym1)
        blob = _outlier_blob(image, project, half, field_m, min_area_mm2=(s.die_size_mm[0] ** 2) * 0.5)
        if blob is not None:
            models.append(("white_dice" if side is Side.WHITE else "black_dice", ColourModel.fit(blob)))
    if "bar" in [n for n, _ in models]:
        bar_m = next(m for n, m in models if n == "bar")
        blob = _outlier_blob(image, project, _shrink(bar, 4), bar_m, min_area_mm2=(s.cube_size_mm**2) * 0.5)
        if blob is not None:
            models.append(("cube", ColourModel.fit(blob)))
    return AppearanceModel(tuple(models))


def _outlier_blob(
    image: npt.NDArray[np.uint8], project: Projector, rect: Rect, background: ColourModel, min_area_mm2: float
) -> FloatArray | None:
    """Lab samples of the largest compact blob in ``rect`` unlike ``background`` (dice, cube), if any."""
    h, w = image.shape[:2]
    poly = project(_quad3(rect.corners()))
    mask = polygon_mask((h, w), poly)
    ys, xs = np.nonzero(mask)
    if len(ys) < 50:
        return None
    lab = to_lab(image[ys, xs])
    far = background.distance(lab) > 6.0
    if far.sum() < 10:
        return None
    out = np.zeros((h, w), np.uint8)
    out[ys[far], xs[far]] = 255
    opened = np.asarray(cv2.morphologyEx(out, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8)), dtype=np.uint8)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(opened)
    if n <= 1:
        return None
    # the blob must be at least the size of a die face in the image
    area_px_per_mm2 = float(mask.sum() / 255) / max((rect.x1 - rect.x0) * (rect.y1 - rect.y0), 1.0)
    best = 1 + int(np.argmax(stats[1:, cv2.CC_STAT_AREA]))
    if stats[best, cv2.CC_STAT_AREA] < min_area_mm2 * area_px_per_mm2:
        return None
    sel = labels == best
    return to_lab(image[sel])


