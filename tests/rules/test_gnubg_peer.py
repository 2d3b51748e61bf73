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


XGID_SCRIPT = """
import os, gnubg
gnubg.command("set player 0 human")
gnubg.command("set player 1 human")
gnubg.command("new game")
with open(os.environ["XG_IN"]) as f, open(os.environ["XG_OUT"], "w") as out:
    for line in f:
        gnubg.command("set xgid " + line.strip())
        out.write(line.strip() + "\\t" + gnubg.positionid() + "\\t" + gnubg.matchid() + "\\n")
"""


def test_xgid_and_match_id_agree_with_gnubg(gnubg_path: str, tmp_path: Path) -> None:
    import os
    import subprocess

    from rules.ids import MatchId, Xgid

    xgids = [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10",
        "XGID=aa--BBB-C---dC---c-e--A-B-:1:-1:-1:52:2:4:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:2:1:-1:63:3:1:0:5:10",
        "XGID=-b----E-C---eE---c-e---AA-:1:1:1:52:3:1:0:7:10",
        "XGID=-b----E-C---eE---c-e---AA-:1:-1:-1:52:3:1:0:7:10",
    ]
    xgids += [Xgid(p, dice=(3, 1), length=9, score=(2, 5)).text() for p in peer_positions(5, 9)[::3]]
    (tmp_path / "in.txt").write_text("\n".join(xgids) + "\n")
    (tmp_path / "s.py").write_text(XGID_SCRIPT)
    env = dict(os.environ, XG_IN=str(tmp_path / "in.txt"), XG_OUT=str(tmp_path / "out.txt"))
    subprocess.run([gnubg_path, "-t", "-q", "-p", str(tmp_path / "s.py")], env=env, cwd=tmp_path,
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   timeout=120, check=False)
    rows = [line.split("\t") for line in (tmp_path / "out.txt").read_text().splitlines()]
    assert len(rows) == len(xgids)
    for text, pid, mid in rows:
        x = Xgid.parse(text)
        m = MatchId.decode(mid)
        assert pid == x.position.gnubg_id(), text
        # gnubg makes the side on roll its player 1 when it imports an XGID: map colours through that.
        same = m.on_roll is x.turn

        def player(side: Side) -> Side:
            return side if same else side.opponent  # noqa: B023

        assert m.turn is m.on_roll
        assert m.dice is not None and sorted(m.dice) == sorted(x.dice or ())
        assert m.cube == x.cube
        assert m.cube_owner == (None if x.cube_owner is None else player(x.cube_owner))
        assert m.length == x.length
        assert (m.score[player(Side.WHITE)], m.score[player(Side.BLACK)]) == x.score
