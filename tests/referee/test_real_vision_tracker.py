"""The tracker made for real vision (``TrackerConfig.for_real_vision``) on hand-built streams.

Real vision misses dice, reads faces and flat/cocked with gaps and leaves points unsure.  The
tracker must then resolve to the likeliest legal reading and mark it unsure, keep the laws in
step with the game, and never accuse on it; a confident reading that no legal play explains is
still an illegal play.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from referee.judge import (
    LikelihoodConfig,
    _faults_of,
    _moved,
    face_off_rolls,
    judge_unread,
    one_face_off,
    reading_of,
)
from referee.session import Session, SessionInfo, presented
from referee.tracker import (
    Emitted,
    Scene,
    SeenDie,
    Tracker,
    TrackerConfig,
    TrackerState,
    _patched,
    _patched_likeliest,
    board_of,
    infer_throw,
    pass_chance,
    setup_agreement,
    verdict_in_doubt,
)
from referee.tracker import Phase as TPhase
from rules.dice import Dice
from rules.laws.events import (
    CubeOffered,
    DiceLifted,
    DiceThrown,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
)
from rules.laws.verdicts import VerdictKind
from rules.notation import parse_play
from rules.position import Position, Side
from rules.record import Move
from tests.referee.scenes import B_SPOTS, W_SPOTS, Script, cube, die, thrown
from vision.geometry import Area
from vision.observation import BoardObservation, CountReading, CubePosition, DieReading

START = Position.initial()
REAL = TrackerConfig.for_real_vision("near", count_confidence=0.9)


def after(pos: Position, dice: tuple[int, int], text: str) -> Position:
    return parse_play(text, pos, dice).after


def unread(d: DieReading) -> DieReading:
    """The same die with its face and flat/cocked unread (as the reader reports them)."""
    return replace(d, face=None, face_confidence=0.5, cocked=None, cocked_confidence=0.5)


def feed(script: Script, cfg: TrackerConfig = REAL) -> list[Emitted]:
    tr = Tracker(cfg)
    out: list[Emitted] = []
    for obs in script:
        out += tr.feed(obs)
    return out


def session_run(script: Script, cfg: TrackerConfig = REAL) -> Session:
    s = Session.start(SessionInfo(), None, tracker_config=cfg, evidence=False)
    for obs in script:
        s.process(obs)
    s.flush()  # the end of the stream: a play still held goes on record
    return s


def codes_of(ses: Session) -> list[tuple[str, Side | None]]:
    """The session's calls: (verdict code, offender), checks left out."""
    return [(j.verdict.code.value, j.verdict.offender) for j in ses.infractions if j.verdict.code is not None]


def opened(script: Script) -> Script:
    """Set-up read unsure on three points, then the opening 5-3 (WHITE opens) read fully."""
    script.show(START, unsure_points=(2, 3, 4))
    script.show(START, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]), die(3, Area.LEFT_TABLE, B_SPOTS[0])),
                unsure_points=(2, 3, 4))
    p1 = after(START, (5, 3), "8/3 6/3")
    script.show(p1, unsure_points=(2, 4))
    return script


def test_unsure_setup_is_taken_as_the_starting_array_and_marked() -> None:
    out = feed(Script().show(START, unsure_points=(2, 3, 4, 5)))
    assert [type(e.event) for e in out] == [GameSetUp]
    ev = out[0].event
    assert out[0].unsure and out[0].points == (2, 3, 4, 5) and isinstance(ev, GameSetUp) and ev.position == START


def test_unsure_setup_that_contradicts_the_start_where_sure_is_not_taken() -> None:
    wrong = Position.from_points({24: 2, 13: 5, 8: 3, 6: 4, 5: 1}, {24: 2, 13: 5, 8: 3, 6: 5})
    assert feed(Script().show(wrong, unsure_points=(2, 3))) == []
    sure, bad = setup_agreement(board_of(wrong), [1.0] * 27, 0.9)
    assert sure == 24 and bad == (5, 6)


def test_a_throw_with_a_die_missed_is_inferred_from_the_play() -> None:
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")  # BLACK's 6-4: only the 4 is seen
    seen = (die(4, Area.LEFT_TABLE, B_SPOTS[1]),)
    s.show(p1, seen, unsure_points=(2, 4)).show(p2, seen, unsure_points=(2, 4)).show(p2, unsure_points=(2, 4))
    ses = session_run(s)
    assert ses.stats.infractions == 0
    throws = [j for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert len(throws) == 1 and "inferred from the play" in throws[0].emitted.note
    assert isinstance(throws[0].emitted.event, DiceThrown) and sorted(throws[0].emitted.event.values) == [4, 6]
    assert ses.machine.position == p2 and ses.machine.on_roll is Side.WHITE


def test_an_inferred_throw_that_the_board_leaves_open_is_asked_about() -> None:
    """Only the 4 is read, and where the checkers went is not read at all (24/18 13/9 or 24/20 13/7?):
    the likeliest play goes on record, the players are asked to check."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    seen = (die(4, Area.LEFT_TABLE, B_SPOTS[1]),)
    n = len(s.out)
    s.show(p1, seen).show(p2, seen).show(p2)
    blank = CountReading(0, 0, 0.0)
    for k in range(n, len(s.out)):  # BLACK's 20, 18, 9 and 7 (absolute 5, 7, 16, 18) unread
        pts = list(s.out[k].points)
        for p in (5, 7, 16, 18):
            pts[p - 1] = blank
        s.out[k] = replace(s.out[k], points=tuple(pts), confident=False)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    throws = [j for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert len(throws) == 1 and throws[0].emitted.unsure  # the players are asked to check


def test_a_throw_not_seen_at_all_is_inferred_when_the_next_throw_lands() -> None:
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    s.show(p2, unsure_points=(2, 4))  # BLACK played; his dice were never seen
    w = (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    p3 = after(p2, (2, 1), "13/11 6/5")
    s.show(p2, w, unsure_points=(2, 4)).show(p3, w, unsure_points=(2, 4)).show(p3, unsure_points=(2, 4))
    ses = session_run(s)
    assert ses.stats.infractions == 0  # never "moved without a throw" on a missed throw
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(t.player, sorted(t.values)) for t in throws] == [(Side.BLACK, [4, 6]), (Side.WHITE, [1, 2])]
    assert ses.machine.position == p3 and ses.machine.on_roll is Side.BLACK


def test_unread_faces_and_flatness_never_accuse() -> None:
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (unread(die(6, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    p2 = after(p1, (6, 4), "24/14")
    s.show(p1, b, unsure_points=(2, 4)).show(p2, b, unsure_points=(2, 4)).show(p2, unsure_points=(2, 4))
    ses = session_run(s)
    assert ses.stats.infractions == 0
    assert ses.machine.position == p2


def sure_face(d: DieReading) -> DieReading:
    """The die with its face read beyond doubt (``TrackerConfig.call_face_confidence``)."""
    return replace(d, face_confidence=0.9995)


def test_a_confident_illegal_play_is_still_called() -> None:
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    bad = after(p1, (6, 5), "24/18 13/8")  # played as if 6-5 with 6-4 down, read with confidence
    s.show(p1, b).show(bad, b).show(bad)
    ses = session_run(s)
    codes = [j.verdict.code.value for j in ses.infractions if j.verdict.code is not None]
    assert codes == ["illegal-play"] and ses.infractions[0].verdict.offender is Side.BLACK


def test_a_play_legal_if_one_face_was_misread_is_asked_about_never_called() -> None:
    """7215 r3: a 6 read as a 4 at 0.97 made WHITE's legal 6-1 a wrong distance.  With a face read below
    ``call_face_confidence``, a board that a legal play of the roll with that face changed explains is
    asked about; the laws keep the likeliest legal play of the dice read."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1]))  # faces read at 0.99
    bad = after(p1, (6, 5), "24/18 13/8")  # a legal 6-5: the 4 may be a misread 5
    s.show(p1, b).show(bad, b).show(bad)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    assert any(j.emitted.unsure for j in ses.judged)  # the players are asked to check


def test_a_weak_face_read_beyond_doubt_in_a_later_still_scene_of_the_throw_no_longer_holds_a_call_back() -> None:
    """A face read below ``call_face_confidence`` when the dice landed may be misread, so a play that a legal
    play of the roll with that face changed explains is only asked about.  Read again where it lay, the same
    face beyond doubt, in a still scene of the play, it is not misread: the play is called (s7b 7313: a wrong
    distance).  A later look as weak as the first changes nothing; nor does the other die of a double read
    beyond doubt (which die was weak is not kept: s7b 7311, 7320 were called so, on no evidence)."""
    p1 = after(START, (5, 3), "8/3 6/3")
    landed = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), die(4, Area.LEFT_TABLE, B_SPOTS[1]))  # 4 at 0.99
    bad = after(p1, (6, 5), "24/18 13/8")  # a legal 6-5: the 4 may be a misread 5
    for again, called in ((sure_face(landed[1]), 1), (landed[1], 0)):
        s = opened(Script())
        s.show(p1, landed).show(p1, (landed[0], again)).show(bad, landed).show(bad)
        assert session_run(s).stats.infractions == called, again.face_confidence
    # a 4-4 with one 4 weak: firmed only with both 4s read beyond doubt again (either may be the weak one)
    tr = Tracker(REAL)
    places = ((100.0, 100.0), (150.0, 100.0))

    def seen(x: float, conf: float) -> SeenDie:
        return SeenDie(4, True, True, "left_table", False, x, 100.0, None, face_sure=True, face_conf=conf)

    assert tr._firmed((4,), (4, 4), places, [seen(100.0, 0.999), seen(150.0, 0.99)]) == (4,)
    assert tr._firmed((4,), (4, 4), places, [seen(100.0, 0.999), seen(150.0, 0.999)]) == ()


def _lifted_then(p1: Position, landed: tuple[SeenDie, ...], lifted: Position, corrected: Position | None = None) -> Session:
    """The session of Black's throw ``landed`` on ``p1``, his play to ``lifted`` and his dice lifted, then (with
    no throw) the board changed to ``corrected`` if given, then White's 2-1 landing."""
    white = (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    s = opened(Script())
    s.show(p1, landed).show(lifted, landed).show(lifted)
    end = lifted if corrected is None else corrected
    if corrected is not None:
        s.show(corrected)
    s.show(end, white)
    return session_run(s)


def test_a_play_legal_if_a_weak_face_was_misread_is_called_when_corrected_to_a_play_of_the_roll_read() -> None:
    """The 4 read at 0.99 (weak): 24/18 13/8 is a legal 6-5, so at the lift it is only asked about.  The board
    is then changed, with no throw, into 24/18 13/9 (a legal 6-4 read surely, no play of 6-5 or any roll with
    the 4 misread): a legal 6-5 would never have been corrected, so the 4 was read right and the lifted board
    was a wrong distance (7430 s10b, frame 1811).  Corrected to a board a misread face also explains, or not
    corrected at all, nothing is called."""
    p1 = after(START, (5, 3), "8/3 6/3")
    landed = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), die(4, Area.LEFT_TABLE, B_SPOTS[1]))  # 4 at 0.99
    bad = after(p1, (6, 5), "24/18 13/8")
    good = after(p1, (6, 4), "24/18 13/9")
    ses = _lifted_then(p1, landed, bad, good)
    codes = codes_of(ses)
    assert codes == [("illegal-play", Side.BLACK)]
    last = ses.machine.match_record().games[0].actions[-1]
    assert isinstance(last, Move) and last.play == "24/18 13/9"  # the correction on record
    # not corrected: asked (the one-face guard), the laws keep the likeliest legal play
    assert _lifted_then(p1, landed, bad).stats.infractions == 0
    # (a board that a roll with the weak 4 misread also explains does not show the face: judge.one_face_off)
    assert one_face_off(p1.with_turn(Side.BLACK), (6, 4), board_of(bad), (4,))
    assert not one_face_off(p1.with_turn(Side.BLACK), (6, 4), board_of(good), (4,))


def test_a_play_lifted_early_is_called_when_every_roll_its_correction_allows_names_it_alike() -> None:
    """7446 s12 frame 1656: 3-1, the 3 read weak (0.99), only the 3 played (8/5: also a legal 2-1, so at the lift it
    is asked), then corrected, with no throw, to 8/5 6/5 -- a legal 3-1, but also a legal 1-1 (8/7/6/5 6/5): the
    correction does not show the 3 was read right.  Under either roll the correction allows, 8/5 is a play left
    incomplete: called, named incomplete-play.  Corrected to nothing (the lifted board left), it is asked."""
    p1 = after(START, (5, 3), "8/3 6/3")
    landed = (die(3, Area.LEFT_TABLE, B_SPOTS[0]), sure_face(die(1, Area.LEFT_TABLE, B_SPOTS[1])))  # the 3 at 0.99
    black = p1.with_turn(Side.BLACK)
    lifted = _moved(black, Side.BLACK, [(8, 5)])
    assert lifted is not None
    corrected = after(p1, (3, 1), "8/5 6/5")
    assert one_face_off(black, (3, 1), board_of(lifted), (3,))  # (a legal 2-1: the guard holds at the lift)
    assert face_off_rolls(black, (3, 1), board_of(corrected), (3,)) == ((1, 1),)
    ses = _lifted_then(p1, landed, lifted, corrected)
    codes = codes_of(ses)
    assert codes == [("incomplete-play", Side.BLACK)]
    last = ses.machine.match_record().games[0].actions[-1]
    assert isinstance(last, Move) and last.play == "8/5 6/5"  # the correction on record
    assert _lifted_then(p1, landed, lifted).stats.infractions == 0


def test_a_play_illegal_whatever_its_unread_face_is_held_not_taken_back_and_called_when_corrected() -> None:
    """7421 s12v frame 2174: Black's 6 read, his other die unread; he moved one of White's checkers 6 pips (13/7 in
    White's numbering) and lifted.  No legal play of any roll explains that board, so the board as it stood was
    likelier and the throw was taken back: the correction then looked like his rethrow's play and nothing was
    called.  It is an illegal play whatever the unread face (judge.judge_unread): held, and when corrected into a
    legal 6-4 it is called.  Left uncorrected, it is taken back at the next throw, never called."""
    p1 = after(START, (5, 3), "8/3 6/3")
    landed = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    lifted = _moved(p1, Side.WHITE, [(13, 7)])
    assert lifted is not None
    corrected = after(p1, (6, 4), "24/18 13/9")
    black = p1.with_turn(Side.BLACK)
    found = judge_unread(black, (6, 0), [reading_of(board_of(lifted), 1.0)], LikelihoodConfig())
    assert found is not None and found[1].label == "wrong_colour" and len(found[2]) == 6
    ses = _lifted_then(p1, landed, lifted, corrected)
    codes = codes_of(ses)
    assert codes == [("illegal-play", Side.BLACK)]
    assert _lifted_then(p1, landed, lifted).stats.infractions == 0


def test_a_play_illegal_whatever_its_unread_face_is_called_when_corrected_to_a_play_of_several_rolls() -> None:
    """7581 s14f frame 2497: Black's 4 read, his other die never; he moved one of White's checkers and lifted (held:
    illegal whatever the unread face), then corrected, with no throw, to a play of 6-4, 5-4 and 4-3 alike: which roll
    is unsure, and nothing was called.  Here the 2 is read, the other face not; White's checker moved 8/6 (Black's
    wrong colour under every roll with a 2), corrected to 13/5, a play of 6-2 and of 2-2: under both the lifted board is
    an illegal play, named alike -- called.  Corrected to a board read unsure, nothing is called."""
    p1 = after(START, (5, 3), "8/3 6/3")
    landed = (sure_face(die(2, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(6, Area.LEFT_TABLE, B_SPOTS[1])))
    lifted = _moved(p1, Side.WHITE, [(8, 6)])
    assert lifted is not None
    corrected = after(p1, (6, 2), "13/5")
    black = p1.with_turn(Side.BLACK)
    assert board_of(parse_play("13/5", black, (2, 2)).after) == board_of(corrected)  # (a 2-2 play too)
    ses = _lifted_then(p1, landed, lifted, corrected)
    assert codes_of(ses) == [("illegal-play", Side.BLACK)]
    last = ses.machine.match_record().games[0].actions[-1]
    assert isinstance(last, Move) and last.play in ("13/7/5", "13/11/5", "13/5", "13/11/9/7/5")
    assert _lifted_then(p1, landed, lifted).stats.infractions == 0


def test_a_face_read_only_during_the_play_never_makes_an_accusation() -> None:
    """7215 r3: a face unread when the dice landed was read (wrongly) mid-play; the play is judged with it
    but never called illegal on it (``TrackerState.filled``)."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    landed = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    later = (landed[0], sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    bad = after(p1, (6, 5), "24/18 13/8")
    s.show(p1, landed).show(bad, later).show(bad)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    # the same with both faces read beyond doubt when they landed: called (the test is not blind)
    s = opened(Script())
    s.show(p1, later).show(bad, later).show(bad)
    assert session_run(s).stats.infractions == 1


def test_an_illegal_looking_play_that_a_legal_play_may_explain_is_asked_about_never_called() -> None:
    """13/8 instead of 13/9 with 6-4: but BLACK's 9 and 8 (absolute 16, 17) are read unsure, so the
    legal 24/18 13/9 stays likely: the likeliest legal play is taken, the players asked."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1]))
    bad = after(p1, (6, 5), "24/18 13/8")
    s.show(p1, b).show(bad, b, unsure_points=(16, 17)).show(bad, unsure_points=(16, 17))
    ses = session_run(s)
    assert ses.stats.infractions == 0
    po = [j for j in ses.judged if isinstance(j.emitted.event, PositionObserved)][-1]
    assert po.emitted.unsure and "likeliest legal play" in po.emitted.note and 17 in po.emitted.points
    assert ses.stats.alerts and ses.stats.alerts[-1][0] == po.emitted.seq  # the players are asked to check


def test_an_illegal_play_is_called_though_where_the_checker_went_is_unsure() -> None:
    """The legal 13/9 is ruled out (p16 read empty, sure) and the checker left the 13 (read sure): where it
    went (p17) is unsure, but every board that fits is an illegal play of the same kind: called."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    bad = after(p1, (6, 5), "24/18 13/8")
    s.show(p1, b).show(bad, b, unsure_points=(17,)).show(bad, unsure_points=(17,))
    ses = session_run(s)
    codes = codes_of(ses)
    assert codes == [("illegal-play", Side.BLACK)]
    # ... but not when the legal play stays likely (see the test above), nor when told to keep doubt
    strict = replace(REAL, judge=replace(LikelihoodConfig(), illegal_max_legal=1e-9, support_p=0.99))
    assert session_run(s, strict).stats.infractions == 0


def test_presented_turns_an_infraction_on_an_unsure_reading_into_a_check() -> None:
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    bad = after(p1, (6, 5), "24/18 13/8")
    s.show(p1, b).show(bad, b).show(bad)
    ses = session_run(s)
    called = ses.infractions[0].verdict
    asked = presented(called, True)
    assert asked.kind is VerdictKind.CHECK and asked.code is None and asked.offender is None
    assert "illegal-play" in asked.director and "not sure" in asked.ask
    assert presented(called, False) is called


def test_opening_with_a_die_missed_is_inferred_from_the_opening_play() -> None:
    s = Script().show(START, unsure_points=(2,))
    s.show(START, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]),), unsure_points=(2,))  # BLACK's 3 missed
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]),), unsure_points=(2,))
    s.show(p1, unsure_points=(2,))
    out = feed(s)
    od = [e.event for e in out if isinstance(e.event, OpeningDieThrown)]
    assert sorted((o.player, o.die.value) for o in od) == [(Side.WHITE, 5), (Side.BLACK, 3)]
    po = [e for e in out if isinstance(e.event, PositionObserved)]
    last = po[-1].event
    assert isinstance(last, PositionObserved) and last.position.white == p1.white
    lifted = out[-1].event
    assert isinstance(lifted, DiceLifted) and lifted.player is Side.WHITE


def test_infer_throw_prefers_plays_agreeing_with_confident_regions() -> None:
    p1 = after(START, (5, 3), "8/3 6/3")
    conf = [1.0] * 27
    roll, rec = infer_throw(START, (0, 0), board_of(p1), conf)
    assert roll == (5, 3) and rec.play is not None and rec.play.after == p1


def test_the_movers_dice_seen_late_are_his_not_the_next_throw() -> None:
    """A throw missed when it landed, its dice seen only during the play: never a throw by the opponent."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    half = Position.from_points({k: v for k, v in enumerate(p1.white) if v and 0 < k < 25},
                                {**{k: v for k, v in enumerate(p1.black) if v and 0 < k < 25}, 24: 1, 18: 1})
    b = (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1]))
    s.show(half, unsure_points=(2, 4))  # BLACK is playing; his dice not seen yet
    s.show(p2, b, unsure_points=(2, 4))  # now they are
    s.show(p2, unsure_points=(2, 4))  # lifted
    ses = session_run(s)
    assert ses.stats.infractions == 0
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(t.player, sorted(t.values)) for t in throws] == [(Side.BLACK, [4, 6])]
    assert ses.machine.position == p2 and ses.machine.on_roll is Side.WHITE


def test_a_journal_with_unsure_calls_resumes_exactly(tmp_path: Path) -> None:
    """A throw that looks void after an unexplained board change is asked about (the laws' wrong-table
    finding presented as a check); the journal resumes to the same state and verdicts."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    moved = after(p1, (6, 4), "24/18 13/9")  # a BLACK play the referee never saw thrown
    in_white_table = (die(6, Area.RIGHT_TABLE, W_SPOTS[0]), die(4, Area.RIGHT_TABLE, W_SPOTS[1]))
    s.show(moved, in_white_table, unsure_points=(2, 4))
    journal = tmp_path / "j.jsonl"
    ses = Session.start(SessionInfo(), journal, tracker_config=REAL, evidence=False)
    for obs in s:
        ses.process(obs)
    checks = [j for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
    assert ses.stats.infractions == 0 and checks and "dice-wrong-table" in checks[-1].verdict.director
    snap, state = ses.snapshot(), ses.tracker.state
    ses.close()
    back = Session.resume(journal, tracker_config=REAL, evidence=False)
    restored = replace(back.tracker.state, seq=state.seq, pending=state.pending, pending_count=state.pending_count)
    assert back.snapshot() == snap and restored == state and back.stats.infractions == 0  # (frames after the
    # last journalled record are not journalled: a replay resumes after it)
    back.close()


def test_a_confident_illegal_play_from_a_start_not_known_for_sure_is_never_called() -> None:
    """The opening throw was inferred from an opening play read badly (a die missed, the points it
    touched unread), so the board the laws have is not known for sure: an 'illegal' play after it
    may be a misjudged start."""
    s = Script().show(START, unsure_points=(2,))
    s.show(START, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]),), unsure_points=(2,))  # BLACK's 3 missed
    p1 = after(START, (5, 3), "8/3 6/3")
    n = len(s.out)
    s.show(p1, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]),), unsure_points=(2,)).show(p1, unsure_points=(2,))
    for k in range(n, len(s.out)):  # WHITE's 8, 6 and 3 unread
        pts = list(s.out[k].points)
        for p in (3, 6, 8):
            pts[p - 1] = CountReading(0, 0, 0.0)
        s.out[k] = replace(s.out[k], points=tuple(pts), confident=False)
    b = (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1]))
    bad = after(p1, (6, 5), "24/18 13/8")
    s.show(p1, b).show(bad, b).show(bad)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    po = [j for j in ses.judged if isinstance(j.emitted.event, PositionObserved)][-1]
    assert po.emitted.unsure  # the likeliest legal play, the players asked


# ---------------------------------------------------------------------- the likelihood judge in the tracker
def test_a_die_left_unplayed_read_surely_is_called_at_the_lift() -> None:
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    half = Position.from_points({k: v for k, v in enumerate(p1.white) if v and 0 < k < 25},
                                {**{k: v for k, v in enumerate(p1.black) if v and 0 < k < 25}, 24: 1, 18: 1})
    s.show(p1, b).show(half, b).show(half)  # only the 6 played (24/18), the dice lifted
    ses = session_run(s)
    codes = codes_of(ses)
    assert codes == [("incomplete-play", Side.BLACK)]


def test_an_illegal_play_with_a_die_unread_is_called_when_it_is_corrected() -> None:
    """Only the 6 is read: 24/18 13/8 could be a legal 6-5.  The board is then changed, with no throw,
    into 24/18 13/9 (a legal 6-4 read surely): the lifted board was an illegal play of 6-4."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    seen = (die(6, Area.LEFT_TABLE, B_SPOTS[0]),)
    bad = after(p1, (6, 5), "24/18 13/8")
    good = after(p1, (6, 4), "24/18 13/9")
    s.show(p1, seen).show(bad, seen).show(bad).show(good)
    s.show(good, (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.RIGHT_TABLE, W_SPOTS[1])))
    ses = session_run(s)
    codes = codes_of(ses)
    assert codes == [("illegal-play", Side.BLACK)]
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert any(t.player is Side.BLACK and sorted(t.values) == [4, 6] for t in throws)
    last = ses.machine.match_record().games[0].actions[-1]
    assert isinstance(last, Move) and last.play == "24/18 13/9"  # the correction on record


def test_a_play_lifted_early_is_called_incomplete_when_its_correction_completes_it() -> None:
    """BLACK, 6-4 read surely, plays 24/18 and lifts his dice; his 18, 8 and 5 are read at confidence 0.2, so the
    lifted board is "incomplete" (24/18) with a share left to "wrong distance" (24/18 8/5, a fault of 24/18 8/4).
    The board is then corrected, with no throw, into 24/18 13/9 (or 24/14), which passes through 24/18: a
    correction that completes the lifted board is likelier from a play left incomplete than from a fault of
    another play or a legal play (``LikelihoodConfig.other_correction``), and the incomplete play is called (before:
    asked).  Corrected into a play 24/18 is no part of (13/9 9/3), nothing is called; a wrong distance corrected
    is still called a wrong distance."""
    p1 = after(START, (5, 3), "8/3 6/3")
    before = p1.with_turn(Side.BLACK)
    landed = (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1]))
    white = (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.RIGHT_TABLE, W_SPOTS[1]))

    def corrected(lifted_steps: list[tuple[int, int]], play: str) -> Session:
        lifted = _moved(before, Side.BLACK, lifted_steps)
        assert lifted is not None
        lifted = lifted.with_turn(Side.WHITE)
        good = after(p1, (6, 4), play)
        s = opened(Script())
        s.show(p1, landed).show(lifted, landed, unsure_points=(7, 17, 20), unsure_confidence=0.2)
        s.show(lifted, unsure_points=(7, 17, 20), unsure_confidence=0.2).show(good).show(good, white)
        return session_run(s)

    for play in ("24/18 13/9", "24/14"):
        ses = corrected([(24, 18)], play)
        codes = codes_of(ses)
        assert codes == [("incomplete-play", Side.BLACK)], play
        last = ses.machine.match_record().games[0].actions[-1]
        assert isinstance(last, Move) and last.play == play  # the correction on record
    assert corrected([(24, 18)], "13/9 9/3").stats.infractions == 0  # 24/18 is no part of it: asked
    ses = corrected([(24, 18), (13, 10)], "24/18 13/9")
    assert [j.verdict.code.value for j in ses.infractions if j.verdict.code is not None] == ["illegal-play"]
    # a play's parts in either order are its faults: 13/3 with 6-4 passes through 13/7 and 13/9
    w = Position.initial().with_turn(Side.WHITE)
    faults = _faults_of(w, Dice(6, 4), parse_play("13/7/3", w, (6, 4)))
    parts = [_moved(w, Side.WHITE, [step]) for step in ((13, 7), (13, 9))]
    assert all(p is not None and board_of(p) in faults for p in parts)


def test_a_throw_taken_back_unplayed_never_reaches_the_laws() -> None:
    """BLACK's dice land, are picked up with nothing played (a void throw the camera could not tell),
    and are thrown again: one throw on record, no infraction."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, (die(6, Area.LEFT_TABLE, B_SPOTS[0]), unread(die(2, Area.LEFT_TABLE, B_SPOTS[1])))).show(p1)
    b = (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1]))
    p2 = after(p1, (6, 4), "24/18 13/9")
    s.show(p1, b).show(p2, b).show(p2)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(t.player, sorted(t.values)) for t in throws] == [(Side.BLACK, [4, 6])]
    assert ses.machine.position == p2


def test_a_held_play_survives_a_journal_round_trip() -> None:
    state = replace(Tracker(REAL).state, hold=("B", board_of(START), (6, 0)), hold_throw=True, known=False,
                    fix=(board_of(START), (6, 4), "B"))
    assert TrackerState.from_json(state.to_json()) == state
    # a void throw held until its dice are lifted (whose throw it is in doubt) comes back as it was
    held = replace(state, held=(((3, "left table", True), (2, "left table", True)), "why"))
    assert TrackerState.from_json(json.loads(json.dumps(held.to_json()))) == held
    # a held throw the journal garbled (a die that is not (face, rest, flat), a rest no die has) is a clear error
    for garbled in ([[[3, "left table"]], "why"], [[[3, "sideways", True], [2, "left table", True]], "why"]):
        with pytest.raises(ValueError, match=r"cannot restore the tracker state from .*'held'"):
            TrackerState.from_json({**held.to_json(), "held": garbled})


def test_a_journalled_doubt_and_landed_home_round_trip_and_a_malformed_doubt_is_named() -> None:
    """The doubt about the laws' board and where the mover's throw landed come back from the journal as they
    were; a doubt entry that is not (region, white, black, log-odds) is a clear error quoting the state."""
    state = replace(Tracker(REAL).state, doubt=((24, 1, 0, -0.5), (3, 0, -1, -2.25)), landed_home=True)
    assert TrackerState.from_json(state.to_json()) == state
    marked = replace(state, marks_xy=((327.08, 363.19), (599.0, 406.5)),  # marks of the board kept for the game
                     early_die=(640.0, 370.0, 4), early_wait=True,  # an early throw's call waiting for the lift
                     other_xy=((600.0, 380.0), (640.0, 370.0)), other_faces=(4, 0), other_firm=(4, 0))
    assert TrackerState.from_json(json.loads(json.dumps(marked.to_json()))) == marked
    bad = {**state.to_json(), "doubt": [[24, 1]]}
    with pytest.raises(ValueError, match=r"cannot restore the tracker state from .*'doubt': \[\[24, 1\]\]"):
        TrackerState.from_json(bad)
    with pytest.raises(ValueError, match=r"cannot restore the tracker state from .*'other_firm': \['four'\]"):
        TrackerState.from_json({**marked.to_json(), "other_firm": ["four"]})


def test_after_a_throw_inferred_from_its_play_a_void_looking_throw_is_asked_unless_checkers_moved_surely() -> None:
    """7103 r3: a throw with a face unread was inferred from the board; whose turn came next then rested on
    that inference, and the next throw (the same player's: his throw had been taken back) was called as void (the
    wrong table).  After an inferred throw the chain is not known: the void-looking throw is asked about -- unless
    the inferred play was judged sure and the scene read checkers moved with confidence (a throw taken back moves
    none; session 13, ``TrackerState.inferred_sure``): then it is called, as with the throw read whole.  Here the
    points Black's play changed are read below the count confidence: asked."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    wrong_table = (sure_face(die(2, Area.LEFT_TABLE, (480.0, 200.0))), sure_face(die(1, Area.LEFT_TABLE, (520.0, 210.0))))

    def run(black: tuple[DieReading, DieReading]) -> Session:
        s = opened(Script())
        s.show(p1, black).show(p2, black).show(p2)  # BLACK's 6-4 played and lifted
        s.show(p2, wrong_table)  # WHITE throws into BLACK's table (his left): void, if it is WHITE's throw
        return session_run(s)

    read = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    called = run(read)
    assert [j.verdict.code.value for j in called.infractions if j.verdict.code] == ["dice-wrong-table"]
    moved = run((read[0], unread(read[1])))
    assert [j.verdict.code.value for j in moved.infractions if j.verdict.code] == ["dice-wrong-table"]
    s = opened(Script())
    n = len(s.out)
    s.show(p1, (read[0], unread(read[1]))).show(p2, (read[0], unread(read[1]))).show(p2).show(p2, wrong_table)
    for k in range(n, len(s.out)):  # the four points Black's 6-4 changed (absolute 1, 7, 12, 16) read at 0.8
        pts = list(s.out[k].points)
        for p in (1, 7, 12, 16):
            pts[p - 1] = CountReading(pts[p - 1].white, pts[p - 1].black, 0.8)
        s.out[k] = replace(s.out[k], points=tuple(pts), confident=False)
    inferred = session_run(s)
    lifted = [j for j in inferred.judged if isinstance(j.emitted.event, DiceLifted)]
    assert not lifted[-1].emitted.unsure  # (the play itself judged sure: only the moved checkers' reading decides)
    assert inferred.stats.infractions == 0
    assert any(j.verdict.kind is VerdictKind.CHECK and "dice-wrong-table" in j.verdict.director for j in inferred.judged)


def test_one_die_read_surely_on_the_other_is_called_below_the_bar_it_is_not() -> None:
    """7219 s5: the top die of a throw landed on the other was read alone, on a die and cocked at 1.0 (the die
    beneath hidden): a void throw, called.  Read cocked at 0.99 it is not (the throw is inferred as usual)."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    black = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))

    def run(conf: float) -> Session:
        s = opened(Script())
        s.show(p1, black).show(p2, black).show(p2)  # BLACK's 6-4 played and lifted
        top = replace(sure_face(die(2, Area.RIGHT_TABLE, W_SPOTS[0], cocked=True, on_die=True)), cocked_confidence=conf)
        s.show(p2, (top,)).show(p2)  # WHITE's throw: one die on the other; picked up
        return session_run(s)

    called = run(1.0)
    assert [(j.verdict.code.value, j.verdict.offender) for j in called.infractions if j.verdict.code] == \
        [("dice-on-die", Side.WHITE)]
    assert run(0.99).stats.infractions == 0


def test_an_illegal_board_the_laws_would_name_otherwise_is_not_called_on() -> None:
    """7101 s5: the judge's family 'bar' on a board the laws found an incomplete play (a wrong name): the
    tracker checks the laws' name first and asks instead when they disagree."""
    from referee.judge import illegal_boards
    from referee.tracker import _named_otherwise
    from rules.dice import Dice
    from rules.moves import legal_plays

    w = START.with_turn(Side.WHITE)
    boards = illegal_boards(w, Dice(6, 4), legal_plays(w, Dice(6, 4)))
    half = next(b for b, k in boards.items() if k == "incomplete")  # one die of a legal 6-4 played
    short = next(b for b, k in boards.items() if k == "wrong_distance")  # a step one or two pips off
    assert not _named_otherwise(w, (6, 4), half, "incomplete")
    assert _named_otherwise(w, (6, 4), half, "bar")
    assert not _named_otherwise(w, (6, 4), short, "wrong_distance")
    assert _named_otherwise(w, (6, 4), short, "incomplete")


def test_after_a_throw_asked_about_as_void_whose_throw_is_next_is_unsure_so_the_wrong_table_is_asked() -> None:
    """7239 s5g: WHITE's 1-1 was read with a die on the bar (a void throw? asked); he played it, BLACK threw into
    his own right table (WHITE's left) and the tracker, still taking WHITE to be throwing again, called WHITE's
    dice in the wrong table.  After anything unsure since the last play on record (a throw asked about as void,
    a play resolved unsure) who is throwing is unsure: the wrong table is asked about, never called.  Read
    cleanly (the previous test) it is called."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    black = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    leaning = (sure_face(die(1, Area.RIGHT_TABLE, W_SPOTS[0])), sure_face(die(1, Area.BAR, (330.0, 250.0))))
    wrong_table = (sure_face(die(2, Area.LEFT_TABLE, (480.0, 200.0))), sure_face(die(1, Area.LEFT_TABLE, (520.0, 210.0))))
    s = opened(Script())
    s.show(p1, black).show(p2, black).show(p2)  # BLACK's 6-4 played and lifted, read cleanly
    s.show(p2, leaning).show(p2)  # WHITE's throw looks void (a die on the bar): asked; the dice lifted
    s.show(p2, wrong_table)  # WHITE's throw again in BLACK's table -- or BLACK's, if WHITE had played it
    ses = session_run(s)
    assert ses.stats.infractions == 0
    asked = [j.verdict.director for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
    assert len(asked) == 2 and "dice-wrong-table" in asked[-1]  # the void-looking throw and the next: asked
    assert not ses.tracker.state.turn_sure
    assert TrackerState.from_json(ses.tracker.state.to_json()) == ses.tracker.state


def test_an_opening_played_with_a_die_unseen_is_inferred_when_the_next_throw_lands() -> None:
    """7243 s5g: BLACK's opening 4 was read, WHITE's 5 never; WHITE played 5-4 and lifted the dice unseen, and
    BLACK's next throw landed in his table.  Those dice are not opening dice (BLACK's is known): the opening is
    inferred from the play, then the throw is BLACK's.  Before, they were ignored, WHITE's next 4 was taken for
    his opening die, a 4-4 tie, and the game never started (0/24 caught, nothing on record)."""
    p1 = after(START, (5, 4), "13/8 13/9")
    s = Script().show(START)
    s.show(START, (die(4, Area.LEFT_TABLE, B_SPOTS[0]),))  # WHITE's 5 missed
    s.show(p1, (die(4, Area.LEFT_TABLE, B_SPOTS[0]),))  # WHITE plays 5-4
    nxt = (sure_face(die(6, Area.LEFT_TABLE, (480.0, 320.0))), sure_face(die(2, Area.LEFT_TABLE, (560.0, 330.0))))
    p2 = after(p1, (6, 2), "24/18 13/11")
    s.show(p1, nxt).show(p2, nxt).show(p2)  # the opening dice lifted unseen; BLACK's 6-2 lands, is played
    ses = session_run(s)
    od = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, OpeningDieThrown)]
    assert sorted((o.player, o.die.value) for o in od) == [(Side.WHITE, 5), (Side.BLACK, 4)]
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(t.player, sorted(t.values)) for t in throws] == [(Side.BLACK, [2, 6])]
    assert ses.stats.infractions == 0
    games = ses.machine.match_record().games
    assert games and isinstance(games[0].actions[0], Move) and games[0].actions[0].play == "13/9 13/8"


def _assert_opening_game(ses: Session, opening: list[tuple[Side, int]], throws: list[tuple[Side, list[int]]],
                         moves: list[tuple[Side, str]]) -> None:
    """The opening dice, the later throws and the recorded plays are as played, with no infraction called."""
    od = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, OpeningDieThrown)]
    assert sorted((o.player, o.die.value) for o in od) == opening
    thrown = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(t.player, sorted(t.values)) for t in thrown] == throws
    assert ses.stats.infractions == 0
    played = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert [(m.player, m.play) for m in played] == moves


def test_a_die_landing_after_the_opening_was_played_is_a_later_throw_not_an_opening_die() -> None:
    """7251 s5h: WHITE's opening 5 read, BLACK's 3 never; WHITE played and lifted the dice unseen, and BLACK's
    next throw landed with one die read (a 6, the 2 missed).  The checkers had surely moved and the known
    opening die was gone, so the 6 is no opening die: the opening is inferred from the play, the 6 is BLACK's
    next throw.  Before, it was taken for BLACK's opening die (a 6-5 opening by BLACK) and the record left the
    game at once."""
    p1 = after(START, (5, 3), "8/3 6/3")
    s = Script().show(START)
    s.show(START, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]),))  # BLACK's 3 missed
    s.show(p1, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]),))  # WHITE plays 5-3
    six = (sure_face(die(6, Area.LEFT_TABLE, (480.0, 320.0))),)  # BLACK's next throw: the 2 missed
    p2 = after(p1.with_turn(Side.BLACK), (6, 2), "24/18 13/11")
    s.show(p1, six).show(p2, six).show(p2)
    _assert_opening_game(session_run(s), [(Side.WHITE, 5), (Side.BLACK, 3)], [(Side.BLACK, [2, 6])],
                         [(Side.WHITE, "8/3 6/3"), (Side.BLACK, "24/18 13/11")])


def test_an_opening_played_with_neither_die_seen_is_inferred_before_the_next_throw_lands() -> None:
    """7368 s8c: neither opening die was ever read; BLACK played his opening 6-3 and the board surely changed.
    The opening is inferred from the play while no die is in sight, so WHITE's next throw is his, not an opening
    die.  Before, nothing happened until dice were read, and a later throw was taken for the opening: the game
    ran with whose turn inverted to the end (0/24 caught)."""
    p1 = after(START.with_turn(Side.BLACK), (6, 3), "8/5 8/2")
    s = Script().show(START).show(p1).show(p1)  # BLACK's opening played, its dice never read
    nxt = (sure_face(die(2, Area.RIGHT_TABLE, W_SPOTS[0])), sure_face(die(1, Area.RIGHT_TABLE, W_SPOTS[1])))
    p2 = after(p1, (2, 1), "13/11 6/5")
    s.show(p1, nxt).show(p2, nxt).show(p2)  # WHITE's 2-1 lands in his table and is played
    _assert_opening_game(session_run(s), [(Side.WHITE, 3), (Side.BLACK, 6)], [(Side.WHITE, [1, 2])],
                         [(Side.BLACK, "8/5 8/2"), (Side.WHITE, "13/11 6/5")])


def test_a_play_no_play_of_the_faces_read_explains_is_judged_with_a_doubtful_face_open() -> None:
    """7256 s5h: a 5-1 read as 5-5, the 1 read as a 5 at 0.993 (below call_face_confidence, so it may be
    misread).  The play 24/23 13/8 is no 5-5 play; the throw is judged again from its play with that face
    open to doubt: 5-1, asked (unsure), and the record follows the game.  Before, the likeliest 5-5 play
    went on record and the laws left the game at the first move."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (replace(die(5, Area.LEFT_TABLE, B_SPOTS[0]), face_confidence=0.999),
         replace(die(5, Area.LEFT_TABLE, B_SPOTS[1]), face_confidence=0.993))  # truly a 1
    p2 = after(p1, (5, 1), "24/23 13/8")
    s.show(p1, b).show(p2, b).show(p2)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    throws = [j for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(j.emitted.event.player, sorted(j.emitted.event.values)) for j in throws] == [(Side.BLACK, [1, 5])]
    assert throws[0].emitted.unsure  # a roll other than the faces read: the players check
    moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert (moves[-1].player, moves[-1].play) == (Side.BLACK, "24/23 13/8")
    assert ses.machine.position == p2


def test_a_face_read_beyond_doubt_is_never_judged_away() -> None:
    """The same, with both 5s read at 0.999: the faces stand (the likeliest 5-5 play, asked), never 5-1."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    b = (replace(die(5, Area.LEFT_TABLE, B_SPOTS[0]), face_confidence=0.999),
         replace(die(5, Area.LEFT_TABLE, B_SPOTS[1]), face_confidence=0.999))
    s.show(p1, b).show(after(p1, (5, 1), "24/23 13/8"), b).show(after(p1, (5, 1), "24/23 13/8"))
    ses = session_run(s)
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [sorted(t.values) for t in throws] == [[5, 5]]


def test_a_die_landing_after_the_movers_seen_die_was_lifted_is_not_his() -> None:
    """7259 s5h: WHITE's 2-4 read as a 4 alone; WHITE played and lifted; BLACK's 1-3, thrown into WHITE's table,
    read as a 1 alone, was taken for WHITE's second die (a 4-1: the record left the game).  Here BLACK's 6-4
    is read as a 6 alone; once his 6 is gone, a die in his table is not his (the play is judged, 6-4).  It is WHITE's
    throw in BLACK's table: since session 13 (BLACK's inferred 6-4 judged sure, checkers read moved) the wrong table
    is called, though WHITE's other die is missed; WHITE's 2 read at 0.99 (a misread die of BLACK's?) it is not."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    six = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])),)  # the 4 missed
    s.show(p1, six).show(p2, six)
    for two, called in ((sure_face(die(2, Area.LEFT_TABLE, (560.0, 60.0))), True),
                        (die(2, Area.LEFT_TABLE, (560.0, 60.0)), False)):
        ses = session_run(replace(s, out=[*s.out]).show(p2, (two,)))  # WHITE's die, in BLACK's table
        throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
        assert throws and (throws[0].player, sorted(throws[0].values)) == (Side.BLACK, [4, 6])
        moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
        assert (moves[-1].player, moves[-1].play) == (Side.BLACK, "24/18 13/9")
        assert codes_of(ses) == ([("dice-wrong-table", Side.WHITE)] if called else []), codes_of(ses)


def test_the_opening_throw_waits_until_both_dice_lie_in_sight_together() -> None:
    """7228 s5f: a 4 read in BLACK's table where no die lay (three still frames), then WHITE's opening 4 at
    rest in his own table: taken as a 4-4 tie, and the game ran mirrored (0/23 caught).  The opening dice go
    to the laws only once both lie in sight together; a die no longer in sight gives way to the player's
    real die.  Here: the phantom, WHITE's 4 alone, then both (WHITE 4, BLACK 3): WHITE opens 4-3."""
    p1 = after(START, (4, 3), "24/21 8/4")
    phantom = die(4, Area.LEFT_TABLE, (200.0, 290.0))
    w4 = die(4, Area.RIGHT_TABLE, W_SPOTS[0])
    b3 = die(3, Area.LEFT_TABLE, B_SPOTS[0])
    s = Script().show(START).show(START, (phantom,)).show(START, (w4,)).show(START, (w4, b3))
    s.show(p1, (w4, b3)).show(p1)
    ses = session_run(s)
    od = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, OpeningDieThrown)]
    assert [(o.player, o.die.value) for o in od] == [(Side.WHITE, 4), (Side.BLACK, 3)]
    moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert [(m.player, m.dice, m.play) for m in moves][:1] == [(Side.WHITE, (4, 3), "24/21 8/4")]
    assert ses.stats.infractions == 0 and ses.machine.on_roll is Side.BLACK


def cocked_throw(conf: float, area: Area = Area.LEFT_TABLE, unread: float | None = None) -> tuple[DieReading, DieReading]:
    """BLACK's throw: a 6 lying flat in his right-hand table (read flat at 0.999, or with ``unread`` its flat/cocked
    unread: None at that confidence, as 7520 s13f frame 2844 at 0.8968), the other die read cocked at ``conf``, face
    unread."""
    flat = replace(sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), cocked=False if unread is None else None,
                   cocked_confidence=0.999 if unread is None else unread)
    cocked = replace(die(2, area, B_SPOTS[1] if area is Area.LEFT_TABLE else W_SPOTS[1]), face=None,
                     face_confidence=0.4, cocked=True, cocked_confidence=conf)
    return flat, cocked


def test_a_die_read_cocked_beyond_doubt_in_the_throwers_table_is_called() -> None:
    """Seen 7216-7261: the reader read 14 staged cocked dice cocked, 10 of them at >= 0.995, and a flat die off
    the other die cocked at most at 0.9924.  Such a die, in the thrower's right-hand table beside his other die
    lying flat there, is called (the throw is void); not in another table (named otherwise).  Session 13's pose
    head reads staged cocked dice 0.974-0.994 beside a die read flat (7517 s13f frame 1416: 0.9903 beside a 4 read
    flat at 0.9994): called from 0.97 (``call_cocked_paired_confidence``), not below."""
    p1 = after(START, (5, 3), "8/3 6/3")
    for conf, area, called in ((0.998, Area.LEFT_TABLE, True), (0.9903, Area.LEFT_TABLE, True),
                               (0.977, Area.LEFT_TABLE, True), (0.965, Area.LEFT_TABLE, False),
                               (0.998, Area.RIGHT_TABLE, False)):
        s = opened(Script()).show(p1, cocked_throw(conf, area)).show(p1)
        ses = session_run(s)
        codes = codes_of(ses)
        assert codes == ([("dice-cocked", Side.BLACK)] if called else []), (conf, area, codes)


def test_a_die_read_cocked_beside_a_die_whose_flat_or_cocked_is_unread_needs_the_old_bar() -> None:
    """7520 s13f frame 2844: BLACK's two dice lay flat on the far side of his right-hand table; the pose head read
    one cocked at 0.9714, the other's flat/cocked unread (None at 0.8968).  Called at 0.97 alone, a wrong name
    (dice-cocked for white's staged illegal play); 7513 s12f frame 1721 alike (0.9883 beside None at 0.7544), and
    7434 s12c frame 3527 (0.9898 beside None at 0.9957: a die left unread, however near the flat bar, is not one read
    flat).  Beside a die not read flat, a die read cocked is called only at ``call_cocked_confidence`` (0.995)."""
    p1 = after(START, (5, 3), "8/3 6/3")
    for conf, unread, called in ((0.9714, 0.8968, False), (0.9883, 0.7544, False), (0.9898, 0.9957, False),
                                 (0.998, 0.8968, True)):
        s = opened(Script()).show(p1, cocked_throw(conf, unread=unread)).show(p1)
        ses = session_run(s)
        codes = codes_of(ses)
        assert codes == ([("dice-cocked", Side.BLACK)] if called else []), (conf, unread, codes)


def test_a_die_read_cocked_is_not_called_when_every_face_of_the_throw_is_unread() -> None:
    """7603 s15f frame 3277: BLACK's 2-2 lay flat in his right-hand table; the pose head read one die cocked at 0.9994
    (its face dropped, as the reader drops the face of every die it reads cocked) and the other die's face unread and
    its flat/cocked unread (None at 0.977): "dice-cocked by black", a false alarm resting on that one pose reading.
    With no face of the throw read the die is not called (the throw is played on as one read in part); with the other
    die's face read (7614 s15f frame 250: the 1 at 0.9845, flat/cocked None at 0.9257, the cocked die at 0.9991) it
    still is."""
    p1 = after(START, (5, 3), "8/3 6/3")
    for other_face, called in ((None, False), (1, True)):
        flat, cocked = cocked_throw(0.9994, unread=0.977)
        flat = replace(flat, face=other_face, face_confidence=0.5 if other_face is None else 0.9845)
        s = opened(Script()).show(p1, (flat, cocked)).show(p1)
        ses = session_run(s)
        codes = codes_of(ses)
        assert codes == ([("dice-cocked", Side.BLACK)] if called else []), (other_face, codes)


def test_a_board_read_whole_mid_play_never_puts_a_sure_play_on_record_unsure() -> None:
    """``bgref demo`` seed 1 (session 6's slot model): a frame read whole while the opening dice still lay
    there went to the laws mid-play; at the lift the play's start differed from that board, so the sure
    opening play went on record "put in step, please check", whose throw came next was unsettled, and
    BLACK's throw into the wrong table two turns later was asked, not called.  Real vision judges the
    play at the lift: the opening play goes on record sure and the wrong table is called."""
    p1 = after(START, (5, 3), "8/3 6/3")
    opening = (sure_face(die(5, Area.RIGHT_TABLE, W_SPOTS[0])), sure_face(die(3, Area.LEFT_TABLE, B_SPOTS[0])))
    wrong = (sure_face(die(2, Area.RIGHT_TABLE, (180.0, 200.0))), sure_face(die(1, Area.RIGHT_TABLE, (220.0, 210.0))))
    s = Script().show(START).show(START, opening).show(p1, opening)  # the play read whole, dice still down
    s.show(p1).show(p1, wrong)  # the dice lifted; BLACK throws into WHITE's right-hand table
    ses = session_run(s)
    lifted = [j for j in ses.judged if isinstance(j.emitted.event, DiceLifted)]
    assert len(lifted) == 1 and not lifted[0].emitted.unsure
    assert not any("put in step" in j.emitted.note for j in ses.judged)
    assert [j.verdict.code.value for j in ses.infractions if j.verdict.code] == ["dice-wrong-table"]
    assert ses.infractions[0].verdict.offender is Side.BLACK and ses.tracker.state.turn_sure


def test_dice_in_the_movers_own_table_as_his_dice_are_lifted_are_the_next_throw_in_the_wrong_table() -> None:
    """7274, 7276, 7278, 7280-7285 s6g: the first still scene after BLACK lifted his dice already showed WHITE's
    throw, lying in BLACK's right-hand table (the wrong one for WHITE).  Dice in the mover's own table are never
    the opponent's early throw, so they were dropped from the scene, which was accepted once: the throw was never
    judged and the staged outside-table throw missed (3/19 on s6g).  Once the mover's dice are lifted they are the
    next throw, and called; dice showing the mover's own faces may be his, pushed aside: not taken."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    black = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    for faces, called in (((2, 1), True), ((6, 4), False)):
        wrong = (sure_face(die(faces[0], Area.LEFT_TABLE, (420.0, 230.0))),
                 sure_face(die(faces[1], Area.LEFT_TABLE, (460.0, 240.0))))
        s = opened(Script()).show(p1, black).show(p2, black).show(p2, wrong).show(p2)
        ses = session_run(s)
        codes = codes_of(ses)
        assert codes == ([("dice-wrong-table", Side.WHITE)] if called else []), (faces, codes)
        assert ses.machine.position == p2


def _bar_unread(script: Script) -> list[BoardObservation]:
    """The stream with the bar read at confidence 0 (a die or a hand over it, as in 7280 s6g)."""
    return [replace(o, bar=CountReading(o.bar.white, o.bar.black, 0.0), confident=False) for o in script]


def test_an_illegal_play_is_never_called_when_what_is_in_doubt_on_the_laws_board_could_make_it_legal() -> None:
    """7280 s6g: WHITE's 43 bar/22 6/2 went on record unsure as 41 bar/24 11/7, so the laws had two of WHITE's
    checkers on the bar, the game one; sure plays followed, and WHITE's legal 54 bar/20 22/18* (a checker moved
    with one still on the bar, by the laws' board) was called.  What an unsure play leaves in doubt
    (``TrackerState.doubt``) now stays until the looks rule it out; a count in doubt on the mover's bar blocks the
    call (asked); one that cannot change the verdict (WHITE's 6 point holding 4 or 5) does not, nor one the looks
    have ruled out (log-odds below ``LikelihoodConfig.doubt_gone``)."""
    white = [0] * 26
    black = list(START.black)
    white[25], white[22], white[13], white[8], white[6] = 1, 1, 5, 3, 5  # one on the bar, one on 22
    laws = Position(tuple(white), tuple(black), Side.WHITE)
    moved = list(white)
    moved[22], moved[18] = 0, 1  # 22/18 with his checker still on the bar
    bad = Position(tuple(moved), tuple(black), Side.BLACK)
    dice = (sure_face(die(5, Area.RIGHT_TABLE, W_SPOTS[0])), sure_face(die(4, Area.RIGHT_TABLE, W_SPOTS[1])))
    stream = _bar_unread(Script(seq=10).show(laws, dice).show(bad, dice).show(bad))
    state = TrackerState(phase=TPhase.TO_THROW, turn=Side.WHITE, board=board_of(laws), sent=board_of(laws),
                         start=board_of(laws), game=1, move=20, cube_face=64)
    for doubt, called in (((), True), (((24, -1, 0, 0.0),), False), (((5, -1, 0, 0.0),), True),
                          (((24, -1, 0, -7.0),), True)):
        tr = Tracker(REAL, replace(state, doubt=doubt))
        out = [e for o in stream for e in tr.feed(o)]
        notes = [e.note for e in out if isinstance(e.event, PositionObserved)]
        assert any("only an illegal play" in n for n in notes) is called, (doubt, notes)
        assert TrackerState.from_json(tr.state.to_json()) == tr.state


def _bar_play_22_18() -> tuple[Position, Position, list[BoardObservation], TrackerState]:
    """WHITE with a checker on the bar plays 22/18 with 54 (a 'bar' play): the laws' board, the board after, the
    observations (his bar read at confidence 0) and the tracker's state before his throw."""
    white = [0] * 26
    black = list(START.black)
    white[25], white[22], white[13], white[8], white[6] = 1, 1, 5, 3, 5
    laws = Position(tuple(white), tuple(black), Side.WHITE)
    moved = list(white)
    moved[22], moved[18] = 0, 1
    bad = Position(tuple(moved), tuple(black), Side.BLACK)
    dice = (sure_face(die(5, Area.RIGHT_TABLE, W_SPOTS[0])), sure_face(die(4, Area.RIGHT_TABLE, W_SPOTS[1])))
    stream = _bar_unread(Script(seq=10).show(laws, dice).show(bad, dice).show(bad))
    state = TrackerState(phase=TPhase.TO_THROW, turn=Side.WHITE, board=board_of(laws), sent=board_of(laws),
                         start=board_of(laws), game=1, move=20, cube_face=64)
    return laws, bad, stream, state


def test_a_held_play_completed_after_the_lift_is_judged_on_the_looks_after_the_checkers_moved() -> None:
    """7436 s10b (frame 491): BLACK, on the bar with 3-1 (the 3 unread), entered bar/22* and lifted his dice (a play
    lifted early), then played 8/7.  The look at the lift read his 8 and 7 surely (two, none); the looks after read
    them one each at 0.5 only, so no region was read surely twice, and judged on all the looks together the lifted
    board, a legal 2-1 (bar/23/22*), went on record: the laws' board stayed out of step for the rest of the game.  A
    region read surely in one look and otherwise at 0.5 or more in the next is checkers moved: the play is judged on
    the looks since (3-1 bar/22* 8/7, asked).  Read as before in the later look, the 2-1 stays."""
    white = [0] * 26
    black = [0] * 26
    white[3], white[6], white[8], white[13], white[24] = 1, 5, 3, 5, 1  # WHITE's blot on BLACK's 22 point
    black[25], black[24], black[13], black[8], black[6], black[5] = 1, 1, 5, 2, 5, 1
    laws = Position(tuple(white), tuple(black), Side.BLACK)
    entered = after(laws, (2, 1), "bar/23/22*")  # (as a 3 alone, an incomplete 3-1)
    done = after(laws, (3, 1), "bar/22* 8/7")
    dice = (sure_face(die(1, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(3, Area.LEFT_TABLE, B_SPOTS[1])))
    state = TrackerState(phase=TPhase.TO_THROW, turn=Side.BLACK, board=board_of(laws), sent=board_of(laws),
                         start=board_of(laws), game=1, move=20, cube_face=64, known=True)

    def at_half(obs: BoardObservation) -> BoardObservation:  # BLACK's 8 and 7 (absolute 17, 18) read at 0.5
        pts = list(obs.points)
        for p in (17, 18):
            pts[p - 1] = replace(pts[p - 1], confidence=0.5)
        return replace(obs, points=tuple(pts), confident=False)

    for later, roll in ((done, [1, 3]), (entered, [1, 2])):
        script = Script(seq=10).show(laws, dice).show(entered, dice).show(entered)
        n = len(script.out)
        script.show(later).show(later, thrown(Side.WHITE, 2, 1))
        stream = [at_half(o) if i >= n else o for i, o in enumerate(script.out)]
        tr = Tracker(REAL, state)
        out = [e for o in stream for e in tr.feed(o)]
        throws = [e for e in out if isinstance(e.event, DiceThrown) and e.event.player is Side.BLACK]
        assert len(throws) == 1 and sorted(throws[0].event.values) == roll, [e.note for e in out]
        assert not any(e.note.startswith("only an illegal play") for e in out)


def test_an_illegal_play_is_called_when_every_alternative_in_doubt_names_it_the_same() -> None:
    """The region test (session 7) asked every call with a count in doubt where the opponent might hold a point
    or a blot, anywhere: s5g lost 17 catches called from a board that matched the game, blocked by an alternative
    the verdict did not depend on (a point read at 0 all game, under the cube).  The call is now re-judged from
    every alternative start the doubt allows (``verdict_in_doubt``): BLACK's 24 point holding one, not two, leaves
    WHITE's 22/18 with a checker on the bar a 'bar' play, called; his bar holding none makes it another play
    (asked), as does a count in doubt where the play moved (22; at odds e^2, as the look at the landed throw, reading
    22 surely as the laws have it, takes e^5.8 off and ``doubt_gone`` 1e-2 lets go of e^-4.6).  A BLACK checker doubted on WHITE's 13 point is
    no board a game can reach (7257 s5h: a blot doubted as two, then hit surely): it blocks nothing."""
    laws, bad, stream, state = _bar_play_22_18()
    for doubt, called in ((((0, 0, -1, 0.0),), True), (((0, 0, -1, 0.0), (5, -1, 0, 0.0)), True),
                          (((0, 0, -1, 0.0), (24, -1, 0, 0.0)), False), (((21, -1, 0, 2.0),), False),
                          (((12, 0, 1, 5.0), (0, 0, 1, 0.0)), True)):
        tr = Tracker(REAL, replace(state, doubt=doubt))
        out = [e for o in stream for e in tr.feed(o)]
        notes = [e.note for e in out if isinstance(e.event, PositionObserved)]
        assert any("only an illegal play (bar)" in n for n in notes) is called, (doubt, notes)
    assert not verdict_in_doubt(laws, (5, 4), board_of(bad), "bar", ((0, 0, -1, 0.0), (18, 0, 1, -2.0)))
    assert verdict_in_doubt(laws, (5, 4), board_of(bad), "bar", ((24, -1, 0, 0.0),))


def test_an_illegal_play_after_an_unsure_one_is_called_when_nothing_in_doubt_could_change_it() -> None:
    """Session 8: a play after one judged unsure (the laws' board not ``known``) was never called, whatever that play
    left in doubt; 29 misses on s7a+s7b ("not allowed").  What the unsure play left in doubt (``TrackerState.doubt``) is
    re-judged on the call (``verdict_in_doubt``), so ``known`` false no longer bars it: WHITE's 22/18 with a checker
    on the bar is called with nothing in doubt, or a doubt the verdict does not depend on; a count in doubt on his
    bar still makes it asked (7280 s6g)."""
    _, _, stream, state = _bar_play_22_18()
    state = replace(state, known=False)
    for doubt, called in (((), True), (((5, -1, 0, 0.0),), True), (((24, -1, 0, 0.0),), False)):
        tr = Tracker(REAL, replace(state, doubt=doubt))
        out = [e for o in stream for e in tr.feed(o)]
        notes = [e.note for e in out if isinstance(e.event, PositionObserved)]
        assert any("only an illegal play (bar)" in n for n in notes) is called, (doubt, notes)


def test_what_is_in_doubt_leaves_when_read_as_the_laws_have_it_between_plays_never_mid_play() -> None:
    """An alternative in doubt (``TrackerState.doubt``) is weighed by every scene between plays: read surely as the
    laws have it (twice: each look counts ``look_weight``), it leaves.  A scene that reads checkers surely where the
    laws have none (below the reader's own threshold, so no play was started on it) shows a play under way, its
    throw unseen, not their board: it weighs nothing (s5g 7238: such scenes kept a false alternative alive and
    blocked six right calls)."""
    cfg = TrackerConfig.for_real_vision("near", count_confidence=0.99)
    p1 = after(START, (5, 3), "8/3 6/3")
    moving = after(p1, (6, 4), "24/18 13/9").with_turn(Side.WHITE)
    state = TrackerState(phase=TPhase.TO_THROW, turn=Side.BLACK, board=board_of(p1), sent=board_of(p1),
                         start=board_of(p1), game=1, move=1, cube_face=64, doubt=((5, -1, 0, 0.0),))
    changed = {i for i in range(24) if board_of(moving)[i] != board_of(p1)[i]}
    for shown, kept in ((p1, False), (moving, True)):
        tr = Tracker(cfg, state)
        for o in Script(seq=10).show(shown).show(shown):  # two scenes
            o = replace(o, points=tuple(replace(r, confidence=0.95) if i in changed else r
                                        for i, r in enumerate(o.points)))
            tr.feed(o)
        assert tr.state.phase is TPhase.TO_THROW
        assert bool(tr.state.doubt) is kept, (shown, tr.state.doubt)


_WRONG_DOUBLE_THROWS = (
    ((sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1]))), True),
    ((sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])),), True),
)
"""BLACK's 6-4 read whole or with a die unread: the wrong double, lying on the taker's side, is called either way
(session 14: the cube's place bears out whose turn it is; sessions 7-13 asked after a throw not read whole)."""


def _wrong_double_after_held_play(black: tuple[DieReading, ...], where: CubePosition = CubePosition.BLACK_SIDE,
                                  value: int = 4) -> tuple[Script, int]:
    """BLACK plays 24/18 13/9 with ``black`` down, read at 0 half as 24/18 13/9 and half as 24/14 would leave it
    (which legal play is unsure: held); then WHITE offers at 4 with the cube in the middle (a wrong value).  The
    script and how many observations came before BLACK's throw."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    s = opened(Script())
    n = len(s.out)
    s.show(p1, black).show(p2, black).show(p2)
    s.cube = cube(value, where)
    s.show(p2)
    half = {6: (0, 1), 15: (0, 1), 10: (0, 1), 11: (0, 5)}
    s.out[-12:] = [replace(o, confident=False, points=tuple(CountReading(*half[i], 0.0) if i in half else r
                                                              for i, r in enumerate(o.points)))
                   for o in s.out[-12:]]
    return s, n


def test_a_wrong_double_after_a_play_held_only_for_which_legal_play_is_called() -> None:
    """7274, 7277, 7278 s6g: the play before a wrong double, held unsure (which legal play was made), went on record
    unsure when the cube turned, and the cube action was only asked.  The throw was read and every play before it
    was sure, so whose turn it is and the cube are as the laws have them: the wrong double is called.  After a
    throw not read whole, it is asked as before."""
    for black, called in _WRONG_DOUBLE_THROWS:
        s, _ = _wrong_double_after_held_play(black)
        ses = session_run(s)
        held = [j for j in ses.judged if isinstance(j.emitted.event, PositionObserved) and j.emitted.unsure]
        assert held, "black's play should go on record unsure"
        codes = codes_of(ses)
        assert codes == ([("cube-wrong-value", Side.WHITE)] if called else []), (called, codes)


def test_a_double_after_a_throw_not_read_whole_is_judged_as_seen_only_lying_on_the_takers_side() -> None:
    """s13f 7539, 7547, s12f (session 14): a wrong double staged after a play whose throw was not read whole (the
    play inferred, held, released by the cube turn) was only asked -- "cube action read by real vision: not called"
    -- though the cube was read right on every still frame.  A cube the laws have in the middle, turned and read
    lying on the taker's side, crossed to him as only an offer by the player the tracker has to move puts it: its
    place bears out whose turn it is, so the offer is judged as seen: a wrong value called, a right one taken without
    a call.  Turned on the offerer's own side, whose turn it is stays in doubt: asked."""
    unread_one = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])),)
    for where, value, want, asked in ((CubePosition.BLACK_SIDE, 4, [("cube-wrong-value", Side.WHITE)], False),
                                      (CubePosition.BLACK_SIDE, 2, [], False),
                                      (CubePosition.WHITE_SIDE, 4, [], True)):
        s, _ = _wrong_double_after_held_play(unread_one, where, value)
        ses = session_run(s)
        assert codes_of(ses) == want, (where, value, codes_of(ses))
        offers = [j for j in ses.judged if isinstance(j.emitted.event, CubeOffered)]
        assert len(offers) == 1 and offers[0].emitted.unsure is asked, (where, value, offers)
        assert ses.stats.infractions == len(want)


def test_after_a_throw_taken_back_unplayed_the_next_throws_table_is_asked_never_called() -> None:
    """7297 s7a: BLACK's 2-1 was lifted early with his play read only unsure; the tracker took the throw for taken
    back unplayed (a judgement by likelihood), kept whose throw it was as settled, and called WHITE's next throw,
    lying in WHITE's own table, dice-wrong-table on BLACK (7305 s7a: the same after a wrong-colour play).  After a
    throw taken back, whose throw is next is unsure: the table is asked about, never called.  Read cleanly (the
    tests above) it is called."""
    s = opened(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, (die(6, Area.LEFT_TABLE, B_SPOTS[0]), unread(die(2, Area.LEFT_TABLE, B_SPOTS[1])))).show(p1)
    # the next throw lies in WHITE's right-hand table: BLACK's throw again in the wrong table -- or WHITE's
    white_table = (sure_face(die(4, Area.RIGHT_TABLE, (180.0, 120.0))), sure_face(die(2, Area.RIGHT_TABLE, (240.0, 90.0))))
    s.show(p1, white_table)
    ses = session_run(s)
    assert ses.stats.infractions == 0
    asked = [j.verdict.director for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
    assert any("dice-wrong-table" in a for a in asked), asked
    assert not ses.tracker.state.turn_sure


def test_an_early_throw_is_called_on_the_movers_die_only_when_its_face_was_read() -> None:
    """7291 s7a: a mark in WHITE's table was read as a die (face never read) and taken for one of WHITE's dice; his
    dice lifted, it stayed, and BLACK's next throw was called premature -- on a game whose turns were not known
    surely, where only the dice placed (each pair in its thrower's table) settled who was throwing; WHITE's "throw"
    was the mark and a die read in BLACK's table.  A "die" whose face was never read may be none: the early throw is
    asked about -- unless it was read when it landed (unread now, under a hand), or the throw it came with landed
    whole in WHITE's table (7302 s7a: a real die read "unread" in every frame): then it places the throws, called."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    p3 = after(p2, (2, 1), "13/11 6/5")
    black = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    white = (sure_face(die(2, Area.RIGHT_TABLE, W_SPOTS[0])), sure_face(die(1, Area.RIGHT_TABLE, W_SPOTS[1])))
    early = (sure_face(die(5, Area.LEFT_TABLE, (480.0, 200.0))), sure_face(die(3, Area.LEFT_TABLE, (520.0, 230.0))))
    astray = sure_face(die(2, Area.LEFT_TABLE, (600.0, 320.0)))  # (read in BLACK's table)
    cases = ((white, True), ((white[0], unread(white[1])), True), ((astray, unread(white[1])), False))
    for landed, called in cases:
        s = opened(Script())
        s.show(p1, black).show(p2, black).show(p2)  # BLACK's 6-4 inferred from its play (a face unread): not known
        s.show(p2, landed).show(p3, landed)  # WHITE's 2-1 down and played
        s.show(p3, (unread(white[1]), *early))  # one of his dice lifted, the other there unread: BLACK throws
        ses = session_run(s)
        codes = [j.verdict.code.value for j in ses.infractions if j.verdict.code is not None]
        assert codes == (["premature-throw"] if called else []), (called, codes)
        if not called:
            asked = [j.verdict.director for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
            assert any("premature" in a for a in asked), asked


def test_a_wrong_double_after_a_held_play_is_called_when_an_earlier_play_was_unsure() -> None:
    """Session 8: the play before a wrong double, held for which legal play it was and released by the cube turn,
    leaves whose turn it is as the laws have it when its throw was read (both faces) -- whatever plays before it were
    judged unsure: which legal play an earlier throw was played as does not change whose turn it is.  (Session 7 asked
    unless every earlier play was sure.)  After a throw not read whole it is still asked."""
    for black, called in _WRONG_DOUBLE_THROWS:
        s, n = _wrong_double_after_held_play(black)  # (from n, WHITE's opening play is taken as judged unsure)
        ses = Session.start(SessionInfo(), None, tracker_config=REAL, evidence=False)
        for k, obs in enumerate(s):
            if k == n:
                ses.tracker.state = replace(ses.tracker.state, known=False)
            ses.process(obs)
        ses.flush()
        codes = codes_of(ses)
        assert codes == ([("cube-wrong-value", Side.WHITE)] if called else []), (called, codes)


def test_a_dance_with_a_face_unread_is_taken_back_when_the_same_player_throws_again() -> None:
    """7298 s7a: BLACK, on the bar, threw a 6 and a die never read, and lifted his dice with nothing moved; the only
    roll with a 6 that cannot enter was 6-6, so the throw went on record as a 6-6 dance -- but he was picking up a
    cocked throw to throw again.  Held until the next throw: when every die of it lies in BLACK's own table (his
    rethrow) the throw was taken back, whatever dance is likeliest (here 6-5, likelier than a throw taken back
    without that evidence); when WHITE throws next, the dance stands (7317 s7b)."""
    p1 = after(START, (2, 1), "13/11 6/5")
    p2 = after(p1, (6, 4), "24/18 13/9")
    p3 = after(p2, (6, 1), "13/7* 6/5")  # BLACK on the bar; WHITE holds his 6- and 5-points: 6-5 and 6-6 dance
    danced = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(3, Area.LEFT_TABLE, B_SPOTS[1])))
    again = thrown(Side.BLACK, 4, 3)
    white = thrown(Side.WHITE, 3, 1)
    for rethrow, next_dice, text, want in ((True, again, "bar/21 13/10", [(Side.BLACK, [3, 4])]),
                                          (False, white, "8/5 6/5", [(Side.BLACK, [5, 6]), (Side.WHITE, [1, 3])])):
        s = Script()
        s.show(START).show(START, (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.LEFT_TABLE, B_SPOTS[0])))
        s.show(p1)
        s.show(p1, thrown(Side.BLACK, 6, 4)).show(p2, thrown(Side.BLACK, 6, 4)).show(p2)
        s.show(p2, thrown(Side.WHITE, 6, 1)).show(p3, thrown(Side.WHITE, 6, 1)).show(p3)
        s.show(p3, danced).show(p3)  # lifted, nothing moved
        mover = Side.BLACK if rethrow else Side.WHITE
        p4 = after(p3.with_turn(mover) if p3.turn is not mover else p3, (4, 3) if rethrow else (3, 1), text)
        s.show(p3, next_dice).show(p4, next_dice).show(p4)
        ses = session_run(s)
        assert ses.stats.infractions == 0
        throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
        assert [(t.player, sorted(t.values)) for t in throws][2:] == want, (rethrow, throws)
        assert ses.machine.position == p4


def test_a_play_held_and_judged_taken_back_when_the_opponent_throws_leaves_whose_throw_unsure() -> None:
    """7359 s8c: WHITE's 6-3 played with one die only was lifted and held (no legal play likely); at BLACK's
    throw it was judged taken back unplayed, so the tracker gave the throw back to WHITE -- and called BLACK's
    dice, lying in BLACK's own table, dice-wrong-table on WHITE.  "Taken back" is a judgement by likelihood:
    whose throw is next is then unsure, so the table is asked, never called (as after a throw taken back,
    ``_taken_back``)."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")  # WHITE to move
    board = board_of(p2)
    state = TrackerState(phase=TPhase.TO_THROW, turn=Side.BLACK, board=board, sent=board, start=board, game=1,
                         move=4, cube_face=64, hold=("W", board, (6, 3)))  # WHITE's 6-3 lifted, held
    black = (sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(5, Area.LEFT_TABLE, B_SPOTS[1])))
    tr = Tracker(REAL, state)
    out = [e for o in Script(seq=10).show(p2).show(p2, black) for e in tr.feed(o)]
    thrown_ = [e for e in out if isinstance(e.event, DiceThrown)]
    assert thrown_ and all(e.unsure for e in thrown_), [(e.event, e.unsure) for e in thrown_]
    assert not tr.state.turn_sure


def test_a_cube_turned_on_the_movers_own_side_is_asked_never_called() -> None:
    """7366 s8c: BLACK redoubled to 4, pushing the cube to WHITE (an offer lies before the taker), read while the
    tracker had WHITE to move: taken as WHITE's offer and called double-cube-not-owned on him.  A cube turned and
    lying on the side of the player the tracker has to move was offered to him: whose turn it is is in doubt, the
    action is applied and asked.  Lying on the opponent's side it is called as before."""
    p1 = after(START, (5, 3), "8/3 6/3")
    p2 = after(p1, (6, 4), "24/18 13/9")
    black = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    for where, called in ((CubePosition.BLACK_SIDE, True), (CubePosition.WHITE_SIDE, False)):
        s = opened(Script())
        s.show(p1, black).show(p2, black).show(p2)
        s.cube = cube(4, where)  # turned to 4 from the middle: a wrong value if WHITE offered it
        s.show(p2)
        ses = session_run(s)
        codes = codes_of(ses)
        assert codes == ([("cube-wrong-value", Side.WHITE)] if called else []), (where, codes)
        if not called:
            asked = [j.verdict.director for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
            assert asked, "the cube action should be asked about"


def test_dice_in_the_opponents_table_after_a_turn_that_may_have_passed_unseen_are_held_until_lifted() -> None:
    """7374 s9a: BLACK, on the bar, danced with a 1-4 the camera never read (no checker moved, so nothing showed
    the turn); WHITE then threw 3-2 in his own table and, the last play on record read cleanly, the tracker took it
    for BLACK's throw and called it dice-wrong-table on BLACK.  When the throws leaving the player on roll no play
    are likely enough (``TrackerConfig.unseen_pass_chance``), his whole turn can pass unseen: dice lying where the
    opponent throws are held until they are lifted.  Played with (checkers moved), they were WHITE's: asked, never
    called; lifted with no checker moved while WHITE had a play with them, they were BLACK's throw in the wrong
    table: called then (s7a-s8c: 31 staged wrong-table throws only asked before).  Read unsure where WHITE played,
    even one die of it only (7287 s7a: an incomplete play, two points read unsure, made a wrong name while only his
    legal plays were weighed against "nothing moved"): asked.  When every throw has a play (the board would show
    the turn), or only a rare one has none, BLACK's throw in WHITE's table is called at once."""
    p1 = after(START, (2, 1), "13/11 6/5")
    p2 = after(p1, (6, 4), "24/18 13/9")
    # the hit puts BLACK on the bar: against WHITE's 6- and 5-points 6-6, 5-5 and 6-5 dance; against the 6-point, 6-6
    for text, chance, dance in (("13/7* 6/5", 4 / 36, True), ("13/7*/6", 1 / 36, False), ("11/5 6/5", 0.0, False)):
        p3 = after(p2, (6, 1), text)
        assert pass_chance(p3) == chance
        cases = (((False, ()), (False, (10, 11, 13)), (True, ()), (True, (10, 11, 13)), ("one die", (10, 13)))
                 if dance else ((False, ()),))
        for played, unsure in cases:
            s = Script()
            s.show(START).show(START, (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.LEFT_TABLE, B_SPOTS[0])))
            s.show(p1)
            s.show(p1, thrown(Side.BLACK, 6, 4)).show(p2, thrown(Side.BLACK, 6, 4)).show(p2)
            s.show(p2, thrown(Side.WHITE, 6, 1)).show(p3, thrown(Side.WHITE, 6, 1)).show(p3)
            white_table = tuple(sure_face(d) for d in thrown(Side.WHITE, 3, 2))  # WHITE's next throw, or BLACK's
            s.show(p3, white_table).show(p3, white_table)
            if played == "one die":  # WHITE plays only his 3 (13/10), both points read unsure: asked
                w = list(p3.white)
                w[13] -= 1
                w[10] += 1
                p4 = p3.replace(Side.WHITE, tuple(w))
                s.show(p4, white_table, unsure_points=unsure).show(p4, unsure_points=unsure)
                s.show(p4, thrown(Side.BLACK, 5, 2), unsure_points=unsure)
            elif played:  # WHITE plays his 3-2: BLACK's dance passed unseen (its points read unsure, or not)
                p4 = after(p3.with_turn(Side.WHITE), (3, 2), "13/10 13/11")
                s.show(p4, white_table, unsure_points=unsure).show(p4, unsure_points=unsure)
                s.show(p4, thrown(Side.BLACK, 5, 2), unsure_points=unsure)  # (the next throw: no look told)
            else:  # picked up with nothing moved: BLACK's throw in the wrong table (the hand lifting them may
                s.show(p3, unsure_points=unsure).show(p3)  # hide points: the next look tells)
            ses = session_run(s)
            codes = codes_of(ses)
            assert codes == ([] if played else [("dice-wrong-table", Side.BLACK)]), (text, played, unsure, codes)
            if played:
                asked = [j.verdict.director for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
                assert any("dice-wrong-table" in a for a in asked), asked


def test_dice_in_the_dancers_table_right_after_his_dance_are_held_until_lifted() -> None:
    """7396 s9b: BLACK's throw with a die cocked against the rail was read as a flat 3-3 (its pose undecided) and,
    nothing moved, went on record as a dance; his rethrow landed in his own table, was taken for WHITE's throw and
    called dice-wrong-table on WHITE.  Right after a dance on record, dice lying wholly in the dancer's table may be
    his rethrow of a void throw the camera could not tell: held until lifted; played with, asked, never called;
    lifted with no checker moved (BLACK had a play with them), WHITE's throw in the wrong table, called.  After a
    play that moved checkers the same throw is called on the player on roll at once."""
    p1 = after(START, (2, 1), "13/11 6/5")
    p2 = after(p1, (6, 4), "24/18 13/9")
    p3 = after(p2, (6, 1), "13/7* 6/5")  # BLACK on the bar against WHITE's 6- and 5-points: 6-6 dances
    for dance, played in ((True, True), (True, False), (False, False)):
        s = Script()
        s.show(START).show(START, (die(2, Area.RIGHT_TABLE, W_SPOTS[0]), die(1, Area.LEFT_TABLE, B_SPOTS[0])))
        s.show(p1)
        s.show(p1, thrown(Side.BLACK, 6, 4)).show(p2, thrown(Side.BLACK, 6, 4)).show(p2)
        s.show(p2, thrown(Side.WHITE, 6, 1)).show(p3, thrown(Side.WHITE, 6, 1)).show(p3)
        last = p3
        if dance:
            six_six = tuple(sure_face(d) for d in thrown(Side.BLACK, 6, 6))
            s.show(p3, six_six).show(p3, six_six).show(p3)  # BLACK's 6-6 read, lifted, nothing moved
        else:
            p4 = after(p3.with_turn(Side.BLACK), (3, 1), "bar/22 24/23")
            s.show(p3, thrown(Side.BLACK, 3, 1)).show(p4, thrown(Side.BLACK, 3, 1)).show(p4)
            last = p4
        black_table = tuple(sure_face(d) for d in thrown(Side.BLACK, 3, 2))  # BLACK's rethrow, or a wrong table
        s.show(last, black_table).show(last, black_table)
        if played:  # BLACK plays the 3-2 he threw again
            p5 = after(last.with_turn(Side.BLACK), (3, 2), "bar/22 24/22")
            s.show(p5, black_table).show(p5)
        else:
            s.show(last)
        ses = session_run(s)
        codes = codes_of(ses)
        assert codes == ([] if played else [("dice-wrong-table", Side.WHITE)]), (dance, played, codes)
        if played:
            asked = [j.verdict.director for j in ses.judged if j.verdict.kind is VerdictKind.CHECK]
            assert any("dice-wrong-table" in a for a in asked), asked


# 7433 s10b frame 1996 (BLACK's throw just landed): the board the laws had, 8 regions off the game's, and the 27
# regions as read (white, black, confidence, alternatives); regions 2, 14, 19 and 23 (points 3, 15, 20, 24) are read
# at 0
_SENT_7433 = ((2, 0), (0, 0), (1, 0), (0, 2), (0, 1), (7, 0), (0, 0), (0, 0), (1, 0), (0, 0), (0, 0), (0, 1), (1, 0),
              (0, 1), (0, 1), (1, 0), (1, 0), (0, 0), (0, 4), (0, 0), (0, 0), (0, 1), (0, 2), (0, 2), (1, 0), (0, 0),
              (0, 0))
_TRUTH_7433 = ((2, 0), (0, 0), (0, 1), (0, 2), (0, 0), (7, 0), (0, 0), (1, 0), (0, 0), (0, 0), (0, 0), (0, 1), (1, 0),
               (0, 1), (0, 1), (1, 0), (0, 0), (0, 0), (0, 4), (2, 0), (0, 0), (0, 1), (0, 1), (0, 3), (1, 0), (0, 0),
               (0, 0))
_READ_7433 = ((2, 0, 1.0, ()), (0, 0, 1.0, ()), (0, 2, 0.0, ((0, 0, 0.3556),)), (0, 2, 1.0, ()),
              (0, 0, 0.9079, ((0, 1, 0.0903), (0, 2, 0.0018))), (7, 0, 1.0, ()), (0, 0, 1.0, ()), (1, 0, 1.0, ()),
              (0, 0, 1.0, ()), (0, 0, 1.0, ()), (0, 0, 1.0, ()), (0, 1, 1.0, ()), (1, 0, 0.9997, ()), (0, 1, 1.0, ()),
              (0, 2, 0.0, ()), (1, 0, 1.0, ()), (0, 0, 1.0, ()), (0, 0, 1.0, ()), (0, 4, 1.0, ()), (2, 0, 0.0, ()),
              (0, 0, 0.9797, ((0, 1, 0.0203),)), (0, 1, 1.0, ()), (0, 1, 0.9998, ()), (0, 3, 0.0, ()),
              (1, 0, 0.9996, ()), (0, 0, 0.9974, ()), (0, 0, 0.8685, ((0, 1, 0.0128),)))


def _scene_read(read: tuple[tuple[int, int, float, tuple[tuple[int, int, float], ...]], ...]) -> Scene:
    rs = tuple(CountReading(w, b, c, a) for w, b, c, a in read)
    return Scene(tuple((r.white, r.black) for r in rs), tuple(r.confidence for r in rs), False, (), None, rs)


def test_the_laws_board_is_put_in_step_with_the_likeliest_whole_board_when_the_sure_regions_make_none() -> None:
    """7433 s10b frame 1996: the laws' board had left the game (8 regions off).  Five regions were read surely
    otherwise, but put as read they leave the board short, and every region read otherwise as read makes it over
    (four read at 0, dice and hands on them): ``_patched`` made no board, the play was judged from the laws' board
    and the game stayed out of step to move 21.  The likeliest whole board, each unsure region as read or as the laws
    had it, stands out (every other at most ``doubt_gone`` as likely): 2 regions off the game's, not 8; the play
    starts from it (never sure: the laws' counts where it took a reading stay in doubt).  Where two choices are
    equally likely no board is made."""
    cfg = LikelihoodConfig()
    sc = _scene_read(_READ_7433)
    assert _patched(_SENT_7433, sc, cfg) is None
    patched = _patched_likeliest(_SENT_7433, sc, cfg)
    assert patched is not None
    assert sum(a != b for a, b in zip(patched, _TRUTH_7433, strict=True)) == 2
    assert sum(a != b for a, b in zip(_SENT_7433, _TRUTH_7433, strict=True)) == 8

    tr = Tracker(REAL, TrackerState(phase=TPhase.TO_THROW, turn=Side.BLACK, board=_SENT_7433, sent=_SENT_7433,
                                    start=_SENT_7433, game=1, move=20, known=True))
    tr._start_play([], sc, 1996, guess=True)
    assert tr.state.start == patched and not tr.state.known
    assert (19, -2, 0) in {d[:3] for d in tr.state.doubt}  # the laws' none on 20 (read two at 0) stays in doubt

    # the same, but two regions read (1, 0) at 0.5 where the laws have none and White one short: either makes 15
    laws = board_of(START)
    read = [(w, b, 1.0, ()) for w, b in laws]
    read[12] = (4, 0, 1.0, ())  # WHITE's 13 point (absolute 12) read four surely, the laws five
    read[9] = read[10] = (1, 0, 0.5, ())
    assert _patched_likeliest(laws, _scene_read(tuple(read)), cfg) is None
    read[10] = (0, 0, 1.0, ())
    assert _patched_likeliest(laws, _scene_read(tuple(read)), cfg) == tuple(
        (1, 0) if i == 9 else (4, 0) if i == 12 else c for i, c in enumerate(laws))


def _held_then(laws: Position, dice: tuple[SeenDie, SeenDie], lifted: Position,
               corrected: Position | None) -> tuple[bool, list[Emitted]]:
    """BLACK's throw ``dice`` landing, his play to ``lifted`` and the lift (held), then ``corrected`` (None: left as
    lifted) and WHITE's throw: (whether the lifted board was called a 'bar' play, every event emitted)."""
    state = TrackerState(phase=TPhase.TO_THROW, turn=Side.BLACK, board=board_of(laws), sent=board_of(laws),
                         start=board_of(laws), game=1, move=20, cube_face=64, known=True)
    script = Script(seq=10).show(laws, dice).show(lifted, dice).show(lifted)
    end = lifted if corrected is None else corrected
    if corrected is not None:
        script.show(corrected)
    script.show(end, thrown(Side.WHITE, 2, 1))
    tr = Tracker(REAL, state)
    out = [e for o in script for e in tr.feed(o)]
    notes = [e.note for e in out if isinstance(e.event, PositionObserved)]
    return any(n.startswith("the dice were lifted on an illegal play (bar") for n in notes), out


def test_a_held_play_illegal_whatever_its_unread_face_is_called_under_the_roll_that_names_it() -> None:
    """7616 s15f frame 802 (and 7598 frame 966): White on the bar, his 4 read, the 2 unread, moved a checker 2
    elsewhere and lifted (held: a 'bar' play whatever the unread face), then corrected, with no throw, to bar/21, a play
    of 6-4 and of 4-2 alike.  The likeliest roll of the correction (a tie) was 6-4, of which the lifted board is no named
    play: nothing was called, and the 6-4 went on record.  Under 4-2 it is a 'bar' play, named alike under 6-4 (no
    legal play of it): called, the 4-2 on record.  Here BLACK, two on the bar, WHITE holding his 2 and 6 points."""
    white = [0] * 26
    black = [0] * 26
    white[2], white[6], white[8], white[13], white[24] = 2, 3, 3, 5, 2
    black[25], black[13], black[8], black[6] = 2, 5, 3, 5
    laws = Position(tuple(white), tuple(black), Side.BLACK)
    lifted_black = list(black)
    lifted_black[13], lifted_black[11] = 4, 1  # 13/11 (the unread 2) with two on the bar
    lifted = Position(tuple(white), tuple(lifted_black), Side.BLACK)
    corrected = after(laws, (4, 2), "bar/21")
    assert board_of(parse_play("bar/21", laws, (6, 4)).after) == board_of(corrected)  # (a 6-4 play too)
    dice = (sure_face(die(4, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(2, Area.LEFT_TABLE, B_SPOTS[1])))
    for fixed in (True, False):
        called, out = _held_then(laws, dice, lifted, corrected if fixed else None)
        assert called is fixed, [e.note for e in out]
        throws = [e for e in out if isinstance(e.event, DiceThrown) and e.event.player is Side.BLACK]
        if fixed:
            assert len(throws) == 1 and sorted(throws[0].event.values) == [2, 4], [e.note for e in out]


def test_a_dance_played_illegally_whatever_its_unread_face_is_called_when_taken_back() -> None:
    """7605 s15f frame 2659 (and 7602 frame 2780): Black on the bar, his 6 read, the 2 unread, moved a checker 2
    elsewhere and lifted (held), then took it back: the board as it stood, a dance of 6-2 (and of 6-5, 6-6) but an
    illegal play of 6-1, 6-3 and 6-4, which enter.  The correction tells neither the roll nor that it is a play, and
    nothing was called.  The lifted board is a 'bar' play whatever the unread face was, named alike under every roll
    (``judge_unread``, as at the lift), and the board taken back to is a legal play of the likeliest of them: called.
    Not taken back, nothing is called.  Here WHITE holds his 2, 5 and 6 points."""
    white = [0] * 26
    black = [0] * 26
    white[2], white[5], white[6], white[13], white[8] = 2, 2, 2, 5, 4
    black[25], black[24], black[13], black[8], black[6] = 1, 1, 5, 3, 5
    laws = Position(tuple(white), tuple(black), Side.BLACK)
    lifted_black = list(black)
    lifted_black[13], lifted_black[11] = 4, 1  # 13/11 (the 2 unread) with one on the bar
    lifted = Position(tuple(white), tuple(lifted_black), Side.BLACK)
    dice = (sure_face(die(6, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(2, Area.LEFT_TABLE, B_SPOTS[1])))
    found = judge_unread(laws, (6, 0), [reading_of(board_of(lifted), 1.0)], LikelihoodConfig())
    assert found is not None and found[0] == (6, 2) and found[1].label == "bar" and len(found[2]) == 6
    for taken_back in (True, False):
        called, out = _held_then(laws, dice, lifted, laws if taken_back else None)
        assert called is taken_back, [e.note for e in out]


def test_a_held_play_corrected_to_a_sure_play_of_one_die_is_called_under_the_roll_the_judge_is_sure_of() -> None:
    """7617 s15f frame 2036: Black on the bar, his 1 read, the 6 unread, moved a checker 1 elsewhere and lifted
    (held), then corrected, with no throw, to bar/19 alone -- the whole of a 6-1 (the 1 cannot be played after it),
    judged sure.  A play of one die tells no roll by itself (``_roll_of``), so nothing was called; the roll the judge
    is sure of (6-1) calls the lifted board a 'bar' play.  Not corrected, nothing is called.  Here BLACK, two on the
    bar, WHITE holding his 1 point."""
    white = [0] * 26
    black = [0] * 26
    white[1], white[3], white[4], white[8], white[13] = 2, 3, 2, 3, 5
    black[25], black[13], black[8], black[6] = 2, 5, 3, 5
    laws = Position(tuple(white), tuple(black), Side.BLACK)
    lifted_black = list(black)
    lifted_black[8], lifted_black[7] = 2, 1  # 8/7 (the 1 read) with two on the bar
    lifted = Position(tuple(white), tuple(lifted_black), Side.BLACK)
    corrected = after(laws, (6, 1), "bar/19")
    dice = (sure_face(die(1, Area.LEFT_TABLE, B_SPOTS[0])), unread(die(6, Area.LEFT_TABLE, B_SPOTS[1])))
    for fixed in (True, False):
        called, out = _held_then(laws, dice, lifted, corrected if fixed else None)
        assert called is fixed, [e.note for e in out]
        throws = [e for e in out if isinstance(e.event, DiceThrown) and e.event.player is Side.BLACK]
        if fixed:
            assert len(throws) == 1 and sorted(throws[0].event.values) == [1, 6], [e.note for e in out]
