"""The doubling cube: value, owner, who may double, takes, drops, beavers, automatic doubles.

>>> c = Cube()
>>> c.shown, c.owner
(64, None)
>>> c.take(Side.BLACK)
Cube(value=2, owner=Side.BLACK)
>>> c.take(Side.BLACK).may_double(Side.WHITE)
'the cube belongs to black'
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.position import Side


class CubeError(ValueError):
    """A cube value that cannot be: not a power of two, or beyond the limit."""


@dataclass(frozen=True, slots=True)
class Cube:
    """Value in force and owner (``None``: centred, either player may double)."""

    value: int = 1
    owner: Side | None = None

    def __post_init__(self) -> None:
        if self.value < 1 or self.value & (self.value - 1):
            raise CubeError(f"a cube value is a power of two, got {self.value!r}")

    @property
    def centred(self) -> bool:
        return self.owner is None

    @property
    def shown(self) -> int:
        """The face the cube shows: a centred cube at 1 shows 64."""
        return 64 if self.centred and self.value == 1 else self.value

    @property
    def next_value(self) -> int:
        return self.value * 2

    def may_double(self, side: Side, *, crawford_game: bool = False, limit: int = 0) -> str | None:
        """Why ``side`` may not double now (None when he may), apart from the turn."""
        if crawford_game:
            return "no doubling in the Crawford game"
        if self.owner is not None and self.owner is not side:
            return f"the cube belongs to {self.owner.name.lower()}"
        if limit and self.next_value > limit:
            return f"the cube is at its limit of {limit}"
        return None

    def take(self, taker: Side) -> Cube:
        """The cube after ``taker`` accepts a double: twice the value, on his side."""
        return Cube(self.next_value, taker)

    def beaver(self, taker: Side) -> Cube:
        """The taker redoubles at once and keeps the cube: four times the value."""
        return Cube(self.value * 4, taker)

    def automatic(self, limit: int = 0) -> Cube:
        """An automatic double on equal opening dice (stays centred); capped at ``limit``."""
        if limit and self.next_value > limit:
            return self
        return Cube(self.next_value, None)

    def __repr__(self) -> str:
        return f"Cube(value={self.value}, owner={self.owner!r})"
