"""Records of games and matches: what was thrown, played and doubled, and how each game ended.

These are the values that the laws state machine writes, that the match-file readers
(gnubg/Jellyfish text, SGF) produce, and that the exporters write.  Plays are kept in
gnubg's canonical notation for the mover (``"24/18 13/11*"``; ``""`` when no play was
possible); replaying them through the rules core gives the positions.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rules.position import Position, Side


@dataclass(frozen=True, slots=True)
class Move:
    """A throw and the play made with it (``play`` is ``""`` when nothing could be played)."""

    player: Side
    dice: tuple[int, int]
    play: str


@dataclass(frozen=True, slots=True)
class Double:
    """``player`` offers the cube at ``value`` (the value it would have after a take)."""

    player: Side
    value: int


@dataclass(frozen=True, slots=True)
class Take:
    player: Side
    beaver: bool = False


@dataclass(frozen=True, slots=True)
class Drop:
    player: Side


@dataclass(frozen=True, slots=True)
class Resign:
    """``player`` offers to resign a single (1), gammon (2) or backgammon (3)."""

    player: Side
    level: int
    accepted: bool = True


Action = Move | Double | Take | Drop | Resign


class ResultKind(Enum):
    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    DROP = "drop"
    RESIGN = "resign"


@dataclass(frozen=True, slots=True)
class GameResult:
    winner: Side
    points: int
    kind: ResultKind


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: the score before it, the actions in order and the result (None if unfinished)."""

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...]
    result: GameResult | None = None
    crawford: bool = False
    start: Position = field(default_factory=Position.initial)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match (``length`` points; 0 for money play) between ``players[WHITE]`` and ``players[BLACK]``."""

    players: tuple[str, str]
    length: int
    games: tuple[GameRecord, ...]
    meta: tuple[tuple[str, str], ...] = ()
