"""GNU Backgammon imports what we write: our .mat and SGF exports of real matches read back
in gnubg with the same throws, plays, cube actions and results."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from rules.matchfile import check_match, write_mat, write_sgf
from rules.position import Side
from rules.record import Double, Drop, MatchRecord, Move, ResultKind, Take

pytestmark = [pytest.mark.gnubg, pytest.mark.shared_data]

REAL = (
    "gibbon_anon/7point.sgf",  # resignation, cube, dice low-high
    "kevung_gbf_hsbt/test.txt",  # XG notation, BOM, CRLF, non-ASCII names
    "bglab_lasse/match10030560.txt",  # Galaxy: unmarked hits, "Losses", "and the match"
    "bglab_lasse/Magic - Lasse 5pt Backgammon Studio 2024_04_22 19_06_30.txt",  # Studio notation
    "bglab_lasse/match1061881.txt",  # backgammon with the cube at 2 (capped result)
)

_SCRIPT = """
import gnubg, json
out = []
for kind, path in {jobs!r}:
    gnubg.command(("import mat " if kind == "mat" else "load match ") + path)
    out.append(gnubg.match(analysis=0, boards=0, statistics=0, verbose=0))
with open({result!r}, "w") as f:
    json.dump(out, f)
"""


def _expected(record: MatchRecord, plays: dict[tuple[int, int], object]) -> list[dict[str, object]]:
    games = []
    for gi, game in enumerate(record.games):
        actions: list[tuple[object, ...]] = []
        for ai, a in enumerate(game.actions):
            who = "X" if a.player is Side.WHITE else "O"
            if isinstance(a, Move):
                steps = sorted((s.start, s.end) for s in plays[(gi, ai)].steps)  # type: ignore[attr-defined]
                actions.append(("move", who, tuple(sorted(a.dice)), tuple(steps)))
            elif isinstance(a, Double):
                actions.append(("double", who))
            elif isinstance(a, Take):
                actions.append(("take", who))
            elif isinstance(a, Drop):
                actions.append(("drop", who))
        assert game.result is not None
        # gnubg scores a game that ended on the board from the board and the cube (some
        # exporters write the points capped at what the winner needed).
        cube = max([1, *[a.value for a in game.actions if isinstance(a, Double)][:_takes(game)]])
        full = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3}.get(game.result.kind)
        games.append(
            {
                "actions": actions,
                "winner": "X" if game.result.winner is Side.WHITE else "O",
                "points": full * cube if full else game.result.points,
                "resigned": game.result.kind in (ResultKind.RESIGN, ResultKind.FORFEIT),
            }
        )
    return games


def _takes(game: object) -> int:
    return sum(1 for a in game.actions if isinstance(a, Take))  # type: ignore[attr-defined]


def _actual(match: dict[str, object]) -> list[dict[str, object]]:
    games = []
    for g in match["games"]:  # type: ignore[attr-defined]
        actions: list[tuple[object, ...]] = []
        for a in g["game"]:
            if a["action"] == "move":
                steps = tuple(sorted((f, t) for f, t in a["move"]))
                actions.append(("move", a["player"], tuple(sorted(a["dice"])), steps))
            elif a["action"] in ("double", "take", "drop"):
                actions.append((a["action"], a["player"]))
        info = g["info"]
        games.append(
            {"actions": actions, "winner": info["winner"], "points": info["points-won"], "resigned": info["resigned"]}
        )
    return games


def test_gnubg_imports_our_exports(shared_data: Path, gnubg_path: str, tmp_path: Path) -> None:
    jobs: list[tuple[str, str]] = []
    expected: list[tuple[str, MatchRecord, list[dict[str, object]]]] = []
    for i, name in enumerate(REAL):
        report = check_match(shared_data / "matches" / name)
        assert report.ok, [str(x) for x in report.issues]
        record = report.record
        want = _expected(record, report.plays)  # type: ignore[arg-type]
        mat = tmp_path / f"m{i}.mat"
        mat.write_text(write_mat(record), encoding="utf-8")
        sgf = tmp_path / f"m{i}.sgf"
        sgf.write_text(write_sgf(record), encoding="utf-8")
        jobs += [("mat", str(mat)), ("sgf", str(sgf))]
        expected += [(f"{name} as .mat", record, want), (f"{name} as .sgf", record, want)]
    result = tmp_path / "result.json"
    script = tmp_path / "import.py"
    script.write_text(_SCRIPT.format(jobs=jobs, result=str(result)))
    proc = subprocess.run(
        [gnubg_path, "-t", "-q", "-p", str(script)], capture_output=True, text=True, timeout=300, check=False
    )
    assert result.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Unrecognised" not in proc.stdout, proc.stdout
    matches = json.loads(result.read_text())
    assert len(matches) == len(expected)
    for (label, record, want), got in zip(expected, matches, strict=True):
        info = got["match-info"]
        assert info["match-length"] == record.length, label
        names = (info["X"]["name"], info["O"]["name"])
        # gnubg's .mat import writes spaces in names as underscores.
        assert tuple(n.replace("_", " ") for n in names) == tuple(n.replace("_", " ") for n in record.players), label
        assert _actual(got) == want, label
