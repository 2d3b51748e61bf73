"""Legal plays against a golden file written from gnubg's answers (runs without gnubg).

The file holds, for 90 positions (a third entering from the bar, a third bearing off) and all
21 rolls, how many distinct positions gnubg's plays reach and a digest of their Position IDs.
Regenerate with ``scripts/gnubg_peer.py --golden tests/rules/golden/gnubg_plays.txt --seed 99
--positions 90``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from rules.dice import Dice
from rules.moves import legal_plays
from rules.position import Position

GOLDEN = Path(__file__).parent / "golden" / "gnubg_plays.txt"


def digest(after_ids: set[str]) -> str:
    return hashlib.sha1(" ".join(sorted(after_ids)).encode("ascii")).hexdigest()[:16]


def test_legal_plays_match_gnubg_golden_file() -> None:
    rows = [line.split() for line in GOLDEN.read_text().splitlines() if line and not line.startswith("#")]
    assert len(rows) == 90 * 21
    wrong = []
    for pid, roll, count, dig in rows:
        pos = Position.from_gnubg_id(pid)
        afters = {p.after.gnubg_id() for p in legal_plays(pos, Dice.parse(roll))}
        if len(afters) != int(count) or digest(afters) != dig:
            wrong.append(f"{pid} {roll}: bgref {len(afters)} plays, gnubg {count}")
    assert not wrong, "\n".join(wrong[:20])
