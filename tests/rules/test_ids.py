"""gnubg Match ID and XGID: known values from gnubg and XG, and round trips."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.ids import GameState, IdError, MatchId, Xgid, position_from_gnubg
from rules.position import Position, Side

from .strategies import positions

# Match IDs written by gnubg 1.07 (Debian 12) after the named commands.
GNUBG_MATCH_IDS = [
    ("cIkJAAAAAAAA", MatchId(on_roll=Side.BLACK, turn=Side.BLACK, dice=(3, 2))),  # money, Jacoby on
    ("cIkFAAAAAAAE", MatchId(on_roll=Side.BLACK, turn=Side.BLACK, dice=(3, 1), jacoby_off=True)),
    ("MAH3AAAAAAAE", MatchId(dice=(6, 5), length=7, jacoby_off=True)),  # new match 7
    ("MAH3ADAAKAAE", MatchId(dice=(6, 5), length=7, score=(3, 5), jacoby_off=True)),  # set score 3 5
    (
        "AgH3ADAAKAAE",  # set cube value 4, set cube owner 0
        MatchId(cube=4, cube_owner=Side.WHITE, dice=(6, 5), length=7, score=(3, 5), jacoby_off=True),
    ),
]


@pytest.mark.parametrize("text,expected", GNUBG_MATCH_IDS)
def test_match_ids_written_by_gnubg(text: str, expected: MatchId) -> None:
    assert MatchId.decode(text) == expected
    assert expected.encode() == text


match_ids = st.builds(
    MatchId,
    cube=st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    cube_owner=st.sampled_from([None, Side.WHITE, Side.BLACK]),
    on_roll=st.sampled_from(list(Side)),
    crawford=st.booleans(),
    state=st.sampled_from(list(GameState)),
    turn=st.sampled_from(list(Side)),
    doubled=st.booleans(),
    resigned=st.integers(0, 3),
    dice=st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))),
    length=st.integers(0, 32767),
    score=st.tuples(st.integers(0, 32767), st.integers(0, 32767)),
    jacoby_off=st.booleans(),
)


@settings(max_examples=200, deadline=None)
@given(match_ids)
def test_match_id_round_trip(m: MatchId) -> None:
    text = m.encode()
    assert len(text) == 12
    assert MatchId.decode(text) == m
    assert MatchId.decode(f"Match ID   : {text}") == m


@pytest.mark.parametrize("text", ["", "cAkPAAAA", "cAkPAAAAAAA!", "////////////"])
def test_bad_match_ids(text: str) -> None:
    with pytest.raises(IdError) as exc:
        MatchId.decode(text)
    assert repr(text) in str(exc.value)


def test_position_and_match_id_together() -> None:
    pos, m = position_from_gnubg("sGfwATDgc/ABMA", "cAkPAAAAAAAA")
    assert m.on_roll is Side.BLACK and pos.turn is Side.BLACK
    assert pos.white[5] == 2


def test_xgid_initial() -> None:
    text = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    x = Xgid.parse(text)
    assert x.position == Position.initial() and x.turn is Side.WHITE and x.dice is None
    assert x.text() == text


def test_xgid_fields() -> None:
    text = "XGID=aa--BBB-C---dC---c-e--A-B-:1:-1:-1:52:2:4:1:7:10"
    x = Xgid.parse(text)
    assert x.position.bar(Side.BLACK) == 1 and x.position.turn is Side.BLACK
    assert x.cube == 2 and x.cube_owner is Side.BLACK and x.dice == (5, 2)
    assert x.score == (2, 4) and x.crawford_jacoby == 1 and x.length == 7
    assert x.text() == text
    assert Xgid.parse(text.replace(":52:", ":D:")).offer == "D"


@pytest.mark.parametrize(
    "text",
    [
        "XGID=-b----E-C---eE---c-e----B",
        "XGID=-b----E-C---eE---c-e----B-:0:0",
        "XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:0:0:10",
        "XGID=-b----O-O---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
    ],
)
def test_bad_xgids(text: str) -> None:
    with pytest.raises(IdError) as exc:
        Xgid.parse(text)
    assert repr(text) in str(exc.value)


@settings(max_examples=150, deadline=None)
@given(positions, st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))), st.integers(0, 25))
def test_xgid_round_trip(pos: Position, dice: tuple[int, int] | None, score: int) -> None:
    x = Xgid(pos, cube=2, cube_owner=pos.turn, dice=dice, score=(score, 25 - score), length=25)
    assert Xgid.parse(x.text()) == x
