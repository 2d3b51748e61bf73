"""Game stills for the pose model (``vision.training.pose.render_game_stills``): cocked dice where a played
game leaves them, and flat throws beside a game's checkers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest


def test_render_game_stills_saves_the_staged_cocked_die_still_and_without_hands(tmp_path: Path) -> None:
    """A training game seed stages a cocked die from its second turn: the saved stills hold it (cocked, leaning
    on what ``vision.sim.game`` drew), each a still frame without hands, image beside truth; a flat throw is
    saved too when every flat throw is asked for."""
    from vision.training.pose import frames, render_game_stills

    n = render_game_stills(21000, tmp_path, flat_every=1, turns=3)
    got = frames(tmp_path, range(21000, 21001))
    assert n == len(got) >= 2
    cocked = [d for _, _, t in got for d in t["dice"] if d["cocked"]]
    assert cocked and all(d["leaning_on"] in ("checker", "rail", "bar", "die", "die_top") for d in cocked)
    assert any(all(not d["cocked"] for d in t["dice"]) and len(t["dice"]) == 2 for _, _, t in got)
    for _, png, t in got:
        assert t["still"] and not t["hands"]["present"] and png.is_file()
        assert json.loads(png.with_suffix(".json").read_text())["seq"] == int(png.stem.split("_")[1])


def test_render_game_stills_refuses_a_bad_flat_every(tmp_path: Path) -> None:
    from vision.training.pose import render_game_stills

    with pytest.raises(ValueError, match="flat_every"):
        render_game_stills(21000, tmp_path, flat_every=0)


def test_training_sources_add_the_game_stills_and_refuse_seeds_or_stills_that_are_not_there(tmp_path: Path,
                                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``--games`` adds the game stills' folder ``games_repeat`` times; a seed outside the training game seeds, or
    a range with no still rendered, is refused naming it (before, training ran without them silently)."""
    import vision.training.pose as tp

    monkeypatch.setattr(tp, "pose_games_dir", lambda: tmp_path)
    with pytest.raises(ValueError, match="7514-7515"):
        tp.training_sources(games=range(7514, 7516))
    with pytest.raises(ValueError, match="render-games 21000-21001"):
        tp.training_sources(games=range(21000, 21002))
    (tmp_path / "21001_300.json").write_text(json.dumps({"dice": []}))
    (tmp_path / "21001_300.png").write_bytes(b"")
    src = tp.training_sources(games=range(21000, 21002), games_repeat=3)
    assert src[-3:] == [(tmp_path, range(21000, 21002))] * 3 and len(src) == 7
    assert tp.training_sources() == src[:4]


def test_training_sources_add_the_game_lean_renders_as_a_source_of_their_own(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """``--lean`` adds the 1280x720 pose renders of those game-lean seeds after the four render sources (so the
    cached samples of ``--pose-seeds`` stay valid); a range outside 32000-32999, or one with no render, is refused
    naming it."""
    import vision.training.pose as tp

    monkeypatch.setattr(tp, "pose_dir", lambda w=1280, h=720: tmp_path / f"{w}x{h}")
    with pytest.raises(ValueError, match="--lean 31000-31001"):
        tp.training_sources(lean=range(31000, 31002))
    with pytest.raises(ValueError, match="render 32000 2 N"):
        tp.training_sources(lean=range(32000, 32002))
    (tmp_path / "1280x720").mkdir()
    (tmp_path / "1280x720" / "32001_0.json").write_text(json.dumps({"dice": []}))
    (tmp_path / "1280x720" / "32001_0.png").write_bytes(b"")
    src = tp.training_sources(pose_seeds=range(30000, 31090), lean=range(32000, 32002))
    assert len(src) == 5 and src[-1] == (tmp_path / "1280x720", range(32000, 32002))
    assert src[:4] == tp.training_sources(pose_seeds=range(30000, 31090))


def test_training_with_game_stills_trains_on_the_renders_samples_and_the_game_stills_samples(tmp_path: Path,
                                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The renders' samples are drawn on their own (their cached samples stay valid) and the game stills' are
    added: the trained head saw both (the log's sample count is their sum, the record's frames too)."""
    pytest.importorskip("torch")
    pytest.importorskip("onnx")
    import numpy as np

    import vision.training.pose as tp
    from tests.vision.test_pose_training import _tiny_pose_data
    from vision.dice.pose import DIE_POSE_MODEL

    renders = [(tmp_path / f"r{i}", range(30000, 30100)) for i in range(4)]
    stills = [(tmp_path / "games", range(21000, 21030))] * 2
    monkeypatch.setattr(tp, "training_sources",
                        lambda pose_seeds=None, games=None, games_repeat=1, lean=None: renders + (stills if games is not None else []))
    seen: list[int] = []

    def samples(sources: list[tuple[Path, range]], **k: object) -> dict[str, np.ndarray]:
        seen.append(len(sources))
        return _tiny_pose_data(60 if sources == renders else 24)

    monkeypatch.setattr(tp, "pose_samples", samples)
    lines: list[str] = []
    rec = tp.train(tmp_path / "ft.onnx", epochs=1, base=DIE_POSE_MODEL, lr=1e-4, log=lines.append,
                   games=range(21000, 21030), games_repeat=2)
    assert seen == [4, 2] and rec["frames"] == 84
    got = next(ln for ln in lines if ln.startswith("pose samples"))
    counts = {int(k): int(v) for k, v in (p.split(":") for p in got.split("{")[1].split("}")[0].split(","))}
    assert sum(counts.values()) == 84


def test_a_frame_drawn_again_reuses_the_die_stages_centres(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``games_repeat`` draws a game still several times: the die stage runs once per frame (session 14's first
    fine-tune with 4 repeats ran it 4 times over 360 stills), each draw jitters its own patches."""
    import random

    import cv2

    import vision.training.pose as tp

    img, _, truth = tp.pose_frame(904000, 0)
    png = tmp_path / "904000_0.png"
    cv2.imwrite(str(png), img)
    calls: list[int] = []
    real = tp.found_centres

    def counted(*a: object) -> list[tuple[float, float] | None]:
        calls.append(1)
        return real(*a)  # type: ignore[arg-type]

    monkeypatch.setattr(tp, "found_centres", counted)
    monkeypatch.setattr(tp, "_FOUND", {})
    rng = random.Random(3)
    a, ya, _ = tp.frame_samples(png, truth, rng, (2, 4, 6), 2.0)
    b, yb, _ = tp.frame_samples(png, truth, rng, (2, 4, 6), 2.0)
    assert len(calls) == 1 and ya == yb and len(a) == len(b) > 0
    assert any((p.planes != q.planes).any() for p, q in zip(a, b, strict=True))


def test_game_seed_ranges_that_are_not_first_last_are_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    """``render-games SEEDS`` and ``train --games`` take FIRST-LAST with FIRST <= LAST (``stacks.seed_range``): a
    reversed range (which rendered nothing, silently) or a word is refused by argparse, naming the argument."""
    from vision.training.pose import main

    for argv, arg in ((["render-games", "21001-21000"], "argument seeds"), (["train", "--games", "x"], "argument --games")):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        err = capsys.readouterr().err.strip().splitlines()[-1]
        assert arg in err and "invalid seed_range value" in err, err
