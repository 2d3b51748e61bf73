"""Move notation: every dialect of the real match files, and gnubg's canonical output."""

from __future__ import annotations

import pytest

from rules.dice import Dice
from rules.moves import Step, format_steps, legal_plays
from rules.notation import IllegalPlayError, NotationError, parse_play, parse_tokens
from rules.position import Position, Side

INITIAL = Position.initial()


@pytest.mark.parametrize(
    "steps,text",
    [
        ((Step(24, 18, 6), Step(13, 11, 2, True)), "24/18 13/11*"),
        ((Step(13, 11, 2), Step(13, 11, 2)), "13/11(2)"),
        ((Step(6, 1, 5, True), Step(6, 1, 5)), "6/1*(2)"),
        ((Step(25, 20, 5), Step(6, 0, 6)), "bar/20 6/off"),
        ((Step(13, 7, 6), Step(7, 6, 1)), "13/6"),
        ((Step(13, 12, 1, True), Step(12, 6, 6)), "13/12*/6"),
        ((Step(8, 2, 6), Step(6, 2, 4)), "8/2 6/2"),
        ((), ""),
    ],
)
def test_format_like_gnubg(steps: tuple[Step, ...], text: str) -> None:
    assert format_steps(steps) == text


@pytest.mark.parametrize(
    "text,dice,expected",
    [
        ("24/18 13/11", "62", "24/18 13/11"),
        ("13/11 24/18", "62", "24/18 13/11"),
        ("24/13", "65", "24/13"),
        ("24/18/13", "65", "24/13"),
        ("13/11(2)", "22", None),
        ("8/5 6/5", "31", "8/5 6/5"),
        ("8/5, 6/5", "13", "8/5 6/5"),
        ("13/7", "61", None),
    ],
)
def test_parse_initial(text: str, dice: str, expected: str | None) -> None:
    if expected is None:
        with pytest.raises(IllegalPlayError) as exc:
            parse_play(text, INITIAL, dice)
        assert repr(text) in str(exc.value) and INITIAL.gnubg_id() in str(exc.value)
    else:
        assert parse_play(text, INITIAL, dice).notation() == expected


def test_bar_and_off_dialects() -> None:
    pos = Position.from_points({25: 1, 6: 2, 5: 12}, {6: 15})
    play = parse_play("bar/20 6/5", pos, "51")
    assert play.notation() == "bar/20 6/5"
    for text in ("25/20 6/5", "Bar/20 6/5", "BAR/20 6/5", "b/20 6/5"):
        assert parse_play(text, pos, "51") == play
    home = Position.from_points({6: 2, 5: 13}, {6: 15})
    expected = "6/off(2) 5/off(2)"
    for text in ("6/off(2) 5/off(2)", "6/0(2) 5/0(2)", "6/Off(2) 5/Off(2)", "6/off 6/off 5/off 5/off"):
        assert parse_play(text, home, "66").notation() == expected


def test_unmarked_hits_are_inferred_from_the_position() -> None:
    # Black blots on white's 11 and 12: moving 13/11 with 1-1 must hit both.
    pos = Position.from_points({13: 5, 6: 10}, {14: 1, 13: 1, 6: 13})
    play = parse_play("13/11 13/11", pos, "11")
    assert play.notation() == "13/12*/11*(2)"
    assert play.after.bar(Side.BLACK) == 2
    assert parse_play("13/11*(2)", pos, "11") == play
    assert parse_play("13/12 13/12 12/11 12/11", pos, "11") == play


def test_multi_die_token_with_intermediate_hit() -> None:
    # Black blot on white's 7: 13/6 with 6-1 passes 7 (hit) or 12 (no hit).
    pos = Position.from_points({13: 5, 6: 10}, {18: 1, 6: 14})
    quiet = parse_play("13/6", pos, "61")
    assert quiet.notation() == "13/6" and quiet.after.bar(Side.BLACK) == 0
    hit = parse_play("13/7*/6", pos, "61")
    assert hit.notation() == "13/7*/6" and hit.after.bar(Side.BLACK) == 1
    # Galaxy writes each die and never marks hits: landing on 7 is a hit.
    assert parse_play("13/7 7/6", pos, "61") == hit


def test_cannot_move_and_empty() -> None:
    closed = Position.from_points({25: 1, 6: 14}, {1: 3, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 24: 2})
    for text in ("", "Cannot Move", "cannot move", "  "):
        play = parse_play(text, closed, "66")
        assert play.is_empty
    with pytest.raises(IllegalPlayError):
        parse_play("", INITIAL, "31")


@pytest.mark.parametrize("text", ["13-11", "13/", "/11", "13/11/14", "off/3", "3/bar", "13/11(9)", "1*3/2", "x/y"])
def test_not_notation(text: str) -> None:
    with pytest.raises(NotationError) as exc:
        parse_tokens(text)
    assert repr(text) in str(exc.value)


def test_moves_from_empty_point_is_illegal() -> None:
    with pytest.raises(IllegalPlayError) as exc:
        parse_play("12/9 12/11", INITIAL, Dice(3, 1))
    assert "12" in str(exc.value)


def test_round_trip_opening() -> None:
    for dice in Dice.all_rolls():
        for play in legal_plays(INITIAL, dice):
            assert parse_play(play.notation(), INITIAL, dice).after == play.after
