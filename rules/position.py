"""Backgammon positions: the board, the bar, borne-off checkers and the side on roll.

Points are numbered from each side's own point of view: a side's 1-point is the
deepest point of its home board, its 24-point is the opponent's 1-point, and it
bears off past its 1-point.  Per side the counts are stored in one 26-tuple:

* index 0  (``OFF``): checkers borne off,
* index 1..24:       checkers on the side's own points 1..24,
* index 25 (``BAR``): checkers on the bar.

A point seen from WHITE as ``p`` is BLACK's point ``25 - p``.  "Absolute" point
numbers used by the camera side are WHITE's numbers.

>>> Position.initial().gnubg_id()
'4HPwATDgc/ABMA'
>>> Position.from_gnubg_id('4HPwATDgc/ABMA') == Position.initial()
True
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from enum import IntEnum
from typing import Final

OFF: Final = 0
BAR: Final = 25
CHECKERS: Final = 15

_INITIAL_LAYOUT: Final = {24: 2, 13: 5, 8: 3, 6: 5}


class Side(IntEnum):
    """The two players, named by the colour of their checkers (SGF's W and B)."""

    WHITE = 0
    BLACK = 1

    @property
    def opponent(self) -> Side:
        return Side(1 - self.value)

    @property
    def letter(self) -> str:
        return "W" if self is Side.WHITE else "B"

    def __repr__(self) -> str:
        return f"Side.{self.name}"


class PositionError(ValueError):
    """A position string (gnubg ID, XGID, text) that cannot be read."""


def to_absolute(side: Side, point: int) -> int:
    """Convert ``side``'s own point number (1..24) to WHITE's numbering."""
    return point if side is Side.WHITE else 25 - point


def from_absolute(side: Side, point: int) -> int:
    """Convert a WHITE-numbered point (1..24) to ``side``'s own numbering."""
    return point if side is Side.WHITE else 25 - point


def _validate_counts(counts: tuple[int, ...], name: str) -> None:
    if len(counts) != 26:
        raise PositionError(f"{name} needs 26 counts (off, points 1-24, bar), got {len(counts)}")


@dataclass(frozen=True, slots=True)
class Position:
    """An immutable backgammon position.

    ``white`` and ``black`` are 26-tuples in each side's own numbering (see the
    module docstring); ``turn`` is the side on roll.  A position that cannot
    occur in play (16 checkers, both colours on a point, a negative count) can be
    built; :meth:`problems` lists what is wrong with it.
    """

    white: tuple[int, ...]
    black: tuple[int, ...]
    turn: Side = Side.WHITE

    def __post_init__(self) -> None:
        _validate_counts(self.white, "white")
        _validate_counts(self.black, "black")

    # ------------------------------------------------------------------ construction
    @classmethod
    def initial(cls, turn: Side = Side.WHITE) -> Position:
        """The starting position (2-5-3-5 for each side)."""
        counts = [0] * 26
        for point, n in _INITIAL_LAYOUT.items():
            counts[point] = n
        return cls(tuple(counts), tuple(counts), turn)

    @classmethod
    def from_points(
        cls,
        white: dict[int, int],
        black: dict[int, int],
        turn: Side = Side.WHITE,
        *,
        fill_off: bool = True,
    ) -> Position:
        """Build from ``{own point: count}`` maps (25 = bar, 0 = off).

        With ``fill_off`` the borne-off count makes each side up to 15 checkers.

        >>> Position.from_points({6: 15}, {6: 15}).pip_count(Side.WHITE)
        90
        """

        def build(m: dict[int, int]) -> tuple[int, ...]:
            counts = [0] * 26
            for point, n in m.items():
                if not 0 <= point <= 25:
                    raise PositionError(f"point {point} is not 0 (off), 1-24 or 25 (bar)")
                counts[point] += n
            if fill_off and OFF not in m:
                counts[OFF] = max(0, CHECKERS - sum(counts))
            return tuple(counts)

        return cls(build(white), build(black), turn)

    @classmethod
    def from_absolute(
        cls,
        white_points: tuple[int, ...] | list[int],
        black_points: tuple[int, ...] | list[int],
        *,
        white_bar: int = 0,
        black_bar: int = 0,
        white_off: int | None = None,
        black_off: int | None = None,
        turn: Side = Side.WHITE,
    ) -> Position:
        """Build from counts per absolute point, as a camera reports them.

        ``white_points[i]`` and ``black_points[i]`` are the counts on WHITE's point
        ``i + 1``.  Missing borne-off counts make each side up to 15.
        """
        if len(white_points) != 24 or len(black_points) != 24:
            raise PositionError("absolute point lists need 24 entries each")
        w = [0] * 26
        b = [0] * 26
        for i in range(24):
            w[i + 1] = white_points[i]
            b[24 - i] = black_points[i]
        w[BAR], b[BAR] = white_bar, black_bar
        w[OFF] = white_off if white_off is not None else max(0, CHECKERS - sum(w[1:]))
        b[OFF] = black_off if black_off is not None else max(0, CHECKERS - sum(b[1:]))
        return cls(tuple(w), tuple(b), turn)

    # ------------------------------------------------------------------ access
    def counts(self, side: Side) -> tuple[int, ...]:
        """The 26-tuple of ``side`` in its own numbering."""
        return self.white if side is Side.WHITE else self.black

    @property
    def on_roll(self) -> tuple[int, ...]:
        return self.counts(self.turn)

    @property
    def opponent(self) -> tuple[int, ...]:
        return self.counts(self.turn.opponent)

    def at(self, point: int) -> tuple[int, int]:
        """(white, black) counts on absolute (WHITE-numbered) point 1..24."""
        if not 1 <= point <= 24:
            raise ValueError(f"absolute point must be 1..24, got {point}")
        return self.white[point], self.black[25 - point]

    def bar(self, side: Side) -> int:
        return self.counts(side)[BAR]

    def borne_off(self, side: Side) -> int:
        return self.counts(side)[OFF]

    def pip_count(self, side: Side) -> int:
        c = self.counts(side)
        return sum(i * c[i] for i in range(1, 26))

    def all_home(self, side: Side) -> bool:
        """True when every checker of ``side`` still in play is in its home board."""
        c = self.counts(side)
        return not any(c[7:26])

    # ------------------------------------------------------------------ transforms
    def with_turn(self, turn: Side) -> Position:
        return Position(self.white, self.black, turn)

    def swap_turn(self) -> Position:
        return Position(self.white, self.black, self.turn.opponent)

    def mirror(self) -> Position:
        """Swap the colours (and the side on roll): the same game seen by the other side."""
        return Position(self.black, self.white, self.turn.opponent)

    def replace(self, side: Side, counts: tuple[int, ...]) -> Position:
        if side is Side.WHITE:
            return Position(counts, self.black, self.turn)
        return Position(self.white, counts, self.turn)

    # ------------------------------------------------------------------ validity
    def problems(self) -> list[str]:
        """Everything that makes this position impossible in play (empty when fine)."""
        found: list[str] = []
        for side in Side:
            c = self.counts(side)
            name = side.name.lower()
            for i, n in enumerate(c):
                if n < 0:
                    where = "off" if i == OFF else "the bar" if i == BAR else f"point {i}"
                    found.append(f"{name} has a negative count ({n}) on {where}")
            total = sum(c)
            if total != CHECKERS:
                found.append(f"{name} has {total} checkers, not {CHECKERS}")
        for p in range(1, 25):
            w, b = self.at(p)
            if w > 0 and b > 0:
                found.append(f"both colours on point {p} (white's numbering): {w} white, {b} black")
        if self.white[OFF] == CHECKERS and self.black[OFF] == CHECKERS:
            found.append("both sides have borne off all their checkers")
        return found

    def is_valid(self) -> bool:
        return not self.problems()

    def winner(self) -> Side | None:
        """The side that has borne off all fifteen checkers, if any."""
        for side in Side:
            if self.counts(side)[OFF] >= CHECKERS:
                return side
        return None

    # ------------------------------------------------------------------ gnubg Position ID
    def gnubg_key(self) -> bytes:
        """The 10-byte gnubg position key (side *not* on roll first, as gnubg's code does)."""
        bits: list[int] = []
        for side in (self.turn.opponent, self.turn):
            c = self.counts(side)
            for point in range(1, 26):  # gnubg: points 0..23 then the bar (24)
                n = c[point]
                if n < 0:
                    raise PositionError(f"negative count cannot be encoded: {self!r}")
                bits.extend([1] * n)
                bits.append(0)
        if len(bits) > 80:
            raise PositionError(f"too many checkers to encode a gnubg Position ID: {self.problems()}")
        key = bytearray(10)
        for k, bit in enumerate(bits):
            if bit:
                key[k >> 3] |= 1 << (k & 7)
        return bytes(key)

    def gnubg_id(self) -> str:
        """The GNU Backgammon Position ID (14 base64 characters)."""
        return base64.b64encode(self.gnubg_key()).decode("ascii").rstrip("=")

    @classmethod
    def from_gnubg_id(cls, position_id: str, turn: Side = Side.WHITE) -> Position:
        """Read a gnubg Position ID; ``turn`` says which colour is on roll.

        >>> Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK).counts(Side.WHITE)[5]
        2
        """
        text = position_id.strip()
        if text.lower().startswith("position id:"):
            text = text.split(":", 1)[1].strip()
        if len(text) != 14:
            raise PositionError(f"gnubg Position ID must have 14 characters, got {len(text)}: {position_id!r}")
        try:
            key = base64.b64decode(text + "==", validate=True)
        except (binascii.Error, ValueError) as exc:
            raise PositionError(f"not a gnubg Position ID (bad base64): {position_id!r}") from exc
        sides: list[list[int]] = [[0] * 26, [0] * 26]
        player, point = 0, 1
        for k in range(80):
            if (key[k >> 3] >> (k & 7)) & 1:
                if player > 1:
                    raise PositionError(f"gnubg Position ID has too many checkers: {position_id!r}")
                sides[player][point] += 1
            else:
                point += 1
                if point > 25:
                    player, point = player + 1, 1
        if player < 2:
            raise PositionError(f"gnubg Position ID is missing point separators (too many checkers): {position_id!r}")
        for counts in sides:
            on_board = sum(counts[1:])
            if on_board > CHECKERS:
                raise PositionError(f"gnubg Position ID has {on_board} checkers for one side: {position_id!r}")
            counts[OFF] = CHECKERS - on_board
        not_on_roll, on_roll = tuple(sides[0]), tuple(sides[1])
        if turn is Side.WHITE:
            return cls(on_roll, not_on_roll, turn)
        return cls(not_on_roll, on_roll, turn)

    # ------------------------------------------------------------------ XGID
    def xgid(self) -> str:
        """The XGID of this position (cube centred at 1, no dice, money); see :class:`rules.ids.Xgid`.

        >>> Position.initial().xgid()
        'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10'
        """
        from rules.ids import Xgid

        return Xgid(self).text()

    @classmethod
    def from_xgid(cls, text: str) -> Position:
        """The position (side on roll included) of an XGID; the other fields via :class:`rules.ids.Xgid`."""
        from rules.ids import Xgid

        return Xgid.parse(text).position

    # ------------------------------------------------------------------ text
    def text(self) -> str:
        """A plain, readable one-line form: ``W:24x2,13x5,8x3,6x5 B:... turn=W``.

        Counts are in each side's own numbering; ``bar`` and ``off`` are named.
        """

        def side_text(c: tuple[int, ...]) -> str:
            parts = []
            if c[BAR]:
                parts.append(f"barx{c[BAR]}")
            parts.extend(f"{p}x{c[p]}" for p in range(24, 0, -1) if c[p])
            if c[OFF]:
                parts.append(f"offx{c[OFF]}")
            return ",".join(parts) or "-"

        return f"W:{side_text(self.white)} B:{side_text(self.black)} turn={self.turn.letter}"

    @classmethod
    def from_text(cls, text: str) -> Position:
        """Read the form written by :meth:`text`."""
        fields = text.split()
        parsed: dict[str, dict[int, int]] = {}
        turn = Side.WHITE
        try:
            for f in fields:
                key, _, value = f.partition(":") if ":" in f else f.partition("=")
                if key == "turn":
                    turn = Side.WHITE if value.upper() == "W" else Side.BLACK if value.upper() == "B" else None  # type: ignore[assignment]
                    if turn is None:
                        raise PositionError(f"turn must be W or B in {text!r}")
                    continue
                if key not in ("W", "B"):
                    raise PositionError(f"unknown field {key!r} in {text!r}")
                m: dict[int, int] = {}
                if value != "-":
                    for item in value.split(","):
                        where, _, n = item.partition("x")
                        idx = BAR if where == "bar" else OFF if where == "off" else int(where)
                        m[idx] = m.get(idx, 0) + int(n)
                parsed[key] = m
        except ValueError as exc:
            if isinstance(exc, PositionError):
                raise
            raise PositionError(f"cannot read position text {text!r}: {exc}") from exc
        if set(parsed) != {"W", "B"}:
            raise PositionError(f"position text needs W: and B: fields: {text!r}")
        return cls.from_points(parsed["W"], parsed["B"], turn)

    def __repr__(self) -> str:
        if all(n >= 0 for n in self.white + self.black) and sum(self.white[1:]) + sum(self.black[1:]) <= 30:
            try:
                return f"Position.from_gnubg_id({self.gnubg_id()!r}, {self.turn!r})"
            except PositionError:
                pass
        return f"Position.from_text({self.text()!r})"

    def diagram(self) -> str:
        """A small ASCII diagram for directors' logs (never shown to players)."""
        top = range(13, 25)
        bottom = range(12, 0, -1)

        def cell(p: int) -> str:
            w, b = self.at(p)
            if w and b:
                return "!!"
            if w:
                return f"{w:>2}W" if w < 10 else f"{w}W"
            if b:
                return f"{b:>2}B" if b < 10 else f"{b}B"
            return "  ."

        lines = [
            " ".join(f"{p:>3}" for p in top),
            " ".join(cell(p) for p in top),
            f"bar W:{self.white[BAR]} B:{self.black[BAR]}   off W:{self.white[OFF]} B:{self.black[OFF]}",
            " ".join(cell(p) for p in bottom),
            " ".join(f"{p:>3}" for p in bottom),
            f"{self.turn.name.lower()} on roll",
        ]
        return "\n".join(lines)
