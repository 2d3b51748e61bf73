"""Game videos: a legal game's frames, scripted infractions, truth consistent with the rules core."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import pytest

from rules.position import Position, Side
from vision.sim.config import SimConfig
from vision.sim.game import (
    INFRACTIONS,
    GameDirector,
    GameScript,
    GameScriptError,
    Timing,
    diff_moves,
    make_illegal,
    render_game,
)

FAST = Timing(reach=2, carry=2, place=1, retreat=2, throw=4, settle=4, lift=2, think=1, cube=4, illegal_hold=4)


def _counts_of(pos: Position) -> list[list[int]]:
    return [[pos.white[p], pos.black[25 - p]] for p in range(1, 25)]


def _run(seed: int, items: list[str], turns: int) -> list[dict]:
    script = replace(GameScript.parse(items, max_turns=turns), double_p=0.0)
    d = GameDirector(seed, script=script, cfg=SimConfig.clean(),
                     width=400, height=300, timing=FAST)
    return [truth for _, truth in d.frames()]


@pytest.fixture(scope="module")
def staged() -> list[dict]:
    items = ["cocked_die@1", "outside_table@2", "illegal_wrong_colour@3", "lifted_early@3",
             "premature_throw@4", "wrong_double@5", "illegal_one_die@5"]
    return _run(7, items, 7)


def test_positions_in_truth_follow_the_rules_core(staged: list[dict]) -> None:
    plays = [t for t in staged if any(e.startswith("play ") for e in t["events"])]
    assert len(plays) >= 6
    for t in plays:
        pos = Position.from_gnubg_id(t["game"]["position_id"], Side[t["game"]["on_roll"]])
        assert t["counts"]["points"] == _counts_of(pos)
        assert t["counts"]["tray_w"] == pos.white[0]
    assert [t["seq"] for t in staged] == list(range(len(staged)))


def test_every_staged_infraction_happens(staged: list[dict]) -> None:
    events = [e for t in staged for e in t["events"]]
    for kind in ("cocked_die", "outside_table", "illegal_wrong_colour", "lifted_early", "premature_throw",
                 "wrong_double", "illegal_one_die"):
        assert f"infraction {kind}" in events, kind
    cocked = [d for t in staged for d in t["dice"] if d["cocked"] and t["still"]]
    assert cocked, "a cocked die at rest is in the truth"
    # a premature throw shows four dice at once
    assert max(len(t["dice"]) for t in staged) == 4


def test_illegal_play_frames_show_an_illegal_board(staged: list[dict]) -> None:
    for i, t in enumerate(staged):
        if "infraction illegal_wrong_colour" in t["events"]:
            prev = next(s for s in reversed(staged[:i]) if s["dice"])
            before = Position.from_gnubg_id(prev["game"]["position_id"], Side[prev["game"]["on_roll"]])
            assert t["counts"]["points"] != _counts_of(before)
            break
    else:
        pytest.fail("no illegal play frame")


@pytest.mark.parametrize("kind", [k for k in INFRACTIONS if k.startswith("illegal_")])
def test_make_illegal_is_never_legal(kind: str) -> None:
    import random

    from rules.dice import Dice
    from rules.moves import legal_plays

    rng = random.Random(1)
    made = 0
    for trial in range(60):
        pos = Position.initial()
        for _ in range(rng.randint(0, 30)):  # wander into a random position
            d = Dice(rng.randint(1, 6), rng.randint(1, 6))
            pos = rng.choice(list(legal_plays(pos, d))).after
            if pos.winner() is not None:
                break
        if pos.winner() is not None:
            continue
        dice = Dice(rng.randint(1, 6), rng.randint(1, 6))
        plays = legal_plays(pos, dice)
        bad = make_illegal(kind, pos, dice, plays, rng)
        if bad is None:
            continue
        made += 1
        assert plays.find(bad.with_turn(pos.turn.opponent)) is None, (kind, trial)
        assert diff_moves(pos, bad)
    assert made > 0 or kind in ("illegal_bar", "illegal_hit_not_to_bar", "illegal_bear_off")


def test_script_errors_quote_input() -> None:
    with pytest.raises(GameScriptError, match="nonsense@3"):
        GameScript.parse(["nonsense@3"])
    with pytest.raises(GameScriptError, match="x"):
        GameScript.parse(["cocked_die@x"])


def test_render_game_writes_video_and_truth(tmp_path) -> None:
    res = render_game(3, tmp_path, cfg=SimConfig.clean(), width=320, height=240, max_frames=12,
                      script=GameScript(max_turns=2), codec="MJPG")
    cap = cv2.VideoCapture(str(res.video))
    n = 0
    while cap.read()[0]:
        n += 1
    cap.release()
    lines = res.truth.read_text().splitlines()
    assert n == res.frames == len(lines) == 12
    assert json.loads(lines[-1])["seq"] == 11
