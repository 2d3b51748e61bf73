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
