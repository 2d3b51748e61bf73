"""The laws machine's record through the match files and back: infractions, beavers, money play.

A refereed money session (Jacoby and beavers on, as the Javea U3A club plays) goes
machine -> record -> .mat and SGF -> our reader, and (marked ``gnubg``) -> GNU Backgammon's
import -> gnubg's own re-export -> our reader.  What gnubg itself writes was checked by hand
with gnubg 1.07: a beaver is ``Beavers => 4`` in .mat (gnubg's import reads it as the
taker's double and the doubler's take) and, in SGF, the taker's ``double`` followed by the
doubler's ``take`` (gnubg needs that take to score the game right); money play is
`` 0 point match``; an unknown ``; [Tag "..."]`` header becomes the match comment; ``C[...]``
on a move node is kept as that move's comment (on the root it is dropped).
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path

import pytest

from rules.laws.codes import builtin
from rules.laws.events import (
    CubeBeavered,
    CubeDropped,
    CubeOffered,
    DiceLifted,
    DiceThrown,
    DieThrow,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
    SetupCorrected,
)
from rules.laws.machine import BoardMachine
from rules.laws.verdicts import Infraction, Remedy
from rules.matchfile import parse_sgf, read_match_text, write_mat, write_sgf
from rules.notation import parse_play
from rules.position import Position, Side
from rules.record import Double, MatchRecord, ResultKind, Take

W, B = Side.WHITE, Side.BLACK


def _play(m: BoardMachine, text: str) -> None:
    assert m.dice is not None and m.on_roll is not None
    m.feed(PositionObserved(parse_play(text, m.turn_start, m.dice).after))
    assert m.feed(DiceLifted(m.on_roll)).ok


def money_session() -> MatchRecord:
    """Two refereed money games: a beaver, a cocked throw, an early double, a pass; a second game under way."""
    rules = dataclasses.replace(builtin("javea-u3a"), jacoby=True)
    m = BoardMachine(rules, match_length=0, players=("Ann Lee", "Bob"))
    m.feed(GameSetUp(Position.initial()))
    m.feed(OpeningDieThrown(W, DieThrow(3)))
    m.feed(OpeningDieThrown(B, DieThrow(1)))
    _play(m, "8/5 6/5")
    assert m.feed(DiceThrown(B, (DieThrow(6), DieThrow(4, flat=False)))).code is Infraction.DICE_COCKED
    m.feed(DiceThrown.flat(B, 6, 4))
    _play(m, "24/14")
    assert m.feed(CubeOffered(W, 2)).ok
    assert m.feed(CubeBeavered(B, 4)).ok  # Bob beavers: cube at 4, his
    m.feed(DiceThrown.flat(W, 5, 2))
    _play(m, "13/8 13/11")
    assert m.feed(CubeOffered(W, 8)).code is Infraction.DOUBLE_NOT_ALLOWED  # Ann no longer may
    assert m.feed(CubeOffered(B, 8)).ok
    assert m.feed(CubeDropped(W)).ok  # Bob wins 4
    m.feed(GameSetUp(Position.initial()))
    m.feed(OpeningDieThrown(W, DieThrow(2)))
    m.feed(OpeningDieThrown(B, DieThrow(6)))
    _play(m, "24/18 13/11")
    return m.match_record()


def test_machine_record_carries_the_infractions_and_the_beaver() -> None:
    record = money_session()
    g1, g2 = record.games
    assert record.length == 0 and dict(record.meta) == {"Jacoby": "On", "Beaver": "On"}
    assert [type(a).__name__ for a in g1.actions] == ["Move", "Move", "Double", "Take", "Move", "Double", "Drop"]
    beaver = g1.actions[3]
    assert isinstance(beaver, Take) and beaver.beaver and beaver.player is B
    assert g1.result is not None and (g1.result.winner, g1.result.points, g1.result.kind) == (B, 4, ResultKind.DROP)
    assert [(n.code, n.offender, n.action) for n in g1.infractions] == [
        (Infraction.DICE_COCKED, B, 1),
        (Infraction.DOUBLE_NOT_ALLOWED, W, 5),
    ]
    assert g2.result is None and g2.infractions == ()


def test_our_exports_read_back_to_the_same_record() -> None:
    record = money_session()
    mat = write_mat(record)
    assert "\n 0 point match\n" in mat and "Money session" not in mat  # gnubg reads only this
    assert "  2)  Doubles => 2                Beavers => 4" in mat  # as gnubg writes it
    assert mat.count('; [Infraction "game 1: bgref infraction: ') == 2
    assert read_match_text(mat, "m.mat") == record
    sgf = write_sgf(record)
    assert ";W[double]\n;B[double]\n;W[take]\n" in sgf and "beaver" not in sgf  # gnubg's beaver
    assert "RU[Jacoby]" in sgf
    assert ";B[64aggk]C[bgref infraction: dice-cocked by black at action 1;" in sgf
    back = read_match_text(sgf, "m.sgf")
    assert back.games == record.games and back.players == record.players and back.length == 0


def test_a_void_game_is_written_and_read_back_without_a_result_finding() -> None:
    m = BoardMachine(builtin("laws-1931"), match_length=3, players=("a", "b"))
    wrong = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    m.feed(GameSetUp(wrong))
    m.feed(OpeningDieThrown(W, DieThrow(3)))
    m.feed(OpeningDieThrown(B, DieThrow(1)))
    assert m.dice is not None
    m.feed(PositionObserved(parse_play("13/10 6/5", m.turn_start, m.dice).after))
    m.feed(DiceLifted(W))
    v = m.feed(SetupCorrected(Position.initial()))
    assert v.remedy is Remedy.GAME_VOID
    m.feed(OpeningDieThrown(W, DieThrow(3)))
    m.feed(OpeningDieThrown(B, DieThrow(1)))
    _play(m, "8/5 6/5")
    record = m.match_record()
    assert record.games[0].voided and record.games[0].start == wrong.with_turn(W)
    # the void game began from a wrong set-up, which neither format can hold: check its successor only
    rest = dataclasses.replace(record, games=record.games[1:])
    assert read_match_text(write_mat(rest)) == dataclasses.replace(rest, meta=())
    only_void = dataclasses.replace(record.games[0], actions=(), start=Position.initial())
    back = read_match_text(write_mat(dataclasses.replace(record, games=(only_void, record.games[1]))))
    assert back.games[0].voided and back.games[1].score == (0, 0)


def test_sgf_beaver_written_by_gnubg_after_a_mat_import() -> None:
    # gnubg's SGF of a match it imported from .mat: the beaver as double + double, then the doubler's take
    text = (
        "(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[a]PB[b]RE[B+4]\n;W[31hefe]\n;B[64aggk]\n"
        ";W[double]\n;B[double]\n;W[take]\n;W[52mhmk]\n;B[double]\n;W[drop])\n"
    )
    g = parse_sgf(text).games[0]
    assert [type(a).__name__ for a in g.actions] == ["Move", "Move", "Double", "Take", "Move", "Double", "Drop"]
    assert isinstance(g.actions[3], Take) and g.actions[3].beaver and g.actions[3].player is B
    assert isinstance(g.actions[5], Double) and g.actions[5].value == 8


_SCRIPT = """
import gnubg, json
out = []
for kind, path, again_sgf, again_mat in {jobs!r}:
    gnubg.command(("import mat " if kind == "mat" else "load match ") + path)
    out.append(gnubg.match(analysis=0, boards=0, statistics=0, verbose=1))
    gnubg.command("save match " + again_sgf)
    gnubg.command("export match mat " + again_mat)
with open({result!r}, "w") as f:
    json.dump(out, f)
"""


@pytest.mark.gnubg
def test_gnubg_reads_the_money_session_and_its_infractions(gnubg_path: str, tmp_path: Path) -> None:
    record = money_session()
    jobs = []
    for kind, text in (("mat", write_mat(record)), ("sgf", write_sgf(record))):
        path = tmp_path / f"ours.{kind}"
        path.write_text(text, encoding="utf-8")
        jobs.append((kind, str(path), str(tmp_path / f"gnubg-{kind}.sgf"), str(tmp_path / f"gnubg-{kind}.mat")))
    result = tmp_path / "result.json"
    script = tmp_path / "cycle.py"
    script.write_text(_SCRIPT.format(jobs=jobs, result=str(result)))
    proc = subprocess.run([gnubg_path, "-t", "-q", "-p", str(script)], capture_output=True, text=True, timeout=120, check=False)
    assert result.exists(), proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "Unrecognised" not in proc.stdout and "not a valid" not in proc.stdout, proc.stdout[-2000:]
    from_mat, from_sgf = json.loads(result.read_text())
    notes = [n.text() for n in record.games[0].infractions]
    for label, got in (("mat", from_mat), ("sgf", from_sgf)):
        assert got["match-info"]["match-length"] == 0, label
        game1 = got["games"][0]
        cube = [(a["action"], a["player"]) for a in game1["game"] if a["action"] != "move"]
        moves = [(a["player"], tuple(sorted(a["dice"]))) for a in game1["game"] if a["action"] == "move"]
        assert moves == [("X", (1, 3)), ("O", (4, 6)), ("X", (2, 5))], label
        beaver = [("double", "X"), ("double", "O"), ("take", "X")]
        assert cube[:3] == beaver and cube[-2:] == [("double", "O"), ("drop", "X")], (label, cube)
        info = game1["info"]
        assert (info["winner"], info["points-won"]) == ("O", 4), label
    # gnubg keeps our infraction notes: the .mat header tags as the match comment, SGF C[] on the moves
    assert all(n in from_mat["match-info"]["comment"] for n in notes)
    comments = [a.get("comment", "") for a in from_sgf["games"][0]["game"]]
    assert all(any(n in c for c in comments) for n in notes)
    # and what gnubg writes back reads to the same throws, plays, cube actions and result
    for kind in ("mat", "sgf"):
        again = read_match_text((tmp_path / f"gnubg-{kind}.sgf").read_text(encoding="utf-8"), f"gnubg-{kind}.sgf")
        g = again.games[0]
        assert g.actions == record.games[0].actions and g.result == record.games[0].result, kind
        if kind == "sgf":
            assert g.infractions == record.games[0].infractions
        exported = read_match_text((tmp_path / f"gnubg-{kind}.mat").read_text(encoding="utf-8"), f"gnubg-{kind}.mat")
        assert exported.length == 0 and exported.games[0].actions == record.games[0].actions, kind
