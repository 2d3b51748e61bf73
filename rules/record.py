"""Records of games and matches: what was thrown, played and doubled, and how each game ended.

These are the values that the laws state machine writes, that the match-file readers
(gnubg/Jellyfish text, SGF) produce, and that the exporters write.  Plays are kept in
gnubg's canonical notation for the mover (``"24/18 13/11*"``; ``""`` when no play was
possible); replaying them through the rules core gives the positions.

Every action and game has a ``line``: the line of the file it was read from (0 when it
was not read from a file).  It is left out of equality, so a record read from a file
equals the same record written by the referee.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from rules.position import Position, Side


@dataclass(frozen=True, slots=True)
class Move:
    """A throw and the play made with it (``play`` is ``""`` when nothing could be played).

    ``dice`` keeps the order in which the record gives them (high-low or low-high).
    """

    player: Side
    dice: tuple[int, int]
    play: str
    line: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Double:
    """``player`` offers the cube at ``value`` (the value it would have after a take)."""

    player: Side
    value: int
    line: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Take:
    """``player`` accepts the cube; with ``beaver`` he at once redoubles and keeps it."""

    player: Side
    beaver: bool = False
    line: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Drop:
    player: Side
    line: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class Resign:
    """``player`` offers to resign a single (1), gammon (2) or backgammon (3)."""

    player: Side
    level: int
    accepted: bool = True
    line: int = field(default=0, compare=False, repr=False)


Action = Move | Double | Take | Drop | Resign


class ResultKind(Enum):
    SINGLE = "single"
    GAMMON = "gammon"
    BACKGAMMON = "backgammon"
    DROP = "drop"
    RESIGN = "resign"
    FORFEIT = "forfeit"  # the loser abandoned the match; the winner gets what he needed


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
    line: int = field(default=0, compare=False, repr=False)


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """A match (``length`` points; 0 for money play) between ``players[WHITE]`` and ``players[BLACK]``."""

    players: tuple[str, str]
    length: int
    games: tuple[GameRecord, ...]
    meta: tuple[tuple[str, str], ...] = ()

    def meta_value(self, key: str, default: str | None = None) -> str | None:
        """The value of header tag ``key`` (``"Site"``, ``"Crawford"``, ...), case-insensitive."""
        for k, v in self.meta:
            if k.lower() == key.lower():
                return v
        return default

    @property
    def crawford_rule(self) -> bool:
        """True when the Crawford rule applies (match play, unless the header says it is off)."""
        if self.length <= 1:
            return False
        return (self.meta_value("Crawford", "On") or "On").lower() not in ("off", "false", "no", "0")
