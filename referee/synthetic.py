"""Synthetic observation streams: random legal games as a perfect camera would report them.

Used by the tests (the kill-and-resume property), the benchmark, and as a fallback for the
demo where the renderer is not available.  Deterministic from a seed.  Each scene is held for
``hold`` still frames after one moving frame (a hand), at 30 frames per second.

Scripted infractions (``faults``: turn number -> kind) are seeded as a player would commit
them: ``cocked`` (one die cocked, then thrown again), ``wrong_table`` (the dice land in the
left-hand table, then thrown again), ``illegal`` (a checker moved one pip too far, then
corrected) and ``premature`` (the opponent throws before the mover lifts his dice).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from dataclasses import dataclass, replace

from rules.moves import LegalPlays, legal_plays
from rules.position import Position, Side
from vision.geometry import Area
from vision.observation import BoardObservation, CubePosition, CubeReading, DieReading

SPOTS = {
    Side.WHITE: ((150.0, 250.0), (190.0, 262.0)),
    Side.BLACK: ((500.0, 150.0), (540.0, 162.0)),
}
EARLY = {Side.WHITE: ((110.0, 220.0), (230.0, 230.0)), Side.BLACK: ((600.0, 120.0), (640.0, 130.0))}
RIGHT = {Side.WHITE: Area.RIGHT_TABLE, Side.BLACK: Area.LEFT_TABLE}
CUBE = CubeReading(64, 0.99, CubePosition.MIDDLE, 0.0, 0.99)
FAULT_KINDS = ("cocked", "wrong_table", "illegal", "premature")


def _die(face: int, area: Area, xy: tuple[float, float], cocked: bool = False) -> DieReading:
    return DieReading(face, 0.99, cocked, 0.99, area, 40.0, xy, (int(xy[0]), int(xy[1]), 20, 20))


@dataclass
class _Writer:
    hold: int
    seq: int = 0

    def scene(self, pos: Position, dice: tuple[DieReading, ...] = ()) -> Iterator[BoardObservation]:
        base = BoardObservation.from_position(pos, seq=self.seq, t=self.seq / 30, cube=CUBE)
        yield replace(base, still=False, covered=frozenset({"p12"}))
        self.seq += 1
        for _ in range(self.hold):
            yield BoardObservation.from_position(pos, seq=self.seq, t=self.seq / 30, dice=dice, cube=CUBE)
            self.seq += 1


@dataclass(frozen=True, slots=True)
class Seeded:
    """A scripted infraction: on which turn, what kind, by whom."""

    turn: int
    kind: str
    side: Side


def random_game(seed: int, *, turns: int = 40, hold: int = 3, faults: dict[int, str] | None = None,
                seeded: list[Seeded] | None = None) -> Iterator[BoardObservation]:
    """A random game (stops early when someone bears off); ``seeded`` collects the faults used."""
    rng = random.Random(seed)
    w = _Writer(hold)
    faults = faults or {}
    pos = Position.initial()
    yield from w.scene(pos)
    # opening: distinct dice
    a, b = rng.sample(range(1, 7), 2)
    side = Side.WHITE if a > b else Side.BLACK
    opening = (_die(a, RIGHT[Side.WHITE], SPOTS[Side.WHITE][0]), _die(b, RIGHT[Side.BLACK], SPOTS[Side.BLACK][0]))
    dice: tuple[DieReading, ...] = opening
    roll = (max(a, b), min(a, b))
    yield from w.scene(pos, dice)
    pending_early: tuple[DieReading, ...] | None = None
    for turn in range(1, turns + 1):
        mover = pos.turn if turn > 1 else side
        pos = pos.with_turn(mover)
        kind = faults.get(turn)
        if turn > 1:
            if pending_early is not None:
                dice, pending_early = pending_early, None
                roll = (dice[0].face or 1, dice[1].face or 1)
            else:
                roll = (rng.randint(1, 6), rng.randint(1, 6))
                if kind in ("cocked", "wrong_table"):
                    if kind == "cocked":
                        bad = (_die(roll[0], RIGHT[mover], SPOTS[mover][0]),
                               _die(roll[1], RIGHT[mover], SPOTS[mover][1], cocked=True))
                    else:
                        other = RIGHT[mover.opponent]
                        bad = (_die(roll[0], other, EARLY[mover.opponent][0]),
                               _die(roll[1], other, EARLY[mover.opponent][1]))
                    if seeded is not None:
                        seeded.append(Seeded(turn, kind, mover))
                    yield from w.scene(pos, bad)
                    yield from w.scene(pos)  # picked up
                    roll = (rng.randint(1, 6), rng.randint(1, 6))
                dice = (_die(roll[0], RIGHT[mover], SPOTS[mover][0]), _die(roll[1], RIGHT[mover], SPOTS[mover][1]))
                yield from w.scene(pos, dice)
        plays = list(legal_plays(pos, roll))
        play = plays[rng.randrange(len(plays))]
        if kind == "illegal" and play.steps:
            wrong = _wrong(play.after, mover, legal_plays(pos, roll))
            if wrong is not None:
                if seeded is not None:
                    seeded.append(Seeded(turn, kind, mover))
                yield from w.scene(wrong, dice)
                yield from w.scene(wrong)  # lifted: illegal play
                yield from w.scene(play.after)  # corrected before the opponent throws
                pos = play.after
                if pos.winner() is not None:
                    return
                continue
        if kind == "premature" and not play.after.winner():
            yield from w.scene(play.after, dice)
            r2 = (rng.randint(1, 6), rng.randint(1, 6))
            early = (_die(r2[0], RIGHT[mover.opponent], EARLY[mover.opponent][0]),
                     _die(r2[1], RIGHT[mover.opponent], EARLY[mover.opponent][1]))
            if seeded is not None:
                seeded.append(Seeded(turn, kind, mover.opponent))
            yield from w.scene(play.after, dice + early)
            yield from w.scene(play.after, early)  # mover lifts; the early throw stands
            pending_early = early
            pos = play.after
            continue
        yield from w.scene(play.after, dice)
        yield from w.scene(play.after)  # lifted
        pos = play.after
        if pos.winner() is not None:
            return


def _wrong(after: Position, mover: Side, plays: LegalPlays) -> Position | None:
    """``after`` with one of the mover's checkers one point further on, where that is not legal."""
    counts = list(after.counts(mover))
    opp = after.counts(mover.opponent)
    for p in range(2, 25):
        if counts[p] and not opp[25 - (p - 1)] and counts[p - 1] < 5:
            counts[p] -= 1
            counts[p - 1] += 1
            cand = after.replace(mover, tuple(counts))
            if cand not in plays:
                return cand
            counts[p] += 1
            counts[p - 1] -= 1
    return None


def fault_plan(seed: int, turns: int, every: int = 4) -> dict[int, str]:
    """A fault every ``every`` turns (from turn 3), cycling through the kinds."""
    rng = random.Random(seed ^ 0x5EED)
    kinds = list(FAULT_KINDS)
    rng.shuffle(kinds)
    return {t: kinds[i % len(kinds)] for i, t in enumerate(range(3, turns + 1, every))}


def write_stream(path: str, observations: Iterator[BoardObservation]) -> int:
    """Write an observation stream (``.obs.jsonl``) that ``bgref replay`` reads; returns the count."""
    import json

    from referee.codec import encode_observation

    n = 0
    with open(path, "w", encoding="utf-8") as f:
        for o in observations:
            f.write(json.dumps(encode_observation(o), separators=(",", ":")) + "\n")
            n += 1
    return n
