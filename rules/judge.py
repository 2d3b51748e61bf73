"""Judging an observed play: the position before, the dice, and the position the camera saw after.

The verdict is legal (with the play in notation) or illegal with every reason that
applies, each a :class:`ReasonCode` plus a sentence for the director, and the nearest
legal plays by how many checkers differ.

A play is legal exactly when the observed board is one that a legal play reaches, so a
legal play can never be called illegal; the reasons are only computed for the rest.

>>> from rules.position import Position
>>> from rules.dice import Dice
>>> before = Position.initial()
>>> ok = judge(before, Dice(3, 1), Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK))
>>> ok.legal, ok.play.notation()
(True, '8/5 6/5')
>>> bad = judge(before, Dice(3, 1), before.swap_turn())
>>> bad.legal, [r.code.name for r in bad.reasons]
(False, ['UNCHANGED'])
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from rules.dice import Dice
from rules.moves import LegalPlays, Play, legal_plays
from rules.position import BAR, OFF, Position, Side


class ReasonCode(Enum):
    """Why an observed play is illegal."""

    WRONG_COLOUR = "wrong-colour"
    CHECKERS_APPEARED = "checkers-appeared"
    CHECKERS_VANISHED = "checkers-vanished"
    BAR_NOT_ENTERED = "bar-not-entered"
    LANDED_ON_BLOCKED = "landed-on-blocked"
    DISTANCE_NOT_A_DIE = "distance-not-a-die"
    BORE_OFF_OUTSIDE = "bore-off-outside"
    BOTH_DICE_NOT_PLAYED = "both-dice-not-played"
    LOWER_DIE_PLAYED = "lower-die-played"
    HIGHER_NOT_FIRST = "higher-not-first"
    HIT_NOT_SENT_TO_BAR = "hit-not-sent-to-bar"
    BAR_WITHOUT_HIT = "bar-without-hit"
    UNCHANGED = "unchanged"
    NOT_A_LEGAL_PLAY = "not-a-legal-play"


@dataclass(frozen=True, slots=True)
class Reason:
    code: ReasonCode
    message: str

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"


@dataclass(frozen=True, slots=True)
class Judgment:
    """The verdict on one observed play."""

    legal: bool
    play: Play | None
    reasons: tuple[Reason, ...] = ()
    nearest: tuple[Play, ...] = ()

    @property
    def codes(self) -> tuple[ReasonCode, ...]:
        return tuple(r.code for r in self.reasons)

    def summary(self) -> str:
        if self.legal:
            assert self.play is not None
            return f"legal: {self.play.notation() or '(no play possible)'}"
        lines = ["illegal:"]
        lines.extend(f"  - {r.message} [{r.code.value}]" for r in self.reasons)
        if self.nearest:
            lines.append("  nearest legal: " + "; ".join(p.notation() or "(no play)" for p in self.nearest))
        return "\n".join(lines)


def judge(
    before: Position,
    dice: Dice | tuple[int, int],
    after: Position,
    *,
    highest_first_in_bearoff: bool = False,
    plays: LegalPlays | None = None,
    nearest: int = 3,
) -> Judgment:
    """Judge the play that turned ``before`` into ``after`` (the board; ``after.turn`` is ignored).

    ``before`` must be a possible position; ``after`` may be anything the camera saw.
    """
    d = dice if isinstance(dice, Dice) else Dice.of(dice)
    if plays is None:
        plays = legal_plays(before, d, highest_first_in_bearoff=highest_first_in_bearoff)
    found = plays.find(after)
    if found is not None:
        return Judgment(True, found)
    reasons = _diagnose(before, d, after, plays)
    return Judgment(False, None, tuple(reasons), nearest_plays(plays, after, nearest))


def checker_difference(a: Position, b: Position) -> int:
    """How many checkers would have to be moved to turn board ``a`` into board ``b``."""
    total = 0
    for x, y in ((a.white, b.white), (a.black, b.black)):
        total += sum(abs(p - q) for p, q in zip(x, y, strict=True))
    return (total + 1) // 2


def nearest_plays(plays: LegalPlays, after: Position, n: int = 3) -> tuple[Play, ...]:
    """The ``n`` legal plays whose result differs from ``after`` in the fewest checkers."""
    if n <= 0:
        return ()
    scored = sorted(((checker_difference(p.after, after), k, p) for k, p in enumerate(plays)), key=lambda t: t[:2])
    return tuple(p for _dist, _k, p in scored[:n])


# ---------------------------------------------------------------------- diagnosis
def _name(side: Side) -> str:
    return side.name.lower()


def _where(p: int) -> str:
    return "the bar" if p == BAR else "off" if p == OFF else f"the {p}-point"


def _diagnose(before: Position, dice: Dice, after: Position, plays: LegalPlays) -> list[Reason]:
    mover = before.turn
    opp_side = mover.opponent
    reasons: list[Reason] = []
    mb, ma = before.counts(mover), after.counts(mover)
    ob, oa = before.counts(opp_side), after.counts(opp_side)

    # Checkers appeared or vanished (either colour).
    for side, cb, ca in ((mover, mb, ma), (opp_side, ob, oa)):
        nb, na = sum(cb), sum(ca)
        if na > nb:
            reasons.append(Reason(ReasonCode.CHECKERS_APPEARED, f"{na - nb} {_name(side)} checker(s) appeared"))
        elif na < nb:
            reasons.append(Reason(ReasonCode.CHECKERS_VANISHED, f"{nb - na} {_name(side)} checker(s) vanished"))
        if min(ca) < 0:
            reasons.append(Reason(ReasonCode.CHECKERS_VANISHED, f"{_name(side)} has a negative count"))

    # The opponent's checkers moved (other than hit checkers going to the bar).
    opp_from = [p for p in range(0, 25) if oa[p] < ob[p]]
    opp_to = [p for p in range(0, 25) if oa[p] > ob[p]]
    if opp_to and (opp_from or oa[BAR] < ob[BAR]):
        reasons.append(
            Reason(
                ReasonCode.WRONG_COLOUR,
                f"{_name(opp_side)} checkers were moved (from "
                + ", ".join(_where(p) for p in opp_from or [BAR])
                + " to "
                + ", ".join(_where(p) for p in opp_to)
                + f", {_name(opp_side)}'s numbering) but {_name(mover)} is on roll",
            )
        )

    legal_max = plays.max_dice
    if ma == mb:
        if legal_max:
            first = next(iter(plays)).notation()
            what = "the position was left unchanged" if ob == oa else f"no {_name(mover)} checker moved"
            reasons.append(Reason(ReasonCode.UNCHANGED, f"{what} although a play existed (e.g. {first})"))
        elif oa[BAR] > ob[BAR]:
            reasons.append(
                Reason(ReasonCode.BAR_WITHOUT_HIT, f"{_name(opp_side)} checker(s) sent to the bar without a hit")
            )
        return reasons or [Reason(ReasonCode.NOT_A_LEGAL_PLAY, "the board does not match any legal play")]

    best = None if sum(ma) != sum(mb) else _explain(before, dice, after, plays)
    if best is None and sum(ma) != sum(mb):
        pass
    elif best is None:
        reasons.append(Reason(ReasonCode.DISTANCE_NOT_A_DIE, _distance_message(mover, mb, ma, dice)))
    else:
        reasons.extend(best)
    if not reasons:
        reasons.append(Reason(ReasonCode.NOT_A_LEGAL_PLAY, "the board does not match any legal play"))
    # Stable order, no duplicates.
    seen: set[tuple[ReasonCode, str]] = set()
    out: list[Reason] = []
    for r in reasons:
        if (r.code, r.message) not in seen:
            seen.add((r.code, r.message))
            out.append(r)
    return out


def _distance_message(mover: Side, mb: tuple[int, ...], ma: tuple[int, ...], dice: Dice) -> str:
    """Pair the points checkers left with the points they reached (highest with highest)."""
    departed: list[int] = []
    arrived: list[int] = []
    for p in range(25, -1, -1):
        if ma[p] < mb[p]:
            departed.extend([p] * (mb[p] - ma[p]))
        elif ma[p] > mb[p]:
            arrived.extend([p] * (ma[p] - mb[p]))
    counted: dict[tuple[int, int], int] = {}
    for a, b in zip(departed, arrived, strict=False):
        counted[(a, b)] = counted.get((a, b), 0) + 1
    moves = [
        f"{'bar' if a == BAR else a}/{'off' if b == OFF else b}{f'({n})' if n > 1 else ''} ({a - b} pips)"
        for (a, b), n in counted.items()
    ]
    moved = sum(p * mb[p] for p in range(1, 26)) - sum(p * ma[p] for p in range(1, 26))
    dice_text = f"{dice.high}-{dice.low}" + (" (four times)" if dice.is_double else "")
    what = ", ".join(moves) if moves else f"{moved} pips"
    return f"{_name(mover)} moved {what}: no way to make that with {dice_text} ({dice.total} pips to play)"


_RStep = tuple[int, int, int, bool]


def _explain(before: Position, dice: Dice, after: Position, plays: LegalPlays) -> list[Reason] | None:
    """Find the die-by-die path, rules relaxed, that best explains the mover's change.

    Returns the reasons of the explanation with the fewest broken rules, or None when no
    sequence of the dice moves the mover's checkers as observed.
    """
    mover = before.turn
    opp_side = mover.opponent
    target = after.counts(mover)
    me = list(before.counts(mover))
    oppm = list(before.counts(opp_side)[::-1])
    obs_oppm = after.counts(opp_side)[::-1]
    oppm0 = tuple(oppm)  # the opponent before the play (``oppm`` changes during the search)
    hi, lo = dice.high, dice.low
    orders: list[tuple[int, ...]]
    if dice.is_double:
        orders = [(hi,) * k for k in range(4, 0, -1)]
    else:
        orders = [(hi, lo), (lo, hi), (hi,), (lo,)]
    legal_max = plays.max_dice
    legal_dice = {s.die for p in plays for s in p.steps} if legal_max == 1 and not dice.is_double else set()
    all_home_at_start = not any(me[7:26])
    best: list[Reason] | None = None
    best_key: tuple[int, int] | None = None

    def violations_for(order: tuple[int, ...], path: list[_RStep], viol: list[Reason]) -> list[Reason]:
        out = list(viol)
        used = len(order)
        if used < legal_max:
            if dice.is_double:
                msg = f"played {used} of the four {hi}s when {legal_max} could be played"
            else:
                msg = f"played only the {order[0]} when both dice could be played"
            out.append(Reason(ReasonCode.BOTH_DICE_NOT_PLAYED, msg))
        elif legal_max == 1 and not dice.is_double and order[0] not in legal_dice:
            out.append(
                Reason(
                    ReasonCode.LOWER_DIE_PLAYED,
                    f"played the {order[0]} when only one die could be played and the {hi} was playable",
                )
            )
        if (
            plays.highest_first_in_bearoff
            and all_home_at_start
            and not dice.is_double
            and len(order) == 2
            and order[0] == lo
            and any(p.steps and p.steps[0].die == hi for p in plays)
        ):
            out.append(
                Reason(ReasonCode.HIGHER_NOT_FIRST, f"in bearing off the {hi} must be played before the {lo}")
            )
        # Hits: compare the opponent board this path gives with the one observed.
        hit_points = {s[1] for s in path if s[3]}
        for p in sorted(hit_points, reverse=True):
            if obs_oppm[p] > 0:
                out.append(
                    Reason(
                        ReasonCode.HIT_NOT_SENT_TO_BAR,
                        f"the {_name(opp_side)} blot on {_where(p)} ({_name(mover)}'s numbering) was hit "
                        "but not put on the bar",
                    )
                )
        expected_bar = oppm0[0] + len(hit_points)
        if obs_oppm[0] > expected_bar:
            lost = [p for p in range(1, 25) if obs_oppm[p] < oppm0[p] and p not in hit_points]
            where = ", ".join(_where(p) for p in lost) or "nowhere"
            out.append(
                Reason(
                    ReasonCode.BAR_WITHOUT_HIT,
                    f"{obs_oppm[0] - expected_bar} {_name(opp_side)} checker(s) sent to the bar without being hit "
                    f"(from {where}, {_name(mover)}'s numbering)",
                )
            )
        return out

    def consider(order: tuple[int, ...], path: list[_RStep], viol: list[Reason]) -> None:
        nonlocal best, best_key
        reasons = violations_for(order, path, viol)
        key = (sum(1 if r.code is ReasonCode.HIGHER_NOT_FIRST else 2 for r in reasons), -len(order))
        if best_key is None or key < best_key:
            best, best_key = reasons, key

    def step_violations(s: int, d: int) -> list[Reason]:
        out: list[Reason] = []
        dest = s - d
        if s != BAR and me[BAR]:
            out.append(
                Reason(
                    ReasonCode.BAR_NOT_ENTERED,
                    f"moved {s}/{max(dest, 0) or 'off'} with a {_name(mover)} checker still on the bar",
                )
            )
        if dest > 0:
            if oppm[dest] >= 2:
                out.append(
                    Reason(
                        ReasonCode.LANDED_ON_BLOCKED,
                        f"{'bar' if s == BAR else s}/{dest} landed on {_where(dest)}, held by "
                        f"{oppm[dest]} {_name(opp_side)} checkers",
                    )
                )
        else:
            outside = sum(me[7:26])
            if outside:
                out.append(
                    Reason(
                        ReasonCode.BORE_OFF_OUTSIDE,
                        f"bore off from {_where(s)} with {outside} checker(s) outside the home board",
                    )
                )
            if dest < 0 and any(me[s + 1 : 7]):
                out.append(
                    Reason(
                        ReasonCode.DISTANCE_NOT_A_DIE,
                        f"bore off from {_where(s)} with a {d} while a checker is on a higher point",
                    )
                )
        return out

    def search(order: tuple[int, ...], k: int, max_src: int, path: list[_RStep], viol: list[Reason]) -> None:
        if k == len(order):
            if tuple(me) == target:
                consider(order, path, viol)
            return
        d = order[k]
        for s in range(min(max_src, 25), 0, -1):
            if me[s] <= 0:
                continue
            v = step_violations(s, d)
            dest = s - d
            hit = False
            me[s] -= 1
            if dest <= 0:
                dest = 0
                me[0] += 1
            else:
                me[dest] += 1
                if oppm[dest] == 1:
                    hit = True
                    oppm[dest] = 0
                    oppm[0] += 1
            path.append((s, dest, d, hit))
            search(order, k + 1, s if dice.is_double else 25, path, viol + v)
            path.pop()
            me[s] += 1
            me[dest] -= 1
            if hit:
                oppm[dest] = 1
                oppm[0] -= 1

    for order in orders:
        search(order, 0, 25, [], [])
    return best


def describe(judgment: Judgment) -> str:
    """A one-paragraph description for logs."""
    return judgment.summary()


__all__ = [
    "Judgment",
    "Reason",
    "ReasonCode",
    "checker_difference",
    "describe",
    "judge",
    "nearest_plays",
]
