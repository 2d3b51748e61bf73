"""``bgref bench rules``: how fast legal plays are generated and plays judged.

The positions come from seeded random games (:func:`sample_positions`), so every run
measures the same set.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from rules.dice import Dice
from rules.moves import legal_plays
from rules.position import Position, Side


def random_games(seed: int) -> Iterator[tuple[Position, Dice, Position]]:
    """Endless (before, dice, after) triples from games played with random legal plays."""
    rng = random.Random(seed)
    while True:
        pos = Position.initial(Side.WHITE if rng.random() < 0.5 else Side.BLACK)
        while pos.winner() is None:
            dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
            plays = list(legal_plays(pos, dice))
            play = plays[rng.randrange(len(plays))]
            yield pos, dice, play.after
            pos = play.after


def sample_positions(seed: int, n: int) -> list[Position]:
    """``n`` distinct positions (side on roll set) met in seeded random games."""
    seen: set[Position] = set()
    out: list[Position] = []
    for pos, _dice, _after in random_games(seed):
        if pos not in seen:
            seen.add(pos)
            out.append(pos)
            if len(out) >= n:
                break
    return out


def peer_positions(seed: int, n: int) -> list[Position]:
    """``n`` distinct positions from seeded random games, a third each with the mover on the bar,
    bearing off (all checkers home) and anything else (so entries and bear-offs are well covered)."""
    want = [n // 3, n // 3, n - 2 * (n // 3)]
    buckets: list[list[Position]] = [[], [], []]
    seen: set[str] = set()  # by gnubg ID: a position and its mirror image are one case for gnubg
    for pos, _dice, _after in random_games(seed):
        pid = pos.gnubg_id()
        if pid in seen:
            continue
        me = pos.on_roll
        kind = 0 if me[25] else 1 if not any(me[7:26]) else 2
        if len(buckets[kind]) < want[kind]:
            seen.add(pid)
            buckets[kind].append(pos)
            if all(len(b) >= w for b, w in zip(buckets, want, strict=True)):
                break
    return [p for b in buckets for p in b]
