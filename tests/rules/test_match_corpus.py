"""The whole shared corpus of real matches, replayed through the rules (CI runs it).

Every recorded play must be legal; every result and score must follow from the board and
the cube.  The only exceptions are the files below, each broken in itself (checked by
reading the file), with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from rules.matchfile import IssueKind, MatchReport, check_match, read_match_text, write_mat, write_sgf

from .conftest import CHUNKS, Reading, corpus_files

pytestmark = pytest.mark.shared_data

ROUND_TRIP_EVERY = 12  # write/read back every 12th file (both formats)

_JACOBY = (
    "a Galaxy money game exported as a '16 point match': the gammon with the cube centred "
    "scores 1 (Jacoby rule), which match play does not have"
)
# file name -> {(game, issue kind): why the file itself is wrong}
KNOWN_BROKEN: dict[str, dict[tuple[int, IssueKind], str]] = {
    "MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt": {
        (2, IssueKind.RESULT): "Studio wrote 'Wins 4016 point' after a '32: ????' roll with ten of Lasse's "
        "checkers still on the board: the match ended off the board (on time), 4016 is no possible score",
    },
    "match8239468.txt": {(1, IssueKind.RESULT): _JACOBY},
    "match8794401.txt": {(1, IssueKind.RESULT): _JACOBY},
    "match9665488.txt": {(1, IssueKind.RESULT): _JACOBY},
    "match9814649.txt": {(1, IssueKind.RESULT): _JACOBY},
}


@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_every_recorded_play_is_legal_and_results_follow(
    shared_data: Path, corpus_chunk: Callable[[int], tuple[Reading, ...]], chunk: int
) -> None:
    files = corpus_files(shared_data)
    assert len(files) >= 1010, f"expected the whole corpus, found {len(files)} files"
    problems: list[str] = []
    seen_known: set[tuple[str, int, IssueKind]] = set()
    plays = 0
    readings = corpus_chunk(chunk)
    assert [p for p, _ in readings] == files[chunk::CHUNKS]
    for index, (path, report) in enumerate(readings):
        assert isinstance(report, MatchReport), f"{path}: {report}"
        plays += report.plays_checked
        assert report.games >= 1, path
        known = KNOWN_BROKEN.get(path.name, {})
        for issue in report.issues:
            if issue.kind is IssueKind.UNFINISHED:
                continue
            if (issue.game, issue.kind) in known:
                seen_known.add((path.name, issue.game, issue.kind))
                continue
            problems.append(str(issue))
        if (index * CHUNKS + chunk) % ROUND_TRIP_EVERY == 0 and report.ok:
            canon = report.record
            assert read_match_text(write_mat(canon), f"{path.name}.mat") == canon, path
            back = read_match_text(write_sgf(canon), f"{path.name}.sgf")
            assert back.games == canon.games and back.players == canon.players, path
    assert not problems, "\n".join(problems[:30])
    expected = {
        (name, game, kind)
        for name, entries in KNOWN_BROKEN.items()
        for (game, kind) in entries
        if any(p.name == name for p in files[chunk::CHUNKS])
    }
    assert seen_known == expected, f"known broken files no longer report: {expected - seen_known}"
    assert plays > 20_000


def test_the_same_match_in_three_formats_reads_the_same(shared_data: Path) -> None:
    base = shared_data / "matches"
    for group in (("kevung_gbf_hsbt/test.mat", "kevung_gbf_hsbt/test.txt", "kevung_gbf_hsbt/test.sgf"),
                  ("gibbon_anon/7point.mat", "gibbon_anon/7point.sgf")):
        records = [check_match(base / name) for name in group]
        for r in records:
            assert r.ok, [str(i) for i in r.issues]
        first = records[0].record
        for other in records[1:]:
            assert other.record.games == first.games and other.record.players == first.players
    # The gibbon SGF's fourth game ends in a resignation; Kévin's name needs the UTF-8 BOM file read right.
    gibbon = check_match(base / "gibbon_anon/7point.sgf").record
    assert gibbon.games[3].result is not None and gibbon.games[3].result.kind.value == "resign"
    assert check_match(base / "kevung_gbf_hsbt/test.mat").record.players[0] == "K\u00e9vin Unger"
