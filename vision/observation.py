"""What vision reports about one camera frame: domain values with confidences.

Vision never decides anything about the game: it says what it sees and how sure
it is of each part, and the rules decide.  Low confidence is a field, never an
exception.

>>> from rules.position import Position, Side
>>> obs = BoardObservation.from_position(Position.initial(), seq=7, t=0.25)
>>> obs.confident, obs.points[5]
(True, CountReading(white=5, black=0, confidence=1.0))
>>> obs.position(Side.WHITE) == Position.initial()
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rules.position import BAR, OFF, Position, Side
from vision.geometry import Area

__all__ = [
    "REGION_NAMES",
    "Area",
    "BoardObservation",
    "CountReading",
    "CubePosition",
    "CubeReading",
    "DieReading",
    "region_name",
]

#: Names of the regions a hand can cover: "p1".."p24" (absolute = WHITE's numbering), the bar, the trays.
REGION_NAMES: tuple[str, ...] = (*(f"p{i}" for i in range(1, 25)), "bar", "tray_w", "tray_b")


def region_name(point: int) -> str:
    """The region name of an absolute point (1..24), 25 = bar, 0 = WHITE's tray, -1 = BLACK's tray.

    >>> region_name(24), region_name(25), region_name(0), region_name(-1)
    ('p24', 'bar', 'tray_w', 'tray_b')
    """
    if 1 <= point <= 24:
        return f"p{point}"
    if point == 25:
        return "bar"
    if point == 0:
        return "tray_w"
    if point == -1:
        return "tray_b"
    raise ValueError(f"no region for point {point!r}: expected 1..24, 25 (bar), 0 or -1 (trays)")


@dataclass(frozen=True, slots=True)
class CountReading:
    """How many checkers of each colour are in one region, and how sure vision is (0..1).

    ``alternatives``: other readings vision found likely, as ``(white, black, probability)``, most
    likely first, never repeating the reported one (empty when the reader gives none).  The referee
    uses them to weigh legal plays against an unsure reading; they are never shown to the players.
    """

    white: int
    black: int
    confidence: float
    alternatives: tuple[tuple[int, int, float], ...] = field(default=(), compare=False)

    @property
    def total(self) -> int:
        return self.white + self.black


EMPTY = CountReading(0, 0, 1.0)
UNSEEN = CountReading(0, 0, 0.0)


@dataclass(frozen=True, slots=True)
class DieReading:
    """One die seen on the board (or just off it).

    ``face`` is None when it cannot be read; ``cocked`` is None when flat/cocked cannot be decided.
    ``boundary_mm`` is the distance from the die's centre to the nearest boundary of ``area``; the
    referee treats a die within a few millimetres of a boundary as uncertain.  ``image_box`` is
    (x, y, w, h) in image pixels.  ``on_die``: resting on top of the other die.  ``owner`` is the
    player whose pair it is, when the two pairs differ in colour (otherwise None).
    """

    face: int | None
    face_confidence: float
    cocked: bool | None
    cocked_confidence: float
    area: Area
    boundary_mm: float
    center_mm: tuple[float, float]
    image_box: tuple[int, int, int, int]
    on_die: bool = False
    owner: Side | None = None


class CubePosition(Enum):
    """Where the doubling cube sits: in the middle (centred), or on a player's side."""

    MIDDLE = "middle"
    WHITE_SIDE = "white"
    BLACK_SIDE = "black"


CUBE_FACES: tuple[int, ...] = (64, 2, 4, 8, 16, 32)


@dataclass(frozen=True, slots=True)
class CubeReading:
    """The doubling cube: the numeral on top (64 when centred), where it sits, its rotation."""

    face: int | None
    face_confidence: float
    position: CubePosition
    rotation_deg: float
    position_confidence: float

    @property
    def value(self) -> int | None:
        """The cube's value: 1 for a centred cube showing 64, else the face; None when unread."""
        if self.face is None:
            return None
        return 1 if self.face == 64 and self.position is CubePosition.MIDDLE else self.face


@dataclass(frozen=True, slots=True)
class BoardObservation:
    """Everything read from one frame.

    ``points[i]`` is absolute point i+1 (WHITE's numbering); ``trays`` = (WHITE's borne off,
    BLACK's borne off).  ``still``: the scene has been still long enough for a full reading.
    ``covered``: regions hidden by hands (never read; their readings have confidence 0).
    ``confident``: every region was read with confidence above the configured threshold.
    ``timings_ms``: per-stage time spent on this frame (diagnostic; not compared).
    """

    seq: int
    t: float
    points: tuple[CountReading, ...]
    bar: CountReading
    trays: tuple[CountReading, CountReading]
    dice: tuple[DieReading, ...] = ()
    cube: CubeReading | None = None
    still: bool = True
    covered: frozenset[str] = frozenset()
    confident: bool = True
    timings_ms: tuple[tuple[str, float], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        if len(self.points) != 24:
            raise ValueError(f"an observation needs 24 point readings, got {len(self.points)}")
        unknown = set(self.covered) - set(REGION_NAMES)
        if unknown:
            raise ValueError(f"unknown covered region(s) {sorted(unknown)!r}; expected {REGION_NAMES}")

    # ------------------------------------------------------------------ access
    def reading(self, region: str) -> CountReading:
        """The reading for a region name ("p1".."p24", "bar", "tray_w", "tray_b")."""
        if region == "bar":
            return self.bar
        if region == "tray_w":
            return self.trays[0]
        if region == "tray_b":
            return self.trays[1]
        if region.startswith("p") and region[1:].isdigit() and 1 <= int(region[1:]) <= 24:
            return self.points[int(region[1:]) - 1]
        raise ValueError(f"unknown region {region!r}; expected one of {REGION_NAMES}")

    def readings(self) -> dict[str, CountReading]:
        """All readings by region name."""
        return {name: self.reading(name) for name in REGION_NAMES}

    @property
    def min_confidence(self) -> float:
        return min(r.confidence for r in self.readings().values())

    def position(self, turn: Side) -> Position | None:
        """The checkers as a :class:`rules.Position` with ``turn`` on roll, or None unless confident.

        The position may still be implausible (``problems()`` says why): vision reports what it sees.
        """
        if not self.confident or not self.still or self.covered:
            return None
        white = [0] * 26
        black = [0] * 26
        for i, r in enumerate(self.points):
            white[i + 1] = r.white
            black[24 - i] = r.black  # absolute point i+1 is BLACK's point 24 - i
        white[BAR] = self.bar.white
        black[BAR] = self.bar.black
        white[OFF] = self.trays[0].white
        black[OFF] = self.trays[1].black
        return Position(tuple(white), tuple(black), turn)

    # ------------------------------------------------------------------ construction
    @classmethod
    def from_position(
        cls,
        position: Position,
        *,
        seq: int = 0,
        t: float = 0.0,
        dice: tuple[DieReading, ...] = (),
        cube: CubeReading | None = None,
    ) -> BoardObservation:
        """A perfectly confident, still observation of ``position`` (for tests and oracles)."""
        points = tuple(
            CountReading(position.white[p], position.black[25 - p], 1.0) for p in range(1, 25)
        )
        return cls(
            seq=seq,
            t=t,
            points=points,
            bar=CountReading(position.white[BAR], position.black[BAR], 1.0),
            trays=(CountReading(position.white[OFF], 0, 1.0), CountReading(0, position.black[OFF], 1.0)),
            dice=dice,
            cube=cube,
        )
