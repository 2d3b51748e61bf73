"""A phantom die (a mark of the board read as a die where none lies) must never lead to an accusation.  Both false
alarms of session 13's fresh games 7514-7549 (tag s13f) came from one: a die read face-unread lying beside the
mover's dice and taken for the opponent's throw when he lifted (7533), and a die read cocked alone where no throw
had landed (7527)."""

from __future__ import annotations

from dataclasses import replace

from referee.judge import _moved
from referee.tracker import board_of
from rules.notation import parse_play
from rules.position import Side
from rules.record import Move
from tests.referee.half_read import P1, calls, opened, run, sure
from tests.referee.scenes import B_SPOTS, W_SPOTS, die
from vision.geometry import Area
from vision.observation import DieReading


def phantom(area: Area, xy: tuple[float, float]) -> DieReading:
    """A mark read as a die, face unread (7533 s13f frame 3038: (None, 0.9) between Black's home checkers)."""
    return replace(die(1, area, xy), face=None, face_confidence=0.9, cocked=None, cocked_confidence=0.5)


def test_a_die_lying_beside_the_movers_dice_before_his_lift_is_not_the_next_throw() -> None:
    """7533 s13f frames 3038-3095: Black's 2-3 lay in his table; a gap between his home checkers, in White's
    table, was read as a third die, face unread (3038).  Black lifted after an illegal play (3052, called): the
    "die" still lay there alone, and was taken for White's throw, which ends the time to correct; Black's correction
    (3095) never went on record, and a White play judged later against that stale board was called illegal.  A die
    that lay beside the mover's dice before his lift and lies there alone, face unread, after it is left lying:
    the correction goes on record, and White's next throw (two dice landing) is his.  A die that lands only at the
    lift (not seen before it) is still the next throw, as before."""
    black = (sure(6, Area.LEFT_TABLE, B_SPOTS[0]), sure(4, Area.LEFT_TABLE, B_SPOTS[1]))
    bad = _moved(P1.with_turn(Side.BLACK), Side.BLACK, [(24, 18), (13, 8)])  # a 6-5 played with 6-4
    assert bad is not None
    good = parse_play("24/18 13/9", P1, (6, 4)).after
    mark = phantom(Area.RIGHT_TABLE, (230.0, 330.0))
    white = (sure(2, Area.RIGHT_TABLE, W_SPOTS[0]), sure(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    w_play = parse_play("13/11 6/5", good, (2, 1)).after
    s = opened().show(P1, black).show(bad, black).show(bad, (*black, mark))  # the mark seen beside Black's dice
    s.show(bad, (mark,))  # Black lifts: called
    s.show(good, (mark,))  # ... and corrects
    s.show(good, (mark, *white)).show(w_play, (mark, *white)).show(w_play, (mark,))
    ses = run(s)
    assert calls(ses) == [("illegal-play", Side.BLACK)]
    moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert [m.play for m in moves[-2:]] == ["24/18 13/9", "13/11 6/5"], moves
    assert board_of(ses.machine.position) == board_of(w_play)
    # two such marks (7400 s12r frame 983: one in each table, one read cocked at 0.994): both left lying
    mark2 = replace(phantom(Area.LEFT_TABLE, (599.0, 407.0)), cocked=True, cocked_confidence=0.994)
    s = opened().show(P1, black).show(bad, black).show(bad, (*black, mark, mark2))
    s.show(bad, (mark, mark2)).show(good, (mark, mark2))
    s.show(good, (mark, mark2, *white)).show(w_play, (mark, mark2, *white)).show(w_play, (mark, mark2))
    ses = run(s)
    assert calls(ses) == [("illegal-play", Side.BLACK)]
    moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
    assert [m.play for m in moves[-2:]] == ["24/18 13/9", "13/11 6/5"], moves
    # not seen before the lift: the die landing with it is White's throw (one die of it read): the time to correct
    # ends, the correction is no longer on record
    s = opened().show(P1, black).show(bad, black).show(bad, (mark,)).show(good, (mark,))
    moves = [a for a in run(s).machine.match_record().games[0].actions if isinstance(a, Move)]
    assert moves[-1].play != "24/18 13/9", moves


def test_a_die_read_cocked_alone_is_neither_called_nor_taken_for_a_throw() -> None:
    """7527 s13f frame 2355: with Black to throw, a speckle of the board's print beside the bar was read as a die,
    cocked at 0.998, its face dropped, no other die in sight: called "dice-cocked" on Black, who had not thrown.  A
    die read cocked alone is left lying (neither called nor a throw): Black's real throw that follows is his, and
    his play is judged as usual.  The same cocked die with the other die of the throw in sight is called, as before."""
    black = (sure(6, Area.LEFT_TABLE, B_SPOTS[0]), sure(4, Area.LEFT_TABLE, B_SPOTS[1]))
    p2 = parse_play("24/18 13/9", P1, (6, 4)).after
    speck = replace(die(4, Area.LEFT_TABLE, (425.0, 294.0), cocked=True), face=None, face_confidence=0.996,
                    cocked_confidence=0.998)
    for cocked in (0.998, 0.974):  # (called at 0.998; at 0.974, 7533 s13f frame 640, taken for Black's throw)
        mark = replace(speck, cocked_confidence=cocked)
        s = opened().show(P1, (mark,)).show(P1, (mark, *black)).show(p2, (mark, *black)).show(p2, (mark,))
        ses = run(s)
        assert calls(ses) == [], (cocked, calls(ses))
        moves = [a for a in ses.machine.match_record().games[0].actions if isinstance(a, Move)]
        assert moves[-1].player is Side.BLACK and moves[-1].play == "24/18 13/9", (cocked, moves)
    # a throw of two dice, one read cocked: void, called
    s = opened().show(P1, (speck, black[1])).show(P1)
    assert calls(run(s)) == [("dice-cocked", Side.BLACK)]


def test_a_die_read_face_unread_in_a_tray_is_no_die() -> None:
    """7533 s13f frame 452: White's play held (unsure which legal play), a mark in the tray read as a die, face
    unread, was taken for Black's throw: it released the held play unsure, and the turn stayed unsettled (a wrong
    double after it was only asked).  On s12f and s13f every die read face-unread in a tray or off the board (184
    die-frames) was such a mark.  It is no die: Black's throw that follows is judged as usual (here his throw in
    White's table, called).  A die whose face is read there is still a die."""
    black = (sure(6, Area.LEFT_TABLE, B_SPOTS[0]), sure(4, Area.LEFT_TABLE, B_SPOTS[1]))
    p2 = parse_play("24/18 13/9", P1, (6, 4)).after
    white = (sure(2, Area.RIGHT_TABLE, W_SPOTS[0]), sure(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    p3 = parse_play("13/11 6/5", p2, (2, 1)).after
    wrong = (sure(5, Area.RIGHT_TABLE, (230.0, 330.0)), sure(3, Area.RIGHT_TABLE, (260.0, 360.0)))
    for face, called in ((None, True), (3, False)):
        mark = replace(phantom(Area.TRAY, (76.0, 92.0)), face=face, face_confidence=0.976)
        s = opened().show(P1, black).show(p2, black).show(p2).show(p2, white).show(p3, white).show(p3)
        s.show(p3, (mark,)).show(p3).show(p3, wrong).show(p3)  # the mark, then Black's 5-3 in White's table
        assert calls(run(s)) == ([("dice-wrong-table", Side.BLACK)] if called else []), (face, calls(run(s)))


def test_a_mark_left_lying_is_no_throw_after_the_next_throw_started() -> None:
    """7400 s12r (327, 363) mm: a mark of the board read as a die, face unread, lay beside Black's dice during his
    play (frame 838) and was left lying at his lift (879); White's throw landed beside it (942) and the mark was
    forgotten (``stale_xy`` is cleared when a throw starts); it was not read during White's play, and read alone once
    he lifted (1238): taken for Black's throw, so Black's real throw that followed, a face unread, was taken for a
    throw by White thrown early ("please check"), and Black's play and White's next never went on record.  A "die"
    left lying, face unread, that still lies there when the next throw lands is a mark for the rest of the game."""
    black = (sure(6, Area.LEFT_TABLE, B_SPOTS[0]), sure(4, Area.LEFT_TABLE, B_SPOTS[1]))
    p2 = parse_play("24/18 13/9", P1, (6, 4)).after
    white = (sure(2, Area.RIGHT_TABLE, W_SPOTS[0]), sure(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    p3 = parse_play("13/11 6/5", p2, (2, 1)).after
    unread = replace(phantom(Area.LEFT_TABLE, (600.0, 250.0)), face_confidence=0.6, cocked=False, cocked_confidence=0.999)
    black2 = (sure(6, Area.LEFT_TABLE, (520.0, 300.0)), unread)  # Black's 6-5, the 5 unread
    p4 = parse_play("13/7 13/8", p3, (6, 5)).after
    white2 = (sure(3, Area.RIGHT_TABLE, W_SPOTS[0]), sure(1, Area.RIGHT_TABLE, W_SPOTS[1]))
    p5 = parse_play("8/5 6/5", p4, (3, 1)).after
    mark = replace(phantom(Area.RIGHT_TABLE, (327.0, 363.0)), face_confidence=0.93)
    s = opened().show(P1, black).show(P1, (*black, mark)).show(p2, (*black, mark)).show(p2, (mark,))
    s.show(p2, (mark, *white))  # White's throw lands beside the mark left lying
    s.show(p3, white).show(p3, (mark,))  # played (the mark unread meanwhile), lifted: the mark alone in sight
    s.show(p3, (mark, *black2)).show(p4, (mark, *black2)).show(p4, (mark,))
    s.show(p4, (mark, *white2)).show(p5, (mark, *white2)).show(p5, (mark,))
    ses = run(s)
    assert calls(ses) == [] and ses.stats.checks == 0, (calls(ses), ses.stats.checks)
    moves = [(m.player, m.play) for m in ses.machine.match_record().games[0].actions if isinstance(m, Move)]
    assert moves[-3:] == [(Side.WHITE, "13/11 6/5"), (Side.BLACK, "13/8 13/7"), (Side.WHITE, "8/5 6/5")], moves
