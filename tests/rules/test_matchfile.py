"""Match files without the shared corpus: dialects, errors, writers and round trips."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.cli import main as cli_main
from rules.dice import Dice
from rules.matchfile import (
    IssueKind,
    MatchFileError,
    check_match_text,
    decode,
    parse_mat,
    parse_sgf,
    read_match_text,
    write_mat,
    write_sgf,
)
from rules.moves import legal_plays
from rules.position import Position, Side
from rules.record import (
    Double,
    Drop,
    GameRecord,
    GameResult,
    MatchRecord,
    Move,
    Resign,
    ResultKind,
    Take,
)

GALAXY = """\
; [Site "BackgammonGalaxy"]
; [Crawford "On"]

3 point match

 Game 1
 alice : 0                       bob : 0
  1)                             31: 8/5 6/5
  2) 53: 8/3 6/3                 52: 13/8 13/11
  3) 61: 13/7 8/7                43: 24/21 24/20
  4)  Doubles => 2                Drops
      Wins 1 point

 Game 2
 alice : 1                       bob : 0
  1) 64: 24/18 13/9              62: 24/18 13/11
  2)  Doubles => 2                Takes
  3) 21: 13/11 6/5               44: 13/9 13/9 6/2 6/2
 Losses 2 point

      Wins 2 point and the match
"""

STUDIO = """\
; [Site "Backgammon Studio"]

5 point match


 Game 1
 Magic : 0                              Lasse : 0
  1) 32: 24/21 13/11                    41: 24/23 8/4*
  2) 41: bar/21* 21/20                  43: bar/21 24/21
  3) 53: 8/3 6/3                        63: 23/14*
  4) 44: bar/21 24/20 13/9(2)           42: 14/8
  5) 65: 21/15 20/15                    41: 13/9 6/5*
  6) 51: bar/20* 9/8
"""


def test_galaxy_dialect_columns_cube_and_resignation() -> None:
    rec = parse_mat(GALAXY, "g.txt")
    assert rec.players == ("alice", "bob") and rec.length == 3
    g1, g2 = rec.games
    assert g1.actions[0] == Move(Side.BLACK, (3, 1), "8/5 6/5")
    assert g1.actions[0].line == 8
    assert g1.actions[4] == Move(Side.BLACK, (4, 3), "24/21 24/20")
    assert g1.actions[5:] == (Double(Side.WHITE, 2), Drop(Side.BLACK))
    assert g1.result == GameResult(Side.WHITE, 1, ResultKind.DROP)
    assert g2.score == (1, 0) and not g2.crawford
    # The own-line "Losses" belongs to the loser of the "Wins" line after it.
    assert g2.actions[-1] == Resign(Side.BLACK, 1)
    assert g2.result == GameResult(Side.WHITE, 2, ResultKind.RESIGN)


def test_crawford_is_derived_from_the_scores() -> None:
    rec = parse_mat(GALAXY, "g.txt")
    assert [g.crawford for g in rec.games] == [False, False]  # 1-0 in a 3-point match
    rec = parse_mat(GALAXY.replace("3 point match", "2 point match"), "g.txt")
    assert [g.crawford for g in rec.games] == [False, True]  # alice at 1-0 needs one point
    rec = parse_mat(GALAXY.replace("3 point match", "2 point match").replace('"On"', '"Off"'), "g.txt")
    assert [g.crawford for g in rec.games] == [False, False]


def test_studio_dialect_bar_off_repeat_and_cannot_move() -> None:
    rec = parse_mat(STUDIO, "s.txt")
    acts = rec.games[0].actions
    assert acts[2].play == "bar/21* 21/20" and acts[-1] == Move(Side.WHITE, (5, 1), "bar/20* 9/8")
    report = check_match_text(STUDIO, "s.txt")
    assert report.plays_checked == 11 and not report.illegal_plays
    # Canonical gnubg notation after the replay.
    assert report.record.games[0].actions[6].play == "bar/21 24/20 13/9(2)"
    cannot = parse_mat(STUDIO + "  7)                                   64: Cannot Move\n", "s.txt")
    assert cannot.games[0].actions[-1] == Move(Side.BLACK, (6, 4), "")
    kinds = {i.kind for i in report.issues}
    assert kinds == {IssueKind.UNFINISHED}


def test_unmarked_hits_and_multi_die_tokens_are_resolved() -> None:
    text = GALAXY.replace("43: 24/21 24/20", "43: 13/6")
    report = check_match_text(text, "g.txt")
    assert report.illegal_plays == ()
    assert report.record.games[0].actions[4].play == "13/6"
    hit = " 1 point match\n\n Game 1\n a : 0       b : 0\n  1)          64: 24/18 13/9\n  2) 61: 13/7 8/7\n"
    assert read_match_text(hit).games[0].actions[1].play == "13/7* 8/7"


def test_illegal_play_is_reported_with_file_and_line() -> None:
    text = GALAXY.replace("53: 8/3 6/3", "53: 8/2 6/3")
    report = check_match_text(text, "bad.txt")
    (issue,) = report.illegal_plays
    assert (issue.source, issue.line, issue.game, issue.kind) == ("bad.txt", 9, 1, IssueKind.ILLEGAL_PLAY)
    assert "alice" in issue.message
    with pytest.raises(MatchFileError, match=r"bad.txt:9: game 1"):
        read_match_text(text, "bad.txt")


def test_wrong_result_and_score_are_reported() -> None:
    text = GALAXY.replace("      Wins 1 point\n", "      Wins 2 point\n")
    report = check_match_text(text, "r.txt")
    kinds = [i.kind for i in report.errors]
    assert IssueKind.RESULT in kinds and IssueKind.SCORE in kinds


def test_wrong_cube_value_is_reported() -> None:
    report = check_match_text(GALAXY.replace("Doubles => 2                Drops", "Doubles => 4                Drops"), "c")
    assert [i.kind for i in report.errors] == [IssueKind.CUBE]


def test_unreadable_token_raises_typed_error_with_line() -> None:
    with pytest.raises(MatchFileError) as info:
        parse_mat(GALAXY.replace("Takes", "Grabs"), "x.txt")
    assert info.value.line == 17 and "Grabs" in str(info.value) and isinstance(info.value, ValueError)
    with pytest.raises(MatchFileError, match="point match"):
        parse_mat(" Game 1\n a : 0   b : 0\n", "y.txt")


@pytest.mark.parametrize(
    "data",
    [
        GALAXY.encode("utf-8"),
        b"\xef\xbb\xbf" + GALAXY.replace("\n", "\r\n").encode("utf-8"),
        GALAXY.replace("alice", "K\u00e9vin").encode("latin-1"),
        GALAXY.replace("\n", "\r").encode("utf-8"),
    ],
)
def test_encodings_and_line_ends(data: bytes) -> None:
    rec = parse_mat(decode(data).text, "e.txt")
    assert len(rec.games) == 2 and rec.games[1].result is not None
    assert rec.players[0] in ("alice", "K\u00e9vin")


def test_dice_low_high_and_placeholders() -> None:
    text = GALAXY.replace("53: 8/3 6/3", "35: 8/3 6/3").replace("      Wins 1 point\n", "  5) 21: ????\n      Wins 1 point\n")
    report = check_match_text(text, "p.txt")
    assert report.ok
    assert report.record.games[0].actions[1].dice == (3, 5)


SGF = """(;FF[4]GM[6]CA[UTF-8]AP[x]MI[length:3][game:0][ws:0][bs:0]PW[alice]PB[bob]RU[Crawford]RE[W+1]
;B[31qtst]
;W[53hcfc]
;B[52lnlq]
;W[61mghg]
;B[43adae]
;W[double]
;B[drop])
(;FF[4]GM[6]CA[UTF-8]AP[x]MI[length:3][game:1][ws:1][bs:0]PW[alice]PB[bob]RU[Crawford]RE[W+2R]
;W[64xrmi]
;B[62agln]
;W[double]
;B[take]
;W[21mkfe]
;B[44lplpswsw]
;PL[W]DI[44])
"""


def test_sgf_reader_matches_the_text_reader() -> None:
    from_sgf = read_match_text(SGF, "a.sgf")
    from_mat = read_match_text(GALAXY, "a.txt")
    assert from_sgf.players == from_mat.players and from_sgf.length == 3
    assert from_sgf.games[0] == from_mat.games[0]
    g2 = from_sgf.games[1]
    assert g2.actions[-1] == Resign(Side.BLACK, 1) and g2.result == GameResult(Side.WHITE, 2, ResultKind.RESIGN)


def test_sgf_errors() -> None:
    with pytest.raises(MatchFileError, match="GM"):
        parse_sgf("(;FF[4]GM[1])", "go.sgf")
    with pytest.raises(MatchFileError, match="cannot read move"):
        parse_sgf("(;GM[6]MI[length:1]\n;W[9q])", "m.sgf")
    with pytest.raises(MatchFileError, match=r"m.sgf:2"):
        parse_sgf("(;GM[6]\n;W[31ab", "m.sgf")


def test_writers_round_trip_the_same_record() -> None:
    rec = read_match_text(GALAXY, "g.txt")
    mat = write_mat(rec)
    assert " 3 point match" in mat and "  4)  Doubles => 2                Drops\n" in mat
    assert read_match_text(mat, "w.mat") == rec
    sgf = write_sgf(rec)
    assert sgf.startswith("(;FF[4]GM[6]CA[UTF-8]") and "RE[W+2R]" in sgf
    back = read_match_text(sgf, "w.sgf")
    assert back.games == rec.games and back.players == rec.players


def _random_game(seed: int, moves: int) -> GameRecord:
    import random

    rng = random.Random(seed)
    pos = Position.initial(Side.WHITE if rng.random() < 0.5 else Side.BLACK)
    actions: list[Move | Double | Take | Drop | Resign] = []
    cube = 1
    for _ in range(moves):
        if rng.random() < 0.05 and cube < 64:
            cube *= 2
            actions.append(Double(pos.turn, cube))
            actions.append(Take(pos.turn.opponent))
            # The taker owns the cube; keep it simple: no redouble by the same side next.
            if rng.random() < 0.5:
                break
        d = (rng.randint(1, 6), rng.randint(1, 6))
        play = rng.choice(list(legal_plays(pos, Dice(*d))))
        actions.append(Move(pos.turn, d, play.notation()))
        pos = play.after
        if pos.winner() is not None:
            break
    winner = pos.winner()
    result = None
    if winner is not None:
        from rules.matchfile import outcome_of

        kind = outcome_of(pos, winner)
        result = GameResult(winner, cube * {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2}.get(kind, 3), kind)
    else:
        loser = pos.turn
        actions.append(Resign(loser, 1))
        result = GameResult(loser.opponent, cube, ResultKind.RESIGN)
    return GameRecord(1, (0, 0), tuple(actions), result)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 10_000), moves=st.integers(1, 60))
def test_property_our_exports_read_back_to_the_same_record(seed: int, moves: int) -> None:
    game = _random_game(seed, moves)
    rec = MatchRecord(("Ann Lee", "Bo"), 0, (game,), (("Event", "Club night"),))
    canon = read_match_text(write_mat(rec), "p.mat")
    assert canon.games == rec.games and canon.players == rec.players
    assert read_match_text(write_sgf(rec), "p.sgf").games == rec.games


def test_cli_check_and_convert(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    good = tmp_path / "good.txt"
    good.write_text(GALAXY)
    bad = tmp_path / "bad.txt"
    bad.write_text(GALAXY.replace("53: 8/3 6/3", "53: 8/2 6/3"))
    assert cli_main(["match", "check", str(good)]) == 0
    assert "2 game(s), 9 plays checked, 0 illegal: ok" in capsys.readouterr().out
    assert cli_main(["match", "check", "--json", str(good), str(bad)]) == 1
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert lines[0]["ok"] and not lines[1]["ok"]
    assert lines[1]["issues"][0]["line"] == 9 and lines[1]["issues"][0]["kind"] == "illegal-play"
    out = tmp_path / "out.sgf"
    assert cli_main(["match", "convert", str(good), str(out)]) == 0
    assert read_match_text(out.read_text(), "o.sgf").games == read_match_text(GALAXY).games
    assert cli_main(["match", "check", str(tmp_path / "missing.txt")]) == 2
    assert cli_main(["match", "convert", str(bad), str(tmp_path / "x.mat")]) == 2
