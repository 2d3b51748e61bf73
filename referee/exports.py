"""Exports of the refereed match: gnubg/Jellyfish text (``.mat``) and gnubg SGF.

Written at any time (``Session`` keeps the record) and at the end of a run, beside the
journal: ``<journal stem>.mat`` and ``<journal stem>.sgf``.  Files are written to a temporary
name and renamed, so a reader never sees half a file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from rules.dice import Dice
from rules.moves import Play
from rules.notation import parse_play
from rules.position import Position
from rules.record import MatchRecord, Move, Resign, Take

if TYPE_CHECKING:
    from referee.session import Session


class ExportError(ValueError):
    """A record that cannot be written in a format (quoted with its game and move)."""


def _plays(record: MatchRecord) -> tuple[dict[tuple[int, int], Play], dict[tuple[int, int], str]]:
    """Every move's :class:`Play` (replayed from the game's start) and its text."""
    plays: dict[tuple[int, int], Play] = {}
    texts: dict[tuple[int, int], str] = {}
    for gi, game in enumerate(record.games):
        pos: Position | None = game.start
        for ai, action in enumerate(game.actions):
            if not isinstance(action, Move):
                continue
            texts[(gi, ai)] = action.play
            if pos is None:
                continue
            try:
                play = parse_play(action.play, pos.with_turn(action.player), Dice(*action.dice))
            except ValueError:
                pos = None  # an illegal play stood: the text is kept, the SGF stops following the board
                continue
            plays[(gi, ai)] = play
            texts[(gi, ai)] = play.notation()
            pos = play.after
    return plays, texts


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
