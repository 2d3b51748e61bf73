"""What the laws machine answers for each event: ok, an infraction, or a request to check.

A verdict has two faces.  ``players`` (:class:`PlayersView`) is what the device and the
players may see: a short message and which dice, points or cube are at fault.  It never
holds a legal play, a hint or a pip count; building one that does raises
:class:`PlayersViewError`.  ``director`` is the referee's record and may hold anything
(the legal plays, the position IDs, pip counts).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum

from rules.position import Side


class VerdictKind(Enum):
    OK = "ok"
    INFRACTION = "infraction"
    CHECK = "check"  # perception was unsure: the referee asks the players to check


class Infraction(Enum):
    """Every infraction the machine can find (the same names in every code of laws)."""

    DICE_WRONG_TABLE = "dice-wrong-table"
    DICE_ON_BAR = "dice-on-bar"
    DICE_OFF_BOARD = "dice-off-board"
    DICE_COCKED = "dice-cocked"
    DICE_ON_DIE = "dice-on-die"
    DICE_ON_CHECKER = "dice-on-checker"
    DICE_NOT_TOGETHER = "dice-not-together"
    DICE_TOUCHED = "dice-touched"
    PREMATURE_THROW = "premature-throw"
    PREMATURE_DOUBLE = "premature-double"  # a double offered before the opponent's turn ended
    THROW_OUT_OF_TURN = "throw-out-of-turn"
    INCOMPLETE_PLAY = "incomplete-play"
    ILLEGAL_PLAY = "illegal-play"
    MOVE_WITHOUT_THROW = "move-without-throw"
    DOUBLE_CUBE_NOT_OWNED = "double-cube-not-owned"
    DOUBLE_AFTER_THROW = "double-after-throw"
    DOUBLE_IN_CRAWFORD = "double-in-crawford"
    DOUBLE_NOT_ALLOWED = "double-not-allowed"
    CUBE_WRONG_VALUE = "cube-wrong-value"
    BEAVER_NOT_ALLOWED = "beaver-not-allowed"
    WRONG_SETUP = "wrong-setup"
    WRONG_RESULT = "wrong-result"


class Remedy(Enum):
    """What the law says happens next."""

    NONE = "none"
    RETHROW_BOTH = "rethrow both dice"
    RETHROW_DIE = "rethrow the die"
    THROW_VOID = "throw void"
    THROW_STANDS = "throw stands"
    OPPONENT_CHOOSES_THROW = "opponent chooses: the throw stands or is rethrown"
    COMPEL_OR_FORGO = "opponent may compel completion or forgo"
    CORRECT_OR_STANDS = "correct the play before the next throw or it stands"
    MUST_CORRECT = "the play must be corrected"
    RESTORE = "put the checkers back"
    CUBE_RESTORED = "the offer is void; the cube goes back"
    GAME_VOID = "game void"
    CORRECT_SETUP = "correct the set-up; the game goes on"
    CORRECT_RESULT = "correct the result"
    GAME_CONTINUES = "game continues"
    DOUBLE_STANDS = "the double stands; it is answered when the turn is over"
    SETUP_STANDS = "too late to correct: the position stands; the game goes on"


@dataclass(frozen=True, slots=True)
class Citation:
    """A rule of a code of laws: which code, which rule, what it says in our own words."""

    code: str  # the RuleSet's name, e.g. "modern"
    title: str  # e.g. "US Backgammon tournament rules 2008"
    rule: str  # e.g. "4.6"
    says: str  # a short paraphrase (ours, never a long quotation)

    def __str__(self) -> str:
        return f"{self.title}, rule {self.rule}: {self.says}"


class PlayersViewError(ValueError):
    """A players' view that would show a legal play, a hint or a pip count."""


# A play in any notation ("13/7", "bar/20", "6/off"), a pip count, or a hint.
_FORBIDDEN = re.compile(
    r"(\b(?:\d{1,2}|bar|off)\s*/\s*(?:\d{1,2}|bar|off)\b)|\bpips?\b|\bpip count\b|\bhint\b|\bbest\b|\bshould play\b"
    r"|\blegal plays?\b|\bcould play\b",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class PlayersView:
    """What may be shown to the players: a short message and what is at fault.

    ``points`` are absolute (WHITE-numbered) points whose checkers are at fault,
    ``dice`` the indexes (0, 1) of faulty dice, ``cube`` whether the cube is at fault.

    >>> PlayersView("Dice cocked: rethrow both dice", dice=(0,)).text
    'Dice cocked: rethrow both dice'
    """

    text: str
    points: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()
    cube: bool = False

    def __post_init__(self) -> None:
        m = _FORBIDDEN.search(self.text)
        if m:
            raise PlayersViewError(f"players' view may not show plays, hints or pips: {self.text!r} ({m.group(0)!r})")


@dataclass(frozen=True, slots=True)
class Verdict:
    """The machine's answer to one event."""

    kind: VerdictKind
    event: object  # the event judged (an rules.laws.events.Event)
    code: Infraction | None = None
    citation: Citation | None = None
    offender: Side | None = None
    remedy: Remedy = Remedy.NONE
    ask: str = ""  # what the referee asks of the players
    players: PlayersView = PlayersView("")
    director: str = ""  # the director's record: may name plays, position IDs, pips

    @property
    def ok(self) -> bool:
        return self.kind is VerdictKind.OK

    @property
    def is_infraction(self) -> bool:
        return self.kind is VerdictKind.INFRACTION

    def summary(self) -> str:
        """One line for logs: kind, code, offender, remedy and the rule cited."""
        if self.kind is VerdictKind.OK:
            return "ok" + (f": {self.director}" if self.director else "")
        who = f" by {self.offender.name.lower()}" if self.offender is not None else ""
        code = f" {self.code.value}" if self.code else ""
        cite = f" [{self.citation.code} {self.citation.rule}]" if self.citation else ""
        return f"{self.kind.value}{code}{who}: {self.remedy.value}{cite}"
