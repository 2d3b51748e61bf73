from __future__ import annotations

import pytest

from rules.position import Position, Side
from vision.observation import (
    REGION_NAMES,
    BoardObservation,
    CountReading,
    CubePosition,
    CubeReading,
    region_name,
)


def test_position_round_trip_initial() -> None:
    obs = BoardObservation.from_position(Position.initial())
    assert obs.points[23] == CountReading(2, 0, 1.0)  # WHITE's 24-point
    assert obs.points[0] == CountReading(0, 2, 1.0)  # BLACK's 24-point is absolute 1
    assert obs.position(Side.BLACK) == Position.initial(Side.BLACK)


def test_position_round_trip_with_bar_and_trays() -> None:
    p = Position.from_points({25: 1, 6: 4, 0: 10}, {25: 2, 19: 3, 0: 10})
    obs = BoardObservation.from_position(p)
    assert obs.bar == CountReading(1, 2, 1.0)
    assert obs.trays[0].white == 10 and obs.trays[1].black == 10
    assert obs.position(Side.WHITE) == p


def test_not_confident_or_covered_gives_no_position() -> None:
    obs = BoardObservation.from_position(Position.initial())
    from dataclasses import replace

    assert replace(obs, confident=False).position(Side.WHITE) is None
    assert replace(obs, covered=frozenset({"p6"})).position(Side.WHITE) is None
    assert replace(obs, still=False).position(Side.WHITE) is None


def test_regions() -> None:
    obs = BoardObservation.from_position(Position.initial())
    assert set(obs.readings()) == set(REGION_NAMES)
    assert obs.reading("p13").white == 5
    assert region_name(25) == "bar"
    with pytest.raises(ValueError, match="p25"):
        obs.reading("p25")
    with pytest.raises(ValueError, match="24 point"):
        BoardObservation(seq=0, t=0.0, points=(), bar=obs.bar, trays=obs.trays)
    from dataclasses import replace

    with pytest.raises(ValueError, match="elbow"):
        replace(obs, covered=frozenset({"elbow"}))


def test_cube_value() -> None:
    assert CubeReading(64, 1.0, CubePosition.MIDDLE, 0.0, 1.0).value == 1
    assert CubeReading(2, 1.0, CubePosition.BLACK_SIDE, 90.0, 1.0).value == 2
    assert CubeReading(None, 0.2, CubePosition.BLACK_SIDE, 0.0, 1.0).value is None
