"""Match files: reading and writing gnubg/Jellyfish text (``.mat``) and gnubg SGF.

>>> from rules.matchfile import read_match_text, write_mat
>>> text = '''
...  1 point match
...
...  Game 1
...  alice : 0                      bob : 0
...   1) 31: 8/5 6/5                 64: 24/18 18/14
... '''
>>> record = read_match_text(text, "demo.mat")
>>> record.games[0].actions[1].play
'24/14'
>>> print(write_mat(record).splitlines()[-2])
  1) 31: 8/5 6/5                 64: 24/18 18/14

:func:`read_match` reads any of the formats (by content) in any encoding and returns the
*canonical* record: every play resolved by the rules core to gnubg's notation.  A file
with an illegal or unreadable play raises :class:`MatchFileError` naming the line; use
:func:`check_match` to get every finding of a file instead.
"""

from __future__ import annotations

from pathlib import Path

from rules.matchfile.encoding import Decoded, decode
from rules.matchfile.errors import Issue, IssueKind, MatchFileError
from rules.matchfile.mat import format_mat, parse_mat
from rules.matchfile.replay import MatchReport, outcome_of, replay_match
from rules.matchfile.sgf import format_sgf, parse_sgf
from rules.moves import Play
from rules.record import MatchRecord, Move

__all__ = [
    "Decoded",
    "Issue",
    "IssueKind",
    "MatchFileError",
    "MatchReport",
    "check_match",
    "check_match_text",
    "decode",
    "detect_format",
    "jellyfish_play",
    "outcome_of",
    "parse_mat",
    "parse_sgf",
    "read_match",
    "read_match_text",
    "replay_match",
    "write_mat",
    "write_sgf",
]


def detect_format(text: str) -> str:
    """``"sgf"`` for an SGF collection, else ``"mat"``."""
    return "sgf" if text.lstrip().startswith("(") else "mat"


def _parse(text: str, source: str, issues: list[Issue]) -> MatchRecord:
    if detect_format(text) == "sgf":
        return parse_sgf(text, source, issues)
    return parse_mat(text, source, issues)


def check_match_text(text: str, source: str = "<text>") -> MatchReport:
    """Read and replay a match given as text; every finding is in the report."""
    issues: list[Issue] = []
    record = _parse(text, source, issues)
    report = replay_match(record, source)
    if issues:
        report = MatchReport(source, report.record, report.plays_checked, tuple(issues) + report.issues, report.plays)
    return report


def check_match(path: str | Path) -> MatchReport:
    """Read and replay a match file; raises :class:`MatchFileError` only when it cannot be read."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as exc:
        raise MatchFileError(str(path), 0, f"cannot read: {exc.strerror or exc}") from exc
    return check_match_text(decode(data).text, str(path))


def read_match_text(text: str, source: str = "<text>") -> MatchRecord:
    """The canonical record of a match given as text; raises on the first illegal play."""
    report = check_match_text(text, source)
    _raise_on_plays(report)
    return report.record


def read_match(path: str | Path) -> MatchRecord:
    """The canonical record of a match file; raises :class:`MatchFileError` on an illegal play."""
    report = check_match(path)
    _raise_on_plays(report)
    return report.record


def _raise_on_plays(report: MatchReport) -> None:
    bad = report.illegal_plays or tuple(i for i in report.issues if i.kind is IssueKind.ORDER)
    if bad:
        first = bad[0]
        raise MatchFileError(first.source, first.line, f"game {first.game}: {first.message}")


def _resolved(record: MatchRecord) -> tuple[MatchRecord, dict[tuple[int, int], Play]]:
    report = replay_match(record, "<record>")
    _raise_on_plays(report)
    return report.record, report.plays


def jellyfish_play(play: Play) -> str:
    """A play the way gnubg exports it to .mat: one ``from/to`` per die, 25 = bar, 0 = off.

    ``13/11(2)`` becomes ``13/11 13/11``; hits are marked ``*``.
    """
    return " ".join(f"{s.start}/{s.end}{'*' if s.hit else ''}" for s in play.steps)


def write_mat(record: MatchRecord) -> str:
    """The record as gnubg/Jellyfish match text (what ``gnubg``'s ``export match mat`` writes)."""
    canon, plays = _resolved(record)
    texts = {key: jellyfish_play(play) for key, play in plays.items()}
    for gi, game in enumerate(canon.games):
        for ai, action in enumerate(game.actions):
            if isinstance(action, Move) and (gi, ai) not in texts:  # pragma: no cover - replay resolves all
                raise MatchFileError("<record>", action.line, f"game {game.number}: unresolved play {action.play!r}")
    return format_mat(canon, texts)


def write_sgf(record: MatchRecord) -> str:
    """The record as gnubg SGF (what ``gnubg``'s ``save match`` writes, without analysis)."""
    canon, plays = _resolved(record)
    return format_sgf(canon, plays)
