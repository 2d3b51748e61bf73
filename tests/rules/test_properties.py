"""Invariants of legal plays, judging, notation and IDs, on many positions (hypothesis)."""

from __future__ import annotations

import random

from hypothesis import example, given, settings
from hypothesis import strategies as st

from rules.dice import Dice
from rules.judge import ReasonCode, judge
from rules.moves import legal_plays
from rules.notation import parse_play
from rules.position import BAR, OFF, Position, Side

from .strategies import dice, positions

SETTINGS = settings(max_examples=int(__import__("os").environ.get("BGREF_EXAMPLES", "120")), deadline=None)


@SETTINGS
@given(positions, dice)
def test_checkers_conserved_and_pips_match_dice(pos: Position, roll: Dice) -> None:
    assert pos.problems() == []
    plays = legal_plays(pos, roll)
    assert len(plays) >= 1
    mover, opp = pos.turn, pos.turn.opponent
    used_counts = {len(p.steps) for p in plays}
    assert len(used_counts) == 1, "every legal play uses the same number of dice"
    for play in plays:
        after = play.after
        assert after.problems() == [], (pos, roll, play)
        assert after.turn is opp
        moved = sum(s.start - s.end for s in play.steps)
        assert pos.pip_count(mover) - after.pip_count(mover) == moved
        for s in play.steps:
            assert s.end == max(0, s.start - s.die)
            if s.end == OFF:
                assert s.start <= s.die
        assert sorted(play.dice_used) == sorted(roll.pips[: len(play.steps)]) or (
            not roll.is_double and (sorted(play.dice_used) in ([roll.high], [roll.low]))
        )
        hits = [s.end for s in play.steps if s.hit]
        assert after.pip_count(opp) == pos.pip_count(opp) + sum(hits)
        assert after.bar(opp) == pos.bar(opp) + len(hits)


@SETTINGS
@given(positions, dice)
def test_plays_are_distinct_and_mirror_symmetric(pos: Position, roll: Dice) -> None:
    plays = legal_plays(pos, roll)
    afters = [p.after for p in plays]
    assert len(set(afters)) == len(afters)
    mirrored = legal_plays(pos.mirror(), roll)
    assert {p.after.mirror() for p in mirrored} == set(afters)
    assert {p.notation() for p in mirrored} == {p.notation() for p in plays}


@SETTINGS
@given(positions, dice, st.booleans())
def test_every_legal_play_judges_legal_and_notation_round_trips(pos: Position, roll: Dice, hf: bool) -> None:
    plays = legal_plays(pos, roll, highest_first_in_bearoff=hf)
    for play in plays:
        j = judge(pos, roll, play.after, plays=plays)
        assert j.legal and j.play is not None and j.play.after == play.after and not j.reasons
        assert parse_play(play.notation(), pos, roll, plays=plays).after == play.after
    if hf:  # the 1931 option only ever removes plays
        assert {p.after for p in plays} <= {p.after for p in legal_plays(pos, roll)}


@SETTINGS
@given(positions, dice, st.integers(0, 2**32))
@example(Position.from_gnubg_id("tTYAAL5ubQAABA", Side.WHITE), Dice(1, 6), 10027)
def test_perturbed_plays_are_illegal_with_a_reason(pos: Position, roll: Dice, seed: int) -> None:
    rng = random.Random(seed)
    plays = legal_plays(pos, roll)
    play = rng.choice(list(plays))
    side = rng.choice([pos.turn, pos.turn.opponent])
    counts = list(play.after.counts(side))
    src = rng.choice([i for i in range(26) if counts[i] > 0])
    kind = rng.random()
    if kind < 0.6:  # move one checker somewhere else
        dst = rng.choice([i for i in range(26) if i != src])
        counts[src] -= 1
        counts[dst] += 1
    elif kind < 0.8:  # a checker vanishes
        counts[src] -= 1
    else:  # a checker appears
        counts[rng.randrange(26)] += 1
    after = play.after.replace(side, tuple(counts))
    j = judge(pos, roll, after, plays=plays)
    if after in plays:
        assert j.legal
        return
    assert not j.legal and j.play is None
    assert j.reasons, (pos, roll, after)
    assert j.nearest and all(p in plays for p in j.nearest)
    codes = set(j.codes)
    mirrored = judge(pos.mirror(), roll, after.mirror())
    assert mirrored.codes == j.codes and [r.message for r in mirrored.reasons] == [
        r.message.replace("white", "\0").replace("black", "white").replace("\0", "black") for r in j.reasons
    ]
    if kind >= 0.8:
        assert ReasonCode.CHECKERS_APPEARED in codes
    elif kind >= 0.6:
        assert ReasonCode.CHECKERS_VANISHED in codes
    elif side is pos.turn.opponent:
        # a checker the play hit, put back from the bar where it stood, leaves the board of the mover's own play
        # without the hit: the judge may name the mover's fault instead (tTYAAL5ubQAABA, 6-1 bar/24*/18 with the hit
        # undone: "bar/19 landed on the 19-point, held by 2 black checkers")
        hit_undone = src == BAR and pos.counts(side)[dst] > play.after.counts(side)[dst]
        if not hit_undone:
            # an opponent's checker moved: to the bar without a hit, or the wrong colour moved
            assert codes & {ReasonCode.WRONG_COLOUR, ReasonCode.BAR_WITHOUT_HIT, ReasonCode.HIT_NOT_SENT_TO_BAR}, codes


@SETTINGS
@given(positions)
def test_gnubg_id_round_trip(pos: Position) -> None:
    assert Position.from_gnubg_id(pos.gnubg_id(), pos.turn) == pos
    assert Position.from_text(pos.text()) == pos
    assert pos.mirror().mirror() == pos


def test_no_play_is_the_same_board_with_opponent_on_roll() -> None:
    pos = Position.from_points({BAR: 2, 6: 13}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    (play,) = legal_plays(pos, (6, 6))
    assert play.is_empty and play.after == pos.swap_turn() and pos.turn is Side.WHITE


@SETTINGS
@given(positions, dice, st.lists(st.integers(-1, 4), min_size=52, max_size=52))
def test_judging_any_camera_board_never_crashes(pos: Position, roll: Dice, counts: list[int]) -> None:
    after = Position(tuple(counts[:26]), tuple(counts[26:]), pos.turn.opponent)
    j = judge(pos, roll, after)
    assert j.legal == (after in legal_plays(pos, roll))
    if not j.legal:
        assert j.reasons and all(r.message for r in j.reasons)
