"""Move notation both ways: reading every dialect found in real match files, writing gnubg's.

Reading resolves the text against the legal plays of the roll, so it returns the
LEGAL play the text denotes: hits are inferred from the position (Galaxy never
marks them, XG marks only the final point of a multi-die token), a checker moved
over several dice as one token (``13/7`` for 6-1) is matched by where the checkers
end up.

>>> from rules.position import Position
>>> parse_play("24/18 13/11", Position.initial(), (6, 2)).notation()
'24/18 13/11'
>>> parse_play("13/7 8/7", Position.initial(), "61").notation()
'13/7 8/7'
>>> parse_play("13/6", Position.initial(), "16").notation()
'13/6'
>>> try:
...     parse_play("13/7 13/7", Position.initial(), "61")
... except IllegalPlayError as exc:
...     print(exc)
'13/7 13/7' is not legal with 61 in 4HPwATDgc/ABMA (white on roll): moves 12 pips with only 7 to play
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from rules.dice import Dice
from rules.moves import LegalPlays, Play, Step, format_steps, legal_plays
from rules.position import Position

__all__ = ["IllegalPlayError", "NotationError", "Token", "format_steps", "parse_play", "parse_tokens"]

_NO_PLAY: Final = {"", "cannot move", "cannotmove", "can't move", "no move", "no play", "-", "pass"}
_COUNT: Final = re.compile(r"\((\d)\)$")


class NotationError(ValueError):
    """Text that is not move notation at all."""


class IllegalPlayError(ValueError):
    """Notation that is readable but is not a legal play of the roll in the position."""


@dataclass(frozen=True, slots=True)
class Token:
    """One token of notation: a checker's path (start, written points...), hits marked, repeat count."""

    points: tuple[int, ...]
    marked: tuple[int, ...]
    count: int = 1

    @property
    def start(self) -> int:
        return self.points[0]

    @property
    def end(self) -> int:
        return self.points[-1]


def _read_point(word: str, text: str, *, source: bool) -> int:
    w = word.strip().lower()
    if w in ("bar", "b", "ba"):
        if not source:
            raise NotationError(f"the bar can only be a starting point in {text!r}")
        return 25
    if w in ("off", "o"):
        if source:
            raise NotationError(f"'off' cannot be a starting point in {text!r}")
        return 0
    if not w.isdigit():
        raise NotationError(f"cannot read point {word!r} in {text!r}")
    p = int(w)
    if not 0 <= p <= 25:
        raise NotationError(f"point {p} is outside 0-25 in {text!r}")
    if source and p == 0:
        raise NotationError(f"a checker cannot start from point 0 (off) in {text!r}")
    if not source and p == 25:
        raise NotationError(f"a checker cannot move to point 25 (the bar) in {text!r}")
    return p


def parse_tokens(text: str) -> tuple[Token, ...]:
    """Split notation into tokens without looking at a position (``()`` for no play)."""
    if not isinstance(text, str):
        raise NotationError(f"notation must be text, got {text!r}")
    norm = " ".join(text.replace(",", " ").split())
    if norm.lower() in _NO_PLAY:
        return ()
    tokens: list[Token] = []
    for raw in norm.split(" "):
        word = raw
        count = 1
        m = _COUNT.search(word)
        if m:
            count = int(m.group(1))
            word = word[: m.start()]
            if not 1 <= count <= 4:
                raise NotationError(f"repeat count ({count}) must be 1-4 in {text!r}")
        parts = word.split("/")
        if len(parts) < 2 or any(not p for p in parts):
            raise NotationError(f"cannot read {raw!r} in {text!r}: expected FROM/TO such as 13/11 or bar/20")
        points: list[int] = []
        marked: list[int] = []
        for k, part in enumerate(parts):
            star = part.endswith("*")
            body = part.rstrip("*")
            if "*" in body:
                raise NotationError(f"misplaced '*' in {raw!r} of {text!r}")
            p = _read_point(body, text, source=k == 0)
            if k and p >= points[-1]:
                raise NotationError(f"{raw!r} in {text!r} moves backwards ({points[-1]} to {p})")
            if k and points[-1] == 0:
                raise NotationError(f"{raw!r} in {text!r} continues after bearing off")
            points.append(p)
            if star:
                if k == 0 or p == 0:
                    raise NotationError(f"'*' must follow a landing point in {raw!r} of {text!r}")
                marked.append(p)
        tokens.append(Token(tuple(points), tuple(marked), count))
    return tuple(tokens)


def parse_play(
    text: str,
    position: Position,
    dice: Dice | tuple[int, int] | str,
    *,
    highest_first_in_bearoff: bool = False,
    plays: LegalPlays | None = None,
) -> Play:
    """The legal play that ``text`` denotes in ``position`` with ``dice``.

    Raises :class:`NotationError` for unreadable text and :class:`IllegalPlayError`
    (quoting the text and the position ID) when the text names no legal play.
    Pass ``plays`` to reuse legal plays already generated for this roll.
    """
    d = Dice.of(dice)
    tokens = parse_tokens(text)
    if plays is None:
        plays = legal_plays(position, d, highest_first_in_bearoff=highest_first_in_bearoff)
    where = f"with {d} in {position.gnubg_id()} ({position.turn.name.lower()} on roll)"
    if not tokens:
        if plays.max_dice == 0:
            return next(iter(plays))
        example = next(iter(plays)).notation()
        raise IllegalPlayError(f"{text!r} is not legal {where}: a play exists (for example {example})")
    mover = position.turn
    me = list(position.counts(mover))
    written: set[int] = set()
    marked: set[int] = set()
    for tok in tokens:
        for _ in range(tok.count):
            me[tok.start] -= 1
            me[tok.end] += 1
        written.update(p for p in tok.points[1:] if p)
        marked.update(tok.marked)
    if min(me) < 0:
        bad = [p for p in range(26) if me[p] < 0]
        raise IllegalPlayError(
            f"{text!r} is not legal {where}: it moves more checkers than there are from "
            + ", ".join("the bar" if p == 25 else f"point {p}" for p in bad)
        )
    target = tuple(me)
    opp_before = position.counts(mover.opponent)
    blots_written = {p for p in written if opp_before[25 - p] == 1}
    candidates: list[tuple[int, int, Play]] = []
    for play in plays.with_mover_counts(target):
        hits = {s.end for s in play.steps if s.hit}
        penalty = 0 if blots_written <= hits and marked <= hits else 1
        candidates.append((penalty, len(hits), play))
    if not candidates:
        raise IllegalPlayError(f"{text!r} is not legal {where}: {_why_not(tokens, position, d)}")
    candidates.sort(key=lambda c: (c[0], c[1]))
    return candidates[0][2]


def _why_not(tokens: tuple[Token, ...], position: Position, dice: Dice) -> str:
    """A short reason for notation that reaches no legal position (best effort)."""
    mover = position.turn
    me = position.counts(mover)
    if me[25] and not any(t.start == 25 for t in tokens):
        return "a checker on the bar must enter first"
    if any(t.end == 0 for t in tokens):
        if me[25]:
            return "bore off with a checker still on the bar"
        if any(me[7:25]):
            return "bore off with checkers outside the home board"
    opp = position.counts(mover.opponent)
    for t in tokens:
        for p in t.points[1:]:
            if p and opp[25 - p] >= 2:
                return f"{t.start}/{p} lands on a point held by the opponent"
    moved = sum((t.start - t.end) * t.count for t in tokens)
    if moved > dice.total:
        return f"moves {moved} pips with only {dice.total} to play"
    return "no legal play of the roll reaches that position"


def play_from_steps(steps: tuple[Step, ...], plays: LegalPlays) -> Play | None:
    """The legal play among ``plays`` whose steps are exactly ``steps`` (by result)."""
    for play in plays:
        if play.steps == steps:
            return play
    return None


def notation(play: Play) -> str:
    """``play.notation()``, as a function."""
    return format_steps(play.steps)
