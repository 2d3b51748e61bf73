"""Scoring: single, gammon, backgammon; Jacoby; 1931 scoring by men and combined; matches.

Men are counted by where the loser's men stand (in the loser's own numbering):

=============================  ====  =======
where                          1931  Quartet
=============================  ====  =======
his own inner table (1-6)         1        1
his own outer table (7-12)        2        2
the winner's outer (13-18)        3        3
the winner's inner (19-24)        4        4
the bar                           4        5
=============================  ====  =======

>>> from rules.position import Position, Side
>>> p = Position.from_points({}, {1: 2, 13: 1}, fill_off=True)
>>> result_kind(p, Side.WHITE)
<ResultKind.SINGLE: 'single'>
>>> men_count(p, Side.WHITE)
5
>>> MatchScore(5).after(Side.WHITE, 4).crawford_next
True
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.laws.codes import RuleSet, Scoring
from rules.laws.cube import Cube
from rules.position import BAR, OFF, Position, Side
from rules.record import ResultKind

MULTIPLIER = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3}


def result_kind(final: Position, winner: Side) -> ResultKind:
    """Single, gammon or backgammon for ``winner`` in the final position."""
    loser = final.counts(winner.opponent)
    if loser[OFF] > 0:
        return ResultKind.SINGLE
    if loser[BAR] > 0 or any(loser[19:25]):
        return ResultKind.BACKGAMMON
    return ResultKind.GAMMON


def _men_weights(point: int, bar_weight: int) -> int:
    if point == BAR:
        return bar_weight
    return (point - 1) // 6 + 1


def men_count(final: Position, winner: Side, *, bar_weight: int = 4) -> int:
    """The 1931 count by men: 1/2/3/4 per loser's man by table, ``bar_weight`` on the bar."""
    loser = final.counts(winner.opponent)
    return sum(n * _men_weights(p, bar_weight) for p, n in enumerate(loser) if p != OFF and n)


def effective_kind(kind: ResultKind, rules: RuleSet) -> ResultKind:
    """The kind as the code counts it (a code without backgammons counts a gammon)."""
    if kind is ResultKind.BACKGAMMON and not rules.backgammons:
        kind = ResultKind.GAMMON
    if kind is ResultKind.GAMMON and not rules.gammons:
        kind = ResultKind.SINGLE
    return kind


def game_points(
    final: Position,
    winner: Side,
    cube: Cube,
    rules: RuleSet,
    *,
    match_length: int = 0,
    scoring: Scoring | None = None,
) -> tuple[ResultKind, int]:
    """The kind and the points won when ``winner`` has borne off all his men.

    Jacoby applies only in money play (``match_length == 0``) with a centred cube.
    ``scoring`` overrides the code's scoring method.
    """
    kind = effective_kind(result_kind(final, winner), rules)
    if rules.jacoby and match_length == 0 and cube.centred and cube.value == 1:
        kind = ResultKind.SINGLE
    method = scoring or rules.scoring
    mult = MULTIPLIER[kind]
    if method is Scoring.GAMES:
        return kind, mult * cube.value
    men = men_count(final, winner)
    if method is Scoring.MEN:
        return kind, men * cube.value
    return kind, men * mult * cube.value


def quartet_count(final: Position, winner: Side) -> int:
    """Backgammon-Quartet: 15 for the game plus 1-5 per opposing man by where he stands."""
    return 15 + men_count(final, winner, bar_weight=5)


def resignation_points(level: int, cube: Cube) -> int:
    """Points for an accepted resignation of a single (1), gammon (2) or backgammon (3)."""
    if level not in (1, 2, 3):
        raise ValueError(f"a resignation is of 1, 2 or 3 times the cube, got {level!r}")
    return level * cube.value


@dataclass(frozen=True, slots=True)
class MatchScore:
    """A match to ``length`` points (0: money play): the score and the Crawford state.

    ``crawford_next`` is True when the next game is the Crawford game; ``post_crawford``
    when the Crawford game has been played.
    """

    length: int
    score: tuple[int, int] = (0, 0)
    crawford_next: bool = False
    post_crawford: bool = False

    @property
    def winner(self) -> Side | None:
        """The match winner, once a player has ``length`` points (never in money play)."""
        if self.length <= 0:
            return None
        for side in Side:
            if self.score[side] >= self.length:
                return side
        return None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def away(self, side: Side) -> int:
        return self.length - self.score[side]

    def after(self, winner: Side, points: int, *, crawford_rule: bool = True) -> MatchScore:
        """The score after ``winner`` wins ``points``, with the Crawford state moved on."""
        s = list(self.score)
        s[winner] += points
        new = (s[0], s[1])
        was_crawford = self.crawford_next
        post = self.post_crawford or was_crawford
        nxt = False
        if crawford_rule and self.length > 0 and not post:
            nxt = max(new) == self.length - 1 and max(self.score) < self.length - 1
        return MatchScore(self.length, new, nxt, post)

    def capped(self, points: int, winner: Side) -> int:
        """Points actually needed: a match score never counts past the length (for display)."""
        if self.length <= 0:
            return points
        return min(points, self.away(winner))


def crawford_games(length: int, scores: list[tuple[int, int]]) -> list[bool]:
    """For a list of scores before each game, which game was the Crawford game."""
    out: list[bool] = []
    seen = False
    for sc in scores:
        is_c = length > 0 and not seen and max(sc) == length - 1
        seen = seen or is_c
        out.append(is_c)
    return out
