"""gnubg's SGF for backgammon (``GM[6]``): one game tree per game.

A game looks like this (gnubg 1.07 and gibbon write the same)::

    (;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.07.001]MI[length:5][game:0][ws:0][bs:0]
    PW[lasse]PB[paese]RU[Crawford]RE[W+1]
    ;B[31qtst]
    ;W[53hcfc]
    ;W[double]
    ;B[drop])

A move is the dice followed by one from/to pair per die; points are ``a``-``x`` in
WHITE's numbering from WHITE's 1-point (so WHITE's point *p* is letter *p*-1 and BLACK's
point *p* is letter 24-*p*), ``y`` is the bar and ``z`` off.  ``RE[W+2R]`` is a
resignation.  gibbon also writes ``;B[resign:2]`` / ``;W[accept]`` nodes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final, TypeVar

from rules.matchfile.errors import Issue, MatchFileError
from rules.matchfile.mat import mark_crawford
from rules.moves import Play
from rules.position import BAR, OFF, Side
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

_Note = TypeVar("_Note", InfractionRecord, AmendmentRecord)

_RE: Final = re.compile(r"^\s*([BW])\+(\d+)\s*(R|Resign)?\s*$", re.IGNORECASE)
_MOVE: Final = re.compile(r"^([1-6])([1-6])([a-z]*)$")

# SGF root properties kept as match header tags (Jellyfish names).
_META: Final = {"EV": "Event", "RO": "Round", "PC": "Site", "AN": "Transcriber", "GC": "Comment", "DT": "EventDate"}


@dataclass(frozen=True, slots=True)
class _Node:
    line: int
    props: tuple[tuple[str, tuple[str, ...]], ...]

    def get(self, key: str) -> tuple[str, ...] | None:
        for k, values in self.props:
            if k == key:
                return values
        return None


_IDENT: Final = re.compile(r"[A-Za-z]+")


class _Reader:
    """A small recursive-descent SGF reader that follows the main line of each tree."""

    def __init__(self, text: str, source: str) -> None:
        self.text = text
        self.source = source
        self.i = 0
        self.line = 1

    def error(self, msg: str) -> MatchFileError:
        return MatchFileError(self.source, self.line, msg)

    def skip_space(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n and text[self.i].isspace():
            if text[self.i] == "\n":
                self.line += 1
            self.i += 1

    def peek(self) -> str:
        self.skip_space()
        return self.text[self.i] if self.i < len(self.text) else ""

    def collection(self) -> list[list[_Node]]:
        games = []
        while self.peek() == "(":
            games.append(self.tree())
        if self.peek():
            raise self.error(f"unexpected {self.peek()!r} after the last game tree")
        return games

    def tree(self) -> list[_Node]:
        self.i += 1  # "("
        nodes: list[_Node] = []
        while self.peek() == ";":
            nodes.append(self.node())
        first = True
        while self.peek() == "(":
            child = self.tree()
            if first:  # the main line; later variations are read and dropped
                nodes.extend(child)
                first = False
        if self.peek() != ")":
            raise self.error("a game tree is not closed with ')'" if not self.peek() else f"unexpected {self.peek()!r}")
        self.i += 1
        return nodes

    def node(self) -> _Node:
        self.i += 1  # ";"
        line = self.line
        props: list[tuple[str, tuple[str, ...]]] = []
        while True:
            self.skip_space()
            m = _IDENT.match(self.text, self.i)
            if not m:
                break
            key = "".join(c for c in m.group() if c.isupper())
            self.i = m.end()
            values: list[str] = []
            while self.peek() == "[":
                values.append(self.value(key))
            if not values:
                raise self.error(f"property {key} without a value")
            props.append((key, tuple(values)))
        return _Node(line, tuple(props))

    def value(self, key: str) -> str:
        text, n = self.text, len(self.text)
        self.i += 1  # "["
        buf: list[str] = []
        while self.i < n and text[self.i] != "]":
            ch = text[self.i]
            if ch == "\\" and self.i + 1 < n:
                self.i += 1
                ch = text[self.i]
                if ch == "\n":  # soft line break
                    self.line += 1
                    self.i += 1
                    continue
            if ch == "\n":
                self.line += 1
            buf.append(ch)
            self.i += 1
        if self.i >= n:
            raise self.error(f"unterminated value of {key}")
        self.i += 1
        return "".join(buf)


def _parse_collection(text: str, source: str) -> list[list[_Node]]:
    """The main line of each game tree of an SGF collection."""
    return _Reader(text, source).collection()


def _point(ch: str, player: Side) -> int:
    """A point letter to the mover's own numbering (25 = bar, 0 = off)."""
    if ch == "y":
        return BAR
    if ch == "z":
        return OFF
    idx = ord(ch) - ord("a")
    return idx + 1 if player is Side.WHITE else 24 - idx


def _letter(point: int, player: Side) -> str:
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(ord("a") + (point - 1 if player is Side.WHITE else 24 - point))


def parse_sgf(text: str, source: str = "<sgf>", issues: list[Issue] | None = None) -> MatchRecord:
    """Read a gnubg SGF match (or game); plays come out as ``"24/23 13/8"`` per die."""
    trees = _parse_collection(text, source)
    if not trees:
        raise MatchFileError(source, 0, "no SGF game tree")
    games: list[GameRecord] = []
    players: tuple[str, str] = ("", "")
    length = 0
    meta: list[tuple[str, str]] = []
    crawford = False
    for index, nodes in enumerate(trees):
        if not nodes:
            raise MatchFileError(source, 0, f"empty game tree {index + 1}")
        root = nodes[0]
        gm = root.get("GM")
        if gm is None or gm[0].strip() != "6":
            raise MatchFileError(source, root.line, f"not a backgammon SGF (GM[{gm[0] if gm else ''}], expected GM[6])")
        number, score = index + 1, (0, 0)
        for item in root.get("MI") or ():
            key, _, value = item.partition(":")
            try:
                if key == "length":
                    length = int(value)
                elif key == "game":
                    number = int(value) + 1
                elif key == "ws":
                    score = (int(value), score[1])
                elif key == "bs":
                    score = (score[0], int(value))
            except ValueError as exc:
                raise MatchFileError(source, root.line, f"bad MI[{item}]") from exc
        if index == 0:
            players = ((root.get("PW") or ("",))[0], (root.get("PB") or ("",))[0])
            for key, name in _META.items():
                found = root.get(key)
                if found:
                    v = found[0].replace("-", ".") if key == "DT" else found[0]
                    meta.append((name, v))
        ru = (root.get("RU") or ("",))[0]
        if ru.startswith("Crawford"):
            crawford = True
        if ru == "Jacoby" and ("Jacoby", "On") not in meta:
            meta.append(("Jacoby", "On"))
        games.append(_read_game(nodes, number, score, source))
    if length > 1:
        meta.append(("Crawford", "On" if crawford else "Off"))
    return mark_crawford(MatchRecord(players, length, tuple(games), tuple(meta)))


def _notes(node: _Node, source: str, kind: type[_Note]) -> list[_Note]:
    """The ``kind`` notes in a node's comment, one per line (``C[bgref infraction: ...]`` for
    :class:`InfractionRecord`, ``C[bgref amended: ...]`` for :class:`AmendmentRecord`)."""
    out: list[_Note] = []
    for comment in node.get("C") or ():
        for text in comment.splitlines():
            if kind.is_note(text):
                try:
                    out.append(kind.parse(text, node.line))
                except ValueError as exc:
                    raise MatchFileError(source, node.line, str(exc)) from None
    return out


def _read_game(nodes: list[_Node], number: int, score: tuple[int, int], source: str) -> GameRecord:
    root = nodes[0]
    actions: list[Action] = []
    cube, pending = 1, 0
    pending_from: Side | None = None
    resign_points = 0
    notes = _notes(root, source, InfractionRecord)
    amended = _notes(root, source, AmendmentRecord)
    for node in nodes[1:]:
        notes.extend(_notes(node, source, InfractionRecord))
        amended.extend(_notes(node, source, AmendmentRecord))
        # PL[..]DI[..] alone is a roll with no play after it (gnubg writes one after the
        # game ended, as the .mat has "33: ????"): nothing to record.
        for key in ("AE", "AW", "AB", "CV", "CP"):
            if node.get(key) is not None:
                raise MatchFileError(source, node.line, f"set-up property {key} is not supported (only games from the start)")
        for key, player in (("W", Side.WHITE), ("B", Side.BLACK)):
            values = node.get(key)
            if values is None:
                continue
            value = values[0].strip()
            low = value.lower()
            if low == "double" and pending and pending_from is player.opponent:
                # gnubg writes a beaver as the taker's "double" while the double is pending
                cube, pending, pending_from = pending * 2, 0, None
                actions.append(Take(player, True, node.line))
            elif low == "double":
                pending, pending_from = cube * 2, player
                actions.append(Double(player, pending, node.line))
            elif low in ("take", "beaver"):
                beaver = low == "beaver"
                last = actions[-1] if actions else None
                if not pending and isinstance(last, Take) and last.beaver and last.player is player.opponent:
                    continue  # gnubg's import of a .mat beaver adds the doubler's "take" of it: already counted
                cube = pending * (2 if beaver else 1) if pending else cube
                pending, pending_from = 0, None
                actions.append(Take(player, beaver, node.line))
            elif low == "drop":
                pending, pending_from = 0, None
                actions.append(Drop(player, node.line))
            elif low.startswith("resign"):
                _, _, pts = low.partition(":")
                resign_points = int(pts) if pts.isdigit() else cube
                level = min(3, max(1, -(-resign_points // cube)))
                actions.append(Resign(player, level, True, node.line))
            elif low in ("accept", "reject"):
                last = actions[-1] if actions else None
                if low == "reject" and isinstance(last, Resign):
                    actions[-1] = Resign(last.player, last.level, False, last.line)
            else:
                m = _MOVE.match(value)
                if not m or len(m.group(3)) % 2 or len(m.group(3)) > 8:
                    raise MatchFileError(source, node.line, f"cannot read move {key}[{value}]")
                letters = m.group(3)
                steps = []
                for k in range(0, len(letters), 2):
                    a, b = _point(letters[k], player), _point(letters[k + 1], player)
                    steps.append(f"{'bar' if a == BAR else a}/{'off' if b == OFF else b}")
                actions.append(Move(player, (int(m.group(1)), int(m.group(2))), " ".join(steps), node.line))
    result: GameResult | None = None
    re_value = root.get("RE")
    if re_value and re_value[0].strip():
        m = _RE.match(re_value[0])
        if not m:
            raise MatchFileError(source, root.line, f"cannot read result RE[{re_value[0]}]")
        winner = Side.WHITE if m.group(1).upper() == "W" else Side.BLACK
        points = int(m.group(2))
        resigned = bool(m.group(3))
        ender = actions[-1] if actions else None
        if resigned and not isinstance(ender, Resign):
            level = -(-points // cube)
            if level <= 3:
                actions.append(Resign(winner.opponent, level, True, root.line))
            ender = actions[-1] if actions else None
        if isinstance(ender, Drop):
            kind = ResultKind.DROP
        elif isinstance(ender, Resign):
            kind = ResultKind.RESIGN
        else:
            ratio, rem = divmod(points, cube)
            kind = ResultKind.SINGLE if rem else {2: ResultKind.GAMMON, 3: ResultKind.BACKGAMMON}.get(ratio, ResultKind.SINGLE)
        result = GameResult(winner, points, kind)
    return GameRecord(number, score, tuple(actions), result, False, line=root.line, infractions=tuple(notes),
                      amendments=tuple(amended))


# ---------------------------------------------------------------------------- writing


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _comment(comments: dict[int, list[str]], index: int) -> str:
    """``C[...]`` holding the notes for the node of action ``index`` (-1: the root), or nothing."""
    return f"C[{_escape(chr(10).join(comments[index]))}]" if index in comments else ""


def format_sgf(record: MatchRecord, plays: dict[tuple[int, int], Play], application: str = "bgref") -> str:
    """Write ``record`` as gnubg does (``save match``); ``plays[(game index, action index)]``
    is the resolved play of each move."""
    out: list[str] = []
    meta = {k.lower(): v for k, v in record.meta}
    for gi, game in enumerate(record.games):
        head = [
            f"(;FF[4]GM[6]CA[UTF-8]AP[{_escape(application)}]",
            f"MI[length:{record.length}][game:{game.number - 1}][ws:{game.score[0]}][bs:{game.score[1]}]",
            f"PW[{_escape(record.players[0])}]PB[{_escape(record.players[1])}]",
        ]
        if gi == 0:
            for key, name in _META.items():
                value = meta.get(name.lower())
                if value:
                    if key == "DT":
                        value = value.replace(".", "-")
                        if not re.match(r"^\d{4}-\d{2}-\d{2}$", value):
                            continue
                    head.append(f"{key}[{_escape(value)}]")
        if record.crawford_rule:
            head.append("RU[Crawford:CrawfordGame]" if game.crawford else "RU[Crawford]")
        elif (meta.get("jacoby") or "").lower() == "on":
            head.append("RU[Jacoby]")
        if game.result is not None:
            r = game.result
            resigned = "R" if r.kind in (ResultKind.RESIGN, ResultKind.FORFEIT) else ""
            head.append(f"RE[{r.winner.letter}+{r.points}{resigned}]")
        # Infractions go in C[...] on the node of the action they concern (gnubg keeps comments
        # on move nodes, not on the root); those after the last written node go on that node.
        nodes = [ai for ai, a in enumerate(game.actions) if not isinstance(a, Resign)]
        comments: dict[int, list[str]] = {}
        for note in game.infractions:
            target = next((ai for ai in nodes if ai >= note.action), nodes[-1] if nodes else -1)
            comments.setdefault(target, []).append(note.text())
        out.append("".join(head) + _comment(comments, -1))
        for ai, action in enumerate(game.actions):
            if isinstance(action, Move):
                play = plays[(gi, ai)]
                letters = "".join(_letter(s.start, action.player) + _letter(s.end, action.player) for s in play.steps)
                out.append(f";{action.player.letter}[{action.dice[0]}{action.dice[1]}{letters}]")
            elif isinstance(action, Double):
                out.append(f";{action.player.letter}[double]")
            elif isinstance(action, Take) and action.beaver:
                # gnubg's beaver: the taker "doubles" the pending cube and the doubler takes it (without
                # that take gnubg 1.07 scores the game at the cube before the beaver)
                out.append(f";{action.player.letter}[double]")
                out.append(f";{action.player.opponent.letter}[take]")
            elif isinstance(action, Take):
                out.append(f";{action.player.letter}[take]")
            elif isinstance(action, Drop):
                out.append(f";{action.player.letter}[drop]")
            else:
                continue  # A resignation is the R of RE[...], as gnubg writes it.
            out[-1] += _comment(comments, ai)
        out[-1] += ")"
    return "\n".join(out) + "\n"
