"""Legal plays: every way to play a roll, distinct by the position they reach.

Points are in the mover's own numbering (25 = bar, 0 = off).  The rule that decides
how many dice must be played is the one GNU Backgammon implements: keep only the
plays that use the most dice and, among those, the largest sum of the dice used.
That single rule is "both dice if possible, otherwise the higher one".

>>> from rules.position import Position
>>> plays = legal_plays(Position.initial(), (3, 1))
>>> len(plays)
16
>>> plays.find(Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK)).notation()
'8/5 6/5'
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from rules.dice import Dice
from rules.position import CHECKERS, Position, PositionError, Side

# A raw step while generating: (start, end, die, hit).
_RawStep = tuple[int, int, int, bool]
# A raw result key: the mover's 26 counts followed by the opponent's 26 counts
# reversed into the mover's numbering (index 0 = opponent's bar, 25 = opponent's off).
_Key = tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Step:
    """One die moved by one checker: ``start`` and ``end`` in the mover's numbering."""

    start: int
    end: int
    die: int
    hit: bool = False

    def __str__(self) -> str:
        return f"{_point_text(self.start)}/{_point_text(self.end)}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """A complete play of one roll: its steps and the position after it (opponent on roll)."""

    steps: tuple[Step, ...]
    after: Position

    def notation(self) -> str:
        """gnubg's canonical notation: ``"24/18 13/11*"``, ``"13/11(2)"``, ``""`` for no play."""
        return format_steps(self.steps)

    @property
    def is_empty(self) -> bool:
        return not self.steps

    @property
    def dice_used(self) -> tuple[int, ...]:
        return tuple(s.die for s in self.steps)

    @property
    def hits(self) -> int:
        return sum(1 for s in self.steps if s.hit)

    def __str__(self) -> str:
        return self.notation() or "(no play)"


def _point_text(p: int) -> str:
    return "bar" if p == 25 else "off" if p == 0 else str(p)


def format_steps(steps: tuple[Step, ...] | list[Step]) -> str:
    """Format steps as gnubg does (``FormatMove``).

    Steps are sorted by start then end, both descending; the steps of one checker are
    joined (an intermediate point is kept only where it hit); identical moves are
    counted (``13/11(2)``).  ``*`` marks the first landing (in that order) on each point
    where a blot was hit: ``bar/17* 21/17``.
    """
    if not steps:
        return ""
    hit_points = {s.end for s in steps if s.hit}
    moves = sorted(((s.start, s.end) for s in steps), key=lambda m: (-m[0], -m[1]))
    # chains: list of [start, intermediate..., end]
    chains: list[list[int] | None] = [[a, b] for a, b in moves]
    n = len(chains)
    for i in range(n):
        ci = chains[i]
        if ci is None:
            continue
        for j in range(i + 1, n):
            cj = chains[j]
            if cj is None or ci[-1] != cj[0]:
                continue
            if ci[-1] in hit_points:
                ci.append(cj[-1])
            else:
                ci[-1] = cj[-1]
            chains[j] = None
    parts: list[tuple[list[int], int]] = []
    for c in chains:
        if c is None:
            continue
        for k, (other, count) in enumerate(parts):
            if other == c:
                parts[k] = (other, count + 1)
                break
        else:
            parts.append((c, 1))
    out = []
    marked: set[int] = set()
    for chain, count in parts:
        text = _point_text(chain[0])
        for p in chain[1:]:
            star = p in hit_points and p not in marked
            if star:
                marked.add(p)
            text += "/" + _point_text(p) + ("*" if star else "")
        if count > 1:
            text += f"({count})"
        out.append(text)
    return " ".join(out)


_STEPS: dict[_RawStep, Step] = {}
_setattr = object.__setattr__


def _step(raw: _RawStep) -> Step:
    step = Step(*raw)
    _STEPS[raw] = step
    return step


def _position(white: tuple[int, ...], black: tuple[int, ...], turn: Side) -> Position:
    """Build a Position whose counts are known to be well-formed (26 each), skipping checks."""
    pos = object.__new__(Position)
    _setattr(pos, "white", white)
    _setattr(pos, "black", black)
    _setattr(pos, "turn", turn)
    return pos


def _new_play(steps: tuple[Step, ...], after: Position) -> Play:
    play = object.__new__(Play)
    _setattr(play, "steps", steps)
    _setattr(play, "after", after)
    return play


class LegalPlays:
    """All legal plays of one roll in one position, distinct by the position reached.

    Iterable of :class:`Play`; ``len()``; ``x in plays`` for a :class:`Play` or a
    resulting :class:`Position` (the side on roll of a position asked about is ignored:
    only the board counts); :meth:`find`.
    """

    __slots__ = ("_by_mover", "_mover", "_plays", "_raw", "before", "dice", "highest_first_in_bearoff")

    def __init__(
        self,
        before: Position,
        dice: Dice,
        raw: dict[_Key, tuple[_RawStep, ...]],
        highest_first_in_bearoff: bool,
    ) -> None:
        self.before = before
        self.dice = dice
        self.highest_first_in_bearoff = highest_first_in_bearoff
        self._mover = before.turn
        self._raw = raw
        self._plays: dict[_Key, Play] = {}
        self._by_mover: dict[tuple[int, ...], list[_Key]] | None = None

    def _play(self, key: _Key) -> Play:
        play = self._plays.get(key)
        if play is None:
            me = key[:26]
            opp = key[:25:-1]
            if self._mover is Side.WHITE:
                after = _position(me, opp, Side.BLACK)
            else:
                after = _position(opp, me, Side.WHITE)
            cache = _STEPS
            steps = tuple(cache.get(raw) or _step(raw) for raw in self._raw[key])
            play = _new_play(steps, after)
            self._plays[key] = play
        return play

    def key_of(self, after: Position) -> _Key:
        """The internal key of a resulting position (board only)."""
        return after.counts(self._mover) + after.counts(self._mover.opponent)[::-1]

    def __iter__(self) -> Iterator[Play]:
        for key in self._raw:
            yield self._play(key)

    def __len__(self) -> int:
        return len(self._raw)

    def __contains__(self, item: object) -> bool:
        if isinstance(item, Play):
            found = self.find(item.after)
            return found is not None and found.after == item.after
        if isinstance(item, Position):
            return self.key_of(item) in self._raw
        return False

    def find(self, after: Position) -> Play | None:
        """The legal play that reaches ``after`` (board only), or None."""
        key = self.key_of(after)
        if key in self._raw:
            return self._play(key)
        return None

    def with_mover_counts(self, counts: tuple[int, ...]) -> list[Play]:
        """The plays that leave the mover's checkers as ``counts`` (26-tuple, own numbering).

        Several plays can do that when they differ only in which blots they hit.
        """
        if self._by_mover is None:
            index: dict[tuple[int, ...], list[_Key]] = {}
            for key in self._raw:
                index.setdefault(key[:26], []).append(key)
            self._by_mover = index
        return [self._play(k) for k in self._by_mover.get(tuple(counts), ())]

    def afters(self) -> list[Position]:
        return [p.after for p in self]

    @property
    def max_dice(self) -> int:
        """How many dice every legal play uses (0 when nothing can be played)."""
        for steps in self._raw.values():
            return len(steps)
        return 0

    def __repr__(self) -> str:
        return f"<LegalPlays {len(self)} for {self.dice} in {self.before!r}>"


def _check(position: Position) -> None:
    w, b = position.white, position.black
    if min(w) < 0 or min(b) < 0 or sum(w) != CHECKERS or sum(b) != CHECKERS:
        raise PositionError(
            f"no legal plays in an impossible position {position.text()}: {'; '.join(position.problems())}"
        )


def legal_plays(
    position: Position,
    dice: Dice | tuple[int, int],
    *,
    highest_first_in_bearoff: bool = False,
) -> LegalPlays:
    """All legal plays for the side on roll in ``position`` with ``dice``.

    A roll with no legal play gives exactly one empty :class:`Play` whose ``after`` is
    the same board with the opponent on roll.  With ``highest_first_in_bearoff`` (the
    1931 Laws' rule 12) a side whose checkers are all home must play the higher die
    first when it can.
    """
    d = dice if isinstance(dice, Dice) else Dice.of(dice)
    _check(position)
    me = list(position.on_roll)
    oppm = list(position.opponent[::-1])
    raw = _generate(me, oppm, d.high, d.low, highest_first_in_bearoff)
    return LegalPlays(position, d, raw, highest_first_in_bearoff)


def _generate(
    me: list[int], oppm: list[int], hi: int, lo: int, highest_first: bool
) -> dict[_Key, tuple[_RawStep, ...]]:
    """The search.  ``me`` and ``oppm`` are mutated and restored."""
    outside = sum(me[7:26])
    # results: key -> [ndice, pips, high_first_flag, steps]
    results: dict[_Key, list[object]] = {}
    best = [0, 0]

    def sources(d: int, max_src: int) -> list[int]:
        if me[25]:
            return [25] if max_src >= 25 and oppm[25 - d] < 2 else []
        top = 24 if max_src > 24 else max_src
        # Points above d move within the board; d and below bear off (only with all home).
        out = [s for s in range(top, d, -1) if me[s] and oppm[s - d] < 2]
        if outside == 0 and top >= 1:
            if d <= top and me[d]:
                out.append(d)
            elif d > top or not any(me[d + 1 : 7]):
                # Nothing on the die's point: the highest checker may bear off if nothing is higher.
                for s in range(min(top, d - 1), 0, -1):
                    if me[s]:
                        if not any(me[s + 1 : 7]):
                            out.append(s)
                        break
        return out

    def record(ndice: int, pips: int, flag: bool, steps: tuple[_RawStep, ...]) -> None:
        b0, b1 = best
        if ndice < b0 or (ndice == b0 and pips < b1):
            return
        if ndice > b0 or pips > b1:
            best[0], best[1] = ndice, pips
        key = (*me, *oppm)
        old = results.get(key)
        if old is None:
            results[key] = [ndice, pips, flag, steps]
        else:
            on, op = old[0], old[1]
            assert isinstance(on, int) and isinstance(op, int)
            if (ndice, pips) > (on, op) or ((ndice, pips) == (on, op) and flag and not old[2]):
                results[key] = [ndice, pips, flag, steps]

    def apply(s: int, d: int) -> _RawStep:
        nonlocal outside
        me[s] -= 1
        dest = s - d
        hit = False
        if dest <= 0:
            dest = 0
            me[0] += 1
        else:
            if oppm[dest] == 1:
                hit = True
                oppm[dest] = 0
                oppm[0] += 1
            me[dest] += 1
            if s > 6 >= dest:
                outside -= 1
        return (s, dest, d, hit)

    def undo(step: _RawStep) -> None:
        nonlocal outside
        s, dest, _d, hit = step
        me[s] += 1
        me[dest] -= 1
        if hit:
            oppm[dest] = 1
            oppm[0] -= 1
        if s > 6 >= dest > 0:
            outside += 1

    all_home_at_start = outside == 0
    if hi != lo:
        for a, b in ((hi, lo), (lo, hi)):
            flag = a == hi
            for s1 in sources(a, 25):
                st1 = apply(s1, a)
                second = sources(b, 25)
                if second:
                    for s2 in second:
                        st2 = apply(s2, b)
                        record(2, hi + lo, flag, (st1, st2))
                        undo(st2)
                else:
                    record(1, a, flag, (st1,))
                undo(st1)
    else:
        d = hi

        path: list[_RawStep] = []

        def search(depth: int, max_src: int) -> None:
            srcs = sources(d, max_src) if depth < 4 else ()
            if not srcs:
                if depth:
                    record(depth, depth * d, True, tuple(path))
                return
            append, pop = path.append, path.pop
            for s in srcs:
                st = apply(s, d)
                append(st)
                search(depth + 1, s)
                pop()
                undo(st)

        search(0, 25)

    b0, b1 = best
    keep = [(k, v) for k, v in results.items() if v[0] == b0 and v[1] == b1]
    if highest_first and all_home_at_start and hi != lo and any(v[2] for _k, v in keep):
        keep = [(k, v) for k, v in keep if v[2]]
    raw: dict[_Key, tuple[_RawStep, ...]] = {}
    for k, v in keep:
        steps = v[3]
        assert isinstance(steps, tuple)
        raw[k] = steps
    if not raw:
        raw[(*me, *oppm)] = ()
    return raw
