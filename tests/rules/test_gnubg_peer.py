"""bgref's legal plays against GNU Backgammon's own move generator.

One gnubg process handles every case: 300 positions from seeded random games (a
third with the mover on the bar, a third bearing off) times all 21 rolls.  The sets
of resulting positions must be equal; every gnubg move string must read back (with
bgref's parser) as the same position, and bgref must write the very same string.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from rules.bench import peer_positions
from rules.position import Side

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "scripts"))
from gnubg_peer import compare

pytestmark = [pytest.mark.gnubg, pytest.mark.slow]


def test_peer_sample_covers_entries_and_bearoffs() -> None:
    positions = peer_positions(2024, 300)
    assert len(positions) == len(set(positions)) == 300
    assert sum(1 for p in positions if p.on_roll[25]) >= 100
    assert sum(1 for p in positions if not any(p.on_roll[7:26])) >= 100
    assert {p.turn for p in positions} == {Side.WHITE, Side.BLACK}


def test_legal_plays_equal_gnubg(gnubg_path: str) -> None:
    positions = peer_positions(2024, 300)
    stats: dict[str, int] = {}
    diffs, cases, _ = compare(list(positions), gnubg_path, stats=stats)
    assert cases == 300 * 21
    assert not diffs, "\n".join(diffs[:20])
    assert stats["parse_errors"] == 0
    assert stats["plays"] > 5000
    assert stats["same_text"] == stats["plays"], stats
