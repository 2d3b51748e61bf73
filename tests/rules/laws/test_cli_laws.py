"""``bgref laws list | show | check``."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.cli import main


def test_list(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["laws", "list"]) == 0
    out = capsys.readouterr().out
    for name in ("laws-1931", "bar-point-1931", "iba-1969", "modern", "javea-u3a"):
        assert name in out
    assert "(from modern)" in out


def test_show(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["laws", "show", "javea-u3a"]) == 0
    out = capsys.readouterr().out
    assert "premature_throw = opponent-chooses" in out
    assert "automatic_double_limit = 8" in out
    assert "premature-throw" in out and "rule House 2" in out
    assert "dice-cocked" in out and "rule 4.2" in out


def test_show_unknown(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["laws", "show", "nope"]) == 2
    assert "no built-in code of laws or profile file 'nope'" in capsys.readouterr().err


def test_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = tmp_path / "club.toml"
    good.write_text('name = "club"\nbase = "modern"\n[options]\nbeavers = true\n')
    assert main(["laws", "check", str(good)]) == 0
    out = capsys.readouterr().out
    assert "ok: club" in out and "beavers = True" in out
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "club"\nbase = "modern"\n[options]\nbeaver = true\n')
    assert main(["laws", "check", str(bad)]) == 2
    assert "unknown option 'beaver'" in capsys.readouterr().err
