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

import re
from dataclasses import dataclass, field
from enum import Enum
from typing import Final

from rules.laws.verdicts import Infraction, Remedy
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


class RecordError(ValueError):
    """A record value that cannot be built or read back (the text is quoted)."""


_SIDE_WORDS: Final = {"white": Side.WHITE, "black": Side.BLACK, "nobody": None}
_UNSAFE: Final = re.compile(r'[;"\[\]\n\r\\]')
_NOTE: Final = re.compile(
    r"^bgref infraction: (?P<code>[a-z-]+) by (?P<who>white|black|nobody) at action (?P<at>\d+); "
    r"(?P<laws>.+?) rule (?P<rule>.+?); remedy: (?P<remedy>.+)$"
)


@dataclass(frozen=True, slots=True)
class InfractionRecord:
    """An infraction the referee called in a game, kept in the game's record.

    ``action`` is the index in the game's ``actions`` of the action it concerns (the play
    judged illegal) or, for anything else, of the next action recorded after it (a
    cocked throw before the throw that counted; ``len(actions)`` if none followed).
    ``laws`` names the code of laws in force and ``rule`` the rule it cited.

    It has one line of text (:meth:`text`, read back by :meth:`parse`) written as an SGF
    comment ``C[...]`` on the node of the action and as a ``; [Infraction "game N ..."]``
    header line in ``.mat`` files (gnubg keeps both):

    >>> r = InfractionRecord(Infraction.ILLEGAL_PLAY, "modern", "Legal Moves", Side.WHITE, 3, Remedy.MUST_CORRECT)
    >>> r.text()
    'bgref infraction: illegal-play by white at action 3; modern rule Legal Moves; remedy: the play must be corrected'
    >>> InfractionRecord.parse(r.text()) == r
    True
    """

    code: Infraction
    laws: str
    rule: str
    offender: Side | None
    action: int
    remedy: Remedy
    line: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        for name in ("laws", "rule"):
            value = getattr(self, name)
            if not value or _UNSAFE.search(value) or (" rule " in f" {value} " and name == "laws"):
                raise RecordError(f"infraction {name} {value!r} must be non-empty, without ; \" [ ] \\ or line breaks"
                                  + (" or the word 'rule'" if name == "laws" else ""))
        if self.action < 0:
            raise RecordError(f"infraction action index must be >= 0, got {self.action!r}")

    def text(self) -> str:
        who = "nobody" if self.offender is None else self.offender.name.lower()
        return (f"bgref infraction: {self.code.value} by {who} at action {self.action}; "
                f"{self.laws} rule {self.rule}; remedy: {self.remedy.value}")

    @classmethod
    def parse(cls, text: str, line: int = 0) -> InfractionRecord:
        """Read :meth:`text` back; :class:`RecordError` quoting the text otherwise."""
        m = _NOTE.match(text.strip())
        if not m:
            raise RecordError(f"not an infraction note: {text!r}")
        try:
            code = Infraction(m.group("code"))
            remedy = Remedy(m.group("remedy"))
        except ValueError as exc:
            raise RecordError(f"unknown infraction or remedy in {text!r}: {exc}") from None
        return cls(code, m.group("laws"), m.group("rule"), _SIDE_WORDS[m.group("who")], int(m.group("at")), remedy, line)

    @staticmethod
    def is_note(text: str) -> bool:
        return text.lstrip().startswith("bgref infraction:")


_AMENDED: Final = re.compile(
    r"^bgref amended: (?P<who>white|black)'s move at action (?P<at>\d+), first recorded as (?P<was>.+)$"
)


@dataclass(frozen=True, slots=True)
class AmendmentRecord:
    """A move the referee amended on record (``rules.laws.events.PlayAmended``), kept in the game's record.

    ``action`` is the index in the game's ``actions`` of the move as it stands now; ``was`` is how it was
    first recorded (dice and play, ``"41: 24/23 8/4*"``), so a director reading the exported match sees that
    the move was re-judged from a later look at the board.  Its one line of text (:meth:`text`, read back by
    :meth:`parse`) goes in the exports as an SGF comment on the move's node and a ``; [Amended "game N:
    ..."]`` header line in ``.mat`` files (``referee.exports``):

    >>> a = AmendmentRecord(Side.WHITE, 3, "41: 24/23 8/4*")
    >>> a.text()
    "bgref amended: white's move at action 3, first recorded as 41: 24/23 8/4*"
    >>> AmendmentRecord.parse(a.text()) == a
    True
    """

    player: Side
    action: int
    was: str
    line: int = field(default=0, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.was or _UNSAFE.search(self.was):
            raise RecordError(f"amendment 'was' {self.was!r} must be non-empty, without ; \" [ ] \\ or line breaks")
        if self.action < 0:
            raise RecordError(f"amendment action index must be >= 0, got {self.action!r}")

    def text(self) -> str:
        return f"bgref amended: {self.player.name.lower()}'s move at action {self.action}, first recorded as {self.was}"

    @classmethod
    def parse(cls, text: str, line: int = 0) -> AmendmentRecord:
        """Read :meth:`text` back; :class:`RecordError` quoting the text otherwise."""
        m = _AMENDED.match(text.strip())
        if not m:
            raise RecordError(f"not an amendment note: {text!r}")
        side = _SIDE_WORDS[m.group("who")]
        assert side is not None
        return cls(side, int(m.group("at")), m.group("was"), line)

    @staticmethod
    def is_note(text: str) -> bool:
        return text.lstrip().startswith("bgref amended:")


def safe_note_text(value: str) -> str:
    """``value`` with the characters an infraction note may not hold replaced (for club rule names)."""
    out = value.replace(";", ",").replace('"', "'").replace("[", "(").replace("]", ")").replace("\\", "/")
    return " ".join(out.split()) or "-"


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: the score before it, the actions in order and the result (None if unfinished).

    ``infractions`` are the infractions the referee called in the game, in order; ``amendments`` the moves
    it amended on record (one per move: how it was first recorded).
    """

    number: int
    score: tuple[int, int]
    actions: tuple[Action, ...]
    result: GameResult | None = None
    crawford: bool = False
    start: Position = field(default_factory=Position.initial)
    line: int = field(default=0, compare=False, repr=False)
    infractions: tuple[InfractionRecord, ...] = ()
    # (a note on how moves were first recorded: a record read back from a file without them is the same game)
    amendments: tuple[AmendmentRecord, ...] = field(default=(), compare=False)

    @property
    def voided(self) -> bool:
        """True for a game the referee declared void (no result, and an infraction whose remedy is a void game)."""
        return self.result is None and any(i.remedy is Remedy.GAME_VOID for i in self.infractions)


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
