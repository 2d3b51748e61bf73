"""Throws real vision reads only in part (session 13): a die missed or a face unread, judged where the laws need
no face -- an early throw seen one die at a time, a throw in the wrong table, whose throw follows a play whose roll
was inferred from it.  Traced on session 12's fresh games 7478-7513 (tag s12f)."""

from __future__ import annotations

from dataclasses import replace

from referee.judge import _moved
from referee.tracker import Tracker, TrackerState, board_of
from rules.laws.events import DiceThrown
from rules.laws.verdicts import VerdictKind
from rules.notation import parse_play
from rules.position import Side
from rules.record import Move
from tests.referee.half_read import P1, REAL, calls, opened, run, sure
from tests.referee.scenes import B_SPOTS, W_SPOTS, die
from vision.geometry import Area
from vision.observation import CountReading, DieReading

P2 = parse_play("24/18 13/9", P1, (6, 4)).after  # BLACK's 6-4


def unread(d: DieReading) -> DieReading:
    """The same die with its face and flat/cocked unread."""
    return replace(d, face=None, face_confidence=0.5, cocked=None, cocked_confidence=0.5)


BLACK_64 = (sure(6, Area.LEFT_TABLE, B_SPOTS[0]), sure(4, Area.LEFT_TABLE, B_SPOTS[1]))


def test_an_early_throw_seen_one_die_before_the_lift_and_both_at_it_is_called_premature() -> None:
    """7478 s12f frame 183: Black's 6-4 lay in place, played; White threw early into his own table and only his 6
    was read (the 3 missed) until Black lifted at frame 204, when both were read.  Each scene showed one new die
    at most while Black's dice lay there, so the early throw was never seen as one: White's dice were taken for his
    turn's throw.  The die seen before the lift, read again where it lay with its pair at the lift, is the early
    throw: called.  A die at the lift elsewhere than the one seen (or showing another face) is no such proof."""
    early = sure(6, Area.RIGHT_TABLE, (200.0, 300.0))
    pair = sure(3, Area.RIGHT_TABLE, (120.0, 180.0))
    for at_lift, called in (((early, pair), True), ((replace(early, center_mm=(260.0, 380.0)), pair), False),
                            ((replace(early, face=5), pair), False)):
        s = opened().show(P1, BLACK_64).show(P2, BLACK_64)
        s.show(P2, (*BLACK_64, early))  # White's early 6 lands; his 3 is not read
        s.show(P2, at_lift)  # Black lifts: both of White's dice read
        ses = run(s)
        assert calls(ses) == ([("premature-throw", Side.WHITE)] if called else []), (at_lift, calls(ses))
        assert board_of(ses.machine.position) == board_of(P2)


def test_a_throw_in_the_wrong_table_is_called_whatever_its_unread_face() -> None:
    """7483 s12f frame 381: White's 4-3 landed in Black's right-hand table, the 4 unread: a throw with a face
    unread was only ever inferred from its play, so the wrong table (void whatever the faces) was never judged.
    Now a throw every seen die of which lies in the opponent's table is called as one read whole would be: with a
    face unread, or one die missed (its face then read beyond a misread, 0.995).  Not when the face read is one of
    Black's own (his dice, left lying)."""
    cases = (
        ((sure(2, Area.LEFT_TABLE, (420.0, 230.0)), unread(die(1, Area.LEFT_TABLE, (460.0, 240.0)))), True),
        ((sure(2, Area.LEFT_TABLE, (420.0, 230.0)),), True),  # one die missed
        ((die(2, Area.LEFT_TABLE, (420.0, 230.0)),), False),  # ... the one seen read at 0.99: may be a misread die
        ((sure(6, Area.LEFT_TABLE, (420.0, 230.0)), unread(die(1, Area.LEFT_TABLE, (460.0, 240.0)))), False),
        ((unread(die(2, Area.LEFT_TABLE, (420.0, 230.0))), unread(die(1, Area.LEFT_TABLE, (460.0, 240.0)))), False),
    )
    for thrown, called in cases:
        s = opened().show(P1, BLACK_64).show(P2, BLACK_64).show(P2)  # Black's 6-4 read whole, played and lifted
        s.show(P2, thrown).show(P2)  # White throws into Black's table, picks the dice up
        ses = run(s)
        assert calls(ses) == ([("dice-wrong-table", Side.WHITE)] if called else []), (thrown, calls(ses))


def test_after_a_sure_play_of_a_throw_inferred_from_it_the_next_throw_in_the_wrong_table_is_called() -> None:
    """7510 s12f frame 1525 (and 7494, 7504, 7511): Black's 4-2, the 2 unread, inferred from his play (p=1.000);
    White's throw in Black's table was then not judged at all -- a throw inferred from its play left whose throw came
    next unsettled (7103 r3: a cocked throw taken back, inferred as a play).  A play judged sure that moved checkers
    settles it (a throw taken back moves none); the throw is called.  Left open by the board (unsure), asked."""
    wrong = (sure(2, Area.LEFT_TABLE, (420.0, 230.0)), sure(1, Area.LEFT_TABLE, (460.0, 240.0)))
    black = (BLACK_64[0], unread(BLACK_64[1]))
    s = opened().show(P1, black).show(P2, black).show(P2).show(P2, wrong)
    assert calls(run(s)) == [("dice-wrong-table", Side.WHITE)]
    s = opened().show(P1, black)
    n = len(s.out)
    s.show(P2, black).show(P2)
    for k in range(n, len(s.out)):  # Black's 20, 18, 9 and 7 (absolute 5, 7, 16, 18) unread: 24/20 13/7 or 24/18 13/9?
        pts = list(s.out[k].points)
        for p in (5, 7, 16, 18):
            pts[p - 1] = CountReading(0, 0, 0.0)
        s.out[k] = replace(s.out[k], points=tuple(pts), confident=False)
    ses = run(s.show(P2, wrong))
    assert calls(ses) == [] and any(j.verdict.kind is VerdictKind.CHECK and "dice-wrong-table" in j.verdict.director
                                  for j in ses.judged), ses.judged


def test_dice_in_the_movers_table_at_his_lift_are_the_next_throw_when_his_inferred_roll_is_not_theirs() -> None:
    """7478 s12f frame 1612: Black's 6-2, the 2 unread, lifted; White's 6-1 already lay in Black's table in the same
    scene.  Dice there showing the mover's faces (or any, with one of his unread) may be his, pushed aside; but his
    roll, inferred surely from his play, was 6-2: a 6-1 is not his dice -- White's throw, in the wrong table."""
    p2 = parse_play("24/18 13/11", P1, (6, 2)).after
    black = (BLACK_64[0], unread(BLACK_64[1]))
    for faces, called in (((1, 6), True), ((6, 2), False)):
        wrong = (sure(faces[0], Area.LEFT_TABLE, (420.0, 230.0)), sure(faces[1], Area.LEFT_TABLE, (460.0, 240.0)))
        s = opened().show(P1, black).show(p2, black).show(p2, wrong).show(p2)
        ses = run(s)
        assert calls(ses) == ([("dice-wrong-table", Side.WHITE)] if called else []), (faces, calls(ses))


def test_the_new_state_round_trips_through_json() -> None:
    state = replace(Tracker(REAL).state, early_die=(200.0, 300.0, 6), inferred_sure=True)
    assert TrackerState.from_json(state.to_json()) == state
    old = {k: v for k, v in state.to_json().items() if k not in ("early_die", "inferred_sure")}
    assert TrackerState.from_json(old) == replace(state, early_die=None, inferred_sure=False)


def test_a_weak_face_with_its_pair_unread_is_confirmed_by_a_correction_no_other_roll_allows() -> None:
    """7501 s12f frame 673: Black's 6 read at 0.99 (below the 0.995 that rules out a misread), his 3 unread; he moved
    a checker 5 for the 6 and lifted, then corrected to 13/7* 5/2.  The roll was filled from the correction (6-3) but
    the one-face guard stayed: read as a 5, the lifted board would be a legal 5-3.  A correction to a board that is a
    legal play of no roll without a 6 shows the 6 was a 6 (nobody corrects a legal play): called, as with both faces
    read (session 11).  Read at 0.9995 (no guard), called either way."""
    for conf in (0.99, 0.9995):
        black = (replace(die(6, Area.LEFT_TABLE, B_SPOTS[0]), face_confidence=conf),
                 unread(die(3, Area.LEFT_TABLE, B_SPOTS[1])))
        good = parse_play("13/7 13/10", P1, (6, 3)).after
        bad = parse_play("13/8 13/10", P1, (5, 3)).after  # the 6 played as a 5
        s = opened().show(P1, black).show(bad, black).show(bad).show(good).show(good)
        assert calls(run(s)) == [("illegal-play", Side.BLACK)], conf


def test_a_throw_landing_as_a_phantom_die_is_taken_back_is_the_movers_throw() -> None:
    """7482 s12f frame 111: as Black's opening play was lifted a die was read off the board where none lay, face
    unread, and taken for White's throw; at frame 139 it was gone (taken back unplayed) and White's 4-3 lay read right
    in his table -- in the same scene, accepted once: the 4-3 never went on record, and White's play was "the board
    changed with no play on record" (the record left the game at move 1).  Dice in the mover's own table when his
    throw is taken back are his throw again, judged in that scene."""
    phantom = unread(die(1, Area.OFF_BOARD, (520.0, -20.0), boundary_mm=2.0))
    s = opened().show(P1, (phantom,)).show(P1, BLACK_64).show(P2, BLACK_64).show(P2)
    ses = run(s)
    assert calls(ses) == [] and not any("no play on record" in j.emitted.note for j in ses.judged)
    throws = [j.emitted.event for j in ses.judged if isinstance(j.emitted.event, DiceThrown)]
    assert [(t.player, sorted(t.values)) for t in throws] == [(Side.BLACK, [4, 6])]
    assert board_of(ses.machine.position) == board_of(P2)


def test_dice_at_the_movers_lift_showing_a_face_none_of_his_shows_are_the_next_throw_whatever_the_other() -> None:
    """7522 s13f frame 381: White's 2-2 lifted and, in the same scene, Black's 4-1 lay in White's table, the 1 read at
    1.0 and the 4 unread; with a face unread they were taken for White's own dice pushed aside by the hand, and the
    wrong table was never judged.  A die read beyond a misread (0.995) showing a face the mover's roll does not have
    is not his: the throw is judged (here: called).  Read at 0.99 only (7599, 7602, 7603, 7621 s15f: 0.90-0.96), it is
    not his either when it lies 40 mm or more from every place his dice lay (here 113 mm; those four 46-148 mm); within
    that (here 25 mm from his 4), or showing one of his faces, it may be his, as before."""
    cases = ((sure(2, Area.LEFT_TABLE, (420.0, 230.0)), True), (die(2, Area.LEFT_TABLE, (420.0, 230.0)), True),
             (die(2, Area.LEFT_TABLE, (530.0, 183.0)), False), (sure(6, Area.LEFT_TABLE, (420.0, 230.0)), False))
    for read, called in cases:
        s = opened().show(P1, BLACK_64).show(P2, BLACK_64)
        s.show(P2, (read, unread(die(1, Area.LEFT_TABLE, (460.0, 300.0)))))  # Black lifts; White's throw lands there
        s.show(P2)  # ... and is picked up
        ses = run(s)
        assert calls(ses) == ([("dice-wrong-table", Side.WHITE)] if called else []), (read, calls(ses))


def test_a_throw_with_a_face_unread_whose_thrower_is_in_doubt_is_held_until_lifted() -> None:
    """7522 s13f frame 381 (once Black's 4-1 was judged): Black, on the bar, might have danced unseen, so dice in
    White's table might be White's own throw (``TrackerConfig.unseen_pass_chance``, 7374 s9a).  A throw read whole so
    is held until lifted; one with a face unread was inferred from its play, never judged.  Now it is held the same
    way, the unread face taken as every face: lifted with no checker moved while White had a play with every roll it
    may be, called; played with, asked (never called)."""
    p2 = parse_play("24/18 13/9", P1, (6, 4)).after
    white61 = (sure(6, Area.RIGHT_TABLE, W_SPOTS[0]), sure(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    p3 = parse_play("13/7* 6/5", p2, (6, 1)).after  # Black on the bar against White's 6- and 5-points
    in_white = (sure(3, Area.RIGHT_TABLE, W_SPOTS[0]), unread(die(2, Area.RIGHT_TABLE, W_SPOTS[1])))
    for played in (False, True):
        s = opened().show(P1, BLACK_64).show(p2, BLACK_64).show(p2)
        s.show(p2, white61).show(p3, white61).show(p3)
        s.show(p3, in_white).show(p3, in_white)
        if played:  # White's own 3-2 (Black's dance unseen), played
            p4 = parse_play("13/10 13/11", p3.with_turn(Side.WHITE), (3, 2)).after
            s.show(p4, in_white).show(p4).show(p4, (sure(5, Area.LEFT_TABLE, B_SPOTS[0]), sure(2, Area.LEFT_TABLE, B_SPOTS[1])))
        else:
            s.show(p3).show(p3)
        ses = run(s)
        assert calls(ses) == ([] if played else [("dice-wrong-table", Side.BLACK)]), (played, calls(ses))
        if played:
            assert any(j.verdict.kind is VerdictKind.CHECK and "dice-wrong-table" in j.verdict.director
                       for j in ses.judged), ses.judged


def test_a_premature_throw_keeps_the_faces_it_was_called_with_when_one_is_unread_at_the_lift() -> None:
    """7528 s13f frames 1817-1902: Black's early 6-1 was read (0.991, 0.993) and called premature while White's dice
    lay; at White's lift the 6 read face-unread, the throw was started again from that look and the unread face taken
    as a 1: Black's play was judged as a 1-1 (the likeliest legal play, p 0.000) and the record left the game.  The
    faces the premature throw went on record with are kept where a face is unread at the lift: his play is a 2-1's."""
    early = (sure(2, Area.RIGHT_TABLE, (200.0, 300.0)), sure(1, Area.RIGHT_TABLE, (120.0, 180.0)))
    p3 = parse_play("13/11 6/5", P2, (2, 1)).after
    s = opened().show(P1, BLACK_64).show(P2, BLACK_64)
    s.show(P2, (*BLACK_64, *early))  # White throws early: called
    s.show(P2, (unread(early[0]), early[1]))  # Black lifts; White's 2 read unread now
    s.show(p3, (unread(early[0]), early[1])).show(p3)  # White plays 2-1 and lifts
    s.show(p3, (sure(5, Area.LEFT_TABLE, B_SPOTS[0]), sure(3, Area.LEFT_TABLE, B_SPOTS[1])))  # Black's next throw
    ses = run(s)
    assert calls(ses) == [("premature-throw", Side.WHITE)]
    moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert moves[-1].player is Side.WHITE and moves[-1].dice == (2, 1) and moves[-1].play == "13/11 6/5", moves


def test_an_early_throw_with_a_face_unread_is_called_at_the_lift_when_both_faces_are_read_there() -> None:
    """7559 s14f frames 172-193: Black threw his 2-4 while White's 6-2 lay in White's table; the 4 was read surely in
    Black's table, the 2 face-unread: "dice thrown early, faces unread: please check", asked at once.  At White's lift
    both faces were read (the 2 at 0.90).  Now the call waits for the lift: both faces read there, one die where the
    surely read one lay showing its face, the premature throw is called; still unread there, asked as before."""
    black = (sure(6, Area.LEFT_TABLE, B_SPOTS[0]), sure(4, Area.LEFT_TABLE, B_SPOTS[1]))
    p2 = parse_play("24/18 13/9", P1, (6, 4)).after
    white = (sure(6, Area.RIGHT_TABLE, W_SPOTS[0]), sure(2, Area.RIGHT_TABLE, W_SPOTS[1]))
    p3 = parse_play("13/7 6/4", p2, (6, 2)).after
    early4 = sure(4, Area.LEFT_TABLE, (640.0, 370.0))
    early2 = sure(2, Area.LEFT_TABLE, (485.0, 220.0))
    unread2 = replace(early2, face=None, face_confidence=0.5)
    for at_lift, called in ((early2, True), (unread2, False)):
        s = opened().show(P1, black).show(p2, black).show(p2)
        s.show(p2, white).show(p2, (*white, unread2, early4)).show(p3, (*white, unread2, early4))
        s.show(p3, (at_lift, early4))  # White lifts
        ses = run(s)
        assert calls(ses) == ([("premature-throw", Side.BLACK)] if called else []), (called, calls(ses))
        if not called:
            assert ses.stats.checks >= 1


def test_a_premature_face_read_beyond_a_misread_when_called_is_not_weak_when_read_weaker_at_the_lift() -> None:
    """7552 s14f frames 1615-1677: Black's early 1-4 called premature with the 4 read at 0.999; at White's lift the 4
    read at 0.985; Black played the 4 alone and lifted (the 1 unplayed).  A 3-1 (22/19/18) would have made that a legal
    play, so with the 4 taken as weak it was asked, never called.  The 4 read beyond a misread where that die lay when
    the throw went on record is not weak: called, a play left incomplete.  Read weak then too, it is asked."""
    for firm, expected in ((0.9995, [("premature-throw", Side.WHITE), ("incomplete-play", Side.WHITE)]),
                           (0.985, [("premature-throw", Side.WHITE)])):
        early = (replace(die(4, Area.RIGHT_TABLE, (200.0, 300.0)), face_confidence=firm),
                 sure(1, Area.RIGHT_TABLE, (120.0, 180.0)))
        weak4 = replace(early[0], face_confidence=0.985)
        half = _moved(P2.with_turn(Side.WHITE), Side.WHITE, [(13, 9)])  # the 4 played, the 1 left
        assert half is not None
        s = opened().show(P1, BLACK_64).show(P2, BLACK_64)
        s.show(P2, (*BLACK_64, *early))  # White throws early: called
        s.show(P2, (weak4, early[1]))  # Black lifts; White's 4 read weaker now
        s.show(half, (weak4, early[1])).show(half)  # White plays the 4 alone and lifts
        s.show(half, (sure(5, Area.LEFT_TABLE, B_SPOTS[0]), sure(3, Area.LEFT_TABLE, B_SPOTS[1])))  # Black's next throw
        assert calls(run(s)) == expected, firm


def test_a_play_whose_throw_was_never_seen_goes_on_record_when_the_stream_ends() -> None:
    """7576 s14f (the recording's last turn): Black's throw was taken for a void one and picked up, then his checkers
    moved with no die in sight -- a play whose throw was never seen, which ends when the next throw lands.  The stream
    ended first, and the play was left off the record (the exports differed at the last move).  At the end it goes on
    record as it stands, its throw inferred from it (unsure: never an accusation)."""
    s = opened().show(P1).show(P2)  # Black's 6-4 never seen, his checkers moved
    ses = run(s)
    moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert moves[-1].player is Side.BLACK and moves[-1].dice == (6, 4) and moves[-1].play == "24/18 13/9", moves
    assert calls(ses) == []
    # the stream ending with the board as the laws have it: nothing is added
    ses = run(opened().show(P1))
    assert [a.player for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)] == [Side.WHITE]
