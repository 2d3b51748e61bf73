"""``bgref rules plays|judge`` and ``bgref demo`` end to end (in-process)."""

from __future__ import annotations

import io
import json
import sys

import pytest

from referee.cli import main
from rules.bench import main as bench_main


def run(argv: list[str], capsys: pytest.CaptureFixture[str], stdin: str | None = None) -> tuple[int, str, str]:
    if stdin is not None:
        old = sys.stdin
        sys.stdin = io.StringIO(stdin)
        try:
            code = main(argv)
        finally:
            sys.stdin = old
    else:
        code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_plays_json(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules", "plays", "--position", "4HPwATDgc/ABMA", "--dice", "31", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["dice"] == "31" and len(data["plays"]) == 16
    assert {"play": "8/5 6/5", "after": "sGfwATDgc/ABMA"} in data["plays"]


def test_plays_text(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["rules", "plays", "--position", "4HPwATDgc/ABMA", "--dice", "3-1"], capsys)
    assert code == 0 and "16 legal play(s)" in out and "8/5 6/5" in out and "sGfwATDgc/ABMA" in out


def test_no_legal_play_gives_one_empty_play(capsys: pytest.CaptureFixture[str]) -> None:
    from rules.position import Position

    closed = Position.from_points({25: 1, 6: 14}, {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 2})
    pid = closed.gnubg_id()
    code, out, _ = run(["rules", "plays", "--position", pid, "--dice", "66", "--json"], capsys)
    plays = json.loads(out)["plays"]
    assert code == 0 and plays == [{"play": "", "after": closed.swap_turn().gnubg_id()}]


def test_batch(capsys: pytest.CaptureFixture[str]) -> None:
    lines = "\n".join(
        json.dumps(c)
        for c in (
            {"position": "4HPwATDgc/ABMA", "dice": "31"},
            {"position": "4HPwATDgc/ABMA", "dice": "66"},
            {"position": "4HPwATDgc/ABMA", "dice": "7"},
        )
    )
    code, out, _ = run(["rules", "plays", "--batch", "-"], capsys, stdin=lines + "\n")
    rows = [json.loads(line) for line in out.splitlines()]
    assert len(rows) == 3 and len(rows[0]["plays"]) == 16 and len(rows[1]["plays"]) == 11
    assert "error" in rows[2] and rows[2]["line"] == 3
    assert code == 1


def test_judge_legal_and_illegal(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["rules", "judge", "--before", "4HPwATDgc/ABMA", "--dice", "31"]
    code, out, _ = run([*base, "--after", "sGfwATDgc/ABMA", "--json"], capsys)
    data = json.loads(out)
    assert code == 0 and data["legal"] and data["play"] == "8/5 6/5" and data["reasons"] == []
    code, out, _ = run([*base, "--after", "4HPwATDgc/ABMA", "--json"], capsys)
    data = json.loads(out)
    assert code == 1 and not data["legal"] and data["reasons"][0]["code"] == "unchanged"
    assert len(data["nearest"]) == 3
    code, out, _ = run([*base, "--after", "4HPwATDgc/ABMA"], capsys)
    assert code == 1 and "illegal" in out and "nearest legal" in out


@pytest.mark.parametrize(
    "argv",
    [
        ["rules", "plays", "--position", "4HPwATDgc/ABMA", "--dice", "7"],
        ["rules", "plays", "--position", "nonsense", "--dice", "31"],
        ["rules", "plays", "--position", "4HPwATDgc/ABMA"],
        ["rules", "judge", "--before", "4HPwATDgc/ABMA", "--dice", "31", "--after", "x"],
    ],
)
def test_bad_input_one_line_error(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, _out, err = run(argv, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("bgref rules: error:")


def test_rules_demo_runs(capsys: pytest.CaptureFixture[str]) -> None:
    # The rules-only demo (``bgref demo --rules`` once the full referee demo owns ``bgref demo``).
    import argparse

    from referee.commands.demo import _run

    code = _run(argparse.Namespace(seed=3, plies=0, illegal_every=5, board=False))
    out = capsys.readouterr().out
    assert code == 0
    assert "ATTEMPT" in out
    assert "[both-dice-not-played]" in out and "[distance-not-a-die]" in out
    assert "wins" in out and "illegal attempt(s) caught" in out


def test_bench_small(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench_main(["--positions", "3", "--repeat", "1", "--no-gnubg", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cases"] == 63 and data["plays"] > 63
