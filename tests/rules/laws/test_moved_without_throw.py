"""BoardMachine.moved_without_throw: the query equals what feeding the board would call, and changes nothing."""

from __future__ import annotations

import copy

from rules.dice import Dice
from rules.laws.events import PositionObserved
from rules.laws.verdicts import Infraction
from rules.notation import parse_play
from rules.position import Position

from .script import B, Script


def _agrees(s: Script, seen: Position) -> bool:
    before = copy.deepcopy(s.m)
    asked = s.m.moved_without_throw(seen)
    assert s.m.position == before.position and s.m.phase is before.phase and s.m.restore_to == before.restore_to
    fed = copy.deepcopy(s.m).feed(PositionObserved(seen)).code is Infraction.MOVE_WITHOUT_THROW
    assert asked == fed, (seen.gnubg_id(), s.m.phase, asked, fed)
    return asked


def test_the_query_matches_the_laws_in_every_phase() -> None:
    s = Script("modern").start(3, 1)
    p0 = s.m.position
    assert _agrees(s, p0) is False  # mid-play: checkers moving
    assert s.play("8/5 6/5").ok
    after = s.m.position
    elsewhere = parse_play("13/7 13/9", after.with_turn(B), Dice(6, 4)).after  # black moves, no throw
    assert _agrees(s, after) is False
    assert _agrees(s, elsewhere) is True
    s.m.feed(PositionObserved(elsewhere))  # called: a restore is pending
    assert _agrees(s, after) is False  # put back
    assert _agrees(s, elsewhere) is False  # as seen
