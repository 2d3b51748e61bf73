"""Game videos: a legal game's frames, scripted infractions, truth consistent with the rules core."""

from __future__ import annotations

import json
from dataclasses import replace

import cv2
import pytest

from rules.laws.machine import partial_afters
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
        assert any(e.startswith(f"infraction {kind} ") for e in events), kind
    cocked = [d for t in staged for d in t["dice"] if d["cocked"] and t["still"]]
    assert cocked, "a cocked die at rest is in the truth"
    # a premature throw shows four dice at once
    assert max(len(t["dice"]) for t in staged) == 4


def test_illegal_play_frames_show_an_illegal_board(staged: list[dict]) -> None:
    for i, t in enumerate(staged):
        if any(e.startswith("infraction illegal_wrong_colour") for e in t["events"]):
            prev = next(s for s in reversed(staged[:i]) if any(e.startswith("dice_settled") for e in s["events"]))
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
        # a board that can exist (never two colours on a point): the laws judge it, not "please check"
        assert bad.is_valid(), (kind, bad.text())
        # the laws call a die left unplayed an incomplete play; every other kind is no partial play
        assert ((bad.white, bad.black) in partial_afters(plays)) is (kind == "illegal_one_die"), (kind, trial)
        if kind == "illegal_blocked":  # several dice with one checker, jumping a held point
            mine = [m for m in diff_moves(pos, bad) if m[0] is pos.turn]
            assert len(mine) == 1
            dist = abs(int(mine[0][1][1:]) - int(mine[0][2][1:]))
            assert dist == dice.d1 + dice.d2 or (dice.is_double and dist in (3 * dice.d1, 4 * dice.d1))
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


def test_seeded_infractions_are_listed_with_their_law_code() -> None:
    script = replace(GameScript.parse(["cocked_die@1", "illegal_wrong_distance@2", "lifted_early@3",
                                       "premature_throw@3", "wrong_double@4"], max_turns=6), double_p=0.0)
    d = GameDirector(5, script=script, cfg=SimConfig.clean(), timing=FAST, pixels=False)
    frames = [truth for _, truth in d.frames()]
    kinds = {s.kind: s for s in d.seeded}
    assert set(kinds) == {"cocked_die", "illegal_wrong_distance", "lifted_early", "premature_throw", "wrong_double"}
    assert kinds["illegal_wrong_distance"].code == "illegal-play"
    assert kinds["lifted_early"].code == "incomplete-play"
    assert kinds["premature_throw"].code == "premature-throw"
    assert kinds["wrong_double"].code in ("cube-wrong-value", "double-cube-not-owned")
    cocked = kinds["cocked_die"]
    assert cocked.code == "dice-on-die" if cocked.detail == "die_top" else \
        cocked.code in ("dice-cocked", "dice-on-bar", "dice-wrong-table", "dice-off-board")
    assert len(d.record) == d.turn_no and all(m.notation is not None for m in d.record)
    for s in d.seeded:  # announced on the frame where it happened
        assert any(e.startswith(f"infraction {s.kind} {s.side.name}") for e in frames[s.seq]["events"])


def _plays_and_lifts(frames: list[dict]) -> list[str]:
    return [e for t in frames for e in t["events"] if e.split()[0] in ("play", "dice_lifted", "infraction",
                                                                        "correction", "dice_thrown")]


def test_an_illegal_play_is_lifted_then_corrected() -> None:
    script = replace(GameScript.parse(["illegal_wrong_colour@2"], max_turns=4), double_p=0.0)
    d = GameDirector(3, script=script, cfg=SimConfig.clean(), timing=FAST, pixels=False)
    frames = [truth for _, truth in d.frames()]
    ev = _plays_and_lifts(frames)
    i = next(k for k, e in enumerate(ev) if e.startswith("infraction illegal_wrong_colour"))
    side = ev[i].split()[2]
    # the play is completed (dice lifted) while illegal, then corrected before anything else happens
    assert ev[i + 1] == f"dice_lifted {side}" and ev[i + 2] == "correction" and ev[i + 3].startswith(f"play {side}")
    lifted = next(k for k, t in enumerate(frames) if f"dice_lifted {side}" in t["events"] and k > d.seeded[0].seq)
    still_after = [t for t in frames[lifted:] if t["still"]]
    assert still_after and still_after[0]["game"]["position_id"] != frames[-1]["game"]["position_id"]


@pytest.mark.parametrize("premature", ["stands", "void"])
def test_premature_throw_follows_the_code(premature: str) -> None:
    script = replace(GameScript.parse(["premature_throw@2"], max_turns=4), double_p=0.0, premature=premature)
    d = GameDirector(4, script=script, cfg=SimConfig.clean(), timing=FAST, pixels=False)
    frames = [truth for _, truth in d.frames()]
    ev = _plays_and_lifts(frames)
    i = next(k for k, e in enumerate(ev) if e.startswith("infraction premature_throw"))
    early = ev[i].split()[2]
    mover = "WHITE" if early == "BLACK" else "BLACK"
    assert ev[i + 1] == f"dice_thrown {early}" and ev[i + 2] == f"dice_lifted {mover}"
    if premature == "stands":  # the early dice are played: no new throw before his play
        assert ev[i + 3].startswith(f"play {early}")
    else:  # picked up, thrown again
        assert ev[i + 3] == f"dice_lifted {early}" and ev[i + 4] == f"dice_thrown {early}"


def _cube(t: dict) -> dict | None:
    return None if t["cube"] is None else {k: v for k, v in t["cube"].items() if k != "image_box"}


def test_truth_without_pixels_is_the_rendered_truth() -> None:
    script = replace(GameScript.parse(["cocked_die@1", "illegal_one_die@1"], max_turns=2), double_p=0.0)
    a = GameDirector(9, script=script, cfg=SimConfig.clean(), width=160, height=90, timing=FAST)
    b = GameDirector(9, script=script, cfg=SimConfig.clean(), width=160, height=90, timing=FAST, pixels=False)
    fa = [t for _, t in a.frames()]
    fb = [t for _, t in b.frames()]
    assert len(fa) == len(fb) > 100
    for x, y in zip(fa, fb, strict=True):
        assert (x["counts"], x["still"], x["events"], x["game"], _cube(x)) == \
            (y["counts"], y["still"], y["events"], y["game"], _cube(y))
        assert [(d["face"], d["cocked"], d["area"], d["center_mm"]) for d in x["dice"]] == \
            [(d["face"], d["cocked"], d["area"], d["center_mm"]) for d in y["dice"]]
        if x["still"]:
            assert not x["hands"]["covered"]  # no hand is on a still scene: the oracle reads the same
