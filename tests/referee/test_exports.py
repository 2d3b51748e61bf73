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
