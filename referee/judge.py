"""Judging a play by likelihood: which board, of all the ones the laws name, best explains what was read.

Real vision reads each region (a point, the bar, a tray) as a count with a confidence, and sometimes
other likely counts (``CountReading.alternatives``).  One reading of one region says little; the
whole board says a lot, because only a few boards can follow a throw.  :func:`judge_play` scores
every candidate board after a throw against every look at the still scene:

* every legal play of the throw (the boards the laws accept);
* the illegal plays the laws name (:func:`illegal_boards`): a die left unplayed (a prefix of a legal
  play: an incomplete play), a wrong distance, a blocked point jumped, a checker moved while one is
  on the bar, a checker borne off too early, the opponent's checker moved, a hit checker put off the
  board instead of on the bar.

Each region's reading gives a probability to each count it might be (:func:`region_logp`); a
candidate's log-likelihood is the sum over regions and looks (looks are not independent -- the same
board under the same light -- so each look beyond the first counts ``LikelihoodConfig.look_weight``).
The posterior over candidates (legal plays weighted 1, each illegal board ``illegal_prior``) decides:

* ``LEGAL`` -- one legal play holds at least ``legal_margin`` of the posterior: it is the play, sure;
* ``ILLEGAL`` -- the legal plays together hold less than ``illegal_max_legal``, one illegal board
  holds at least ``illegal_margin``, and that board disagrees with no region read at
  ``fit_confidence`` or more: the play is illegal (the laws name it);
* ``UNSURE`` -- anything else: the likeliest legal play, the players asked to check.

A wrong accusation is the worst outcome, so the illegal thresholds are strict and were chosen on
tuning games (docs/referee_vision.md); when in doubt the referee asks.

>>> from rules.position import Position
>>> from rules.dice import Dice
>>> from referee.tracker import board_of
>>> start = Position.initial()
>>> after = Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK)   # 8/5 6/5 with 3-1
>>> j = judge_play(start, Dice(3, 1), [reading_of(board_of(after), 0.9)])
>>> j.kind.value, j.play.notation()
('legal', '8/5 6/5')
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import Enum

from rules.dice import Dice
from rules.moves import Play, legal_plays
from rules.position import BAR, OFF, Position, PositionError, Side
from vision.observation import CountReading

__all__ = [
    "ROLLS",
    "ConfidenceBin",
    "Judgement",
    "JudgementKind",
    "LikelihoodConfig",
    "Look",
    "board_logp",
    "calibrated",
    "doubt_of",
    "face_off_rolls",
    "fits_board",
    "illegal_boards",
    "judge_play",
    "judge_throw",
    "judge_unread",
    "one_face_off",
    "reading_of",
    "region_logp",
]

Board = tuple[tuple[int, int], ...]  # 27 (white, black): absolute points 1..24, bar, trays (W, B)
ROLLS: tuple[tuple[int, int], ...] = tuple(d.as_tuple() for d in reversed(Dice.all_rolls()))
"""The 21 rolls as (high, low), 6-6 first, then 6-5 ... 1-1 (the order throws are tried in)."""
Look = Sequence[CountReading]  # one reading of the 27 regions


@dataclass(frozen=True, slots=True)
class ConfidenceBin:
    """How often a region read at a confidence of at least ``lo`` (and below the next bin) holds what.

    Fitted on tuning games against the renderer's truth (``referee.recorded.fit_bins``): the
    reader's confidence is not a probability (a region under a die reads 0.0 and is right 7 times in
    10; one read at 0.99-0.999 was right less than half the time with the models of 23:10).
    """

    lo: float
    p_read: float  # P(the region holds what was read)
    p_alts: float  # P(it holds one of the reading's alternatives), shared by their probabilities
    deltas: tuple[tuple[int, int, float], ...] = ()  # P(it holds the reading + (dw, db)) otherwise


# fitted on the tuning recordings 7101-7107 and 7210-7215 read by the session-3 final models (tag r3;
# referee.recorded.fit_bins).  The earlier fit (7101-7104, early models) had 0.99-0.999 right only 93 %
# of the time, so such regions never bound a judgement; with the final models they are right 99.99 %.
DEFAULT_BINS: tuple[ConfidenceBin, ...] = (
    ConfidenceBin(0.0, 0.7682, 0.0242, ((-1, 0, 0.1358), (0, -1, 0.0531), (1, 0, 0.01))),
    ConfidenceBin(0.3, 0.9656, 0.0087, ((-1, 0, 0.0256),)),
    ConfidenceBin(0.9, 0.9966, 0.0032, ()),
    ConfidenceBin(0.99, 0.9999, 0.0, ()),
    ConfidenceBin(0.999, 0.9996, 0.0, ()),
)


@dataclass(frozen=True, slots=True)
class LikelihoodConfig:
    """Every threshold of the likelihood judge (chosen on tuning games 7101-7110)."""

    bins: tuple[ConfidenceBin, ...] = DEFAULT_BINS  # the reader's confidence, calibrated
    floor: float = 1e-5  # the least probability any count gets (a confidently wrong reading happens)
    look_weight: float = 0.5  # each look beyond the first counts this much (looks are correlated)
    illegal_prior: float = 0.02  # prior of each named illegal board against 1 for each legal play
    legal_margin: float = 0.98  # posterior of the best legal play to take it as sure
    # posterior of the best illegal board to call it: 0.99 (session 8, was 0.995) on all nine seen recording sets
    # 7216-7321 (0 false alarms, 0 wrong names either way; docs/referee_vision.md, session 8): a play lifted early
    # whose moved checkers are read unsure leaves ~0.6 % on a wrong-distance board (7275 s6g: 0.9945)
    illegal_margin: float = 0.99
    illegal_max_legal: float = 1e-2  # the legal plays together must hold less than this to call
    fit_p: float = 0.99  # a sure or illegal board must agree with every region whose reading is this likely right
    kind_doubt: float = 0.001  # an unclear illegal board is called only if this little of it is of the other kind
    kind_max_legal: float = 1e-3  # ... and only if the legal plays together hold less than this (7107 s5b: a
    # legal 4-1 misread confidently, called a wrong distance through this path with the legal plays under 1 %)
    # an illegal board's changed regions must each be read this likely right (seen moved): 0.8 (session 10, was
    # 0.7), above the first calibration bin (confidence 0, p_read 0.77): the reader's own "I do not know" supports
    # no call (7411 s10a: two points read at confidence 0 made an incomplete play "bar/16", a wrong name; sixteen
    # recording sets 0 false alarms, 0 wrong names; twelve seen sets 2044 -> 2032)
    support_p: float = 0.8
    # an illegal call needs every legal play, and the board as it stood, contradicted by a region read at
    # least this sure by the reader itself (a confident reading that matches no legal play): never on
    # unsure readings alone, however the calibration adds them up (7214, 7215 r3: wrong calls)
    refute_confidence: float = 0.5
    # an illegal board that a legal play of another roll, one face different, explains is not called: a
    # die read confidently wrong happens (7215 r3: a 6 read as a 4 at 0.97 made a legal 6-1 a wrong distance)
    one_face_guard: bool = True
    unplayed_prior: float = 0.05  # prior of "nothing was played" (a void throw picked up) for an unread throw
    # a face read below TrackerConfig.call_face_confidence (``weak``) is wrong this often when a throw is
    # judged from its play (referee.judge.judge_throw): tuning r3, 8 of 523 distinct dice read below 0.995
    # were wrong (1.5 %); a roll disagreeing with such a face weighs face_doubt / 5 against 1 - face_doubt
    face_doubt: float = 0.02
    # a candidate board holding at least this much of the posterior (what a sure play may leave aside) leaves what
    # it has where it differs from the chosen one in doubt (Judgement.doubt); it leaves the doubt once the looks
    # between plays make it ``doubt_gone`` times as likely as the board the laws have, or less: 1e-2 (session 9, was
    # 1e-3), what a call tolerates (``illegal_margin`` 0.99); all twelve seen recording sets +9, 0 false alarms,
    # 0 wrong names (docs/referee_vision.md, session 9)
    doubt_p: float = 0.02
    doubt_gone: float = 1e-2
    # ... entering at odds no higher than this against the chosen board: a candidate's share of the posterior
    # comes from every region it differs in, so it overstates what any one region holds, and an alternative that
    # entered at e^20-e^46 outlived every later look at a region read unsure (7366 s8c: four illegal plays asked,
    # the laws' board right, for 20 moves after the record came back in step); at even odds the looks between
    # plays decide (session 9: docs/referee_vision.md)
    doubt_max_odds: float = 1.0
    # a held play corrected (with no throw) into a legal play: how likely that correction is from a board that is
    # no fault of the play corrected to (another legal play; an illegal board not a part of it, not it with a step
    # a wrong distance, ...) against 1 from one that is (a player finishes or mends the play he made)
    other_correction: float = 0.05


class JudgementKind(Enum):
    LEGAL = "legal"  # one legal play explains the reading: sure
    ILLEGAL = "illegal"  # only an illegal board explains it, well supported: call it
    UNSURE = "unsure"  # the likeliest legal play, marked unsure (ask the players)


@dataclass(frozen=True, slots=True)
class Judgement:
    kind: JudgementKind
    board: Board  # the board to send to the laws (the play's, or the illegal one)
    play: Play | None  # the legal play (LEGAL, UNSURE), None for ILLEGAL
    posterior: float  # of the chosen board
    legal_mass: float  # of all the legal plays together
    doubtful: tuple[int, ...] = ()  # absolute points where the chosen board and the reading disagree or are unsure
    label: str = ""  # which named illegal family (ILLEGAL), for the record
    fits: bool = False  # the board agrees with every region read at ``fit_confidence`` (not just the likeliest)
    unplayed: bool = False  # the likeliest is that nothing was played (and that is not legal): the throw was taken back
    # where the chosen board may be wrong: (region 0-26, white, black, odds), another count that region may hold
    # and how likely against the chosen board's: what candidates holding ``LikelihoodConfig.doubt_p`` of the
    # posterior (another play, roll, illegal board, nothing played) have there, or (odds 1) what a region read
    # surely shows.  The laws' board keeps them in doubt until the looks rule them out (TrackerState.doubt)
    doubt: tuple[tuple[int, int, int, float], ...] = ()


def reading_of(board: Board, confidence: float) -> tuple[CountReading, ...]:
    """A look that reads ``board`` with one confidence everywhere (for tests and examples)."""
    return tuple(CountReading(w, b, confidence) for w, b in board)


def region_logp(r: CountReading, count: tuple[int, int], cfg: LikelihoodConfig) -> float:
    """log P(the region holds ``count`` | this reading), calibrated by the reading's confidence bin
    (``LikelihoodConfig.bins``): the reading itself, its alternatives, the usual slips; a floor for the rest.
    With a flat prior over counts it serves as the likelihood of the reading given ``count``."""
    cal = _bin(r, cfg)
    p = cal.p_read if (r.white, r.black) == count else 0.0
    if r.alternatives:
        total = sum(max(a[2], 0.0) for a in r.alternatives)
        for w, b_, q in r.alternatives:
            if (w, b_) == count:
                p += cal.p_alts * (max(q, 0.0) / total if total > 0 else 1.0 / len(r.alternatives))
    else:  # no alternatives given: the usual slip, one checker more or fewer of a colour there
        near = _neighbours(r.white, r.black)
        if count in near:
            p += cal.p_alts / len(near)
    dw, db = count[0] - r.white, count[1] - r.black
    for x, y, q in cal.deltas:
        if (x, y) == (dw, db):
            p += q
    return math.log(max(p, cfg.floor))


def _neighbours(w: int, b: int) -> tuple[tuple[int, int], ...]:
    if w == 0 and b == 0:
        return ((1, 0), (0, 1))
    out = []
    if w:
        out += [(w + 1, 0), (w - 1, 0)] if not b else []
    if b:
        out += [(0, b + 1), (0, b - 1)] if not w else []
    return tuple(out) or ((w, b),)


def board_logp(board: Board, looks: Sequence[Look], cfg: LikelihoodConfig,
               cache: dict[tuple[int, tuple[int, int]], float] | None = None) -> float:
    """log P(looks | board): regions summed, each look after the first weighted ``look_weight``."""
    total = 0.0
    for i, count in enumerate(board):
        key = (i, count)
        if cache is not None and key in cache:
            total += cache[key]
            continue
        v = 0.0
        for k, look in enumerate(looks):
            v += region_logp(look[i], count, cfg) * (1.0 if k == 0 else cfg.look_weight)
        if cache is not None:
            cache[key] = v
        total += v
    return total


def _board_of(p: Position) -> Board:
    pts = tuple((p.white[i], p.black[25 - i]) for i in range(1, 25))
    return (*pts, (p.white[BAR], p.black[BAR]), (p.white[OFF], 0), (0, p.black[OFF]))


def _moved(before: Position, side: Side, moves: Iterable[tuple[int, int]], *, hit_to: str = "bar",
           off_hits: int | None = None) -> Position | None:
    """``before`` with ``side``'s checkers moved (start, end) in its own numbering (0 = off, 25 = bar);
    a blot of the opponent on an end point is hit (to the bar, or off the board with ``hit_to="off"``: the first
    ``off_hits`` checkers hit, every one when None); None when a start is empty or an end is held by two or more of
    the opponent."""
    me = list(before.counts(side))
    opp = list(before.counts(side.opponent))
    hits = 0
    for s, e in moves:
        if me[s] <= 0:
            return None
        me[s] -= 1
        if 1 <= e <= 24:
            o = opp[25 - e]
            if o >= 2:
                return None
            if o == 1:
                opp[25 - e] = 0
                off = hit_to == "off" and (off_hits is None or hits < off_hits)
                opp[OFF if off else BAR] += 1
                hits += 1
        me[e] += 1
    try:
        return before.replace(side, tuple(me)).replace(side.opponent, tuple(opp))
    except (PositionError, ValueError):
        return None


def illegal_boards(before: Position, dice: Dice, plays: Iterable[Play]) -> dict[Board, str]:
    """The boards of the illegal plays the laws name, from ``before`` (mover on roll) with ``dice``.

    Each board is labelled with its family; legal boards are left out (a board reachable both ways is legal).
    """
    side = before.turn
    me = before.counts(side)
    opp = before.counts(side.opponent)
    faces = sorted({dice.d1, dice.d2})
    legal = {_board_of(p.after) for p in plays}
    out: dict[Board, str] = {}

    def add(pos: Position | None, label: str) -> None:
        if pos is None:
            return
        b = _board_of(pos)
        if b not in legal and b not in out and b != _board_of(before):
            out[b] = label

    # a die (or more) left unplayed: every proper prefix of a legal play (an incomplete play)
    for play in plays:
        for n in range(1, len(play.steps)):
            add(_moved(before, side, [(st.start, st.end) for st in play.steps[:n]]), "incomplete")
    for play in plays:
        steps = play.steps
        for k, st in enumerate(steps):
            others = [(x.start, x.end) for j, x in enumerate(steps) if j != k]
            # a wrong distance: one step one or two pips short or long
            if st.end != OFF:
                for delta in (-2, -1, 1, 2):
                    e = st.end + delta
                    if 1 <= e <= 24 and e != st.start:
                        add(_moved(before, side, [*others, (st.start, e)]), "wrong_distance")
            # a hit checker put off the board instead of on the bar: every one, or (a play hitting twice or more) only
            # one of them, the others on the bar (7561 s14f frame 2667: 23/19*/18*, one white checker on the bar and
            # one in the tray -- a board no family held, so the lifted play and its correction were judged legal)
            if st.hit:
                moves = [(x.start, x.end) for x in steps]
                add(_moved(before, side, moves, hit_to="off"), "hit_not_to_bar")
                add(_moved(before, side, moves, hit_to="off", off_hits=1), "hit_not_to_bar")
    on_bar = me[BAR] > 0
    for s in range(1, 25):
        if me[s] <= 0:
            continue
        # a blocked point jumped: one checker moved both dice (or several of a double) regardless
        for n in ((2, 3, 4) if dice.is_double else (2,)):
            total = dice.d1 * n if dice.is_double else dice.d1 + dice.d2
            e = s - total
            if 1 <= e <= 24:
                add(_moved(before, side, [(s, e)]), "blocked")
        for d in faces:
            e = s - d
            if on_bar and 1 <= e <= 24:  # a checker moved while one is on the bar
                add(_moved(before, side, [(s, e)]), "bar")
            if not before.all_home(side) and not on_bar and s <= 6 and s <= max(faces):  # borne off too early
                add(_moved(before, side, [(s, OFF)]), "bear_off")
    # the opponent's checker moved (by one die, in his direction)
    o = side.opponent
    for s in range(1, 25):
        if opp[s] <= 0:
            continue
        for d in faces:
            e = s - d
            if 1 <= e <= 24 and me[25 - e] == 0:
                add(_moved(before.with_turn(o), o, [(s, e)]), "wrong_colour")
    return out


def _faults_of(before: Position, dice: Dice, play: Play) -> frozenset[Board]:
    """The illegal boards that are faults of ``play`` itself: the laws' families built from it alone
    (``illegal_boards``) and every part of it played (its steps, any of them in any order, not all: a play left
    incomplete however it was begun; ``illegal_boards`` takes the steps in the one order the laws list)."""
    steps = [(st.start, st.end) for st in play.steps]
    parts = {_moved(before, before.turn, [steps[i] for i in range(len(steps)) if mask >> i & 1])
             for mask in range(1, (1 << len(steps)) - 1)}
    if len(steps) == 2 and steps[0][1] == steps[1][0] and steps[1][1] != OFF:
        # one checker moved by both dice: the other die first passes through another point
        (s1, _), (s2, e2) = steps
        parts.add(_moved(before, before.turn, [(s1, s1 - (s2 - e2))]))
    return frozenset(illegal_boards(before, dice, (play,))) | {_board_of(p) for p in parts if p is not None}


def judge_play(before: Position, dice: Dice | tuple[int, int], looks: Sequence[Look],
               cfg: LikelihoodConfig | None = None, *, allow_illegal: bool = True,
               exclude: frozenset[Board] = frozenset(), weak: tuple[int, ...] | None = None,
               corrected_to: Play | None = None) -> Judgement:
    """Which board after ``dice`` from ``before`` the looks show (module doc).

    With ``allow_illegal=False`` (the throw or the start is not known for sure) the illegal boards
    still take their share of the posterior, but the verdict is never ``ILLEGAL``.  ``exclude``: boards
    known not to be the one looked at (the board it was corrected to).  ``weak``: the faces read below the
    certainty that rules out a misread (``LikelihoodConfig.one_face_guard``; None: either may be misread).
    ``corrected_to``: the legal play the looked-at board was corrected into; an illegal board that is a fault of
    that play (the laws' families built from it: a part of it, a step a wrong distance, ...) keeps its prior; every
    other one, and every other legal play, is weighed ``LikelihoodConfig.other_correction`` (a likelihood of the
    correction: never a board ruled out, and no family favoured over another that is a fault of that play).
    """
    cfg = cfg or LikelihoodConfig()
    d = dice if isinstance(dice, Dice) else Dice(*dice)
    plays = legal_plays(before, d)
    cache: dict[tuple[int, tuple[int, int]], float] = {}
    legal: dict[Board, Play] = {}
    for p in plays:
        if _board_of(p.after) not in exclude:
            legal.setdefault(_board_of(p.after), p)
    illegal = {b: k for b, k in illegal_boards(before, d, plays).items() if b not in exclude}
    if not legal and not (exclude and illegal):
        return Judgement(JudgementKind.UNSURE, _board_of(before), None, 0.0, 0.0)
    # (every legal play excluded -- the roll's one legal play is the board it was corrected to: the illegal boards are
    # still weighed, and only a call can come of it; 7563 s14f frame 1752, a forced 2-4 lifted early and corrected)
    scored: list[tuple[float, Board, bool]] = []
    log_prior_ill = math.log(cfg.illegal_prior)
    fault_of = _faults_of(before, d, corrected_to) if corrected_to is not None else None
    log_other = math.log(cfg.other_correction)
    for b in legal:
        scored.append((board_logp(b, looks, cfg, cache) + (0.0 if fault_of is None else log_other), b, True))
    for b in illegal:
        lp = log_prior_ill + (0.0 if fault_of is None or b in fault_of else log_other)
        scored.append((board_logp(b, looks, cfg, cache) + lp, b, False))
    still = _board_of(before)
    unplayed = board_logp(still, looks, cfg, cache) + math.log(cfg.unplayed_prior)
    if still not in legal and unplayed > max(s for s, _, _ in scored):
        # the board as it stood, and that is no legal play: the throw was taken back (void, picked up)
        return Judgement(JudgementKind.UNSURE, still, None, 0.0, 0.0, unplayed=True, fits=_fits(still, looks, cfg))
    top = max(s for s, _, _ in scored)
    z = sum(math.exp(s - top) for s, _, _ in scored)
    post = [(math.exp(s - top) / z, b, is_legal) for s, b, is_legal in scored]
    legal_mass = sum(p for p, _, is_legal in post if is_legal)
    best_any = max(post, key=lambda x: x[0])
    if allow_illegal and not best_any[2]:
        # a confident reading contradicts every legal play and the board as it stood, or nothing is called
        allow_illegal = _refuted((*legal, still), looks, cfg)

    if allow_illegal and not best_any[2] and cfg.one_face_guard:
        allow_illegal = not one_face_off(before, d, best_any[1], (d.d1, d.d2) if weak is None else weak)

    if (allow_illegal and not best_any[2] and best_any[0] >= cfg.illegal_margin
            and legal_mass < cfg.illegal_max_legal and _fits(best_any[1], looks, cfg)
            and _supported(best_any[1], _board_of(before), looks, cfg)):
        b = best_any[1]
        return Judgement(JudgementKind.ILLEGAL, b, None, best_any[0], legal_mass, _doubtful(b, looks, cfg), illegal[b], True)
    if allow_illegal and not best_any[2] and legal_mass < min(cfg.illegal_max_legal, cfg.kind_max_legal) \
            and _fits(best_any[1], looks, cfg):
        # which illegal board is not clear, but every likely one is the same kind of fault (a die left
        # unplayed, or a play no die allows): the laws name it the same whichever it is
        ill = 1.0 - legal_mass
        partial = sum(p for p, b, is_legal in post if not is_legal and illegal[b] == "incomplete")
        if min(partial, ill - partial) <= cfg.kind_doubt * ill:
            b = best_any[1]
            return Judgement(JudgementKind.ILLEGAL, b, None, best_any[0], legal_mass, _doubtful(b, looks, cfg), illegal[b], True)
    if not legal:
        return Judgement(JudgementKind.UNSURE, _board_of(before), None, 0.0, 0.0)
    pb, b, _ = max((x for x in post if x[2]), key=lambda x: x[0])
    fits = _fits(b, looks, cfg)
    # the board as it stood (nothing played: a void throw taken back), when no legal play, shares the
    # posterior too: a legal play barely likelier than nothing played is never sure (7262 s6f: a cocked
    # die unseen, its throw lifted unplayed; 24/21 one misread checker likelier, sent sure, the rethrow
    # then called in the wrong table on the opponent)
    share = 1.0 if still in legal else z / (z + math.exp(unplayed - top))
    sure_p = pb * share
    kind = JudgementKind.LEGAL if sure_p >= cfg.legal_margin and fits else JudgementKind.UNSURE
    cands = [(p * share, c) for p, c, _ in post] + ([] if still in legal else [(1.0 - share, still)])
    return Judgement(kind, b, legal[b], pb, legal_mass, () if kind is JudgementKind.LEGAL else _doubtful(b, looks, cfg),
                     fits=fits, doubt=doubt_of(b, cands, looks, cfg))


def doubt_of(chosen: Board, cands: Iterable[tuple[float, Board]], looks: Sequence[Look],
           cfg: LikelihoodConfig) -> tuple[tuple[int, int, int, float], ...]:
    """Where ``chosen`` may be wrong (``Judgement.doubt``): what candidates holding ``doubt_p`` of the posterior
    have where they differ (odds: their share against the chosen board's), and (odds 1) what a region read surely
    (calibrated ``fit_p``) shows where it disagrees."""
    listed = list(cands)
    p_chosen = sum(p for p, c in listed if c == chosen) or 1.0
    odds: dict[tuple[int, int, int], float] = {}
    for p, c in listed:
        if p >= cfg.doubt_p and c != chosen:
            for i in range(len(chosen)):
                if c[i] != chosen[i]:
                    key = (i, c[i][0], c[i][1])
                    odds[key] = odds.get(key, 0.0) + p / p_chosen
    for look in looks:
        for i, r in enumerate(look):
            if calibrated(r, cfg) >= cfg.fit_p and (r.white, r.black) != chosen[i]:
                odds[(i, r.white, r.black)] = max(odds.get((i, r.white, r.black), 0.0), 1.0)
    return tuple((i, w, b, min(o, cfg.doubt_max_odds)) for (i, w, b), o in sorted(odds.items()))


def one_face_off(before: Position, dice: Dice | tuple[int, int], board: Board, weak: Iterable[int]) -> bool:
    """``board`` is a legal play of a roll that keeps one of ``dice``'s faces and changes the other, one of the
    ``weak`` faces (those read below the certainty that rules out a misread): a misread weak face would make it
    legal (``LikelihoodConfig.one_face_guard``)."""
    return bool(face_off_rolls(before, dice, board, weak))


def face_off_rolls(before: Position, dice: Dice | tuple[int, int], board: Board,
                   weak: Iterable[int]) -> tuple[tuple[int, int], ...]:
    """The rolls (high, low) other than ``dice`` that keep one of its faces and change the other, one of the ``weak``
    faces, of which ``board`` is a legal play (:func:`one_face_off`: any)."""
    faces = (dice.d1, dice.d2) if isinstance(dice, Dice) else (dice[0], dice[1])
    keeps = {faces[1 - i] for i in (0, 1) if faces[i] in tuple(weak)}
    rolls = {(max(keep, x), min(keep, x)) for keep in keeps for x in range(1, 7)}
    rolls.discard((max(faces), min(faces)))
    out = []
    for a, b in sorted(rolls, reverse=True):
        try:
            if any(_board_of(p.after) == board for p in legal_plays(before, Dice(a, b))):
                out.append((a, b))
        except PositionError:
            continue
    return tuple(out)


def calibrated(r: CountReading, cfg: LikelihoodConfig) -> float:
    """How likely the reading is right: its confidence bin's ``p_read``."""
    return _bin(r, cfg).p_read


def _bin(r: CountReading, cfg: LikelihoodConfig) -> ConfidenceBin:
    cal = cfg.bins[0]
    for b in cfg.bins:
        if r.confidence >= b.lo:
            cal = b
    return cal


def _supported(board: Board, start: Board, looks: Sequence[Look], cfg: LikelihoodConfig) -> bool:
    """Every region where ``board`` differs from ``start`` is read as ``board`` has it, at ``support_p``
    (the checkers that moved are seen where they went, and gone from where they left), in some look."""
    changed = [i for i in range(len(board)) if board[i] != start[i]]
    return all(any((look[i].white, look[i].black) == board[i] and calibrated(look[i], cfg) >= cfg.support_p
                   for look in looks) for i in changed)


def fits_board(board: Board, looks: Sequence[Look], cfg: LikelihoodConfig) -> bool:
    """``board`` agrees with every region whose reading is at least ``fit_p`` likely right, in every look."""
    return _fits(board, looks, cfg)


def _fits(board: Board, looks: Sequence[Look], cfg: LikelihoodConfig) -> bool:
    """``board`` agrees with every region whose reading is at least ``fit_p`` likely right, in every look."""
    return all((r.white, r.black) == board[i] for look in looks for i, r in enumerate(look)
               if calibrated(r, cfg) >= cfg.fit_p)


def judge_throw(before: Position, known: Sequence[int], looks: Sequence[Look],
                cfg: LikelihoodConfig | None = None, *, weak: Sequence[int] = (),
                rethrown: bool = False) -> tuple[tuple[int, int], Judgement]:
    """The throw (and its play) that best explains the looks after a throw whose faces were not all read.

    ``known`` holds the faces read (0: unread).  Every roll agreeing with them is tried (a double
    weighs 1/36, any other 2/36); the posterior is over (roll, board) pairs of legal plays.  Never
    ``ILLEGAL``: with the throw unknown, an illegal play of one roll is a legal play of another.
    The pair is ``LEGAL`` (sure) when it holds ``legal_margin`` of the posterior.  ``weak``: faces of
    ``known`` read below the certainty that rules out a misread: a roll disagreeing with one is tried
    too, weighed by ``face_doubt`` (7256 s5h: a 5-1 whose 1 was read as a 5 at 0.993, its play no 5-5 play).
    A roll that disagrees with a face read is never ``LEGAL`` (sure): the players check it.
    ``rethrown``: the same player threw again next (his dice in his own table): with a face unread, a board
    left as it stood is the throw taken back, not a dance of a roll that cannot move (7298 s7a: a cocked
    throw picked up and rethrown, recorded as a 6-6 dance from the bar, and the record left the game).

    >>> from rules.position import Position
    >>> from referee.tracker import board_of
    >>> after = Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK)   # 8/5 6/5 (3-1)
    >>> judge_throw(Position.initial(), (3, 0), [reading_of(board_of(after), 0.95)])[0]
    (3, 1)
    """
    cfg = cfg or LikelihoodConfig()
    faces = [f for f in known if f]
    # (only with both faces read: with one unread, an unchanged board is better explained by the throw taken
    # back than by a misread face whose roll has no play -- 7235 s5f)
    soft, hard, loose = list(weak) if cfg.face_doubt > 0 and len(faces) == 2 else [], list[int](), list[int]()
    for f in faces:  # (each weak face counts once)
        if f in soft:
            soft.remove(f)
            loose.append(f)
        else:
            hard.append(f)
    rolls = [(r, off) for r in ROLLS if (off := _faces_off(r, hard, loose)) is not None]
    miss = math.log(cfg.face_doubt / 5) - math.log(1 - cfg.face_doubt) if loose else 0.0
    cache: dict[tuple[int, tuple[int, int]], float] = {}
    scored: list[tuple[float, tuple[int, int], Board, Play]] = []
    for roll, off in rolls:
        try:
            plays = legal_plays(before, Dice(*roll))
        except PositionError:
            continue
        prior = math.log(1 / 36 if roll[0] == roll[1] else 2 / 36) + off * miss
        seen: set[Board] = set()
        for p in plays:
            b = _board_of(p.after)
            if b in seen or (off and p.is_empty):  # (a misread face is never the reason nothing moved)
                continue
            seen.add(b)
            scored.append((board_logp(b, looks, cfg, cache) + prior, roll, b, p))
    if not scored:
        roll = (max(faces or [1]), min(faces or [1]) if len(faces) > 1 else 1)
        return roll, Judgement(JudgementKind.UNSURE, _board_of(before), None, 0.0, 0.0)
    still = _board_of(before)
    unplayed = board_logp(still, looks, cfg, cache) + math.log(cfg.unplayed_prior)
    top = max(max(x[0] for x in scored), unplayed)
    z = sum(math.exp(x[0] - top) for x in scored) + math.exp(unplayed - top)
    best = max(scored, key=lambda x: x[0])
    post = math.exp(best[0] - top) / z
    board_post = sum(math.exp(x[0] - top) for x in scored if x[2] == best[2]) / z
    if (unplayed > best[0] and best[2] != still) or (rethrown and len(faces) < 2 and best[2] == still):
        # the board as it stood, and no roll leaves it so: the throw was taken back (void, picked up)
        return best[1], Judgement(JudgementKind.UNSURE, still, None, math.exp(unplayed - top) / z, 1.0 - board_post,
                                  unplayed=True, fits=_fits(still, looks, cfg))
    fits = _fits(best[2], looks, cfg)
    agrees = _faces_off(best[1], faces, []) is not None
    kind = JudgementKind.LEGAL if post >= cfg.legal_margin and fits and agrees else JudgementKind.UNSURE
    doubtful = () if kind is JudgementKind.LEGAL else _doubtful(best[2], looks, cfg)
    cands = [(math.exp(x[0] - top) / z, x[2]) for x in scored] + [(math.exp(unplayed - top) / z, still)]
    return best[1], Judgement(kind, best[2], best[3], post, board_post, doubtful, fits=fits,
                              doubt=doubt_of(best[2], cands, looks, cfg))


def judge_unread(before: Position, known: Sequence[int], looks: Sequence[Look], cfg: LikelihoodConfig | None = None,
                 *, weak: Sequence[int] = ()) -> tuple[tuple[int, int], Judgement, tuple[tuple[int, int], ...]] | None:
    """An illegal play whatever the unread faces were: (the likeliest roll, the ``ILLEGAL`` judgement, every roll
    tried), or None.

    ``known`` holds the faces read (0: unread); every roll agreeing with them is tried, a ``weak`` face (read below
    the certainty that rules out a misread) changed too (weighed ``face_doubt`` / 5).  Each roll's legal plays and
    named illegal boards (:func:`illegal_boards`, at ``illegal_prior``) are scored as in :func:`judge_throw`.  The
    likeliest board is called only when it is no legal play of any roll tried, holds ``illegal_margin`` of the
    posterior, the legal plays of every roll together hold less than ``illegal_max_legal``, a region read at
    ``refute_confidence`` contradicts every legal play of every roll and the board as it stood, and the board fits
    and is supported (:func:`judge_play`'s conditions).  How the laws name it under each roll (a play left
    incomplete or not) is the caller's to check."""
    cfg = cfg or LikelihoodConfig()
    faces = [f for f in known if f]
    loose = [f for f in faces if f in weak]
    hard = [f for f in faces if f not in weak]
    rolls = [(r, off) for r in ROLLS if (off := _faces_off(r, hard, loose)) is not None]
    miss = math.log(cfg.face_doubt / 5) - math.log(1 - cfg.face_doubt) if loose else 0.0
    cache: dict[tuple[int, tuple[int, int]], float] = {}
    scored: list[tuple[float, tuple[int, int], Board, str]] = []  # (log-posterior, roll, board, "" or its family)
    legal_any: set[Board] = set()
    tried: list[tuple[int, int]] = []
    for roll, off in rolls:
        try:
            plays = legal_plays(before, Dice(*roll))
        except PositionError:
            return None
        tried.append(roll)
        prior = math.log(1 / 36 if roll[0] == roll[1] else 2 / 36) + off * miss
        boards = {_board_of(p.after) for p in plays}
        legal_any |= boards
        scored += [(board_logp(b, looks, cfg, cache) + prior, roll, b, "") for b in boards]
        scored += [(board_logp(b, looks, cfg, cache) + prior + math.log(cfg.illegal_prior), roll, b, k)
                   for b, k in illegal_boards(before, Dice(*roll), plays).items()]
    if not scored:
        return None
    still = _board_of(before)
    unplayed = board_logp(still, looks, cfg, cache) + math.log(cfg.unplayed_prior)
    top = max(max(x[0] for x in scored), unplayed)
    if unplayed >= top:
        return None
    z = sum(math.exp(x[0] - top) for x in scored) + math.exp(unplayed - top)
    best = max(scored, key=lambda x: x[0])
    board = best[2]
    if not best[3] or board in legal_any:
        return None
    legal_mass = sum(math.exp(x[0] - top) for x in scored if not x[3]) / z
    post = sum(math.exp(x[0] - top) for x in scored if x[2] == board) / z
    if not (_refuted((*legal_any, still), looks, cfg) and post >= cfg.illegal_margin
            and legal_mass < cfg.illegal_max_legal and _fits(board, looks, cfg) and _supported(board, still, looks, cfg)):
        return None
    return best[1], Judgement(JudgementKind.ILLEGAL, board, None, post, legal_mass, _doubtful(board, looks, cfg),
                              best[3], True), tuple(tried)


def _refuted(boards: Iterable[Board], looks: Sequence[Look], cfg: LikelihoodConfig) -> bool:
    """A region read at ``refute_confidence`` contradicts every one of ``boards`` (the legal plays and the board as
    it stood: else no illegal play is called)."""
    sure = [(i, (r.white, r.black)) for look in looks for i, r in enumerate(look) if r.confidence >= cfg.refute_confidence]
    return all(any(b[i] != wb for i, wb in sure) for b in boards)


def _doubtful(board: Board, looks: Sequence[Look], cfg: LikelihoodConfig) -> tuple[int, ...]:
    """The points (1-24) of ``board`` the first look reads otherwise or below ``fit_p`` (the players check them)."""
    first = looks[0] if looks else ()
    return tuple(i + 1 for i in range(24) if first and ((first[i].white, first[i].black) != board[i]
                                                        or calibrated(first[i], cfg) < cfg.fit_p))


def _faces_off(roll: tuple[int, int], hard: Sequence[int], loose: Sequence[int]) -> int | None:
    """How many of the ``loose`` faces ``roll`` must have been misread as, keeping every ``hard`` face
    (None: a ``hard`` face is not in the roll)."""
    left = list(roll)
    for f in hard:
        if f not in left:
            return None
        left.remove(f)
    off = 0
    for f in loose:
        if f in left:
            left.remove(f)
        else:
            off += 1
    return off
