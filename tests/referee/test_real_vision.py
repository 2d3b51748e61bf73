"""A short rendered game refereed through the REAL reader (vision.reader.BoardReader), not the oracle.

The simulator renders the game with its sensor noise; the frames go through the real models, the
real-vision tracker and the laws.  What must hold whatever the models' accuracy: no false alarm
(an infraction verdict that was not staged), every staged infraction that is called is called by
its law code against the right player, and the game is refereed at all (set up, throws and plays
on record).  How many are caught depends on the models (docs/referee_vision.md has the figures).
Seed 7301 was never used to tune anything.
"""

from __future__ import annotations

import pytest

from referee.rendered import GameScore, RealVision, referee_game
from vision.sim.game import GameScript, Timing

# the demo's pace: still scenes last long enough for the reader's gate (5 frames) and the tracker (2)
PACE = Timing(reach=3, carry=3, place=2, retreat=3, throw=8, settle=8, lift=3, think=8, cube=6, illegal_hold=10)


def _describe(sc: GameScore) -> str:
    lines = [f"seed {sc.seed}: {sc.caught}/{sc.seeded} caught, {len(sc.false_alarms)} false alarms, "
             f"{len(sc.checks)} checks, {len(sc.resolved)} resolved unsure"]
    lines += [f"  {c.seeded.kind} by {c.seeded.side.name} -> {c.code} by {c.offender}" for c in sc.catches]
    lines += [f"  false alarm g{j.game} m{j.move}: {j.verdict.summary()} ({j.emitted.note})" for j in sc.false_alarms]
    return "\n".join(lines)


@pytest.fixture(scope="module")
def real_game() -> tuple[GameScore, RealVision]:
    try:
        reader = RealVision()
    except (OSError, ValueError) as exc:  # the models are committed; a checkout without them skips
        pytest.skip(f"the real reader is not available: {exc}")
    script = GameScript((("premature_throw", 1), ("illegal_wrong_distance", 2), ("lifted_early", 3)), max_turns=4)
    sc = referee_game(7301, script=script, width=1280, height=720, timing=PACE, reader=reader, clean=False)
    return sc, reader


def test_no_false_alarm_with_real_vision(real_game: tuple[GameScore, RealVision]) -> None:
    sc, _ = real_game
    assert not sc.false_alarms, _describe(sc)


def test_what_is_called_is_named_right(real_game: tuple[GameScore, RealVision]) -> None:
    sc, _ = real_game
    assert sc.seeded == 3
    for c in sc.catches:
        assert c.code is None or c.caught, _describe(sc)


def test_the_game_is_refereed_through_the_reader(real_game: tuple[GameScore, RealVision]) -> None:
    sc, reader = real_game
    assert reader.stats["frames"] == sc.frames and reader.stats["full"] >= 4  # the reader read still scenes
    assert sc.match is not None and sc.match.games, _describe(sc)  # the game was set up and is on record
    assert len(sc.recorded) >= 2, _describe(sc)  # throws and plays were put on record (seen or inferred)
