"""Board geometry in real millimetres: where every point, the bar and the trays are.

The board frame
---------------
Millimetres, seen from above, origin at one outer corner of the frame, ``x`` along the
long side, ``y`` across it, ``z`` up (a right-handed frame).  The bar runs across the
middle at constant ``x``; a tray column sits at each end of the field, beyond a divider
rail, split in two compartments (one per long side).

Along ``x``: outer rail | tray column | divider | table (6 points) | bar | table (6 points)
| divider | tray column | outer rail.  Along ``y``: rail | field | rail.

The NEAR seat is the long side at ``y = y_max``; the FAR seat is at ``y = 0``.  A player at
the NEAR seat faces ``-y``, so his right hand points to ``-x``: the RIGHT_TABLE "as seen from
the NEAR seat" is the table with the smaller ``x``.  (A camera at the near side looking across
the board sees ``x`` growing to the left of its image.)

Points are numbered as WHITE numbers them (absolute points 1..24).  WHITE's home board
(1..6) is in WHITE's right- or left-hand table (:class:`Seating`), on WHITE's side; points run
1..12 along WHITE's side away from home, 13..24 back along BLACK's side.

>>> lay = BoardLayout(BoardSpec.tournament(), Seating())
>>> lay.area_of(*lay.point_center(3)) is Area.RIGHT_TABLE
True
>>> lay.quarter_of(*lay.point_center(20))
<Quarter.BLACK_HOME: 'black_home'>
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field as dc_field
from enum import Enum

from rules.position import Side

Vec2 = tuple[float, float]
Vec3 = tuple[float, float, float]
Quad = tuple[Vec2, Vec2, Vec2, Vec2]


class GeometryError(ValueError):
    """A point number, region name or dimension that makes no sense for the board."""


class Area(Enum):
    """Where something lies on the board (left/right as seen from the NEAR seat)."""

    LEFT_TABLE = "left_table"
    RIGHT_TABLE = "right_table"
    BAR = "bar"
    TRAY = "tray"
    RAIL = "rail"
    OFF_BOARD = "off_board"


class Quarter(Enum):
    """The four quarters of the field, named by WHITE's numbering."""

    WHITE_HOME = "white_home"  # points 1-6
    WHITE_OUTER = "white_outer"  # points 7-12
    BLACK_OUTER = "black_outer"  # points 13-18
    BLACK_HOME = "black_home"  # points 19-24


class LongSide(Enum):
    NEAR = "near"  # y = y_max
    FAR = "far"  # y = 0


class HomeEnd(Enum):
    """WHITE's home end as WHITE sees it (the 1931 books' "light on the right/left")."""

    RIGHT = "right"
    LEFT = "left"


@dataclass(frozen=True, slots=True)
class BoardSpec:
    """Real dimensions of a board and its pieces, in millimetres."""

    name: str
    rail_mm: float  # outer frame width
    divider_mm: float  # rail between a table and its tray column
    point_width_mm: float
    point_length_mm: float
    field_depth_mm: float  # across the field, between the long rails
    bar_mm: float
    tray_mm: float  # width of a tray column
    checker_diameter_mm: float
    checker_height_mm: float
    die_size_mm: tuple[float, float]  # range of die edge lengths
    cube_size_mm: float
    rail_height_mm: float = 14.0  # how high the frame stands above the playing surface

    def __post_init__(self) -> None:
        if self.point_length_mm * 2 >= self.field_depth_mm:
            raise GeometryError(f"points of {self.point_length_mm} mm do not fit a field {self.field_depth_mm} mm deep")
        if self.checker_diameter_mm > self.point_width_mm:
            raise GeometryError(
                f"checkers of {self.checker_diameter_mm} mm are wider than points of {self.point_width_mm} mm"
            )
        lo, hi = self.die_size_mm
        if not 0 < lo <= hi:
            raise GeometryError(f"die size range {self.die_size_mm} is not a range of positive sizes")

    @classmethod
    def tournament(cls) -> BoardSpec:
        """A full-size tournament board (about 78 x 52 cm open, 40 mm checkers)."""
        return cls(
            name="tournament",
            rail_mm=28.0,
            divider_mm=16.0,
            point_width_mm=44.0,
            point_length_mm=205.0,
            field_depth_mm=460.0,
            bar_mm=56.0,
            tray_mm=56.0,
            checker_diameter_mm=40.0,
            checker_height_mm=8.5,
            die_size_mm=(14.0, 19.0),
            cube_size_mm=25.0,
            rail_height_mm=14.0,
        )

    @classmethod
    def travel(cls) -> BoardSpec:
        """A small travel board (about 49 x 33 cm open, 26 mm checkers)."""
        return cls(
            name="travel",
            rail_mm=16.0,
            divider_mm=10.0,
            point_width_mm=28.0,
            point_length_mm=132.0,
            field_depth_mm=300.0,
            bar_mm=32.0,
            tray_mm=36.0,
            checker_diameter_mm=26.0,
            checker_height_mm=6.0,
            die_size_mm=(12.0, 14.0),
            cube_size_mm=18.0,
            rail_height_mm=9.0,
        )

    @classmethod
    def by_name(cls, name: str) -> BoardSpec:
        if name == "tournament":
            return cls.tournament()
        if name == "travel":
            return cls.travel()
        raise GeometryError(f"unknown board {name!r}: expected 'tournament' or 'travel'")

    # ------------------------------------------------------------------ derived sizes
    @property
    def table_mm(self) -> float:
        """Width of one table (six points) along x."""
        return 6 * self.point_width_mm

    @property
    def width_mm(self) -> float:
        """Outer size along x (the long side)."""
        return 2 * (self.rail_mm + self.tray_mm + self.divider_mm + self.table_mm) + self.bar_mm

    @property
    def depth_mm(self) -> float:
        """Outer size along y."""
        return self.field_depth_mm + 2 * self.rail_mm

    @property
    def row_capacity(self) -> int:
        """How many checkers fit in one row along a point."""
        return max(1, int(self.point_length_mm // self.checker_diameter_mm))


@dataclass(frozen=True, slots=True)
class Seating:
    """Which long side WHITE sits on and which end is WHITE's home as WHITE sees it."""

    white: LongSide = LongSide.NEAR
    white_home: HomeEnd = HomeEnd.RIGHT

    def side_of(self, side: Side) -> LongSide:
        if side is Side.WHITE:
            return self.white
        return LongSide.FAR if self.white is LongSide.NEAR else LongSide.NEAR


@dataclass(frozen=True, slots=True)
class Rect:
    """An axis-aligned rectangle in board millimetres."""

    x0: float
    y0: float
    x1: float
    y1: float

    def contains(self, x: float, y: float) -> bool:
        return self.x0 <= x <= self.x1 and self.y0 <= y <= self.y1

    def inner_distance(self, x: float, y: float) -> float:
        """Distance from (x, y) inside the rectangle to its nearest edge (negative outside)."""
        return min(x - self.x0, self.x1 - x, y - self.y0, self.y1 - y)

    def corners(self) -> Quad:
        return ((self.x0, self.y0), (self.x1, self.y0), (self.x1, self.y1), (self.x0, self.y1))

    @property
    def center(self) -> Vec2:
        return ((self.x0 + self.x1) / 2, (self.y0 + self.y1) / 2)


REGION_NAMES: tuple[str, ...] = (*(f"p{i}" for i in range(1, 25)), "bar", "tray_w", "tray_b")


@dataclass(frozen=True, slots=True)
class BoardLayout:
    """A board spec with a seating: the position of every region in board millimetres."""

    spec: BoardSpec = dc_field(default_factory=BoardSpec.tournament)
    seating: Seating = dc_field(default_factory=Seating)

    # ------------------------------------------------------------------ the big rectangles
    def outline(self) -> Rect:
        return Rect(0.0, 0.0, self.spec.width_mm, self.spec.depth_mm)

    def outer_corners(self) -> Quad:
        """The four outer corners of the frame (z = rail height)."""
        return self.outline().corners()

    def field(self) -> Rect:
        """The whole playing field (both tables and the bar) inside the long rails."""
        s = self.spec
        x0 = s.rail_mm + s.tray_mm + s.divider_mm
        return Rect(x0, s.rail_mm, s.width_mm - x0, s.rail_mm + s.field_depth_mm)

    def bar_region(self) -> Rect:
        f = self.field()
        xm = (f.x0 + f.x1) / 2
        return Rect(xm - self.spec.bar_mm / 2, f.y0, xm + self.spec.bar_mm / 2, f.y1)

    def table_rect(self, area: Area) -> Rect:
        """LEFT_TABLE or RIGHT_TABLE (as seen from the NEAR seat: RIGHT_TABLE has the smaller x)."""
        f, b = self.field(), self.bar_region()
        if area is Area.RIGHT_TABLE:
            return Rect(f.x0, f.y0, b.x0, f.y1)
        if area is Area.LEFT_TABLE:
            return Rect(b.x1, f.y0, f.x1, f.y1)
        raise GeometryError(f"{area} is not a table")

    def tray_columns(self) -> tuple[Rect, Rect]:
        """The two tray columns (x-small end, x-large end), each the full field depth."""
        s, f = self.spec, self.field()
        lo = Rect(s.rail_mm, f.y0, s.rail_mm + s.tray_mm, f.y1)
        hi = Rect(s.width_mm - s.rail_mm - s.tray_mm, f.y0, s.width_mm - s.rail_mm, f.y1)
        return lo, hi

    def tray_compartments(self) -> tuple[Rect, ...]:
        """All four tray compartments (each column split across the middle)."""
        out: list[Rect] = []
        for col in self.tray_columns():
            ym = (col.y0 + col.y1) / 2
            out += [Rect(col.x0, col.y0, col.x1, ym), Rect(col.x0, ym, col.x1, col.y1)]
        return tuple(out)

    # ------------------------------------------------------------------ orientation
    def _home_low_x(self) -> bool:
        """True when WHITE's home board is in the table with the smaller x."""
        # NEAR seat faces -y: right hand = -x (small x).  FAR seat faces +y: right = +x.
        right_is_low = self.seating.white is LongSide.NEAR
        return right_is_low == (self.seating.white_home is HomeEnd.RIGHT)

    def _row_y(self, long_side: LongSide) -> tuple[float, float]:
        """(base y on the rail, tip y) of the points on a long side."""
        f = self.field()
        if long_side is LongSide.NEAR:
            return f.y1, f.y1 - self.spec.point_length_mm
        return f.y0, f.y0 + self.spec.point_length_mm

    def _point_x(self, p: int) -> float:
        """Centre x of absolute point p."""
        s = self.spec
        k = (p - 1) % 12  # 0..11 from the home end along a side
        if p > 12:
            k = 11 - k  # 13 faces 12, 24 faces 1
        f, b = self.field(), self.bar_region()
        # distance from the home end of the field, in point widths, skipping the bar
        if self._home_low_x():
            if k < 6:
                return f.x0 + (k + 0.5) * s.point_width_mm
            return b.x1 + (k - 6 + 0.5) * s.point_width_mm
        if k < 6:
            return f.x1 - (k + 0.5) * s.point_width_mm
        return b.x0 - (k - 6 + 0.5) * s.point_width_mm

    def _point_side(self, p: int) -> LongSide:
        white_side = self.seating.white
        if p <= 12:
            return white_side
        return LongSide.FAR if white_side is LongSide.NEAR else LongSide.NEAR

    @staticmethod
    def _check_point(p: int) -> None:
        if not 1 <= p <= 24:
            raise GeometryError(f"point {p} is not an absolute point 1..24")

    # ------------------------------------------------------------------ points
    def point_polygon(self, p: int) -> Quad:
        """The triangle of absolute point p as a quadrilateral: base-left, base-right, tip, tip.

        The base sits on the long rail; the two tip corners coincide (a quad keeps
        the shape uniform for warping code).
        """
        self._check_point(p)
        xc = self._point_x(p)
        base_y, tip_y = self._row_y(self._point_side(p))
        hw = self.spec.point_width_mm / 2
        return ((xc - hw, base_y), (xc + hw, base_y), (xc, tip_y), (xc, tip_y))

    def point_rect(self, p: int) -> Rect:
        """The bounding rectangle of point p (base to tip, one point wide)."""
        (x0, by), (x1, _), (_, ty), _ = self.point_polygon(p)
        return Rect(x0, min(by, ty), x1, max(by, ty))

    def point_center(self, p: int) -> Vec2:
        """A spot on the point, a third of the way from its base."""
        self._check_point(p)
        base_y, tip_y = self._row_y(self._point_side(p))
        return (self._point_x(p), base_y + (tip_y - base_y) / 3)

    def point_at(self, x: float, y: float) -> int | None:
        """The absolute point whose rectangle (base to tip) holds (x, y), else None."""
        for p in range(1, 25):
            if self.point_rect(p).contains(x, y):
                return p
        return None

    def stack_slots(self, p: int, n: int) -> Vec3:
        """Where the n-th checker (0-based) of a stack on point p sits: centre of its bottom face.

        One row from the rail toward the tip (five on standard boards), then a second
        layer on top of the first row, then a third, and so on.
        """
        self._check_point(p)
        if n < 0:
            raise GeometryError(f"stack index {n} is negative")
        s = self.spec
        cap = s.row_capacity
        layer, k = divmod(n, cap)
        base_y, tip_y = self._row_y(self._point_side(p))
        direction = 1.0 if tip_y > base_y else -1.0
        r = s.checker_diameter_mm / 2
        y = base_y + direction * (r + 0.5 + k * s.checker_diameter_mm)
        return (self._point_x(p), y, layer * s.checker_height_mm)

    # ------------------------------------------------------------------ bar and trays
    def bar_slot(self, side: Side, n: int) -> Vec3:
        """Where the n-th checker of ``side`` on the bar sits (each side on its own half)."""
        b = self.bar_region()
        s = self.spec
        # checkers on the bar go on the owner's half, toward the middle
        ym = (b.y0 + b.y1) / 2
        own = self.seating.side_of(side)
        direction = 1.0 if own is LongSide.NEAR else -1.0
        cap = max(1, int((b.y1 - ym - s.cube_size_mm / 2 - 5) // s.checker_diameter_mm))
        layer, k = divmod(n, cap)
        # clear of a centred cube on the bar
        y = ym + direction * (s.cube_size_mm / 2 + 5 + s.checker_diameter_mm * 0.5 + k * s.checker_diameter_mm)
        return ((b.x0 + b.x1) / 2, y, self.surface_z(0.5 * (b.x0 + b.x1), y) + layer * s.checker_height_mm)

    def surface_z(self, x: float, y: float) -> float:
        """Height of the surface at (x, y): the rail, bar and dividers stand proud of the field."""
        a = self.area_of(x, y)
        if a in (Area.RAIL, Area.BAR):
            return self.spec.rail_height_mm
        return 0.0

    def holes(self) -> tuple[Rect, ...]:
        """The sunken parts at z = 0: both tables and both tray columns (the rest stands proud)."""
        return (self.table_rect(Area.RIGHT_TABLE), self.table_rect(Area.LEFT_TABLE), *self.tray_columns())

    def tray_region(self, side: Side) -> Rect:
        """The compartment where ``side`` bears off: its home end, its own long side."""
        white_home_low = self._home_low_x()
        # both home boards are at the same end of the board
        lo, hi = self.tray_columns()
        col = lo if white_home_low else hi
        ym = (col.y0 + col.y1) / 2
        if self.seating.side_of(side) is LongSide.NEAR:
            return Rect(col.x0, ym, col.x1, col.y1)
        return Rect(col.x0, col.y0, col.x1, ym)

    def tray_slot(self, side: Side, n: int, *, lying: bool = False) -> Vec3:
        """Where the n-th borne-off checker sits: upright on edge in a row, or lying in stacks.

        Upright checkers (the usual way) stand on edge, packed along the tray from its
        outer end; the returned point is the centre of the checker's lowest edge.
        Lying checkers stack in piles of five.
        """
        r = self.tray_region(side)
        s = self.spec
        cx = (r.x0 + r.x1) / 2
        outer_near = self.seating.side_of(side) is LongSide.NEAR
        start, sign = (r.y1, -1.0) if outer_near else (r.y0, 1.0)
        if lying:
            layer, k = divmod(n, 5)
            y = start + sign * (s.checker_diameter_mm * 0.5 + 3 + k * (s.checker_diameter_mm + 1))
            return (cx, y, layer * s.checker_height_mm)
        y = start + sign * (s.checker_height_mm * 0.5 + 2 + n * s.checker_height_mm * 1.02)
        return (cx, y, 0.0)

    # ------------------------------------------------------------------ areas
    def area_of(self, x: float, y: float) -> Area:
        if not self.outline().contains(x, y):
            return Area.OFF_BOARD
        if self.bar_region().contains(x, y):
            return Area.BAR
        for a in (Area.RIGHT_TABLE, Area.LEFT_TABLE):
            if self.table_rect(a).contains(x, y):
                return a
        if any(c.contains(x, y) for c in self.tray_columns()):
            return Area.TRAY
        return Area.RAIL

    def area_rect(self, x: float, y: float) -> Rect | None:
        """The rectangle of the area holding (x, y) (None on the rail or off the board)."""
        a = self.area_of(x, y)
        if a is Area.BAR:
            return self.bar_region()
        if a in (Area.LEFT_TABLE, Area.RIGHT_TABLE):
            return self.table_rect(a)
        if a is Area.TRAY:
            for c in self.tray_columns():
                if c.contains(x, y):
                    return c
        return None

    def distance_to_boundary_mm(self, x: float, y: float) -> float:
        """Distance from (x, y) to the nearest boundary of the area it lies in (always >= 0).

        On the rail: the distance to the nearest playing area or to the outer edge;
        off the board: the distance to the board's outline.
        """
        rect = self.area_rect(x, y)
        if rect is not None:
            return rect.inner_distance(x, y)
        outline = self.outline()
        if not outline.contains(x, y):
            dx = max(outline.x0 - x, 0.0, x - outline.x1)
            dy = max(outline.y0 - y, 0.0, y - outline.y1)
            return math.hypot(dx, dy)
        inner = [self.bar_region(), *self.tray_columns(), self.table_rect(Area.LEFT_TABLE),
                 self.table_rect(Area.RIGHT_TABLE)]
        best = outline.inner_distance(x, y)
        for r in inner:
            dx = max(r.x0 - x, 0.0, x - r.x1)
            dy = max(r.y0 - y, 0.0, y - r.y1)
            best = min(best, math.hypot(dx, dy))
        return best

    def right_hand_table(self, side: Side) -> Area:
        """The table to the right of the bar as ``side`` sits (where that player must throw)."""
        return Area.RIGHT_TABLE if self.seating.side_of(side) is LongSide.NEAR else Area.LEFT_TABLE

    def quarter_of(self, x: float, y: float) -> Quarter | None:
        p = self.point_at(x, y)
        if p is None:
            # between the tips: assign by table and long side
            area = self.area_of(x, y)
            if area not in (Area.LEFT_TABLE, Area.RIGHT_TABLE):
                return None
            f = self.field()
            long_side = LongSide.NEAR if y > (f.y0 + f.y1) / 2 else LongSide.FAR
            rect = self.table_rect(area)
            p = next(q for q in range(1, 25)
                     if self._point_side(q) is long_side and rect.contains(self._point_x(q), f.y0 + 1))
        return (Quarter.WHITE_HOME, Quarter.WHITE_OUTER, Quarter.BLACK_OUTER, Quarter.BLACK_HOME)[(p - 1) // 6]

    # ------------------------------------------------------------------ named regions
    def region_polygon(self, name: str) -> tuple[Vec2, ...]:
        """The outline of a named region: "p1".."p24", "bar", "tray_w", "tray_b"."""
        if name.startswith("p") and name[1:].isdigit():
            return self.point_rect(int(name[1:])).corners()
        if name == "bar":
            return self.bar_region().corners()
        if name == "tray_w":
            return self.tray_region(Side.WHITE).corners()
        if name == "tray_b":
            return self.tray_region(Side.BLACK).corners()
        raise GeometryError(f"unknown region {name!r}: expected one of p1..p24, bar, tray_w, tray_b")

    def region_of(self, x: float, y: float) -> str | None:
        """The named region holding (x, y), if any."""
        p = self.point_at(x, y)
        if p is not None:
            return f"p{p}"
        if self.bar_region().contains(x, y):
            return "bar"
        if self.tray_region(Side.WHITE).contains(x, y):
            return "tray_w"
        if self.tray_region(Side.BLACK).contains(x, y):
            return "tray_b"
        return None
