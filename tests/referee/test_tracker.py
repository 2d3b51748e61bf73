from __future__ import annotations

import json

from referee.tracker import Phase, Tracker, TrackerState, Verdict, board_of, position_of, reconcile
from rules.laws.events import (
    CubeOffered,
    CubeTaken,
    DiceLifted,
    DiceThrown,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
    Rest,
)
from rules.moves import legal_plays
from rules.notation import parse_play
from rules.position import Position, Side
from tests.referee.scenes import B_SPOTS, W_SPOTS, Script, cube, die, thrown
from vision.geometry import Area
from vision.observation import CubePosition

START = Position.initial()


def run(script: Script, tracker: Tracker | None = None) -> tuple[Tracker, list]:
    tr = tracker or Tracker()
    out = []
    for obs in script:
        out += tr.feed(obs)
    return tr, out


def kinds(emitted: list) -> list[str]:
    return [type(e.event).__name__ for e in emitted]


def after(pos: Position, dice: tuple[int, int], text: str) -> Position:
    return parse_play(text, pos, dice).after


def opening(script: Script) -> Script:
    script.show(START)
    script.show(START, (die(5, Area.RIGHT_TABLE, W_SPOTS[0]), die(3, Area.LEFT_TABLE, B_SPOTS[0])))
    return script


def test_setup_opening_play_and_lift() -> None:
    s = opening(Script())
    opening_dice = s.out[-1].dice
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, opening_dice)
    s.show(p1)  # dice lifted
    tr, out = run(s)
    assert kinds(out) == ["GameSetUp", "OpeningDieThrown", "OpeningDieThrown", "PositionObserved", "DiceLifted"]
    assert isinstance(out[0].event, GameSetUp) and out[0].event.position == START
    od = [e.event for e in out if isinstance(e.event, OpeningDieThrown)]
    assert {(o.player, o.die.value) for o in od} == {(Side.WHITE, 5), (Side.BLACK, 3)}
    po = out[3].event
    assert isinstance(po, PositionObserved) and board_of(po.position) == board_of(p1)
    assert set(out[3].points) == {3, 6, 8}
    assert isinstance(out[4].event, DiceLifted) and out[4].event.player is Side.WHITE
    assert tr.state.turn is Side.BLACK and tr.state.phase is Phase.TO_THROW


def test_throw_where_and_cocked_then_rethrow() -> None:
    s = opening(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, s.out[-1].dice).show(p1)
    # black throws, one die cocked -> void throw; picked up; thrown again properly
    s.show(p1, (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1], cocked=True)))
    s.show(p1)
    s.show(p1, thrown(Side.BLACK, 6, 4))
    tr, out = run(s)
    throws = [e.event for e in out if isinstance(e.event, DiceThrown)]
    assert len(throws) == 2
    assert throws[0].player is Side.BLACK and throws[0].dice[1].flat is False
    assert throws[0].dice[0].rest is Rest.RIGHT_TABLE  # LEFT_TABLE seen from the near seat = black's right
    assert throws[1].values == (6, 4) and all(d.flat for d in throws[1].dice)
    assert tr.state.phase is Phase.PLAYING and tr.state.dice == (6, 4)


def test_wrong_table_is_reported_seen_from_the_thrower() -> None:
    s = opening(Script())
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, s.out[-1].dice).show(p1)
    s.show(p1, (die(6, Area.RIGHT_TABLE, W_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1])))
    _, out = run(s)
    throw = next(e.event for e in out if isinstance(e.event, DiceThrown))
    assert [d.rest for d in throw.dice] == [Rest.LEFT_TABLE, Rest.RIGHT_TABLE]


def test_premature_throw_then_the_early_dice_are_played() -> None:
    s = opening(Script())
    od = s.out[-1].dice
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, od)
    early = (die(2, Area.LEFT_TABLE, (600.0, 120.0)), die(1, Area.LEFT_TABLE, (640.0, 130.0)))
    s.show(p1, od + early)  # black throws while white's dice are still down
    s.show(p1, early)  # white lifts
    tr, out = run(s)
    assert kinds(out)[-2:] == ["DiceThrown", "DiceLifted"]
    early = out[-2].event
    assert isinstance(early, DiceThrown) and early.player is Side.BLACK
    assert tr.state.turn is Side.BLACK and tr.state.phase is Phase.PLAYING and tr.state.dice == (2, 1)


def test_unsure_reading_resolves_to_a_legal_play_and_is_marked() -> None:
    s = opening(Script())
    od = s.out[-1].dice
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, od, unsure_points=(3,))
    s.show(p1, unsure_points=(3,))
    _, out = run(s)
    po = [e for e in out if isinstance(e.event, PositionObserved)]
    assert len(po) == 1 and po[0].unsure and not po[0].event.uncertain
    assert board_of(po[0].event.position) == board_of(p1)
    assert po[0].points == (3,)


def test_confident_illegal_reading_is_passed_on_unchanged() -> None:
    s = opening(Script())
    od = s.out[-1].dice
    bad = after(START, (5, 3), "8/3 6/3")
    bad = Position.from_points({24: 2, 13: 5, 8: 1, 7: 1, 6: 4, 3: 2}, {24: 2, 13: 5, 8: 3, 6: 5})
    s.show(bad, od).show(bad)
    _, out = run(s)
    po = [e for e in out if isinstance(e.event, PositionObserved)]
    assert len(po) == 1 and not po[0].unsure and board_of(po[0].event.position) == board_of(bad)
    rec = reconcile(START, (5, 3), board_of(bad), [1.0] * 27)
    assert rec.verdict is Verdict.EXACT and rec.play is None


def test_reconcile_never_overrides_confident_regions() -> None:
    p1 = after(START, (5, 3), "8/3 6/3")
    conf = [1.0] * 27
    conf[2] = 0.3  # point 3 unsure
    board = list(board_of(p1))
    board[2] = (1, 0)  # misread as a single checker
    rec = reconcile(START, (5, 3), tuple(board), conf)
    assert rec.verdict is Verdict.RESOLVED and rec.play is not None and rec.play.notation() == "8/3 6/3"
    # a confident region that no legal play explains: unclear, never an accusation
    board[23] = (0, 0)
    board[22] = (2, 0)
    rec = reconcile(START, (5, 3), tuple(board), conf)
    assert rec.verdict is Verdict.UNCLEAR and rec.board == tuple(board)  # the reading as it is
    assert rec.play is not None and rec.play.notation() == "8/3 6/3"  # the nearest legal play, beside it


def test_cube_offer_and_take() -> None:
    s = opening(Script())
    od = s.out[-1].dice
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, od).show(p1)
    s.cube = cube(2, CubePosition.MIDDLE)
    s.show(p1)
    s.cube = cube(2, CubePosition.WHITE_SIDE)
    s.show(p1)
    _, out = run(s)
    assert kinds(out)[-2:] == ["CubeOffered", "CubeTaken"]
    assert out[-2].event == CubeOffered(Side.BLACK, 2, t=out[-2].event.t)
    assert isinstance(out[-1].event, CubeTaken) and out[-1].event.player is Side.WHITE


def test_move_without_throw_and_hands_are_ignored() -> None:
    s = opening(Script())
    od = s.out[-1].dice
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, od).show(p1)
    p2 = after(p1, (6, 5), "24/13")
    s.show(p2)
    _, out = run(s)
    assert kinds(out)[-1] == "PositionObserved"
    assert set(out[-1].points) == {1, 12}  # black's 24 and 13 are white's 1 and 12


def test_state_round_trips_through_json_and_resumes_identically() -> None:
    s = opening(Script())
    od = s.out[-1].dice
    p1 = after(START, (5, 3), "8/3 6/3")
    s.show(p1, od).show(p1).show(p1, thrown(Side.BLACK, 6, 4))
    p2 = after(p1, (6, 4), "24/14")
    s.show(p2, thrown(Side.BLACK, 6, 4)).show(p2)
    stream = list(s)
    fresh = Tracker()
    whole = [e for o in stream for e in fresh.feed(o)]
    assert len(whole) >= 8
    for cut in range(1, len(stream)):
        a = Tracker()
        first = [e for o in stream[:cut] for e in a.feed(o)]
        restored = Tracker(state=TrackerState.from_json(json.loads(json.dumps(a.state.to_json()))))
        assert restored.state == a.state
        rest = [e for o in stream for e in restored.feed(o)]  # frames already seen are skipped
        assert first + rest == whole


def test_position_helpers_round_trip() -> None:
    p = after(START, (5, 3), "8/3 6/3")
    assert position_of(board_of(p), Side.BLACK) == p.with_turn(Side.BLACK)
    assert len(legal_plays(START, (5, 3))) > 1
