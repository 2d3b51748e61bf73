"""The gnubg/Jellyfish text match format (``.mat``, and the ``.txt`` exports of Galaxy/Studio/XG).

A file looks like this (the right column starts where the exporter likes)::

    ; [Site "BackgammonGalaxy"]
    ; [Crawford "On"]

     5 point match

     Game 1
     lasse : 0                       paese : 0
      1)                             31: 8/5 6/5
      2) 53: 8/3 6/3                 52: 13/8 13/11
      9)  Doubles => 2                Drops
          Wins 1 point

The left column is WHITE (gnubg's player 0, SGF's ``W``), the right column BLACK.
The reader keeps plays as written; :mod:`rules.matchfile.replay` resolves them to legal
plays and gnubg's canonical notation.  The writer writes what ``gnubg`` itself exports.
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from typing import Final

from rules.matchfile.errors import Issue, IssueKind, MatchFileError
from rules.position import Side
from rules.record import (
    Action,
    AmendmentRecord,
    Double,
    Drop,
    GameRecord,
    GameResult,
    InfractionRecord,
    MatchRecord,
    Move,
    Resign,
    ResultKind,
    Take,
)

_HEADER: Final = re.compile(r'^\s*;\s*\[\s*(?P<key>[^"\]]*?)\s+"(?P<value>.*)"\s*\]\s*$')
_LENGTH: Final = re.compile(r"^\s*(?P<n>\d+)\s+points?\s+match\b", re.IGNORECASE)
_MONEY: Final = re.compile(r"^\s*(?:money|unlimited)\b", re.IGNORECASE)
_GAME: Final = re.compile(r"^\s*Game\s+(?P<n>\d+)\s*$", re.IGNORECASE)
_SCORE: Final = re.compile(r"^\s*(?P<n1>[^:]*?)\s*:\s*(?P<s1>\d+)\s+(?P<n2>[^:\s][^:]*?)?\s*(?P<c2>:)\s*(?P<s2>\d+)\s*$")
_MOVE_LINE: Final = re.compile(r"^\s*(?P<n>\d+)\)")
_DICE: Final = re.compile(r"^(?P<d1>[1-6])(?P<d2>[1-6]):(?P<rest>\S*)$")
_PLAY_TOKEN: Final = re.compile(r"^(?:[^:\s]*/[^:\s]*|\(\d\)|\*|\?+)$")
_STRAY_NUMBER: Final = re.compile(r"^\d+\)$")
_INT: Final = re.compile(r"^\d+$")
_INFRACTION_TAG: Final = "Infraction"
_AMENDED_TAG: Final = "Amended"  # referee.exports.AMENDED_TAG
_INFRACTION_VALUE: Final = re.compile(r"^game (?P<n>\d+): (?P<note>.*)$")

# Column of a "Wins" cell so far right that it belongs to neither column (Galaxy quirk).
_FAR_RIGHT_MARGIN: Final = 24


@dataclass(frozen=True, slots=True)
class _Cell:
    """One entry of a move line: where it starts and what it says."""

    col: int
    kind: str  # move, placeholder, double, take, beaver, drop, win, resign
    dice: tuple[int, int] = (0, 0)
    text: str = ""
    value: int = 0
    match: bool = False


def _cells(line: str, start: int, source: str, lineno: int) -> list[_Cell]:
    """Split a move line (from column ``start``) into its entries."""
    toks = [(m.start(), m.group()) for m in re.finditer(r"\S+", line) if m.start() >= start]
    cells: list[_Cell] = []
    i = 0

    def bad(msg: str) -> MatchFileError:
        return MatchFileError(source, lineno, msg)

    while i < len(toks):
        col, tok = toks[i]
        low = tok.lower()
        m = _DICE.match(tok)
        if m:
            words = [m.group("rest")] if m.group("rest") else []
            i += 1
            while i < len(toks):
                t = toks[i][1]
                if _PLAY_TOKEN.match(t) or (t.lower() == "cannot") or (t.lower().startswith("move") and words[-1:] == ["Cannot"]):
                    words.append(t)
                    i += 1
                else:
                    break
            text = " ".join(words)
            dice = (int(m.group("d1")), int(m.group("d2")))
            if text and set(text) == {"?"}:
                cells.append(_Cell(col, "placeholder", dice, text))
            else:
                if text.lower().replace(".", "") in ("cannot move", "can't move"):
                    text = ""
                cells.append(_Cell(col, "move", dice, text))
            continue
        if low in ("doubles", "redoubles", "double", "beavers", "beaver"):
            j = i + 1
            if j < len(toks) and toks[j][1] == "=>":
                j += 1
            if j >= len(toks) or not _INT.match(toks[j][1]):
                raise bad(f"{tok} without a cube value in {line.strip()!r}")
            kind = "beaver" if low.startswith("beaver") else "double"
            cells.append(_Cell(col, kind, value=int(toks[j][1])))
            i = j + 1
            continue
        if low in ("takes", "accepts", "take"):
            cells.append(_Cell(col, "take"))
            i += 1
            continue
        if low in ("drops", "passes", "rejects", "drop", "pass"):
            cells.append(_Cell(col, "drop"))
            i += 1
            continue
        if low in ("wins", "losses", "loses", "concedes", "resigns"):
            j = i + 1
            value = 0
            if j < len(toks) and _INT.match(toks[j][1]):
                value = int(toks[j][1])
                j += 1
                if j < len(toks) and toks[j][1].lower() in ("point", "points", "pt", "pts"):
                    j += 1
            match = False
            if [t.lower() for _, t in toks[j : j + 3]] == ["and", "the", "match"]:
                match = True
                j += 3
            if low == "wins" and value <= 0:
                raise bad(f"'Wins' without a number of points in {line.strip()!r}")
            cells.append(_Cell(col, "win" if low == "wins" else "resign", value=value, match=match))
            i = j
            continue
        if _STRAY_NUMBER.match(tok):  # Galaxy repeats "24)" inside the right column
            i += 1
            continue
        if set(tok) == {"?"}:
            cells.append(_Cell(col, "placeholder", text=tok))
            i += 1
            continue
        raise bad(f"cannot read {tok!r} in {line.strip()!r}")
    return cells


class _GameBuilder:
    def __init__(self, number: int, score: tuple[int, int], line: int) -> None:
        self.number = number
        self.score = score
        self.line = line
        self.actions: list[Action] = []
        self.cube = 1
        self.pending = 0
        self.result: GameResult | None = None
        self.result_line = 0
        self.match_claimed = False
        self.unplaced_resign: tuple[int, int] | None = None  # (points, line) of an own-line "Losses"


def parse_mat(text: str, source: str = "<mat>", issues: list[Issue] | None = None) -> MatchRecord:
    """Read a gnubg/Jellyfish text match; findings that are not fatal go to ``issues``.

    Raises :class:`MatchFileError` (with the line) for anything that cannot be read.
    """
    found: list[Issue] = issues if issues is not None else []
    meta: list[tuple[str, str]] = []
    meta_lines: list[int] = []
    length: int | None = None
    players: tuple[str, str] | None = None
    games: list[GameRecord] = []
    game: _GameBuilder | None = None
    pending_game: tuple[int, int] | None = None  # (number, line) of a "Game N" awaiting its score line
    threshold = 20
    right_col = 33

    def finish() -> None:
        nonlocal game
        if game is not None:
            games.append(_finish_game(game, source, found))
            game = None

    for lineno, raw in enumerate(text.split("\n"), start=1):
        line = raw.expandtabs(8).rstrip()
        if not line.strip():
            continue
        if game is None and pending_game is None:
            m = _HEADER.match(line)
            if m:
                meta.append((m.group("key").strip(), m.group("value")))
                meta_lines.append(lineno)
                continue
            if line.lstrip().startswith(";"):
                continue
            m = _LENGTH.match(line)
            if m and length is None:
                length = int(m.group("n"))
                continue
            if _MONEY.match(line) and length is None:
                length = 0
                continue
        m = _GAME.match(line)
        if m:
            finish()
            if length is None:
                raise MatchFileError(source, lineno, "game before the 'N point match' line")
            pending_game = (int(m.group("n")), lineno)
            continue
        if pending_game is not None:
            m = _SCORE.match(line)
            if not m:
                raise MatchFileError(source, lineno, f"expected the score line 'name : n   name : n', got {line.strip()!r}")
            names = (m.group("n1").strip(), (m.group("n2") or "").strip())
            if players is None:
                players = names
                right_col = m.start("n2") if m.group("n2") else m.start("c2") - 1
                threshold = (5 + right_col) // 2
            elif names != players:
                found.append(Issue(source, lineno, pending_game[0], IssueKind.ORDER, f"players {names} differ from {players} of game 1"))
            game = _GameBuilder(pending_game[0], (int(m.group("s1")), int(m.group("s2"))), pending_game[1])
            pending_game = None
            continue
        if game is None:
            if line.lstrip().startswith(";"):
                continue
            raise MatchFileError(source, lineno, f"unexpected line outside a game: {line.strip()!r}")
        m = _MOVE_LINE.match(line)
        start = m.end() if m else 0
        for cell in _cells(line, start, source, lineno):
            side: Side | None
            if cell.col >= right_col + _FAR_RIGHT_MARGIN and cell.kind == "win":
                side = None
            elif m is None and cell.kind == "resign" and cell.col < 4:
                # Galaxy writes " Losses N point" at column 1 for either player: the
                # "Wins" line after it says who won.
                side = None
            else:
                side = Side.WHITE if cell.col < threshold else Side.BLACK
            _apply(game, cell, side, source, lineno, found)
    finish()
    if pending_game is not None:
        raise MatchFileError(source, pending_game[1], "game without a score line")
    if length is None:
        raise MatchFileError(source, 0, "no 'N point match' line: not a gnubg/Jellyfish match file")
    if players is None:
        players = ("", "")
    games, meta = _attach_infractions(games, meta, source, meta_lines)
    record = MatchRecord(players, length, tuple(games), tuple(meta))
    return mark_crawford(record)


def _attach_infractions(
    games: list[GameRecord], meta: list[tuple[str, str]], source: str, lines: list[int]
) -> tuple[list[GameRecord], list[tuple[str, str]]]:
    """Move the ``; [Infraction "game N: ..."]`` and ``; [Amended "game N: ..."]`` header tags into their
    games' records."""
    notes: dict[int, list[InfractionRecord]] = {}
    amended: dict[int, list[AmendmentRecord]] = {}
    kept: list[tuple[str, str]] = []
    for (key, value), lineno in zip(meta, lines, strict=True):
        if key not in (_INFRACTION_TAG, _AMENDED_TAG):
            kept.append((key, value))
            continue
        m = _INFRACTION_VALUE.match(value)
        what = "bgref infraction" if key == _INFRACTION_TAG else "bgref amended"
        if not m:
            raise MatchFileError(source, lineno, f"cannot read the {key.lower()} tag {value!r} (expected 'game N: {what}: ...')")
        try:
            if key == _INFRACTION_TAG:
                notes.setdefault(int(m.group("n")), []).append(InfractionRecord.parse(m.group("note"), lineno))
            else:
                amended.setdefault(int(m.group("n")), []).append(AmendmentRecord.parse(m.group("note"), lineno))
        except ValueError as exc:
            raise MatchFileError(source, lineno, str(exc)) from None
    numbers = {g.number for g in games}
    for kind, found_by_game in (("an infraction", notes), ("an amendment", amended)):
        for n, found in found_by_game.items():
            if n not in numbers:
                raise MatchFileError(source, found[0].line, f"{kind} of game {n}, which the file does not have")
    out = [dataclasses.replace(g, infractions=g.infractions + tuple(notes.get(g.number, ())),
                               amendments=g.amendments + tuple(amended.get(g.number, ()))) for g in games]
    return out, kept


def mark_crawford(record: MatchRecord) -> MatchRecord:
    """Set each game's ``crawford`` flag from the scores (the first game a player needs one point)."""
    if not record.crawford_rule:
        return record
    seen = False
    out = []
    for g in record.games:
        at = record.length - 1 in g.score
        crawford = at and not seen
        seen = seen or (at and not g.voided)  # a void Crawford game is played again as the Crawford game
        out.append(dataclasses.replace(g, crawford=crawford))
    return MatchRecord(record.players, record.length, tuple(out), record.meta)


def _apply(game: _GameBuilder, cell: _Cell, side: Side | None, source: str, lineno: int, found: list[Issue]) -> None:
    if game.result is not None and cell.kind != "placeholder":
        found.append(Issue(source, lineno, game.number, IssueKind.ORDER, f"{cell.kind} recorded after 'Wins'"))
        return
    if cell.kind == "placeholder":
        return
    if cell.kind == "win":
        if side is None:
            side = _winner_from_context(game)
            if side is None:
                raise MatchFileError(source, lineno, "cannot tell who wins: 'Wins' far right with no drop, resignation or play before it")
        if game.unplaced_resign is not None:
            points, line = game.unplaced_resign
            game.unplaced_resign = None
            _apply(game, _Cell(0, "resign", value=points), side.opponent, source, line, found)
        game.result = GameResult(side, cell.value, ResultKind.SINGLE)
        game.result_line = lineno
        game.match_claimed = cell.match
        return
    if side is None:
        game.unplaced_resign = (cell.value, lineno)
        return
    if cell.kind == "move":
        game.actions.append(Move(side, cell.dice, cell.text, lineno))
    elif cell.kind == "double":
        game.actions.append(Double(side, cell.value, lineno))
        game.pending = cell.value
    elif cell.kind in ("take", "beaver"):
        beaver = cell.kind == "beaver"
        if beaver:
            game.cube = cell.value
        elif game.pending:
            game.cube = game.pending
        game.pending = 0
        game.actions.append(Take(side, beaver, lineno))
    elif cell.kind == "drop":
        game.pending = 0
        game.actions.append(Drop(side, lineno))
    elif cell.kind == "resign":
        # Galaxy writes the points the winner scores, capped at what he needs to win the
        # match, so the level is the smallest that gives at least those points.
        # More than a backgammon is a forfeit of the match: the replay checks the "Wins".
        points = cell.value or game.cube
        level = -(-points // game.cube)
        if level <= 3:
            game.actions.append(Resign(side, level, True, lineno))


def _winner_from_context(game: _GameBuilder) -> Side | None:
    for action in reversed(game.actions):
        if isinstance(action, (Drop, Resign)):
            return action.player.opponent
        if isinstance(action, Move):
            return action.player
    return None


def _finish_game(game: _GameBuilder, source: str, found: list[Issue]) -> GameRecord:
    if game.unplaced_resign is not None:
        raise MatchFileError(source, game.unplaced_resign[1], "'Losses' without a 'Wins' line saying who won")
    result = game.result
    if result is not None:
        ender = game.actions[-1] if game.actions else None
        if isinstance(ender, Drop):
            kind = ResultKind.DROP
        elif isinstance(ender, Resign):
            kind = ResultKind.RESIGN
        else:
            ratio, rem = divmod(result.points, game.cube)
            kind = ResultKind.SINGLE if rem else {2: ResultKind.GAMMON, 3: ResultKind.BACKGAMMON}.get(ratio, ResultKind.SINGLE)
        result = GameResult(result.winner, result.points, kind)
    return GameRecord(game.number, game.score, tuple(game.actions), result, False, line=game.line)


# ---------------------------------------------------------------------------- writing


def format_mat(record: MatchRecord, plays: dict[tuple[int, int], str]) -> str:
    """Lay out ``record`` as gnubg exports it; ``plays[(game index, action index)]`` is the
    Jellyfish text of each move (``"24/21 24/21 6/3 6/3"``, ``"25/20 6/4*"``)."""
    out: list[str] = []
    for key, value in record.meta:
        out.append(f'; [{key} "{value}"]')
    # gnubg keeps unknown header tags as the match's comment: one tag per infraction
    for game in record.games:
        for note in game.infractions:
            out.append(f'; [{_INFRACTION_TAG} "game {game.number}: {note.text()}"]')
    if out:
        out.append("")
    out.append(f" {record.length} point match")  # gnubg writes money play as " 0 point match" and reads nothing else
    out.append("")
    for gi, game in enumerate(record.games):
        out.append(f" Game {game.number}")
        left = f"{record.players[0]} : {game.score[0]}"
        out.append(f" {left:<31}{record.players[1]} : {game.score[1]}")
        cells: list[tuple[Side, str]] = []
        for ai, action in enumerate(game.actions):
            if isinstance(action, Move):
                # gnubg ends every move with a space, so a long left cell never runs into the right one.
                words = "".join(f"{w} " for w in plays[(gi, ai)].split())
                cells.append((action.player, f"{action.dice[0]}{action.dice[1]}: {words}"))
            elif isinstance(action, Double):
                cells.append((action.player, f" Doubles => {action.value}"))
            elif isinstance(action, Take):
                if action.beaver:
                    cells.append((action.player, f" Beavers => {_cube_after(game, ai)}"))
                else:
                    cells.append((action.player, " Takes"))
            elif isinstance(action, Drop):
                cells.append((action.player, " Drops"))  # gnubg: cube actions one column further in
            # Resign: gnubg writes only the "Wins" line and infers the resignation from it.
        rows: list[list[str]] = []
        for player, text in cells:
            if player is Side.BLACK and rows and rows[-1][0] and not rows[-1][1]:
                rows[-1][1] = text
            elif player is Side.BLACK:
                rows.append(["", text])
            else:
                rows.append([text, ""])
        for n, (lcell, rcell) in enumerate(rows, start=1):
            # Always pad the left cell: gnubg's importer reads the right cell at column 33.
            out.append(f"{n:3d}) {lcell:<28}{rcell}")
        if game.result is not None:
            points = f"{game.result.points} point" + ("s" if game.result.points != 1 else "")
            pad = 6 if game.result.winner is Side.WHITE else 34
            out.append(" " * pad + f"Wins {points}")
        out.append("")
    return "\n".join(out) + "\n"


def _cube_after(game: GameRecord, index: int) -> int:
    cube = 1
    for action in game.actions[: index + 1]:
        if isinstance(action, Double):
            cube = action.value
        elif isinstance(action, Take) and action.beaver:
            cube *= 2
    return cube
