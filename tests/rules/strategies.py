"""Hypothesis strategies for positions: from seeded random games, and random valid placements."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from rules.bench import random_games
from rules.dice import Dice
from rules.position import Position, Side


def placed_position(seed: int) -> Position:
    """A random position that can occur on a board: 15 checkers a side, no shared points."""
    rng = random.Random(seed)
    white = [0] * 26
    black = [0] * 26
    spread = rng.choice([25, 12, 6])  # sometimes everything near home, to reach bear-offs
    for _ in range(15):
        white[rng.choice(range(0, spread + 1)) if rng.random() < 0.9 else 25] += 1
    for _ in range(15):
        while True:
            p = rng.choice(range(0, spread + 1)) if rng.random() < 0.9 else 25
            if 1 <= p <= 24 and white[25 - p]:
                continue
            black[p] += 1
            break
    return Position(tuple(white), tuple(black), Side(rng.randint(0, 1)))


def game_position(seed: int, plies: int) -> Position:
    for k, (pos, _dice, _after) in enumerate(random_games(seed)):
        if k >= plies:
            return pos
    raise AssertionError("unreachable")


positions = st.one_of(
    st.builds(placed_position, st.integers(0, 2**32)),
    st.builds(game_position, st.integers(0, 2**16), st.integers(0, 120)),
)
dice = st.builds(Dice, st.integers(1, 6), st.integers(1, 6))
