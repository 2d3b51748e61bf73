"""Events made from records, and the acceptance replay of every recorded match in ../shared/data."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rules.laws.codes import builtin
from rules.laws.events import (
    CubeDropped,
    CubeOffered,
    CubeTaken,
    DiceLifted,
    DiceThrown,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
    ResultClaimed,
)
from rules.laws.replay import RecordProblem, game_events, replay_match, self_consistency
from rules.matchfile import IssueKind, MatchReport
from rules.position import Side
from rules.record import Double, Drop, GameRecord, GameResult, MatchRecord, Move, ResultKind, Take

from ..conftest import CHUNKS, Reading, corpus_files

W, B = Side.WHITE, Side.BLACK
MODERN = builtin("modern")


def game1() -> GameRecord:
    return GameRecord(
        1,
        (0, 0),
        (
            Move(B, (3, 1), "8/5 6/5"),
            Move(W, (5, 3), "8/3 6/3"),
            Double(B, 2),
            Take(W),
            Move(B, (6, 4), "24/14"),
            Double(W, 4),
            Drop(B),
        ),
        GameResult(W, 2, ResultKind.DROP),
        line=10,
    )


def test_events_from_a_record() -> None:
    evs = list(game_events(game1(), rules=MODERN))
    kinds = [type(e) for e in evs]
    assert kinds[:4] == [GameSetUp, OpeningDieThrown, OpeningDieThrown, PositionObserved]
    assert evs[1] == OpeningDieThrown(B, evs[1].die) and evs[1].die.value == 3  # type: ignore[union-attr]
    assert DiceThrown in kinds and DiceLifted in kinds
    assert kinds[-4:] == [DiceLifted, CubeOffered, CubeDropped, ResultClaimed]
    assert CubeTaken in kinds


def test_replay_clean_match_and_record_round_trip() -> None:
    g2 = GameRecord(2, (2, 0), (Move(W, (6, 5), "24/13"),), None, line=30)
    match = MatchRecord(("Ann", "Bob"), 5, (game1(), g2))
    r = replay_match(match, MODERN)
    assert r.problems == [] and r.infractions == []
    assert r.final_score == (2, 0)


def test_inconsistent_record_reported_with_line() -> None:
    bad_play = GameRecord(1, (0, 0), (Move(B, (3, 1), "8/4 6/5", line=12),), None, line=10)
    r = replay_match(MatchRecord(("a", "b"), 3, (bad_play,)), MODERN)
    assert len(r.problems) == 1 and r.problems[0].line == 12 and "8/4 6/5" in str(r.problems[0])
    assert r.infractions == []
    g2 = GameRecord(2, (1, 0), (), None, line=40)  # game 1 gave White 2, not 1
    problems = self_consistency(MatchRecord(("a", "b"), 5, (game1(), g2)))
    assert len(problems) == 1 and problems[0].line == 40
    wrong_result = GameRecord(1, (0, 0), game1().actions, GameResult(W, 4, ResultKind.DROP), line=10)
    r = replay_match(MatchRecord(("a", "b"), 7, (wrong_result,)), MODERN)
    assert r.infractions == [] and len(r.problems) == 1 and "board says" in str(r.problems[0])
    opening_double = GameRecord(1, (0, 0), (Move(W, (4, 4), "24/20(2)", line=11),), None)
    r = replay_match(MatchRecord(("a", "b"), 3, (opening_double,)), MODERN)
    assert isinstance(r.problems[0], RecordProblem) and r.problems[0].line == 11


@pytest.mark.shared_data
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_recorded_match_replays_without_infractions(
    shared_data: Path, corpus_chunk: Callable[[int], tuple[Reading, ...]], chunk: int
) -> None:
    """The acceptance replay, in the corpus test's chunks (each file is read once per session)."""
    files = corpus_files(shared_data)
    assert len(files) > 1000
    readings = corpus_chunk(chunk)
    assert [p for p, _ in readings] == files[chunk::CHUNKS]
    infractions: list[str] = []
    inconsistent: dict[str, list[RecordProblem]] = {}
    unreadable: list[str] = []
    games = 0
    for path, report in readings:
        # read_match's rule: a file that cannot be read, or with an illegal play, is not refereed
        if not isinstance(report, MatchReport):
            unreadable.append(f"{path.name}: {report}")
            continue
        bad = report.illegal_plays or tuple(i for i in report.issues if i.kind is IssueKind.ORDER)
        if bad:
            unreadable.append(f"{path.name}: {bad[0]}")
            continue
        record = report.record
        result = replay_match(record, MODERN)
        games += len(record.games)
        infractions.extend(f"{path.name} game {g.number}: {v.summary()} {v.director}" for g in result.games for v in g.verdicts if v.is_infraction)
        if result.problems:
            inconsistent[path.name] = result.problems
            continue
        # the recorded results and match scores come out of the machine
        last = record.games[-1] if record.games else None
        if last is not None and last.result is not None:
            expect = list(last.score)
            expect[last.result.winner] += last.result.points
            got = result.final_score
            assert got[last.result.winner.opponent] == expect[last.result.winner.opponent], path.name
            cap = record.length if record.length else expect[last.result.winner]
            assert min(got[last.result.winner], cap) == min(expect[last.result.winner], cap), path.name
    assert infractions == []
    assert games > 2500 // CHUNKS
    for name, problems in inconsistent.items():
        assert all(p.line > 0 for p in problems), (name, problems)
    # the files that contradict themselves are few, and each is reported with its line
    assert len(inconsistent) <= len(files) // 50 // CHUNKS, sorted(inconsistent)
    assert len(unreadable) <= len(files) // 100 // CHUNKS, unreadable
