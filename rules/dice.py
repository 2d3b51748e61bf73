"""A throw of the two dice.

>>> d = Dice.parse("3-1")
>>> str(d), d.high, d.low, d.is_double, d.pips
('31', 3, 1, False, (3, 1))
>>> Dice(4, 4).pips
(4, 4, 4, 4)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

_DICE_TEXT: Final = re.compile(r"^\s*([1-6])\s*[-/, x]?\s*([1-6])\s*$", re.IGNORECASE)


class DiceError(ValueError):
    """A throw that cannot be read (a die outside 1-6, unreadable text)."""


@dataclass(frozen=True, slots=True)
class Dice:
    """Two dice as thrown (``d1`` and ``d2`` keep the order they were read in)."""

    d1: int
    d2: int

    def __post_init__(self) -> None:
        for d in (self.d1, self.d2):
            if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6:
                raise DiceError(f"a die shows 1 to 6, got {d!r} in ({self.d1!r}, {self.d2!r})")

    @classmethod
    def parse(cls, text: str) -> Dice:
        """Read ``"31"``, ``"3-1"``, ``"13"``, ``"3 1"`` (also ``"3/1"``, ``"3,1"``, ``"3x1"``)."""
        if not isinstance(text, str):
            raise DiceError(f"dice must be text like '31', got {text!r}")
        m = _DICE_TEXT.match(text)
        if m is None:
            raise DiceError(f"cannot read dice {text!r}: expected two digits 1-6 such as '31' or '3-1'")
        return cls(int(m.group(1)), int(m.group(2)))

    @classmethod
    def of(cls, dice: Dice | tuple[int, int] | str) -> Dice:
        """Accept a :class:`Dice`, a pair of ints or text."""
        if isinstance(dice, Dice):
            return dice
        if isinstance(dice, str):
            return cls.parse(dice)
        try:
            d1, d2 = dice
        except (TypeError, ValueError) as exc:
            raise DiceError(f"dice must be two numbers, got {dice!r}") from exc
        return cls(d1, d2)

    @property
    def high(self) -> int:
        return self.d1 if self.d1 >= self.d2 else self.d2

    @property
    def low(self) -> int:
        return self.d2 if self.d1 >= self.d2 else self.d1

    @property
    def is_double(self) -> bool:
        return self.d1 == self.d2

    @property
    def pips(self) -> tuple[int, ...]:
        """The dice to play: four for a double, else (high, low)."""
        if self.d1 == self.d2:
            return (self.d1,) * 4
        return (self.high, self.low)

    @property
    def total(self) -> int:
        return sum(self.pips)

    def as_tuple(self) -> tuple[int, int]:
        """(high, low)."""
        return (self.high, self.low)

    @staticmethod
    def all_rolls() -> tuple[Dice, ...]:
        """The 21 distinct rolls, doubles included, high die first."""
        return tuple(Dice(h, lo) for h in range(1, 7) for lo in range(1, h + 1))

    def __str__(self) -> str:
        return f"{self.high}{self.low}"

    def __repr__(self) -> str:
        return f"Dice({self.d1}, {self.d2})"
