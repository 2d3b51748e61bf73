"""Chouette (seating, cube decisions by code, rotation, ledger) and Backgammon-Quartet."""

from __future__ import annotations

import doctest

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import rules.laws.chouette
import rules.laws.machine
import rules.laws.quartet
import rules.laws.scoring
from rules.laws.chouette import Chouette, ChouetteError, order_by_throws, seeded_throws
from rules.laws.codes import builtin
from rules.laws.quartet import Quartet, QuartetError, choose_caster
from rules.position import Position, Side


@pytest.mark.parametrize("module", [rules.laws.chouette, rules.laws.quartet, rules.laws.machine, rules.laws.scoring])
def test_doctests(module: object) -> None:
    assert doctest.testmod(module).failed == 0  # type: ignore[arg-type]


def scripted(values: dict[str, list[int]]):  # type: ignore[no-untyped-def]
    it = {k: iter(v) for k, v in values.items()}
    return lambda name: next(it[name])


def test_seating_ties_rethrown_among_tied() -> None:
    order = order_by_throws(["A", "B", "C", "D"], scripted({"A": [5, 2], "B": [6], "C": [5, 4], "D": [1]}))
    assert order == ("B", "C", "A", "D")
    assert order_by_throws(["A", "B", "C"], seeded_throws(7)) == order_by_throws(["A", "B", "C"], seeded_throws(7))
    with pytest.raises(ChouetteError, match="different names"):
        order_by_throws(["A", "A"], seeded_throws(1))


def test_modern_individual_cube_and_rotation() -> None:
    c = Chouette(builtin("modern"), ["Box", "Cap", "P2", "P3"], stake=2)
    c.start_game()
    pays = c.box_doubles({"Cap": False, "P2": True, "P3": True})
    assert [(p.payer, p.payee, p.amount) for p in pays] == [("Cap", "Box", 2)]
    assert c.active == "P2"  # the captain passed: the position goes to the next partner who took
    c.finish(winner_is_box=True, multiplier=2)  # gammon for the box: 2 x cube 2 x stake 2 each
    assert dict(c.ledger) == {"Box": 2 + 8 + 8, "Cap": -2, "P2": -8, "P3": -8}
    assert c.box == "Box" and c.team == ("P2", "P3", "Cap")  # box won: captain to the end
    assert sum(v for _, v in c.ledger) == 0


def test_1931_refusing_partner_pays_and_active_assumes() -> None:
    c = Chouette(builtin("laws-1931"), ["Box", "Cap", "P2"])
    c.start_game()
    c.box_doubles({"Cap": True, "P2": False})
    assert c.members["Cap"].shares == 2 and c.members["Cap"].cube == 2
    c.finish(winner_is_box=False)
    assert dict(c.ledger) == {"Box": 1 - 4, "Cap": 4, "P2": -1}
    assert c.box == "Cap" and c.team == ("P2", "Box")  # the captain won: he takes the box


def test_bar_point_retiring_partner_pays_playing_member() -> None:
    c = Chouette(builtin("bar-point-1931"), ["Box", "Cap", "P2"])
    c.start_game()
    pays = c.box_doubles({"Cap": True, "P2": False})
    assert [(p.payer, p.payee) for p in pays] == [("P2", "Cap")]
    c.finish(winner_is_box=True)
    assert dict(c.ledger) == {"Box": 4, "Cap": 1 - 4, "P2": -1}


def test_team_doubles_box_and_join_leave() -> None:
    c = Chouette(builtin("javea-u3a"), ["Box", "Cap", "P2"])
    c.start_game()
    c.team_doubles({"Cap": True, "P2": False})
    assert dict(c.ledger)["P2"] == 1 and c.members["Cap"].owner_is_box is True
    with pytest.raises(ChouetteError, match="between games"):
        c.join("New")
    c.finish(winner_is_box=False)
    c.join("New")
    assert c.team[-1] == "New"
    c.leave("P2")
    assert "P2" not in c.team and sum(v for _, v in c.ledger) == 0
    with pytest.raises(ChouetteError, match="not playing"):
        c.leave("Nobody")


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.integers(1, 3), st.lists(st.booleans(), min_size=3, max_size=3)), max_size=8))
def test_ledger_always_sums_to_zero(games: list[tuple[bool, int, list[bool]]]) -> None:
    for code in ("modern", "laws-1931", "bar-point-1931"):
        c = Chouette(builtin(code), ["A", "B", "C", "D"])
        for box_wins, mult, takes in games:
            c.start_game()
            live = [n for n in c.team]
            c.box_doubles(dict(zip(live, takes, strict=True)))
            if c.in_progress:
                c.finish(winner_is_box=box_wins, multiplier=mult)
        assert sum(v for _, v in c.ledger) == 0


def test_quartet_caster_and_scoring() -> None:
    assert choose_caster(["A", "B", "C", "D"], scripted({"A": [3], "B": [6, 2], "C": [6, 5], "D": [2]})) == "C"
    q = Quartet(("A1", "B1", "A2", "B2"), caster="A1")
    # shortcut to a late position in both games: White of game 1 bears off his last men
    g1 = Position.from_points({1: 2}, {1: 5, 13: 1, 25: 1}, turn=Side.WHITE)
    g2 = Position.from_points({20: 1, 3: 2}, {2: 3, 8: 1}, turn=Side.WHITE)
    q.positions = [g1, g2]
    from rules.notation import parse_play

    a1 = parse_play("1/off(2)", g1, (2, 1)).after
    a2 = parse_play("20/18 3/2", g2, (2, 1)).after
    score = q.throw((2, 1), a1, a2)
    assert score is not None and score.finisher == "A1"
    # game 1: 15 + B1's men: 5 in his inner table (1 each), 1 in White's outer (3), 1 on the bar (5)
    assert score.game_counts[0] == 15 + 5 + 3 + 5
    # game 2 stopped: Black's men counted 3x1 + 1x2 = 5; White's: 18 is Black's outer... counted by Black as winner
    assert score.net_a == score.game_counts[0] + score.game_counts[1]
    assert dict(q.ledger)["A1"] == dict(q.ledger)["A2"] == score.net_a == -dict(q.ledger)["B2"]
    with pytest.raises(QuartetError, match="stopped"):
        q.throw((2, 1), a1, a2)


def test_quartet_illegal_play_rejected() -> None:
    q = Quartet(("A1", "B1", "A2", "B2"), caster="B2")
    assert q.on_roll is Side.BLACK
    with pytest.raises(QuartetError, match="game 1"):
        q.throw((3, 1), Position.initial(), Position.initial())
