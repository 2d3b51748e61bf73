"""The GNU Backgammon Match ID and eXtreme Gammon's XGID.

gnubg's player 0 is :attr:`Side.WHITE`, player 1 :attr:`Side.BLACK`; in an XGID the
bottom player (upper-case letters, points numbered from that side) is WHITE and the top
player (lower case) is BLACK.

>>> m = MatchId.decode('cAkPAAAAAAAA')
>>> m.cube, m.cube_owner, m.on_roll, m.dice, m.length, m.state.name
(1, None, Side.BLACK, (6, 3), 0, 'PLAYING')
>>> m.encode()
'cAkPAAAAAAAA'
>>> x = Xgid.parse('XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10')
>>> x.position == Position.initial()
True
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

from rules.position import BAR, CHECKERS, OFF, Position, PositionError, Side

_MATCH_BITS: Final = 72


class IdError(ValueError):
    """A Match ID or XGID that cannot be read, or values that cannot be written."""


class GameState(IntEnum):
    """gnubg's game state field of the Match ID."""

    NONE = 0
    PLAYING = 1
    OVER = 2
    RESIGNED = 3
    DROPPED = 4


def _log2_cube(value: int, what: str) -> int:
    if value < 1 or value & (value - 1):
        raise IdError(f"cube value must be a power of two, got {value} ({what})")
    return value.bit_length() - 1


@dataclass(frozen=True, slots=True)
class MatchId:
    """Everything a gnubg Match ID holds (the board itself is in the Position ID)."""

    cube: int = 1
    cube_owner: Side | None = None
    on_roll: Side = Side.WHITE
    crawford: bool = False
    state: GameState = GameState.PLAYING
    turn: Side = Side.WHITE
    doubled: bool = False
    resigned: int = 0
    dice: tuple[int, int] | None = None
    length: int = 0
    score: tuple[int, int] = (0, 0)
    jacoby_off: bool = False

    def encode(self) -> str:
        """The 12-character gnubg Match ID."""
        fields: list[tuple[int, int]] = [
            (_log2_cube(self.cube, self.encode.__name__), 4),
            (3 if self.cube_owner is None else int(self.cube_owner), 2),
            (int(self.on_roll), 1),
            (int(self.crawford), 1),
            (int(self.state), 3),
            (int(self.turn), 1),
            (int(self.doubled), 1),
            (self.resigned, 2),
            (self.dice[0] if self.dice else 0, 3),
            (self.dice[1] if self.dice else 0, 3),
            (self.length, 15),
            (self.score[0], 15),
            (self.score[1], 15),
            (int(self.jacoby_off), 1),
        ]
        key = bytearray(_MATCH_BITS // 8)
        pos = 0
        for value, width in fields:
            if not 0 <= value < (1 << width):
                raise IdError(f"{value} does not fit in {width} bits of a Match ID: {self!r}")
            for i in range(width):
                if (value >> i) & 1:
                    key[(pos + i) >> 3] |= 1 << ((pos + i) & 7)
            pos += width
        return base64.b64encode(bytes(key)).decode("ascii")

    @classmethod
    def decode(cls, text: str) -> MatchId:
        """Read a gnubg Match ID (``"Match ID: ..."`` prefixes are accepted)."""
        t = text.strip()
        if t.lower().startswith("match id"):
            t = t.split(":", 1)[1].strip()
        if len(t) != 12:
            raise IdError(f"a gnubg Match ID has 12 characters, got {len(t)}: {text!r}")
        try:
            key = base64.b64decode(t, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise IdError(f"not a gnubg Match ID (bad base64): {text!r}") from exc
        pos = 0

        def take(width: int) -> int:
            nonlocal pos
            v = 0
            for i in range(width):
                if (key[(pos + i) >> 3] >> ((pos + i) & 7)) & 1:
                    v |= 1 << i
            pos += width
            return v

        cube_log, owner, on_roll, crawford, state = take(4), take(2), take(1), take(1), take(3)
        turn, doubled, resigned, d1, d2 = take(1), take(1), take(2), take(3), take(3)
        length, s0, s1, jacoby_off = take(15), take(15), take(15), take(1)
        if owner == 2:
            raise IdError(f"cube owner field 2 is not defined: {text!r}")
        if state > 4:
            raise IdError(f"game state {state} is not defined: {text!r}")
        if (d1 == 0) != (d2 == 0) or d1 > 6 or d2 > 6:
            raise IdError(f"dice ({d1}, {d2}) are not a throw: {text!r}")
        return cls(
            cube=1 << cube_log,
            cube_owner=None if owner == 3 else Side(owner),
            on_roll=Side(on_roll),
            crawford=bool(crawford),
            state=GameState(state),
            turn=Side(turn),
            doubled=bool(doubled),
            resigned=resigned,
            dice=(d1, d2) if d1 else None,
            length=length,
            score=(s0, s1),
            jacoby_off=bool(jacoby_off),
        )


def position_from_gnubg(position_id: str, match_id: str) -> tuple[Position, MatchId]:
    """The absolute position (side on roll from the Match ID) and the match state."""
    m = MatchId.decode(match_id)
    return Position.from_gnubg_id(position_id, m.on_roll), m


# ---------------------------------------------------------------------- XGID
def _xg_char(white: int, black: int, where: str) -> str:
    if white and black:
        raise IdError(f"both colours on {where} cannot be written as an XGID")
    n = white or black
    if n > 15:
        raise IdError(f"{n} checkers on {where} cannot be written as an XGID")
    if n == 0:
        return "-"
    return chr(ord("A") + n - 1) if white else chr(ord("a") + n - 1)


@dataclass(frozen=True, slots=True)
class Xgid:
    """An XGID: the position (WHITE = XG's bottom player) plus cube, turn, dice, score and match."""

    position: Position
    cube: int = 1
    cube_owner: Side | None = None
    dice: tuple[int, int] | None = None
    offer: str = ""
    score: tuple[int, int] = (0, 0)
    crawford_jacoby: int = 0
    length: int = 0
    max_cube: int = 1 << 10
    extra: tuple[str, ...] = field(default=())

    @property
    def turn(self) -> Side:
        return self.position.turn

    def text(self) -> str:
        """``XGID=...`` as XG writes it."""
        p = self.position
        chars = [_xg_char(0, p.black[BAR], "black's bar")]
        for point in range(1, 25):
            w, b = p.at(point)
            chars.append(_xg_char(w, b, f"point {point}"))
        chars.append(_xg_char(p.white[BAR], 0, "white's bar"))
        owner = 0 if self.cube_owner is None else 1 if self.cube_owner is Side.WHITE else -1
        turn = 1 if p.turn is Side.WHITE else -1
        dice = self.offer or (f"{self.dice[0]}{self.dice[1]}" if self.dice else "00")
        fields = [
            "".join(chars),
            str(_log2_cube(self.cube, "XGID")),
            str(owner),
            str(turn),
            dice,
            str(self.score[0]),
            str(self.score[1]),
            str(self.crawford_jacoby),
            str(self.length),
            str(_log2_cube(self.max_cube, "XGID max cube")),
            *self.extra,
        ]
        return "XGID=" + ":".join(fields)

    @classmethod
    def parse(cls, text: str) -> Xgid:
        t = text.strip()
        if t.upper().startswith("XGID="):
            t = t[5:]
        parts = t.split(":")
        if len(parts) < 9:
            raise IdError(f"an XGID has at least 9 ':'-separated fields, got {len(parts)}: {text!r}")
        board = parts[0]
        if len(board) != 26:
            raise IdError(f"the XGID board has 26 characters, got {len(board)}: {text!r}")
        white = [0] * 26
        black = [0] * 26
        for i, ch in enumerate(board):
            if ch == "-":
                continue
            if "A" <= ch <= "O":
                n, is_white = ord(ch) - ord("A") + 1, True
            elif "a" <= ch <= "o":
                n, is_white = ord(ch) - ord("a") + 1, False
            else:
                raise IdError(f"{ch!r} is not an XGID checker count (A-O, a-o, -) in {text!r}")
            if i == 0:
                if is_white:
                    raise IdError(f"the first XGID character is black's bar (lower case): {text!r}")
                black[BAR] = n
            elif i == 25:
                if not is_white:
                    raise IdError(f"the last XGID character is white's bar (upper case): {text!r}")
                white[BAR] = n
            elif is_white:
                white[i] = n
            else:
                black[25 - i] = n
        for counts, name in ((white, "white"), (black, "black")):
            on = sum(counts)
            if on > CHECKERS:
                raise IdError(f"{name} has {on} checkers in {text!r}")
            counts[OFF] = CHECKERS - on
        try:
            cube_log = int(parts[1])
            owner = int(parts[2])
            turn = int(parts[3])
            score = (int(parts[5]), int(parts[6]))
            cj = int(parts[7])
            length = int(parts[8])
            max_log = int(parts[9]) if len(parts) > 9 and parts[9] else 10
        except ValueError as exc:
            raise IdError(f"XGID field is not a number in {text!r}") from exc
        if owner not in (-1, 0, 1) or turn not in (-1, 1):
            raise IdError(f"XGID cube owner must be -1/0/1 and turn -1/1 in {text!r}")
        if not 0 <= cube_log <= 15:
            raise IdError(f"XGID cube {cube_log} out of range in {text!r}")
        dfield = parts[4].upper()
        dice: tuple[int, int] | None = None
        offer = ""
        if dfield in ("D", "B", "R"):
            offer = dfield
        elif len(dfield) == 2 and dfield.isdigit():
            if dfield != "00":
                d1, d2 = int(dfield[0]), int(dfield[1])
                if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
                    raise IdError(f"XGID dice {dfield!r} are not a throw in {text!r}")
                dice = (d1, d2)
        else:
            raise IdError(f"XGID dice field {parts[4]!r} is not 00, two dice, D, B or R in {text!r}")
        side = Side.WHITE if turn == 1 else Side.BLACK
        try:
            position = Position(tuple(white), tuple(black), side)
        except PositionError as exc:
            raise IdError(f"{exc} in {text!r}") from exc
        return cls(
            position=position,
            cube=1 << cube_log,
            cube_owner=None if owner == 0 else Side.WHITE if owner == 1 else Side.BLACK,
            dice=dice,
            offer=offer,
            score=score,
            crawford_jacoby=cj,
            length=length,
            max_cube=1 << max_log,
            extra=tuple(parts[10:]),
        )


def xgid(position: Position, **kw: object) -> str:
    """Shortcut: the XGID text of ``position`` with the other fields as keywords."""
    return Xgid(position, **kw).text()  # type: ignore[arg-type]
