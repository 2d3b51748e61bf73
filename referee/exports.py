"""Exports of the refereed match: gnubg/Jellyfish text (``.mat``) and gnubg SGF.

Written at any time (``Session`` keeps the record) and at the end of a run, beside the
journal: ``<journal stem>.mat`` and ``<journal stem>.sgf``.  Files are written to a temporary
name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rules.dice import Dice
from rules.moves import Play, Step
from rules.notation import parse_play
from rules.position import BAR, OFF, Position, Side
from rules.record import MatchRecord, Move, Resign, Take

if TYPE_CHECKING:
    from referee.session import Session


class ExportError(ValueError):
    """A record that cannot be written in a format (quoted with its game and move)."""


def _plays(record: MatchRecord) -> tuple[dict[tuple[int, int], Play], dict[tuple[int, int], str]]:
    """Every move's :class:`Play` (replayed from the game's start) and its text.

    A move that is no legal play of its roll (an illegal play that stood, a board the referee put in step: the laws
    record it as seen, ``rules.laws.machine.diff_notation``) keeps its text, and its play is its checkers' moves as
    written (:func:`_as_written`), so the SGF writes it and follows the board after it.
    """
    plays: dict[tuple[int, int], Play] = {}
    texts: dict[tuple[int, int], str] = {}
    for gi, game in enumerate(record.games):
        pos: Position | None = game.start
        for ai, action in enumerate(game.actions):
            if not isinstance(action, Move):
                continue
            texts[(gi, ai)] = action.play
            play: Play | None = None
            if pos is not None:
                with contextlib.suppress(ValueError):
                    play = parse_play(action.play, pos.with_turn(action.player), Dice(*action.dice))
            if play is not None:
                texts[(gi, ai)] = play.notation()
            else:
                play = _as_written(action, pos, f"game {game.number}")
            plays[(gi, ai)] = play
            pos = None if play.after.problems() else play.after
    return plays, texts


def _as_written(move: Move, pos: Position | None, where: str) -> Play:
    """``move``'s checkers moved as its text writes them (``FROM/TO`` per checker, paths and ``(n)`` allowed, in the
    mover's numbering) from ``pos``; a checker landing on a lone opponent checker sends it to the bar.  Where the
    board cannot be followed (``pos`` None, or the text starts a checker where the mover has none) the play's board
    lists what is wrong with it (``Position.problems``: no checkers, a negative count) and is not followed on."""
    steps: list[Step] = []
    for word in move.play.split():
        body, count = word, 1
        if body.endswith(")") and "(" in body:
            body, _, n = body[:-1].partition("(")
            count = int(n) if n.isdigit() and 1 <= int(n) <= 4 else 0
        points = [_point(x) for x in body.split("/")]
        path = [p for p in points if p is not None]
        if count == 0 or len(path) < 2 or len(path) != len(points):
            raise ExportError(f"{where}: {move.player.name.lower()}'s move {move.dice[0]}{move.dice[1]} "
                              f"{move.play!r} does not read as FROM/TO moves")
        steps += [Step(a, b, abs(a - b)) for _ in range(count) for a, b in itertools.pairwise(path)]
    mine = list(pos.counts(move.player)) if pos is not None else [0] * 26
    theirs = list(pos.counts(move.player.opponent)) if pos is not None else [0] * 26
    out: list[Step] = []
    for st in steps:
        hit = OFF < st.end < BAR and theirs[BAR - st.end] == 1
        if hit:
            theirs[BAR - st.end], theirs[BAR] = 0, theirs[BAR] + 1
        mine[st.start] -= 1
        mine[st.end] += 1
        out.append(Step(st.start, st.end, st.die, hit))
    white, black = (mine, theirs) if move.player is Side.WHITE else (theirs, mine)
    return Play(tuple(out), Position(tuple(white), tuple(black), move.player.opponent))


def _point(word: str) -> int | None:
    w = word.rstrip("*").lower()
    return BAR if w == "bar" else OFF if w == "off" else int(w) if w.isdigit() and int(w) <= BAR else None


AMENDED_TAG = "Amended"  # the .mat header tag of a move amended on record (gnubg keeps it as a comment)


def mat_text(record: MatchRecord) -> str:
    """The match as gnubg/Jellyfish text; each move amended on record (rules.record.AmendmentRecord) is noted
    in a ``; [Amended "game N: bgref amended: ..."]`` header line, after the infraction lines."""
    from rules.matchfile.mat import format_mat

    _, texts = _plays(record)
    text = format_mat(record, texts)
    notes = [f'; [{AMENDED_TAG} "game {g.number}: {a.text()}"]' for g in record.games for a in g.amendments]
    if not notes:
        return text
    lines = text.split("\n")
    head = 0
    while head < len(lines) and lines[head].startswith("; ["):
        head += 1
    return "\n".join(lines[:head] + notes + ([""] if head == 0 else []) + lines[head:])


def sgf_text(record: MatchRecord) -> str:
    """The match as gnubg SGF; each move amended on record is noted in the comment (``C[...]``) of its node."""
    from rules.matchfile.sgf import format_sgf

    plays, _ = _plays(record)
    text = format_sgf(record, plays)
    if not any(g.amendments for g in record.games):
        return text
    lines = text.split("\n")
    at = 0
    for game in record.games:
        at += 1  # the game's root node
        node: dict[int, int] = {}
        for ai, action in enumerate(game.actions):
            if isinstance(action, Resign):
                continue  # (the R of RE[...], no node)
            node[ai] = at
            at += 2 if isinstance(action, Take) and action.beaver else 1
        for a in game.amendments:
            if a.action in node:
                lines[node[a.action]] = _with_comment(lines[node[a.action]], a.text())
    return "\n".join(lines)


def _with_comment(line: str, note: str) -> str:
    """An SGF node line (``;W[52...]``, maybe with ``C[...]`` and the game's closing ``)``) with ``note`` as the
    first line of its comment (a node holds one C property)."""
    esc = note.replace("\\", "\\\\").replace("]", "\\]")
    end = line.index("]") + 1  # (a move's value holds no ']')
    if line.startswith("C[", end):
        return f"{line[:end + 2]}{esc}\n{line[end + 2:]}"
    return f"{line[:end]}C[{esc}]{line[end:]}"


def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".part")
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def export_record(record: MatchRecord, folder: str | Path, stem: str) -> list[Path]:
    """Write ``stem.mat`` and ``stem.sgf`` in ``folder``; return the paths written."""
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for ext, fn in ((".mat", mat_text), (".sgf", sgf_text)):
        try:
            text = fn(record)
        except (ImportError, KeyError, ValueError, TypeError) as exc:
            raise ExportError(f"cannot write the match as {ext}: {exc}") from exc
        path = out / f"{stem}{ext}"
        _atomic_write(path, text)
        written.append(path)
    return written


def export_match(session: Session, folder: str | Path) -> list[Path]:
    """Export the session's match (the game in progress included); never raises for a bad disk."""
    record = session.machine.match_record()
    if not record.games:
        return []
    stem = Path(session.journal.path).stem if session.journal is not None else "match"
    try:
        written = export_record(record, folder, stem)
    except (ExportError, OSError) as exc:
        session.note("fault", part="export", message=str(exc))
        session.stats.evidence_problem = f"export failed: {exc}"
        return []
    session.note("export", files=[str(p) for p in written])
    return written
