"""Board geometry: points, areas, trays, seating variants."""

from __future__ import annotations

import itertools

import pytest

from rules.position import Side
from vision.geometry import (
    Area,
    BoardLayout,
    BoardSpec,
    GeometryError,
    HomeEnd,
    LongSide,
    Quarter,
    Seating,
)

SEATINGS = [Seating(w, h) for w, h in itertools.product(LongSide, HomeEnd)]
SPECS = [BoardSpec.tournament(), BoardSpec.travel()]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.name)
@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: f"{s.white.value}-{s.white_home.value}")
def test_points_tile_the_tables(spec: BoardSpec, seating: Seating) -> None:
    lay = BoardLayout(spec, seating)
    rects = [lay.point_rect(p) for p in range(1, 25)]
    for a, b in itertools.combinations(rects, 2):
        overlap_x = min(a.x1, b.x1) - max(a.x0, b.x0)
        overlap_y = min(a.y1, b.y1) - max(a.y0, b.y0)
        assert overlap_x <= 1e-9 or overlap_y <= 1e-9
    for p in range(1, 25):
        x, y = lay.point_center(p)
        assert lay.point_at(x, y) == p
        assert lay.region_of(x, y) == f"p{p}"
        assert lay.area_of(x, y) in (Area.LEFT_TABLE, Area.RIGHT_TABLE)
    # 1 faces 24, 12 faces 13, 6 and 7 flank the bar
    for p in range(1, 13):
        assert lay.point_center(p)[0] == pytest.approx(lay.point_center(25 - p)[0])
    bar = lay.bar_region()
    for p in (6, 7, 18, 19):
        r = lay.point_rect(p)
        assert min(abs(r.x1 - bar.x0), abs(r.x0 - bar.x1)) < 1e-9


@pytest.mark.parametrize("seating", SEATINGS, ids=lambda s: f"{s.white.value}-{s.white_home.value}")
def test_white_home_is_on_the_right_hand_as_seated(seating: Seating) -> None:
    lay = BoardLayout(BoardSpec.tournament(), seating)
    home_area = lay.area_of(*lay.point_center(1))
    rh = lay.right_hand_table(Side.WHITE)
    assert (home_area is rh) == (seating.white_home is HomeEnd.RIGHT)
    # both home boards share one end, so BLACK's home is in BLACK's ... opposite-hand table
    black_home_area = lay.area_of(*lay.point_center(24))
    assert black_home_area is home_area
    assert lay.right_hand_table(Side.BLACK) is not rh
    # white's points 1-12 lie on white's long side
    ym = (lay.field().y0 + lay.field().y1) / 2
    near = lay.point_center(1)[1] > ym
    assert near == (seating.white is LongSide.NEAR)


def test_default_seating_right_table_is_low_x() -> None:
    lay = BoardLayout()
    assert lay.right_hand_table(Side.WHITE) is Area.RIGHT_TABLE
    assert lay.table_rect(Area.RIGHT_TABLE).x1 <= lay.bar_region().x0
    assert lay.point_center(1)[0] < lay.point_center(12)[0]


def test_quarters() -> None:
    lay = BoardLayout()
    expect = {1: Quarter.WHITE_HOME, 9: Quarter.WHITE_OUTER, 15: Quarter.BLACK_OUTER, 22: Quarter.BLACK_HOME}
    for p, q in expect.items():
        assert lay.quarter_of(*lay.point_center(p)) is q
    assert lay.quarter_of(*lay.bar_region().center) is None
    # between the tips, nearer white's side of the home table
    f = lay.field()
    x = lay.point_center(3)[0]
    assert lay.quarter_of(x, (f.y0 + f.y1) / 2 + 5) is Quarter.WHITE_HOME


def test_areas_and_distances() -> None:
    lay = BoardLayout()
    s = lay.spec
    assert lay.area_of(-1, 10) is Area.OFF_BOARD
    assert lay.area_of(s.rail_mm / 2, s.depth_mm / 2) is Area.RAIL
    assert lay.area_of(*lay.bar_region().center) is Area.BAR
    assert lay.area_of(*lay.tray_region(Side.WHITE).center) is Area.TRAY
    r = lay.table_rect(Area.LEFT_TABLE)
    assert lay.distance_to_boundary_mm(r.x0 + 7, (r.y0 + r.y1) / 2) == pytest.approx(7)
    assert lay.distance_to_boundary_mm(-3, -4) == pytest.approx(5)
    assert lay.distance_to_boundary_mm(s.rail_mm / 2, s.depth_mm / 2) == pytest.approx(s.rail_mm / 2)


def test_stack_slots_rows_then_layers() -> None:
    lay = BoardLayout()
    s = lay.spec
    slots = [lay.stack_slots(6, n) for n in range(11)]
    assert all(z == 0 for _, _, z in slots[:5])
    assert slots[5][2] == pytest.approx(s.checker_height_mm)
    assert slots[5][:2] == pytest.approx(slots[0][:2])
    for a, b in itertools.pairwise(slots[:5]):
        assert abs(a[1] - b[1]) == pytest.approx(s.checker_diameter_mm)
    rect = lay.point_rect(6)
    for x, y, _ in slots:
        assert rect.contains(x, y)


def test_trays_bar_slots_and_regions() -> None:
    lay = BoardLayout()
    for side in Side:
        tray = lay.tray_region(side)
        for n in range(15):
            assert tray.contains(*lay.tray_slot(side, n)[:2])
            assert tray.contains(*lay.tray_slot(side, n, lying=True)[:2])
        for n in range(4):
            assert lay.bar_region().contains(*lay.bar_slot(side, n)[:2])
    assert lay.tray_region(Side.WHITE) != lay.tray_region(Side.BLACK)
    for name in ("p1", "p24", "bar", "tray_w", "tray_b"):
        assert len(lay.region_polygon(name)) == 4


def test_errors_quote_input() -> None:
    lay = BoardLayout()
    with pytest.raises(GeometryError, match="25"):
        lay.point_polygon(25)
    with pytest.raises(GeometryError, match="p99x"):
        lay.region_polygon("p99x")
    with pytest.raises(GeometryError, match="huge"):
        BoardSpec.by_name("huge")
