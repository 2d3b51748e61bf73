"""A small driver for scripted games: play named moves, throw dice, and read the verdicts."""

from __future__ import annotations

from rules.dice import Dice
from rules.laws.codes import RuleSet, builtin
from rules.laws.events import (
    DiceLifted,
    DiceThrown,
    DieThrow,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
    Rest,
)
from rules.laws.machine import BoardMachine
from rules.laws.verdicts import Verdict
from rules.notation import parse_play
from rules.position import Position, Side

W, B = Side.WHITE, Side.BLACK


class Script:
    """Drive a BoardMachine through a game with readable steps."""

    def __init__(self, rules: RuleSet | str = "modern", *, match_length: int = 0, score: tuple[int, int] = (0, 0)):
        self.rules = builtin(rules) if isinstance(rules, str) else rules
        self.m = BoardMachine(self.rules, match_length=match_length, score=score)

    def setup(self) -> Verdict:
        return self.m.feed(GameSetUp(Position.initial()))

    def opening(self, white: int, black: int) -> Verdict:
        self.m.feed(OpeningDieThrown(W, DieThrow(white)))
        return self.m.feed(OpeningDieThrown(B, DieThrow(black)))

    def start(self, white: int = 3, black: int = 1) -> Script:
        assert self.setup().ok
        v = self.opening(white, black)
        assert v.ok, v
        return self

    def after(self, text: str) -> Position:
        """The position after playing ``text`` with the dice in force."""
        m = self.m
        assert m.dice is not None and m.on_roll is not None
        return parse_play(text, m.turn_start, m.dice, highest_first_in_bearoff=self.rules.highest_first_in_bearoff).after

    def move(self, text: str) -> Verdict:
        return self.m.feed(PositionObserved(self.after(text)))

    def lift(self, side: Side | None = None) -> Verdict:
        assert self.m.on_roll is not None
        return self.m.feed(DiceLifted(side if side is not None else self.m.on_roll))

    def play(self, text: str) -> Verdict:
        """Move the checkers and lift the dice; the lift's verdict."""
        if text:
            v = self.move(text)
            assert not v.is_infraction, v
        return self.lift()

    def throw(self, side: Side, d1: int, d2: int, *, rest: Rest = Rest.RIGHT_TABLE, flat: bool = True) -> Verdict:
        return self.m.feed(DiceThrown(side, (DieThrow(d1), DieThrow(d2, rest, flat))))

    def turn(self, side: Side, d1: int, d2: int, text: str) -> Verdict:
        v = self.throw(side, d1, d2)
        assert v.ok, v
        return self.play(text)

    def dice(self) -> Dice | None:
        return self.m.dice
