"""The likelihood judge (referee.judge): legal plays, the named illegal ones, unplayed throws."""

from __future__ import annotations

from dataclasses import replace

from referee.judge import (
    ConfidenceBin,
    JudgementKind,
    LikelihoodConfig,
    _moved,
    doubt_of,
    illegal_boards,
    judge_play,
    judge_throw,
    reading_of,
    region_logp,
)
from referee.tracker import Scene, _weighed, board_of, doubt_with
from rules.dice import Dice
from rules.moves import legal_plays
from rules.notation import parse_play
from rules.position import BAR, OFF, Position, Side
from vision.observation import CountReading

START = Position.initial()
CFG = LikelihoodConfig()


def after(pos: Position, dice: tuple[int, int], text: str) -> Position:
    return parse_play(text, pos, dice).after


def look(pos: Position, conf: float = 1.0, unsure: dict[int, float] | None = None) -> tuple[CountReading, ...]:
    out = list(reading_of(board_of(pos), conf))
    for p, c in (unsure or {}).items():
        out[p - 1] = replace(out[p - 1], confidence=c)
    return tuple(out)


def test_a_legal_play_read_whole_is_sure() -> None:
    p = after(START, (3, 1), "8/5 6/5")
    j = judge_play(START, Dice(3, 1), [look(p)])
    assert j.kind is JudgementKind.LEGAL and j.play is not None and j.play.notation() == "8/5 6/5" and j.fits


def test_each_named_illegal_play_is_called_when_read_whole() -> None:
    # a wrong distance: 13/9 with a 5 (13/8) and 8/5 with the 3 ... from the start, WHITE 5-3
    bad = after(START, (5, 4), "13/8 13/9")  # played as if 5-4 with 5-3 down: 13/9 is a wrong distance
    j = judge_play(START, Dice(5, 3), [look(bad)], weak=())  # (both faces read beyond doubt)
    assert j.kind is JudgementKind.ILLEGAL and j.board == board_of(bad) and j.label == "wrong_distance"
    # one die left unplayed
    half = Position.from_points({24: 2, 13: 4, 8: 4, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, Side.BLACK)  # 13/8 only
    j = judge_play(START, Dice(5, 3), [look(half)], weak=())
    assert j.kind is JudgementKind.ILLEGAL and j.label == "incomplete"


def test_illegal_boards_name_every_family_the_laws_name() -> None:
    # WHITE on the bar with 6-5: any other checker moved is "bar"; BLACK's checker moved is "wrong colour"
    pos = Position.from_points({25: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, Side.WHITE)
    labels = set(illegal_boards(pos, Dice(6, 5), legal_plays(pos, Dice(6, 5))).values())
    assert {"bar", "wrong_colour", "incomplete"} <= labels
    pos = Position.from_points({13: 5, 8: 5, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}, Side.WHITE)
    labels = set(illegal_boards(pos, Dice(6, 5), legal_plays(pos, Dice(6, 5))).values())
    assert "bear_off" in labels and "wrong_distance" in labels


def test_never_illegal_when_not_allowed_or_a_legal_play_stays_likely() -> None:
    bad = after(START, (5, 4), "13/8 13/9")
    assert judge_play(START, Dice(5, 3), [look(bad)], allow_illegal=False).kind is not JudgementKind.ILLEGAL
    # the points that make it illegal are read unsure: the legal 13/8 13/10 stays likely -> asked
    j = judge_play(START, Dice(5, 3), [look(bad, unsure={9: 0.4, 10: 0.4})])
    assert j.kind is JudgementKind.UNSURE and j.play is not None


def test_a_board_left_as_it_was_is_a_throw_taken_back() -> None:
    j = judge_play(START, Dice(5, 3), [look(START)])
    assert j.unplayed and j.play is None
    _, j = judge_throw(START, (5, 0), [look(START)])
    assert j.unplayed


def test_judge_throw_infers_the_roll_from_the_play() -> None:
    p = after(START, (6, 4), "24/18 13/9")
    roll, j = judge_throw(START, (0, 0), [look(p)])
    assert roll == (6, 4) and j.play is not None and j.kind is JudgementKind.LEGAL


def test_region_logp_follows_the_calibration() -> None:
    cfg = LikelihoodConfig(bins=(ConfidenceBin(0.0, 0.7, 0.2, ((-1, 0, 0.1),)), ConfidenceBin(0.999, 0.9999, 0.0)))
    r = CountReading(2, 0, 0.0)
    assert region_logp(r, (2, 0), cfg) > region_logp(r, (1, 0), cfg) > region_logp(r, (5, 0), cfg)
    sure = CountReading(2, 0, 1.0)
    assert region_logp(sure, (1, 0), cfg) == region_logp(sure, (0, 3), cfg)  # both at the floor


def test_a_play_one_misread_face_would_make_legal_is_asked_not_called() -> None:
    # 13/8 13/9 is a legal 5-4: with 5-3 read, it is illegal only if the 3 is no 4
    bad = after(START, (5, 4), "13/8 13/9")
    for weak in (None, (3,)):  # the 3 (or either face) read below the certainty that rules out a misread
        j = judge_play(START, Dice(5, 3), [look(bad)], weak=weak)
        assert j.kind is JudgementKind.UNSURE and j.play is not None, weak
    # only the 5 doubted: no roll (x, 3) plays 13/8 13/9, so the call stands
    assert judge_play(START, Dice(5, 3), [look(bad)], weak=(5,)).kind is JudgementKind.ILLEGAL
    off = replace(CFG, one_face_guard=False)
    assert judge_play(START, Dice(5, 3), [look(bad)], off).kind is JudgementKind.ILLEGAL


def test_unsure_readings_alone_never_make_an_accusation() -> None:
    # WHITE 6-1 from a home board: 6/off is borne off too early (checkers outside)
    pos = Position.from_points({13: 5, 8: 3, 6: 5, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5}, Side.WHITE)
    bad = Position.from_points({13: 5, 8: 3, 6: 4, 5: 2}, {24: 2, 13: 5, 8: 3, 6: 5}, Side.WHITE)
    bad = bad.replace(Side.WHITE, tuple(n + (1 if i == 26 else 0) for i, n in enumerate(bad.white)))
    j = judge_play(pos, Dice(6, 1), [look(bad)], weak=())
    assert j.kind is JudgementKind.ILLEGAL and j.label == "bear_off"
    # the point the checker left and WHITE's tray (region 26) read at confidence 0 (a die on it, a derived tray): no
    # reading the reader itself is sure of contradicts "nothing played" -> never called (7215 r3)
    j = judge_play(pos, Dice(6, 1), [look(bad, unsure={6: 0.0, 26: 0.0})], weak=())
    assert j.kind is not JudgementKind.ILLEGAL


def test_a_legal_play_barely_likelier_than_nothing_played_is_not_sure() -> None:
    """7262 s6f: a throw with a cocked die unseen was lifted unplayed; one checker misread made 24/21 a
    hair likelier than the board as it stood, and it was sent sure (the rethrow then called in the wrong
    table on the opponent).  The board as it stood (a void throw taken back) shares the posterior: unsure."""
    played = board_of(after(START, (2, 1), "24/21"))
    stood = board_of(START)
    lk = list(reading_of(played, 1.0))
    lk[20] = replace(lk[20], confidence=0.77)  # the checker on 21: read at 0.77
    lk[23] = reading_of(stood, 0.8)[23]  # the 24 point read as it stood, at 0.8
    j = judge_play(START, Dice(2, 1), [tuple(lk)])
    assert not j.unplayed and j.play is not None and j.play.notation() == "24/21"
    assert j.kind is JudgementKind.UNSURE, j
    # the same play read beyond doubt stays sure
    assert judge_play(START, Dice(2, 1), [look(after(START, (2, 1), "24/21"))]).kind is JudgementKind.LEGAL


def test_what_an_unsure_judgement_leaves_in_doubt() -> None:
    """``doubt_of`` (``Judgement.doubt``): where a candidate holding ``doubt_p`` (what a sure play may leave aside:
    2 %) differs from the chosen board, its count there with its odds against the chosen board; a region read surely
    otherwise, at odds 1; a candidate below ``doubt_p`` leaves nothing."""
    cfg = LikelihoodConfig()
    chosen = board_of(after(START, (3, 1), "8/5 6/5"))
    other = board_of(after(START, (3, 1), "24/21 6/5"))
    faint = board_of(after(START, (3, 1), "13/10 6/5"))
    lk = list(reading_of(chosen, 0.5))
    lk[12] = CountReading(0, 4, 0.999)  # WHITE's 13 point read surely with 4 of BLACK's, not his 5: nobody's board
    doubt = doubt_of(chosen, [(0.9, chosen), (0.09, other), (0.005, faint)], [tuple(lk)], cfg)
    moved = {i for i in range(27) if other[i] != chosen[i]}
    assert {i for i, *_ in doubt} == moved | {12}
    for i, w, b, odds in doubt:
        assert (w, b) == ((0, 4) if i == 12 else other[i]) and abs(odds - (1.0 if i == 12 else 0.1)) < 1e-9, (i, odds)
    assert judge_play(START, Dice(3, 1), [look(after(START, (3, 1), "8/5 6/5"))]).kind is JudgementKind.LEGAL


def test_an_alternative_the_judge_liked_far_better_leaves_the_doubt_when_later_looks_read_the_laws_board() -> None:
    """A candidate holding nearly all the posterior enters the doubt at even odds at most (``doubt_max_odds``): its
    share comes from every region it differs in.  Three looks between plays that read the laws' board (at 0.9) then
    clear it; entered at its full odds (999) it outlives them (7366 s8c: alternatives at e^20-e^46 kept four illegal
    plays asked for 20 moves after the laws' board was back in step)."""
    chosen = board_of(after(START, (3, 1), "8/5 6/5"))
    other = board_of(after(START, (3, 1), "24/21 6/5"))
    cands = [(0.999, other), (0.001, chosen)]
    between = Scene(chosen, (0.9,) * 27, False, (), None, reading_of(chosen, 0.9))
    left = {}
    for cap in (CFG.doubt_max_odds, float("inf")):
        cfg = replace(CFG, doubt_max_odds=cap)
        doubt = doubt_with((), chosen, doubt_of(chosen, cands, [reading_of(chosen, 0.5)], cfg))
        assert {i for i, *_ in doubt} == {i for i in range(27) if other[i] != chosen[i]}
        for _ in range(3):  # (each look moves it by ~3.2 nats; it leaves below doubt_gone, -6.9)
            doubt = _weighed(doubt, chosen, between, cfg)
        left[cap] = doubt
    assert CFG.doubt_max_odds <= 1.0 and left[CFG.doubt_max_odds] == ()
    assert left[float("inf")], "at the candidate's full odds the same looks leave it in doubt"


def test_an_alternative_left_less_likely_than_a_call_tolerates_leaves_the_doubt() -> None:
    """``doubt_gone`` (1e-2, session 9; was 1e-3) matches what a call tolerates (``illegal_margin`` 0.99): an
    alternative the looks between plays make 1 % as likely as the laws' board, or less, no longer holds a call back.
    Three looks reading the laws' board at 0.6 leave two regions at ~1/180 (e^-5.2): gone now, kept at 1e-3 (7366
    s8c: alternatives at e^-5.4 kept a wrong distance and a blocked play asked)."""
    chosen = board_of(after(START, (3, 1), "8/5 6/5"))
    other = board_of(after(START, (3, 1), "24/21 6/5"))
    between = Scene(chosen, (0.6,) * 27, False, (), None, reading_of(chosen, 0.6))
    left = {}
    for gone in (CFG.doubt_gone, 1e-3):
        cfg = replace(CFG, doubt_gone=gone)
        doubt = doubt_with((), chosen, doubt_of(chosen, [(0.5, other), (0.5, chosen)], [reading_of(chosen, 0.5)], cfg))
        for _ in range(3):
            doubt = _weighed(doubt, chosen, between, cfg)
        left[gone] = doubt
    assert left[CFG.doubt_gone] == ()
    assert {i for i, *_ in left[1e-3]} == {4, 23}  # (WHITE's 5 and 24 points at e^-5.2)


def test_a_play_lifted_early_whose_moved_checkers_are_read_unsure_is_called_at_099() -> None:
    """A die left unplayed (8/5 of a 3-1), every region read surely but the two the checker left and reached (read at
    0.5): the incomplete board holds ~0.993 of the posterior, the rest on boards of the same throw a misread there
    would make (7275 s6g: 0.9945).  Called at ``illegal_margin`` 0.99 (session 8); 0.995 held it."""
    bad = next(b for b, k in illegal_boards(START, Dice(3, 1), legal_plays(START, Dice(3, 1))).items()
               if k == "incomplete" and b[4] == (1, 0) and b[7] == (2, 0))  # 8/5 alone
    lk = list(reading_of(bad, 1.0))
    for i in (4, 5):  # WHITE's 5 and 6 points
        lk[i] = replace(lk[i], confidence=0.5)
    j = judge_play(START, Dice(3, 1), [tuple(lk)], weak=())
    assert j.kind is JudgementKind.ILLEGAL and j.label == "incomplete", j
    assert 0.99 <= j.posterior < 0.995, j.posterior
    assert judge_play(START, Dice(3, 1), [tuple(lk)], replace(CFG, illegal_margin=0.995), weak=()).kind \
        is not JudgementKind.ILLEGAL


def test_an_illegal_board_whose_moved_checkers_are_read_at_confidence_0_is_not_called_on_its_support() -> None:
    """7411 (s10a, session 10's fresh games): WHITE entered bar/22 with 4-3 and lifted the dice (incomplete).  The
    reader read point 22 empty and point 16 as 2 (1 lay on each), both at confidence 0 -- the reader's own "I do not
    know" -- and the first calibration bin (p_read 0.77) let them support "bar/16", called as a wrong distance: a
    wrong name.  ``support_p`` 0.8: a region read at confidence 0 supports no call."""
    pos = Position.from_points({25: 1, 16: 1, 13: 4, 8: 3, 6: 5, 4: 1}, {24: 2, 13: 5, 8: 3, 6: 5}, Side.WHITE)
    d = Dice(4, 3)
    bad = next(b for b, k in illegal_boards(pos, d, legal_plays(pos, d)).items()
               if k == "wrong_distance" and b[15] == (2, 0) and b[21] == (0, 0))  # bar/16
    lk = list(reading_of(bad, 1.0))
    lk[15] = replace(lk[15], confidence=0.0, alternatives=((0, 0, 0.015),))
    lk[21] = replace(lk[21], confidence=0.0, alternatives=((2, 0, 0.06),))
    assert judge_play(pos, d, [tuple(lk)], weak=()).kind is not JudgementKind.ILLEGAL
    j = judge_play(pos, d, [tuple(lk)], replace(CFG, support_p=0.7), weak=())  # session 9's support
    assert j.kind is JudgementKind.ILLEGAL and j.label == "wrong_distance"
    # read at 0.3 or more (the second bin, right 97 % of the time) they support it
    for i in (15, 21):
        lk[i] = replace(lk[i], confidence=0.5)
    j = judge_play(pos, d, [tuple(lk)], weak=())
    assert j.kind is JudgementKind.ILLEGAL and j.label == "wrong_distance"


def test_a_play_hitting_twice_with_one_hit_checker_put_off_the_board_is_called_hit_not_to_bar() -> None:
    """7561 s14f frame 2667: a play hitting two blots, one hit checker put on the bar and the other off the board (in
    its tray), the board read whole.  No family held that board (only every hit checker off): the play was judged
    the likeliest legal one, unsure, and its correction legal -- never called."""
    pos = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 7: 3, 6: 1, 5: 1}, Side.WHITE)
    played = after(pos, (4, 1), "24/20*/19*")
    black = list(played.counts(Side.BLACK))
    assert black[BAR] == 2
    black[BAR], black[OFF] = 1, 1  # one of the two put aside, off the board
    bad = played.replace(Side.BLACK, tuple(black))
    assert illegal_boards(pos, Dice(4, 1), legal_plays(pos, Dice(4, 1))).get(board_of(bad)) == "hit_not_to_bar"
    j = judge_play(pos, Dice(4, 1), [look(bad)], weak=())
    assert j.kind is JudgementKind.ILLEGAL and j.board == board_of(bad) and j.label == "hit_not_to_bar"


def test_a_play_lifted_early_and_corrected_to_the_rolls_one_legal_play_is_called() -> None:
    """7563 s14f frame 1752: the roll had one legal play; the play was lifted with a die unplayed, then corrected to
    that play.  Judging the lifted board with the board corrected to excluded left no legal play, and the judge gave
    up (unsure, nothing weighed): the incomplete play was never called.  The illegal boards are weighed still."""
    pos = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 3: 2, 6: 3, 7: 2, 8: 2, 9: 2}, Side.WHITE)
    plays = legal_plays(pos, Dice(4, 2))
    assert [p.notation() for p in plays] == ["bar/21 6/4"]
    forced = next(iter(plays))
    half = _moved(pos, Side.WHITE, [(25, 21)])  # bar/21, the 2 left unplayed
    assert half is not None
    j = judge_play(pos, Dice(4, 2), [look(half)], exclude=frozenset({board_of(forced.after)}), weak=(),
                   corrected_to=forced)
    assert j.kind is JudgementKind.ILLEGAL and j.board == board_of(half) and j.label == "incomplete"
    # the lifted board read unsure where the checker moved: no call, and the judge does not fail
    j = judge_play(pos, Dice(4, 2), [look(half, unsure={21: 0.3, 25: 0.3})], exclude=frozenset({board_of(forced.after)}),
                   weak=(), corrected_to=forced)
    assert j.kind is JudgementKind.UNSURE and j.play is None
