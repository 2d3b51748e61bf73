"""Hand-built observation streams for the referee tests (no camera, no vision)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field, replace

from rules.position import Position, Side
from vision.geometry import Area
from vision.observation import BoardObservation, CountReading, CubePosition, CubeReading, DieReading

# die centres in board mm: each player's right-hand table (WHITE sits NEAR: RIGHT_TABLE is his)
W_SPOTS = ((150.0, 250.0), (190.0, 260.0))
B_SPOTS = ((500.0, 150.0), (540.0, 160.0))
AREA_OF_SIDE = {Side.WHITE: Area.RIGHT_TABLE, Side.BLACK: Area.LEFT_TABLE}


def die(face: int, area: Area, xy: tuple[float, float], *, cocked: bool = False, sure: bool = True,
        on_die: bool = False, boundary_mm: float = 40.0) -> DieReading:
    c = 0.99 if sure else 0.5
    return DieReading(face, c, cocked, 0.99, area, boundary_mm, xy, (int(xy[0]), int(xy[1]), 20, 20), on_die)


def thrown(side: Side, d1: int, d2: int) -> tuple[DieReading, DieReading]:
    spots = W_SPOTS if side is Side.WHITE else B_SPOTS
    return (die(d1, AREA_OF_SIDE[side], spots[0]), die(d2, AREA_OF_SIDE[side], spots[1]))


def cube(face: int = 64, where: CubePosition = CubePosition.MIDDLE) -> CubeReading:
    return CubeReading(face, 0.99, where, 0.0, 0.99)


@dataclass
class Script:
    """Builds a stream: each ``show`` holds a scene for ``frames`` still frames (after a moving frame)."""

    frames: int = 3
    seq: int = 0
    out: list[BoardObservation] = field(default_factory=list)
    cube: CubeReading | None = field(default_factory=cube)

    def show(self, position: Position, dice: tuple[DieReading, ...] = (), *, unsure_points: tuple[int, ...] = (),
             moving: bool = True, frames: int | None = None, unsure_confidence: float = 0.4) -> Script:
        if moving:
            base = BoardObservation.from_position(position, seq=self.seq, t=self.seq / 30)
            self.out.append(replace(base, still=False, covered=frozenset({"p1"})))
            self.seq += 1
        for _ in range(frames or self.frames):
            obs = BoardObservation.from_position(position, seq=self.seq, t=self.seq / 30, dice=dice, cube=self.cube)
            if unsure_points:
                pts = list(obs.points)
                for p in unsure_points:
                    pts[p - 1] = CountReading(pts[p - 1].white, pts[p - 1].black, unsure_confidence)
                obs = replace(obs, points=tuple(pts), confident=False)
            self.out.append(obs)
            self.seq += 1
        return self

    def __iter__(self) -> Iterator[BoardObservation]:
        return iter(self.out)
