"""Backgammon-Quartet (Walter L. Richard, 1931): four players, two games, the same throws.

Two partnerships sit at one divided board: in game 1 ``a1`` (WHITE) plays ``b1`` (BLACK),
in game 2 ``a2`` (WHITE) plays ``b2`` (BLACK).  One caster, chosen by thrown dice
(highest single die, ties thrown again among the tied), throws for everyone: both games
are played with the same throw.  The caster's side moves first in both games.  As soon
as any player bears off his last man, both games stop.

Scoring, as we read Richard's rules: the player who bore off scores 15 for the game plus,
for each man his opponent still has, 1 to 5 by where it stands (the opponent's own inner
table 1, his outer table 2, the winner's outer table 3, the winner's inner table 4, the
bar 5).  In the stopped game, each side counts the other's men the same way without the
15, and the smaller count is paid to the larger side as the difference.  A partnership's
two counts are netted; each partner wins or loses the net, so the ledger of the four
always sums to zero.

>>> q = Quartet(("Al", "Bea", "Cal", "Di"), caster="Al")
>>> q.sides
{'Al': Side.WHITE, 'Cal': Side.WHITE, 'Bea': Side.BLACK, 'Di': Side.BLACK}
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from rules.dice import Dice
from rules.laws.chouette import order_by_throws
from rules.laws.machine import cached_legal_plays
from rules.laws.scoring import men_count, quartet_count
from rules.position import Position, Side


class QuartetError(ValueError):
    """A quartet action that cannot be: an illegal play, a throw after the games stopped."""


def choose_caster(players: Sequence[str], throw: Callable[[str], int]) -> str:
    """The caster: the highest single die; ties are thrown again among the tied."""
    return order_by_throws(players, throw)[0]


@dataclass(frozen=True, slots=True)
class QuartetScore:
    """Counts per game (positive for partnership A) and the net for each partnership."""

    game_counts: tuple[int, int]
    net_a: int
    finisher: str


class Quartet:
    """Two games on one board with shared throws; ``players`` = (a1, b1, a2, b2)."""

    def __init__(self, players: tuple[str, str, str, str], *, caster: str) -> None:
        if len(set(players)) != 4:
            raise QuartetError(f"a quartet needs four different players, got {players!r}")
        if caster not in players:
            raise QuartetError(f"the caster {caster!r} is not one of {players!r}")
        self.players = players
        self.a1, self.b1, self.a2, self.b2 = players
        self.caster = caster
        first = Side.WHITE if caster in (self.a1, self.a2) else Side.BLACK
        self.positions = [Position.initial(first), Position.initial(first)]
        self._ledger: dict[str, int] = dict.fromkeys(players, 0)
        self.result: QuartetScore | None = None

    @property
    def sides(self) -> dict[str, Side]:
        return {self.a1: Side.WHITE, self.a2: Side.WHITE, self.b1: Side.BLACK, self.b2: Side.BLACK}

    @property
    def ledger(self) -> tuple[tuple[str, int], ...]:
        return tuple(self._ledger.items())

    @property
    def on_roll(self) -> Side:
        return self.positions[0].turn

    def throw(self, dice: Dice | tuple[int, int], after1: Position, after2: Position) -> QuartetScore | None:
        """Both games play the same throw; each observed board must be a legal play of it.

        Returns the score when a player has borne off his last man (both games stop).
        """
        if self.result is not None:
            raise QuartetError("both games have stopped: a player has borne off")
        d = dice if isinstance(dice, Dice) else Dice.of(dice)
        new = []
        for k, (before, after) in enumerate(zip(self.positions, (after1, after2), strict=True), start=1):
            plays = cached_legal_plays(before, d, False)
            play = plays.find(after)
            if play is None:
                raise QuartetError(f"game {k}: not a legal play of {d} in {before.gnubg_id()}: {after.text()}")
            new.append(play.after)
        self.positions = new
        for k, pos in enumerate(self.positions):
            w = pos.winner()
            if w is not None:
                self.result = self._score(k, w)
                return self.result
        return None

    def _score(self, finished: int, winner: Side) -> QuartetScore:
        counts = [0, 0]
        done = self.positions[finished]
        c = quartet_count(done, winner)
        counts[finished] = c if winner is Side.WHITE else -c
        other = self.positions[1 - finished]
        # the stopped game: each side's men counted as if the other had won; smaller pays the difference
        white_owes = men_count(other, Side.BLACK, bar_weight=5)
        black_owes = men_count(other, Side.WHITE, bar_weight=5)
        counts[1 - finished] = black_owes - white_owes
        net = counts[0] + counts[1]
        for name in (self.a1, self.a2):
            self._ledger[name] += net
        for name in (self.b1, self.b2):
            self._ledger[name] -= net
        finisher = (self.a1, self.b1, self.a2, self.b2)[finished * 2 + (0 if winner is Side.WHITE else 1)]
        return QuartetScore((counts[0], counts[1]), net, finisher)
