"""The exports of a refereed match: moves amended on record are noted in the .mat header and the SGF."""

from __future__ import annotations

from referee.exports import mat_text, sgf_text
from rules.dice import Dice
from rules.laws.events import PlayAmended
from rules.matchfile import read_match_text
from rules.notation import parse_play
from rules.record import AmendmentRecord
from tests.rules.laws.script import B, Script


def test_an_amended_move_is_noted_in_the_record_and_in_both_exports() -> None:
    """The record keeps how an amended move was first recorded (rules.record.AmendmentRecord, once per move);
    the .mat header and the SGF move node carry the note, and both still read back to the same game."""
    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    start = s.m.position.with_turn(B)
    assert s.turn(B, 6, 4, "24/14").ok
    assert s.m.feed(PlayAmended(B, (6, 4), parse_play("13/7 13/9", start, Dice(6, 4)).after)).ok
    assert s.m.feed(PlayAmended(B, (6, 4), parse_play("24/18 13/9", start, Dice(6, 4)).after)).ok  # again
    record = s.m.match_record()
    (game,) = record.games
    assert game.amendments == (AmendmentRecord(B, 1, "64: 24/14"),)  # as first recorded, once
    note = game.amendments[0].text()
    assert AmendmentRecord.parse(note) == game.amendments[0]
    mat, sgf = mat_text(record), sgf_text(record)
    assert f'; [Amended "game 1: {note}"]' in mat.splitlines()
    assert ";B[64" in sgf and f"C[{note}]" in sgf
    for text, name in ((mat, "m.mat"), (sgf, "m.sgf")):
        back = read_match_text(text, name)
        assert [a for a in back.games[0].actions] == list(game.actions)
        assert back.games[0].amendments == game.amendments  # read back into the game, not the header
        assert all(key != "Amended" for key, _ in back.meta)


def test_an_amendment_of_a_game_the_file_lacks_is_named() -> None:
    """A .mat amendment tag naming a game the file does not have is an error naming the game and line."""
    import pytest

    from rules.matchfile import MatchFileError

    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    mat = s.m.match_record()
    text = mat_text(mat)
    bad = '; [Amended "game 7: bgref amended: black\'s move at action 1, first recorded as 64: 24/14"]\n' + text
    with pytest.raises(MatchFileError, match="game 7"):
        read_match_text(bad, "bad.mat")
    garbled = '; [Amended "game 1: amended somehow"]\n' + text
    with pytest.raises(MatchFileError, match="amended somehow"):
        read_match_text(garbled, "garbled.mat")


def test_a_move_that_is_no_legal_play_is_written_in_both_exports_and_the_board_followed_after_it(tmp_path) -> None:
    """An illegal play that stood (or a board the referee put in step) is on record as seen (``13/9 13/9 6/2 6/2``
    for a 6-4): the SGF writes its checkers' moves as the .mat writes its text, follows the board after it (White's
    24/18 13/11 is legal only there), and both files are written and read back to the same one finding.  Session 12's
    games 7482, 7483, 7489, 7490, 7494 (s12f): the SGF failed (KeyError) and the session wrote no SGF at all."""
    from referee.exports import export_record
    from rules.laws.events import PositionObserved
    from rules.matchfile import check_match_text
    from tests.rules.laws.script import W

    s = Script("modern").start(3, 1)
    assert s.play("8/5 6/5").ok
    assert s.throw(B, 6, 4).ok
    seen = parse_play("13/9(2) 6/2(2)", s.m.turn_start.with_turn(B), Dice(4, 4)).after  # a 4-4 played with 6-4
    assert s.m.feed(PositionObserved(seen)).ok
    assert s.lift(B).is_infraction
    assert s.turn(W, 6, 2, "24/18 13/11").ok  # the illegal play stands
    record = s.m.match_record()
    assert [a.play for a in record.games[0].actions] == ["8/5 6/5", "13/9 13/9 6/2 6/2", "24/18 13/11"]
    sgf = sgf_text(record)
    assert ";B[64lplpswsw]" in sgf and ";W[62xrmk]" in sgf
    written = export_record(record, tmp_path, "m")
    assert [p.name for p in written] == ["m.mat", "m.sgf"]
    found = [check_match_text(p.read_text(), p.name).issues for p in written]
    assert [[(i.line > 0, i.kind.value, i.message) for i in f] for f in found] == [
        [(True, "illegal-play", "Black (black) 64: '13/9 13/9 6/2 6/2' is not legal with 64 in sGfwATDgc/ABMA "
                                "(black on roll): moves 16 pips with only 10 to play")]] * 2


def test_a_move_whose_text_is_not_moves_is_an_export_error_naming_it() -> None:
    """A record whose move text reads as no FROM/TO moves cannot be written as SGF: an ExportError names the game, the
    mover, the roll and the text (not a KeyError, not a file with the move left out)."""
    import pytest

    from referee.exports import ExportError
    from rules.record import GameRecord, MatchRecord, Move
    from tests.rules.laws.script import W

    game = GameRecord(1, (0, 0), (Move(W, (3, 1), "8/5 6/5"), Move(B, (6, 4), "thirteen/7")))
    record = MatchRecord(("White", "Black"), 0, (game,))
    with pytest.raises(ExportError, match=r"game 1: black's move 64 'thirteen/7' does not read as FROM/TO moves"):
        sgf_text(record)
