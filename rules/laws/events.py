"""What the camera side tells the laws machine: one frozen event per thing seen on one board.

Every event carries ``t`` (seconds since the session started, for the record only) and
``uncertain``: set it when perception is unsure.  An uncertain event is never applied
and never yields an infraction; the machine answers it with a request to check.

>>> DiceThrown(Side.WHITE, (DieThrow(3), DieThrow(1))).values
(3, 1)
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.position import Position, Side


class Rest(Enum):
    """Where a thrown die came to rest, seen from the thrower."""

    RIGHT_TABLE = "right table"  # the thrower's right-hand table: the only valid place
    LEFT_TABLE = "left table"  # the other table (left of the bar)
    BAR = "bar"
    OFF_BOARD = "off board"
    ON_DIE = "on die"  # on top of the other die
    ON_CHECKER = "on checker"  # on a checker: cocked or valid by the code's option


@dataclass(frozen=True, slots=True)
class DieThrow:
    """One die of a throw: the face up, where it lies, whether it lies flat."""

    value: int
    rest: Rest = Rest.RIGHT_TABLE
    flat: bool = True

    def __post_init__(self) -> None:
        if not 1 <= self.value <= 6:
            raise ValueError(f"a die shows 1-6, got {self.value!r}")


@dataclass(frozen=True, slots=True)
class GameSetUp:
    """The checkers stand ready for a new game (the position the camera sees)."""

    position: Position
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class SetupCorrected:
    """The players put right a wrong set-up in the middle of a game (noticed late).

    ``position`` is the board after their correction.  Whether the correction stands
    (and whether the game goes on) is the code's: 1931 voids the game, 1969 and the
    modern rules let it be corrected only before the second play is complete.
    """

    position: Position
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class OpeningDieThrown:
    """``player`` throws his single die for the opening throw."""

    player: Side
    die: DieThrow
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class DiceThrown:
    """``player`` throws his two dice.

    ``together`` is False when the dice left the cup one after the other;
    ``touched`` is True when a die was touched before it came to rest.
    """

    player: Side
    dice: tuple[DieThrow, DieThrow]
    together: bool = True
    touched: bool = False
    t: float = 0.0
    uncertain: bool = False

    @property
    def values(self) -> tuple[int, int]:
        return (self.dice[0].value, self.dice[1].value)

    @classmethod
    def flat(cls, player: Side, d1: int, d2: int, t: float = 0.0) -> DiceThrown:
        """Two dice resting flat in the thrower's right-hand table."""
        return cls(player, (DieThrow(d1), DieThrow(d2)), t=t)


@dataclass(frozen=True, slots=True)
class PositionObserved:
    """The checkers now stand as ``position`` (its ``turn`` field is ignored)."""

    position: Position
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class DiceLifted:
    """``player`` lifts (either of) his dice: his play is complete."""

    player: Side
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class PlayAmended:
    """The referee re-judges ``player``'s last play: it was the play of ``dice`` that ends at ``position``.

    A play the referee put on record as the likeliest reading of an unsure board (or with a throw it
    inferred from the play) is found, before the opponent has played, to have been another legal play
    (``dice`` may differ from the throw on record when that throw was inferred).  The record and the
    board are amended; it is never an infraction.  The laws refuse it (a check, nothing applied) when
    that play is not a legal play of ``dice`` from the board the play started from, when the opponent
    has played since, or when the play on record is an infraction still open to correction.
    """

    player: Side
    dice: tuple[int, int]
    position: Position
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class ClockPressed:
    """``player`` presses his clock button (ends his turn where clocks are used)."""

    player: Side
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class CubeOffered:
    """``player`` turns the cube to ``value`` and moves it toward the opponent."""

    player: Side
    value: int
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class CubeTaken:
    player: Side
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class CubeDropped:
    player: Side
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class CubeBeavered:
    """``player`` (the taker) redoubles at once to ``value`` and keeps the cube."""

    player: Side
    value: int
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class ResignationOffered:
    """``player`` offers to resign a single (1), gammon (2) or backgammon (3)."""

    player: Side
    level: int
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class ResignationAccepted:
    """``player`` accepts the opponent's offer to resign."""

    player: Side
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class ResignationRejected:
    player: Side
    t: float = 0.0
    uncertain: bool = False


@dataclass(frozen=True, slots=True)
class ResultClaimed:
    """The players (or a score sheet) state that ``winner`` won ``points`` points."""

    winner: Side
    points: int
    match_over: bool = False
    t: float = 0.0
    uncertain: bool = False


Event = (
    GameSetUp
    | SetupCorrected
    | OpeningDieThrown
    | DiceThrown
    | PositionObserved
    | DiceLifted
    | PlayAmended
    | ClockPressed
    | CubeOffered
    | CubeTaken
    | CubeDropped
    | CubeBeavered
    | ResignationOffered
    | ResignationAccepted
    | ResignationRejected
    | ResultClaimed
)
