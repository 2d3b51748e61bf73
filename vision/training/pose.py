"""The die-pose model (:mod:`vision.dice.pose`): renders rich in cocked dice, training and evaluation.

``python -m vision.training.pose render FIRST COUNT N [--size WxH]``
    N positions on the board/camera/light of each scene FIRST..FIRST+COUNT-1 into
    ``<cache>/dice_pose/v2/<W>x<H>/SEED_I.png`` (+ truth JSON).  Each frame holds two pairs of dice, one
    in each table; the second die of a pair is flat in the open, flat touching an obstacle (a checker,
    the rail, the bar or the other die: the hard negatives), leaning on one of them at a tilt of up to
    45 degrees, or resting on top of the other die.  Training seeds 30000-39999 (30270-30999: rich in
    small tilts, :data:`LOW_TILT_SEEDS`; 32000-32999: leaning as a played game leans them, two pairs a
    table, :data:`GAME_LEAN_SEEDS`); held-out 901500-901999 and 904000-904479 (the v2 mix).
``python -m vision.training.pose train [--seed 7] [--epochs N] [--out MODEL.onnx] [--copies 2,4,6] [--no-found] [--lean FIRST-LAST]``
    Train on the training seeds of ``dice_pose`` plus the shared cache's dice (``--lean``: plus those
    game-lean renders); validation = seeds % 10 == 0.
    Each die gives ``copies`` patches (flat, cocked, on-die) around its body's, its up face's and (unless
    ``--no-found``, which skips running the die stage) the die stage's found centre, jittered.
``python -m vision.training.pose merge DECIDE.onnx GATE.onnx [--out MODEL.onnx]``
    One two-head model file (:func:`merge_heads`): DECIDE (a 6-plane model from ``train``) makes the
    flat / cocked calls, GATE (the 4-plane v2 model) gives the P(flat) the face check is tuned on.
``python -m vision.training.pose average A.onnx B.onnx --alpha W --out D.onnx``
    A deciding head whose weights are (1 - W) x A's + W x B's (:func:`average_heads`: the committed head
    and its fine-tune).
``python -m vision.training.pose calls --tune-rows A.json [...] --rows B.json [...] [--split]``
    Thresholds tuned (:func:`tune`) on the per-die rows of ``eval --rows`` (seen sets), the calls
    counted at them on other rows: no frame is read again.
``python -m vision.training.pose eval [--first 901500] [--count N] [--size WxH] [--model M] [--tune [--split] [--tune-only]] [--rows R]``
    Flat / cocked / on-die calls of :func:`vision.dice.board.pose_of` on held-out renders, with the
    :class:`vision.dice.config.DiceConfig` thresholds; ``--tune`` also tunes the thresholds on the
    validation slice (training seeds % 10 == 0) and gives the held-out calls at them.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

POSE_RENDERS = "dice_pose"
"""Folder (under the render cache) of the pose renders."""
POSE_TRAIN_SEEDS = range(30_000, 40_000)
POSE_EVAL_SEEDS = range(901_500, 902_000)
POSE_FRESH_SEEDS = range(904_000, 904_560)
"""Fresh held-out pose seeds: 904000-904079 session 10's, 904080-904159 session 11's, 904160-904239
session 12's, 904240-904319 session 13's, 904320-904399 session 14's, 904400-904479 session 15's (seen
since), 904480-904559 session 16's (901500-901999 were all measured by sessions 4-9: seen)."""


def held_out(seed: int) -> bool:
    """A held-out pose seed (never trained on): :data:`POSE_EVAL_SEEDS` or :data:`POSE_FRESH_SEEDS`."""
    return seed in POSE_EVAL_SEEDS or seed in POSE_FRESH_SEEDS


MODES = ("flat", "touch", "checker", "rail", "bar", "die", "die_top")
MODE_P = (0.22, 0.18, 0.14, 0.13, 0.13, 0.11, 0.09)
"""How the second die of a pair lies: flat in the open, flat touching an obstacle, leaning on a
checker / the rail / the bar / the other die, on top of the other die."""
MAX_TILT = 45.0
MIN_TILT = 5.0
LOW_TILT_SEEDS = range(30_270, 31_000)
"""Training seeds rendered rich in small tilts (session 6): the second die of a pair leans more often
(:data:`LOW_TILT_MODE_P`) and a die leaning on a wall (the rail, the bar, the other die) is tilted by
at most :data:`LOW_MAX_TILT` degrees, where the v2 generator's dice (seeds 30000-30269, every held-out
seed) were recalled worst (~5 % at 5-15 degrees, session 5)."""
LOW_TILT_MODE_P = (0.14, 0.18, 0.06, 0.2, 0.2, 0.17, 0.05)
LOW_MAX_TILT = 20.0
GAME_LEAN_SEEDS = range(32_000, 33_000)
"""Training seeds rendered with the game's lean geometry (session 15): a leaning die is placed as a played
game places it (:func:`vision.sim.scene.place_dice`, ``_cocked_die``: 12-35 degrees against a wall, the rail,
the bar or the other die; on a checker's top edge as its height allows), two pairs in each table
(:data:`GAME_LEAN_PAIRS`), most of them with a leaning die (:data:`GAME_LEAN_MODE_P`), the first die of each pair
and the "touch" dice flat beside it.  Session 14 found the v2 mix leans a die on a checker at 25-45 degrees
and the head weakest at the game's 12-30."""
GAME_LEAN_MODE_P = (0.1, 0.14, 0.22, 0.15, 0.15, 0.16, 0.08)
GAME_LEAN_PAIRS = 2
"""Pairs of dice in each table on :data:`GAME_LEAN_SEEDS` (more leaning dice for each frame's render)."""


def pose_dir(width: int = 1280, height: int = 720) -> Path:
    from vision.training.rendered import cache_dir

    return cache_dir() / POSE_RENDERS / "v2" / f"{width}x{height}"


# ---------------------------------------------------------------------------------------------
# scenes


def leaning_die(layout: Any, v: int, rng: random.Random, *, area: Any, style: Any, size: float, checkers: tuple[Any, ...],
                mode: str, other: Any, owner: Any, tilt: float | None, max_tilt: float = MAX_TILT) -> Any:
    """A die with one edge on the surface, its side toward an obstacle (a checker's top edge, the rail,
    the bar or ``other`` die) lifted by ``tilt`` degrees (0: lying flat against the obstacle).  A low
    obstacle (a checker) holds the face up on its top edge at distance L (sin(tilt) = h / L, L between
    0.6 and 1 die edge, the tilt then follows from L); a tall one is a wall the raised edge leans on
    (its tilt drawn between ``MIN_TILT`` and ``max_tilt``, no higher than the wall)."""
    from vision.sim.scene import DiePose, lean_obstacle, orientation_with_up, rot_axis, to_mat3

    rect = layout.table_rect(area)
    mode, contact, toward, h = lean_obstacle(layout, rect, mode, rng, checkers, other)
    L = size
    if tilt is None and mode == "checker":  # held on the checker's top edge at L (sin(tilt) = h / L)
        L = rng.uniform(max(0.6 * size, h / math.sin(math.radians(MAX_TILT))), size)
        tilt = math.degrees(math.asin(min(1.0, h / L)))
    elif tilt is None:  # the raised bottom edge against a wall: no higher than the wall
        tilt = rng.uniform(MIN_TILT, max(MIN_TILT, min(max_tilt, math.degrees(math.asin(min(1.0, h / size))))))
    elif tilt == 0 and mode == "checker":
        L = size + rng.uniform(0, 3)  # flat, its edge against the checker's foot
    axis = np.cross(np.array([0.0, 0.0, 1.0]), toward)
    turn = rng.uniform(-20, 20) if tilt == 0 else 0.0  # a flat die need not be square to the obstacle ...
    yaw = math.degrees(math.atan2(toward[1], toward[0])) + 90.0 * rng.randint(0, 3) + turn
    rot = rot_axis(axis, -tilt) @ orientation_with_up(_axes(), v, yaw)
    t = math.radians(turn)  # ... and then stands off by its turned half-width
    edge = contact - toward * (L * math.cos(math.radians(tilt)) + size / 2 * (abs(math.cos(t)) + abs(math.sin(t)) - 1))
    up_n = rot_axis(axis, -tilt) @ np.array([0.0, 0.0, 1.0])
    along = rot_axis(axis, -tilt) @ toward
    centre = edge + along * (size / 2) + up_n * (size / 2)
    a = size / 2
    low = min(float((rot @ np.array([x, y, z]))[2]) for x in (-a, a) for y in (-a, a) for z in (-a, a))
    centre[2] = -low
    return DiePose(v, size, (float(centre[0]), float(centre[1]), float(centre[2])), to_mat3(rot), style,
                   tilt, mode if tilt > 0 else None, False, owner)


def _axes() -> Any:
    from vision.sim.scene import DIE_AXES

    return DIE_AXES


def pose_dice(layout: Any, rng: random.Random, checkers: tuple[Any, ...], turn: Any, *, low_tilt: bool = False,
              game_lean: bool = False) -> tuple[Any, ...]:
    """Two pairs of dice, one per table (see the module's doc); ``low_tilt``: the mix of
    :data:`LOW_TILT_SEEDS` (:data:`LOW_TILT_MODE_P`, walls leaned on at most :data:`LOW_MAX_TILT`);
    ``game_lean``: the mix of :data:`GAME_LEAN_SEEDS` (:data:`GAME_LEAN_PAIRS` pairs a table, a leaning die
    placed as a game places it)."""
    from vision.geometry import Area
    from vision.sim.scene import DieStyle, place_dice

    if low_tilt and game_lean:
        raise ValueError("pose_dice: low_tilt and game_lean are two different mixes, not one")
    out: list[Any] = []
    right = layout.right_hand_table(turn)
    areas = (right, Area.LEFT_TABLE if right is Area.RIGHT_TABLE else Area.RIGHT_TABLE)
    for area in areas * (GAME_LEAN_PAIRS if game_lean else 1):
        style = rng.choice(list(DieStyle))
        size = rng.uniform(*layout.spec.die_size_mm)
        mode = rng.choices(MODES, GAME_LEAN_MODE_P if game_lean else LOW_TILT_MODE_P if low_tilt else MODE_P)[0]
        first = place_dice(layout, (rng.randint(1, 6),), rng, area=area, style=style, size=size, checkers=checkers,
                           owner=turn, others=tuple(out))[0]
        out.append(first)
        v = rng.randint(1, 6)
        if mode == "flat":
            out.extend(place_dice(layout, (v,), rng, area=area, style=style, size=size, checkers=checkers,
                                  owner=turn, others=tuple(out)))
        elif mode == "die_top" or (game_lean and mode != "touch"):  # the game's own placing of the pair
            out[-1:] = place_dice(layout, (first.value, v), rng, area=area, style=style, size=size, checkers=checkers,
                                  cocked=mode, owner=turn, others=tuple(out[:-1]))
        else:
            kind = rng.choice(("checker", "rail", "bar", "die")) if mode == "touch" else mode
            out.append(leaning_die(layout, v, rng, area=area, style=style, size=size, checkers=checkers, mode=kind,
                                   other=first, owner=turn, tilt=0.0 if mode == "touch" else None,
                                   max_tilt=LOW_MAX_TILT if low_tilt else MAX_TILT))
    return tuple(out)


def pose_scene(base: Any, seed: int, i: int) -> tuple[Any, int]:
    """Position ``i`` on the board of ``base``: checkers, cube, cup and sensor from ``(seed, i)``, the
    dice of :func:`pose_dice`, no hands.  Returns the scene and its sensor-noise seed."""
    from vision.sim.config import SimConfig
    from vision.sim.scene import random_position, sample_objects, sample_post

    cfg = SimConfig()
    rng = random.Random(seed * 1000 + i + 17)
    obj = sample_objects(base.layout, random_position(rng), rng, cfg)
    dice = pose_dice(base.layout, rng, obj.checkers, obj.turn, low_tilt=seed in LOW_TILT_SEEDS,
                     game_lean=seed in GAME_LEAN_SEEDS)
    scene = replace(base, checkers=obj.checkers, dice=dice, cube=obj.cube, cup=obj.cup, hands=(), turn=obj.turn,
                    post=sample_post(cfg, rng))
    return scene, seed * 1000 + i


def pose_frame(seed: int, i: int, width: int = 1280, height: int = 720) -> tuple[np.ndarray, Any, dict[str, Any]]:
    """Pose frame ``seed_i`` rendered in memory, as :func:`render_pose` renders it (no cache): the image, the
    profile of its truth and the truth."""
    from vision.sim.render import Sensor, render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import profile_for

    scene, noise = pose_scene(random_scene(seed, width=width, height=height), seed, i)
    img, info = render(scene, sensor=Sensor(noise))
    truth = build_truth(scene, info)
    return img, profile_for(truth), truth


def render_pose(seed: int, n: int, width: int = 1280, height: int = 720) -> list[Path]:
    """Render ``n`` pose frames on the board of scene ``seed`` (the static board is traced once)."""
    from vision.sim.scene import random_scene
    from vision.training.rendered import render_positions

    if seed not in POSE_TRAIN_SEEDS and not held_out(seed):
        raise ValueError(f"seed {seed} is neither a pose training seed ({POSE_TRAIN_SEEDS}) nor held out ({POSE_EVAL_SEEDS}, {POSE_FRESH_SEEDS})")
    base = random_scene(seed, width=width, height=height)
    return render_positions(pose_dir(width, height), seed, n, lambda i: pose_scene(base, seed, i))


POSE_GAME_SEEDS = range(21_000, 22_000)
"""Training game seeds of :func:`render_game_stills` (game stills of played positions, not pose renders)."""


def pose_games_dir() -> Path:
    """Folder (under the render cache) of the game stills of :func:`render_game_stills`."""
    from vision.training.rendered import cache_dir

    return cache_dir() / POSE_RENDERS / "games" / "1280x720"


def game_script(seed: int, turns: int | None = None) -> Any:
    """The script a game still of ``seed`` is played by: a training seed (:data:`POSE_GAME_SEEDS`) stages
    a cocked die on every turn from the second to the ninth (checker, rail, bar, other die or on top, as
    ``vision.sim.game`` draws them) in 12 turns; any other seed is played as ``referee.recorded`` records
    it (``schedule(2, 1)``, 40 turns), so a seen recording's throws can be looked at again.  ``turns``:
    stop after that many turns instead."""
    from referee.rendered import schedule
    from vision.sim.game import GameScript

    if seed in POSE_GAME_SEEDS:
        return GameScript(schedule(8, 1, kinds=("cocked_die",)), max_turns=turns or 12)
    return GameScript(schedule(2, 1), max_turns=turns or 40)


def render_game_stills(seed: int, out: Path | None = None, *, flat_every: int = 3, turns: int | None = None) -> int:
    """Play game ``seed`` (:func:`game_script`, ``referee.recorded.PACE``, 1280x720) and save one still
    frame without hands of each throw that has a cocked die (its first still frame but one: where the
    reader reads it) and of every ``flat_every``-th throw with every die flat, as ``<seed>_<seq>.png``
    + ``.json`` (the renderer's truth): a die cocked against a checker, the rail, the bar or the other die
    where a played game leaves it, and flat dice beside a game's checkers.  Only the saved frames are
    rasterised.  ``turns``: see :func:`game_script`.  Returns how many were saved."""
    from referee.recorded import PACE
    from vision.sim.config import SimConfig
    from vision.sim.game import GameDirector
    from vision.training.rendered import write_frame

    if flat_every < 1:
        raise ValueError(f"flat_every must be at least 1, not {flat_every}")
    out = out or pose_games_dir()
    out.mkdir(parents=True, exist_ok=True)
    director = GameDirector(seed, script=game_script(seed, turns), cfg=SimConfig(), width=1280, height=720,
                            timing=PACE, pixels=False)
    seen: set[tuple[tuple[float, float], ...]] = set()
    flat_throws = saved = 0
    for img, truth in director.frames():
        drawn, director.pixels = director.pixels, False
        dice = truth["dice"]
        if not truth.get("still") or truth["hands"]["present"] or not dice:
            continue
        key = tuple((round(d["center_mm"][0]), round(d["center_mm"][1])) for d in dice)
        if key in seen:
            continue
        if drawn:
            seen.add(key)
            write_frame(out / f"{seed}_{truth['seq']}.png", out / f"{seed}_{truth['seq']}.json", img, truth)
            saved += 1
            continue
        if any(d["cocked"] for d in dice):
            director.pixels = True
        elif len(dice) == 2:
            seen.add(key)
            flat_throws += 1
            director.pixels = flat_throws % flat_every == 0
            if director.pixels:
                seen.discard(key)
    return saved


def label_of(die: dict[str, Any]) -> int:
    from vision.dice.pose import COCKED, FLAT, ON_DIE

    return ON_DIE if die.get("on_die") else COCKED if die["cocked"] else FLAT


def frames(folder: Path, seeds: range) -> list[tuple[int, Path, dict[str, Any]]]:
    """(seed, image path, truth) of every render in ``folder`` whose seed is in ``seeds``."""
    from vision.training.rendered import frames_in

    return [(r.seed, r.image_path, r.truth) for r in frames_in(folder, seeds, "*.json")]


def pose_centres(die: dict[str, Any], prof: Any, edge: float) -> list[tuple[float, float]]:
    """Where the die stage can put a die's centre: its body's centre, and its up face's centre in the
    image taken back to the board at the search height (what the face-crop refinement centres on)."""
    up = np.asarray(die["image_corners"], np.float64).mean(axis=0, keepdims=True)
    fx, fy = prof.image_to_board(up, z_mm=edge)[0][:2]
    x, y = die["center_mm"][:2]
    return [(float(x), float(y)), (float(fx), float(fy))]


def hidden_under(dice: list[dict[str, Any]]) -> set[int]:
    """Indices of dice with another die resting on top of them (mostly hidden: not a pose sample)."""
    out = set()
    for i, d in enumerate(dice):
        for o in dice:
            if o is not d and o.get("on_die") and math.hypot(o["center_mm"][0] - d["center_mm"][0],
                                                             o["center_mm"][1] - d["center_mm"][1]) < 0.8 * d["size_mm"]:
                out.add(i)
    return out


def found_centres(img: np.ndarray, prof: Any, truth: dict[str, Any]) -> list[tuple[float, float] | None]:
    """Per true die, the centre the die stage (:func:`vision.dice.board.read_dice`) found for it, or None."""
    from vision.config import VisionConfig
    from vision.dice.board import read_dice
    from vision.dice.classify import FaceClassifier
    from vision.dice.evaluate import match

    global _FACES
    if _FACES is None:
        _FACES = FaceClassifier()
    board: Any = sys.modules["vision.dice.board"]
    installed = board.pose_classifier
    board.pose_classifier = lambda: None  # the centres only: the pose model being trained may not match
    try:
        found = read_dice(img, prof, _FACES, VisionConfig())
    finally:
        board.pose_classifier = installed
    return [found[j].center_mm if j is not None else None for j in match(truth["dice"], found)]


_FACES: Any = None
_FOUND: dict[str, list[tuple[float, float] | None]] = {}


def frame_samples(img_path: Path, truth: dict[str, Any], rng: random.Random, copies: tuple[int, int, int],
                  jitter_mm: float, with_found: bool = True) -> tuple[list[Any], list[int], list[float]]:
    """Pose patches (:class:`vision.dice.pose.PosePatch`) of every (visible) die of one frame,
    ``copies[label]`` each, around the die stage's found centre (when it found the die), its up face's
    and its body's centre in turn (so even a flat die's 2 copies include the found centre), jittered by
    up to ``jitter_mm`` (``with_found`` False: the die stage is not run, the jitter stands for its error);
    labels; tilts."""
    from vision.dice.pose import pose_patch
    from vision.preprocess import to_gray
    from vision.training.rendered import profile_for

    img = cv2.imread(str(img_path), cv2.IMREAD_COLOR)
    if img is None:
        return [], [], []
    prof = profile_for(truth)
    gray = to_gray(img)
    dmin, dmax = prof.spec.die_size_mm
    edge = (dmin + dmax) / 2
    xs, ys, tilts = [], [], []
    hidden = hidden_under(truth["dice"])
    if not with_found:
        found: list[tuple[float, float] | None] = [None] * len(truth["dice"])
    else:  # once per frame and process: a source drawn again (``games_repeat``) reuses the die stage's centres
        found = _FOUND.get(str(img_path)) or _FOUND.setdefault(str(img_path), found_centres(img, prof, truth))
    for i, die in enumerate(truth["dice"]):
        if i in hidden:
            continue
        lab = label_of(die)
        f = found[i]
        body, face = pose_centres(die, prof, edge)
        cs = [f, face, body] if f is not None else [body, face]  # every found die has a patch at its found centre
        for k in range(copies[lab]):
            x, y = cs[k % len(cs)]
            c = (x + rng.uniform(-jitter_mm, jitter_mm), y + rng.uniform(-jitter_mm, jitter_mm))
            xs.append(pose_patch(gray, prof, c, edge))
            ys.append(lab)
            tilts.append(float(die["tilt_deg"]))
    return xs, ys, tilts


def _frames_counted(sources: list[tuple[Path, range]]) -> int:
    """Renders of ``sources`` whose seed is in its range (the cache's check: held-out frames rendered into
    the same folder later do not make it stale)."""
    return sum(1 for d, r in sources for f in d.glob("*.json") if f.stem.split("_")[0].isdigit() and int(f.stem.split("_")[0]) in r)


def pose_samples(sources: list[tuple[Path, range]], *, seed: int = 7, copies: tuple[int, int, int] = (2, 4, 6),
                 jitter_mm: float = 2.0, cache: Path | None = None, with_found: bool = True) -> dict[str, np.ndarray]:
    """Planes (uint8), views, labels, tilts and frame seeds of every frame of ``sources`` (folder, seeds)."""
    import hashlib

    from vision.dice.pose import POSE_PATCH, POSE_PLANES, POSE_SPAN

    key = f"{seed}_{copies}_{jitter_mm}_{POSE_PATCH}_{POSE_PLANES}_{POSE_SPAN}_view_{with_found}_found_first_" + "_".join(f"{d}{r.start}" for d, r in sources)
    name = f"pose_samples_{hashlib.sha1(key.encode()).hexdigest()[:12]}.npz"
    if cache is not None:
        f = cache / name
        n_frames = _frames_counted(sources)
        if f.is_file():
            z = dict(np.load(f))
            if int(z["n_frames"]) == n_frames:
                return z
    rng = random.Random(seed)
    xs: list[Any] = []
    ys: list[int] = []
    tilts: list[float] = []
    seeds: list[int] = []
    n = 0
    for d, r in sources:
        for s, png, truth in frames(d, r):
            a, b, t = frame_samples(png, truth, rng, copies, jitter_mm, with_found)
            xs += a
            ys += b
            tilts += t
            seeds += [s] * len(a)
            n += 1
    out = {"x": np.stack([p.planes for p in xs]), "view": np.array([p.view for p in xs], np.float32), "y": np.array(ys, np.int64), "tilt": np.array(tilts, np.float32),
           "seed": np.array(seeds, np.int64), "n_frames": np.array(_frames_counted(sources))}
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
        np.savez(cache / name, **out)  # type: ignore[arg-type]
    return out


def make_pose(nn: Any, planes: int, *, folded: bool = False) -> Any:
    """The pose CNN; ``folded``: its batch norms folded into the convolutions (as the ONNX export leaves
    them: the shape :func:`load_decide` fills from a committed head, fine-tuned with them frozen)."""
    def block(i: int, o: int) -> list[Any]:
        if folded:
            return [nn.Conv2d(i, o, 3, padding=1), nn.ReLU()]
        return [nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU()]

    from vision.dice.pose import POSE_PATCH

    side = POSE_PATCH // 8
    return nn.Sequential(
        *block(planes, 16), nn.MaxPool2d(2), *block(16, 32), nn.MaxPool2d(2), *block(32, 48), nn.MaxPool2d(2),
        *block(48, 48), nn.Flatten(), nn.Dropout(0.3), nn.Linear(48 * side * side, 64), nn.ReLU(), nn.Linear(64, 3),
    )


def load_decide(path: Path) -> Any:
    """A torch copy (:func:`make_pose` ``folded``) of a 6-plane deciding head exported by :func:`train`
    (the export folds each batch norm into its convolution: fine-tuning the copy keeps them frozen).
    Needs the ``onnx`` package (development only)."""
    import torch
    from torch import nn

    from vision.dice.pose import POSE_PLANES
    from vision.training.fit import exported_layers

    exported = exported_layers(path)
    model = make_pose(nn, len(POSE_PLANES) + 1, folded=True)
    layers: list[Any] = [mod for mod in model if isinstance(mod, (nn.Conv2d, nn.Linear))]
    if len(exported) > len(layers) and _has_gate(path):  # a two-head file (merge_heads): the deciding head's layers come first
        exported = exported[:len(layers)]
    if len(exported) != len(layers):
        raise ValueError(f"{path}: {len(exported)} convolutions and dense layers, the pose CNN has {len(layers)}")
    with torch.no_grad():
        for layer, (op, weight, bias) in zip(layers, exported, strict=True):
            if tuple(weight.shape) != tuple(layer.weight.shape):
                raise ValueError(f"{path}: a {op} layer has weights {tuple(weight.shape)}, the pose CNN "
                                 f"{tuple(layer.weight.shape)}")
            layer.weight.copy_(torch.from_numpy(weight))
            layer.bias.copy_(torch.from_numpy(bias))
    return model


def _has_gate(path: Path) -> bool:
    """Whether the ONNX file at ``path`` is a two-head pose model (:func:`merge_heads`)."""
    import onnx

    from vision.dice.pose import GATE_OUTPUT

    return any(o.name == GATE_OUTPUT for o in onnx.load(str(path)).graph.output)


HARD_FLAT_UP = 0.5
"""A flat training patch the base head (``train(hard_flat=...)``) gives P(leaning) + P(on the other die) at
least this is a hard negative."""


def hard_flat_weights(model_path: Path, x: np.ndarray, y: np.ndarray, boost: float) -> np.ndarray:
    """Per training sample, its draw weight: 1, or 1 + ``boost`` for a flat patch the pose model at
    ``model_path`` (its deciding head, output ``logits``) reads P(leaning) + P(on die) >= :data:`HARD_FLAT_UP`
    (the flat dice whose tail sets the cocked threshold)."""
    from vision.dice.pose import FLAT
    from vision.preprocess import onnx_session, softmax

    sess = onnx_session(model_path)
    name = sess.get_inputs()[0].name
    out = np.ones(len(y), np.float64)
    for i in range(0, len(y), 512):
        p = softmax(np.asarray(sess.run(["logits"], {name: x[i:i + 512]})[0], np.float32))
        hard = (y[i:i + 512] == FLAT) & (p[:, 1] + p[:, 2] >= HARD_FLAT_UP)
        out[i:i + 512][hard] += boost
    return out


def training_sources(pose_seeds: range = POSE_TRAIN_SEEDS, games: range | None = None, games_repeat: int = 1,
                     lean: range | None = None) -> list[tuple[Path, range]]:
    """The training renders: the pose renders whose seed is in ``pose_seeds`` (both sizes) and the shared
    cache's dice (``pose_seeds`` narrower than :data:`POSE_TRAIN_SEEDS`: a model of an earlier data set
    trained again, e.g. the deciding head of session 7 on 30000-30284 while 30285-30344 exist); ``games``:
    plus the game stills (:func:`render_game_stills`) of those training game seeds, ``games_repeat`` times
    (each pass draws its own jitter); ``lean``: plus the 1280x720 pose renders of these :data:`GAME_LEAN_SEEDS`
    as a source of their own (their samples cached apart from the renders of ``pose_seeds``)."""
    from vision.training.faces import DICE_RENDERS
    from vision.training.rendered import TRAIN_SEEDS, cache_dir

    out = [(pose_dir(1280, 720), pose_seeds), (pose_dir(1920, 1080), pose_seeds),
           (cache_dir() / "1280x720", TRAIN_SEEDS), (cache_dir() / DICE_RENDERS / "1280x720", TRAIN_SEEDS)]
    if games is not None:
        if not (POSE_GAME_SEEDS.start <= games.start and games.stop <= POSE_GAME_SEEDS.stop) or len(games) == 0:
            raise ValueError(f"--games {games.start}-{games.stop - 1}: not within the training game seeds "
                             f"{POSE_GAME_SEEDS.start}-{POSE_GAME_SEEDS.stop - 1}")
        if not any(frames(pose_games_dir(), games)):
            raise ValueError(f"no game stills of {games.start}-{games.stop - 1} in {pose_games_dir()}: "
                             f"render them (python -m vision.training.pose render-games {games.start}-{games.stop - 1})")
        out += [(pose_games_dir(), games)] * max(1, games_repeat)
    if lean is not None:
        if not (GAME_LEAN_SEEDS.start <= lean.start and lean.stop <= GAME_LEAN_SEEDS.stop) or len(lean) == 0:
            raise ValueError(f"--lean {lean.start}-{lean.stop - 1}: not within the game-lean seeds "
                             f"{GAME_LEAN_SEEDS.start}-{GAME_LEAN_SEEDS.stop - 1}")
        if not any(frames(pose_dir(1280, 720), lean)):
            raise ValueError(f"no game-lean renders of {lean.start}-{lean.stop - 1} in {pose_dir(1280, 720)}: "
                             f"render them (python -m vision.training.pose render {lean.start} {len(lean)} N)")
        out.append((pose_dir(1280, 720), lean))
    return out


def without_low_leans(data: dict[str, np.ndarray], min_tilt: float) -> dict[str, np.ndarray]:
    """:func:`pose_samples` without the leaning dice tilted less than ``min_tilt`` degrees (flat and
    on-die samples, and steeper leans, kept in order; ``n_frames`` unchanged)."""
    from vision.dice.pose import COCKED

    keep = ~((data["y"] == COCKED) & (data["tilt"] < min_tilt))
    return {k: (v if k == "n_frames" else v[keep]) for k, v in data.items()}


def train(out: Path, *, seed: int = 7, epochs: int = 20, cache: Path | None = None, log: Any = print,
          copies: tuple[int, int, int] = (2, 4, 6), with_found: bool = True,
          pose_seeds: range = POSE_TRAIN_SEEDS, base: Path | None = None, lr: float | None = None,
          min_cocked_tilt: float = 0.0, hard_flat: float = 0.0, epoch_samples: int | None = None,
          games: range | None = None, games_repeat: int = 1, lean: range | None = None) -> dict[str, object]:
    """Train the pose model on :func:`training_sources` (``pose_seeds``); frames whose seed % 10 == 0 are
    the validation (and threshold-tuning) slice.  ``base``: fine-tune that deciding head
    (:func:`load_decide`: its batch norms frozen) at the peak learning rate ``lr`` instead of training
    a new one.  ``min_cocked_tilt``: leaning dice tilted less than this (degrees) are left out of training
    and validation (the generator's 5-15 degree wall leans mostly slide flat on a real board, and look
    flat: taught as "cocked" they push flat dice's P(leaning) up, so the threshold that keeps flat dice
    flat must rise above most steep leans too).  ``hard_flat``: flat patches the starting head (``base``,
    else the committed model) reads P(leaning) + P(on die) >= :data:`HARD_FLAT_UP` are drawn
    ``1 + hard_flat`` times as often (:func:`hard_flat_weights`; ``epoch_samples`` draws per epoch,
    default all).  ``games``, ``games_repeat``: game stills too; ``lean``: game-lean renders too
    (:func:`training_sources`)."""
    import torch
    from torch import nn

    from vision.dice.pose import POSE_PATCH, POSE_PLANES, PosePatch, pose_input
    from vision.training.fit import MAX_LR, EpochStats, export_onnx, fit_classifier

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    t0 = time.time()
    sources = training_sources(pose_seeds, games, games_repeat, lean)
    data = pose_samples(sources[:4], seed=seed, cache=cache, copies=copies, with_found=with_found,
                        jitter_mm=2.0 if with_found else 2.5)
    if len(sources) > 4:  # the game stills and game-lean renders apart: the renders' cached samples stay valid
        more = pose_samples(sources[4:], seed=seed, cache=cache, copies=copies, with_found=with_found,
                            jitter_mm=2.0 if with_found else 2.5)
        data = {k: (data[k] + more[k] if k == "n_frames" else np.concatenate([data[k], more[k]])) for k in data}
    data = without_low_leans(data, min_cocked_tilt)
    y, seeds = data["y"], data["seed"]
    val = seeds % 10 == 0
    x = np.stack([pose_input(PosePatch(p, float(v))) for p, v in zip(data["x"], data["view"], strict=True)])
    log(f"pose samples {dict(sorted(Counter(y.tolist()).items()))} ({int(val.sum())} validation) in {time.time() - t0:.0f}s")
    xt, yt = torch.from_numpy(x[~val]), torch.from_numpy(y[~val])
    xv, yv = torch.from_numpy(x[val]), torch.from_numpy(y[val])
    counts = torch.bincount(yt, minlength=3).float().clamp(min=1)
    weight = (counts.sum() / counts) ** 0.5
    model = make_pose(nn, len(POSE_PLANES) + 1) if base is None else load_decide(base)
    draw = None
    if hard_flat > 0:
        from vision.dice.pose import DIE_POSE_MODEL

        w = hard_flat_weights(base or DIE_POSE_MODEL, x[~val], y[~val], hard_flat)
        log(f"hard flat negatives: {int((w > 1).sum())} of {int((y[~val] == 0).sum())} flat training patches")
        draw = torch.from_numpy(w)

    def augment(xb: Any, gen: Any) -> Any:
        if bool(torch.randint(0, 2, (1,), generator=gen)):
            xb = torch.flip(xb, dims=(3,))  # mirror across the camera's direction: same pose
        img, view = xb[:, :-1], xb[:, -1:]  # the view plane is geometry, not brightness
        img = img * (0.8 + 0.4 * torch.rand(len(xb), 1, 1, 1, generator=gen)) + 0.1 * torch.randn(len(xb), 1, 1, 1, generator=gen)
        img = img + 0.03 * torch.randn(img.shape, generator=gen)  # sensor noise
        dy, dx = (int(v) for v in torch.randint(-2, 3, (2,), generator=gen))
        img = torch.roll(img, shifts=(dy, dx), dims=(2, 3))  # the found centre's error
        return torch.cat([img, view], dim=1)

    def val_acc() -> str:
        pv = _predict(model, xv).argmax(1)
        return f"{float((pv == yv).float().mean()):.4f}" if len(yv) else "- (no validation frames)"

    def report(e: EpochStats) -> None:
        log(epoch_line(e, epochs, val_acc(), time.time() - t0))

    if base is not None:  # the base head before any step: no loss of its own (session 12 printed a placeholder "loss nan")
        log(f"base head {base}: val acc {val_acc()} {time.time() - t0:.0f}s")
    fit_classifier(model, xt, yt, epochs=epochs, seed=seed, weight_decay=1e-3, class_weight=weight, augment=augment,
                   after_epoch=report, lr=MAX_LR if lr is None else lr, sample_weight=draw,
                   samples_per_epoch=epoch_samples if draw is not None else None)
    export_onnx(model, torch.zeros(1, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH), out, input_name="planes")
    pv = _predict(model, xv).argmax(1)
    confusion = [[int(((yv == a) & (pv == b)).sum()) for b in range(3)] for a in range(3)]
    record: dict[str, object] = {
        "model": out.name, "seed": seed, "epochs": epochs, "planes": list(POSE_PLANES), "patch": POSE_PATCH,
        "train_patches": {str(k): int(v) for k, v in sorted(Counter(y[~val].tolist()).items())},
        "validation_confusion_flat_cocked_ondie": confusion,
        "sources": [[str(d), r.start, r.stop] for d, r in sources],
        "frames": int(data["n_frames"]), "copies_flat_cocked_ondie": list(copies), "found_centres": with_found,
        "seconds": round(time.time() - t0), "torch": torch.__version__,
        "command": "python -m vision.training.pose train",
    }
    if min_cocked_tilt > 0:
        record["min_cocked_tilt"] = min_cocked_tilt
    if draw is not None:
        record["hard_flat"] = {"boost": hard_flat, "min_up": HARD_FLAT_UP, "patches": int((draw > 1).sum())}
    if base is not None:
        record["fine_tuned_from"] = str(base)
        record["lr"] = lr
    out.with_suffix(".train.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def epoch_line(e: Any, epochs: int, val_acc: str, seconds: float) -> str:
    """The training log's line for one epoch (:class:`vision.training.fit.EpochStats` ``e``): the epoch's
    mean loss over its batches (not its last batch's, which swung 0.31-0.60 between epochs of session
    12's fine-tune) and the validation accuracy.  A loss that is not finite is a bug (a NaN input or a
    diverged step): :class:`FloatingPointError` naming the epoch, not a line to read past."""
    if not (math.isfinite(e.mean_loss) and math.isfinite(e.last_loss)):
        raise FloatingPointError(f"pose training: epoch {e.epoch + 1}/{epochs} loss {e.mean_loss} (last batch {e.last_loss}): "
                                 "not finite (a NaN or infinite input patch, or a learning rate that diverged)")
    return f"epoch {e.epoch + 1}/{epochs} loss {e.mean_loss:.4f} val acc {val_acc} {seconds:.0f}s"


def merge_heads(decide: Path, gate: Path, out: Path) -> dict[str, object]:
    """One ONNX file with two heads over one input: ``decide`` (a 6-plane model: the five planes and
    the view) gives the output ``logits`` the flat / cocked calls are made on, ``gate`` (the v2 model:
    the planes 0.5-2 edges, channels 1-4 of the same input) gives :data:`vision.dice.pose.GATE_OUTPUT`,
    whose P(flat) feeds the face check (``vision.dice.faceread.face_needed``, tuned on it).  One
    onnxruntime run per frame for both (needs the ``onnx`` package: development only)."""
    import onnx
    from onnx import helper

    from vision.dice.pose import _V2_PLANES, GATE_OUTPUT, POSE_PLANES

    d, g = onnx.load(str(decide)), onnx.load(str(gate))
    d_in, g_in = d.graph.input[0], g.graph.input[0]
    planes = [dim.dim_value for dim in d_in.type.tensor_type.shape.dim][1]
    if planes != len(POSE_PLANES) + 1 or [dim.dim_value for dim in g_in.type.tensor_type.shape.dim][1] != _V2_PLANES:
        raise ValueError(f"merge_heads: {decide} must read {len(POSE_PLANES) + 1} planes and {gate} {_V2_PLANES}")
    pre = "gate/"
    names = {g_in.name: pre + g_in.name, g.graph.output[0].name: GATE_OUTPUT}

    def rn(n: str) -> str:
        return names.get(n, pre + n) if n else n

    nodes = []
    for nd in g.graph.node:
        c = onnx.NodeProto()
        c.CopyFrom(nd)
        c.name = pre + nd.name
        c.input[:] = [rn(i) for i in nd.input]
        c.output[:] = [rn(o) for o in nd.output]
        nodes.append(c)
    inits = []
    for t in g.graph.initializer:
        c = onnx.TensorProto()
        c.CopyFrom(t)
        c.name = rn(t.name)
        inits.append(c)
    consts = [helper.make_tensor(pre + k, onnx.TensorProto.INT64, [1], [v]) for k, v in (("starts", 1), ("ends", 1 + _V2_PLANES), ("axes", 1))]
    sl = helper.make_node("Slice", [d_in.name, pre + "starts", pre + "ends", pre + "axes"], [pre + g_in.name], name=pre + "slice")
    gate_out = helper.make_tensor_value_info(GATE_OUTPUT, onnx.TensorProto.FLOAT, ["n", 3])
    graph = helper.make_graph([*d.graph.node, sl, *nodes], "die_pose_two_heads", [d_in], [d.graph.output[0], gate_out],
                              list(d.graph.initializer) + consts + inits)
    model = helper.make_model(graph, opset_imports=list(d.opset_import))
    model.ir_version = d.ir_version
    onnx.checker.check_model(model)
    onnx.save(model, str(out))
    return {"model": out.name, "decide": str(decide), "gate": str(gate), "outputs": ["logits", GATE_OUTPUT],
            "command": f"python -m vision.training.pose merge {decide} {gate} --out {out}"}


def average_heads(a: Path, b: Path, alpha: float, out: Path) -> dict[str, object]:
    """The deciding head whose every weight is ``(1 - alpha)`` x ``a``'s + ``alpha`` x ``b``'s (``a``, ``b``:
    deciding heads or two-head files, :func:`load_decide`; ``b`` a fine-tune of ``a``, so the two lie in
    one basin): a head between the committed one and its fine-tune, at the cost of one.  Needs torch
    and onnx (development only)."""
    import torch

    from vision.dice.pose import POSE_PATCH, POSE_PLANES
    from vision.training.fit import export_onnx

    if not 0.0 <= alpha <= 1.0:
        raise ValueError(f"average_heads: alpha {alpha} is not within 0-1")
    ma, mb = load_decide(a), load_decide(b)
    with torch.no_grad():
        for pa, pb in zip(ma.parameters(), mb.parameters(), strict=True):
            pa.mul_(1.0 - alpha).add_(alpha * pb)
    export_onnx(ma.eval(), torch.zeros(1, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH), out, input_name="planes")
    return {"model": out.name, "a": str(a), "b": str(b), "alpha": alpha,
            "command": f"python -m vision.training.pose average {a} {b} --alpha {alpha} --out {out}"}


def _predict(model: Any, x: Any) -> Any:
    import torch

    with torch.no_grad():
        return torch.cat([model(x[i : i + 512]) for i in range(0, len(x), 512)]) if len(x) else torch.zeros(0, 3)


def pose_rows(folder: Path, seeds: range, *, limit: int | None = None, log: Any = print) -> list[dict[str, Any]]:
    """Each true die of the held-out frames in ``folder``: its label, tilt and obstacle, whether the die
    stage found it, and the pose model's probabilities at the centre the die stage found (``found``)
    and at its up face's centre (``at_face``); plus the time of :func:`vision.dice.board.pose_of` per
    frame (wall and CPU ms) in the frame's first row."""
    from vision.config import VisionConfig
    from vision.dice.board import DiceSearch, pose_of, read_dice
    from vision.dice.classify import FaceClassifier
    from vision.dice.evaluate import match
    from vision.dice.pose import pose_classifier
    from vision.preprocess import to_gray
    from vision.training.rendered import profile_for

    clf = FaceClassifier()
    model = pose_classifier()
    if model is None:
        raise ValueError("no pose model (vision/models/die_pose.onnx)")
    cfg = VisionConfig()
    rows: list[dict[str, Any]] = []
    fr = frames(folder, seeds)[:limit]
    for k, (_, png, truth) in enumerate(fr):
        img = cv2.imread(str(png), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"cannot read {png}")
        prof = profile_for(truth)
        search = DiceSearch.for_profile(prof)
        found = read_dice(img, prof, clf, cfg, search)
        gray = to_gray(img)
        dmin, dmax = prof.spec.die_size_mm
        edge = (dmin + dmax) / 2
        centres = [o.center_mm for o in found]
        pose_of(gray, prof, centres)
        t0, c0 = time.perf_counter(), time.process_time()
        pose_of(gray, prof, centres)
        ms, cpu = 1000 * (time.perf_counter() - t0), 1000 * (time.process_time() - c0)
        m = match(truth["dice"], found)
        hidden = hidden_under(truth["dice"])
        for i, (die, j) in enumerate(zip(truth["dice"], m, strict=True)):
            face_c = pose_centres(die, prof, edge)[1]
            pts = [face_c] + ([found[j].center_mm] if j is not None else [])
            gs = model.classify_at(gray, prof, pts, edge)  # with the centre check, as pose_of reads
            rows.append({
                "frame": png.stem, "scheme": truth["board"]["scheme"], "camera_tilt": float(truth["camera"]["tilt_deg"]),
                "label": label_of(die), "tilt": float(die["tilt_deg"]),
                "leaning_on": die.get("leaning_on"), "hidden": i in hidden, "found": j is not None,
                "at_face": [gs[0].flat, gs[0].cocked, gs[0].on_die],
                "at_found": [gs[1].flat, gs[1].cocked, gs[1].on_die] if j is not None else None,
                "at_face_gate": list(gs[0].gate) if gs[0].gate is not None else None,
                "at_found_gate": list(gs[1].gate) if j is not None and gs[1].gate is not None else None,
                "at_face_moved_up": gs[0].moved_up, "at_found_moved_up": gs[1].moved_up if j is not None else None,
                "pose_ms": ms if i == 0 else None, "pose_cpu_ms": cpu if i == 0 else None, "dice_found": len(found),
            })
        if (k + 1) % 50 == 0:
            log(f"{k + 1}/{len(fr)} frames")
    return rows


def probs(r: dict[str, Any], where: str) -> list[float] | None:
    """A row's deciding-head (P(flat), P(cocked), P(on die)) at ``where`` (``at_found`` / ``at_face``)."""
    p = r[where]
    return None if p is None else [float(v) for v in p]


def call(p: list[float], th: dict[str, float], moved_up: float | None = None) -> bool | None:
    """The pose stage's decision (:func:`vision.dice.pose.pose_call`) on (P(flat), P(cocked), P(on die))
    at the thresholds ``th`` (:class:`vision.dice.config.DiceConfig`
    field names): True cocked, False flat, None unsure."""
    from vision.dice.config import DiceConfig
    from vision.dice.pose import PoseGuess, pose_call

    d = DiceConfig(leaning_min_probability=th["leaning_min_probability"], flat_min_probability=th["flat_min_probability"],
                   on_die_call_min_probability=th["on_die_call_min_probability"], on_die_min_probability=th["on_die_min_probability"])
    return pose_call(PoseGuess(p[0], p[1], p[2], moved_up=moved_up), d)[0]


def config_thresholds(d: Any) -> dict[str, float]:
    """The pose thresholds of a :class:`vision.dice.config.DiceConfig`."""
    return {k: getattr(d, k) for k in POSE_THRESHOLDS}


TILT_BANDS = ((0, 10), (10, 15), (15, 20), (20, 30), (30, 45))
"""The tilt bands (degrees) :func:`tally` counts leaning dice in (the last band takes every steeper tilt)."""
POSE_THRESHOLDS = ("leaning_min_probability", "on_die_call_min_probability", "flat_min_probability", "on_die_min_probability")


def tally(rows: list[dict[str, Any]], th: dict[str, float], where: str = "at_found") -> dict[str, Any]:
    """Counts of the calls over ``rows`` (only dice the die stage found when ``where`` is ``at_found``;
    the visible dice it missed are counted apart, ``flat_not_found`` / ``cocked_not_found``, and
    ``cocked_recall_of_all`` is the share of every visible cocked die called cocked: session 8's fresh
    901850-901899 lost 96 of 349 cocked dice before the pose stage, 98 of 802 flat ones)."""
    t: dict[str, Any] = {"flat_n": 0, "flat_called_cocked": 0, "flat_unsure": 0, "flat_called_on_die": 0,
                         "cocked_n": 0, "cocked_found": 0, "cocked_unsure": 0, "cocked_flat": 0,
                         "on_die_n": 0, "on_die_found": 0, "flat_not_found": 0, "cocked_not_found": 0}
    by_kind: dict[str, list[int]] = {}
    by_band: dict[str, list[int]] = {}
    wrong: list[str] = []
    for r in rows:
        p = probs(r, where)
        if r["hidden"]:
            continue
        if p is None:
            t["flat_not_found" if r["label"] == 0 else "cocked_not_found"] += 1
            continue
        c = call(p, th, r.get(f"{where}_moved_up"))
        on = bool(c) and p[2] >= th["on_die_min_probability"]
        if (c is True) != (r["label"] != 0) and c is not None:
            wrong.append(f"{r['frame']} {'flat' if r['label'] == 0 else r['leaning_on']} tilt {r['tilt']:.0f} "
                         f"{r.get('scheme')} camera {r.get('camera_tilt', 0):.0f}deg: called {'cocked' if c else 'flat'} "
                         f"p={[round(v, 4) for v in p]}")
        if r["label"] == 0:
            t["flat_n"] += 1
            t["flat_called_cocked"] += c is True
            t["flat_unsure"] += c is None
            t["flat_called_on_die"] += on
            continue
        t["cocked_n"] += 1
        t["cocked_found"] += c is True
        t["cocked_unsure"] += c is None
        t["cocked_flat"] += c is False
        if r["label"] == 2:
            t["on_die_n"] += 1
            t["on_die_found"] += on
        kind = str(r["leaning_on"]) + ("" if r["label"] == 2 else f" {5 * int(r['tilt'] // 5)}-{5 * int(r['tilt'] // 5) + 5}deg")
        band = "on die" if r["label"] == 2 else next(f"{a}-{b}deg" for a, b in TILT_BANDS if r["tilt"] < b or b == TILT_BANDS[-1][1])
        for k in (by_kind.setdefault(kind, [0, 0, 0, 0]), by_band.setdefault(band, [0, 0, 0, 0])):
            k[0] += 1
            k[1 + (0 if c is True else 1 if c is None else 2)] += 1
    t["cocked_recall"] = round(t["cocked_found"] / t["cocked_n"], 4) if t["cocked_n"] else None
    seen = t["cocked_n"] + t["cocked_not_found"]
    t["cocked_recall_of_all"] = round(t["cocked_found"] / seen, 4) if seen else None
    t["flat_called_cocked_rate"] = round(t["flat_called_cocked"] / t["flat_n"], 5) if t["flat_n"] else None
    t["cocked_by_kind_n_found_unsure_flat"] = dict(sorted(by_kind.items()))
    t["cocked_by_tilt_n_found_unsure_flat"] = dict(sorted(by_band.items(), key=lambda kv: (kv[0] == "on die", int(kv[0].split("-")[0]) if kv[0][0].isdigit() else 0)))
    t["wrong"] = wrong[:60]
    return t


def tune(rows: list[dict[str, Any]], where: str = "at_found", *, pooled: bool = True, allow: float = 0.0) -> dict[str, float]:
    """Thresholds from a tuning slice: the lowest P(flat) that calls no cocked die flat, and the lowest
    cocked threshold that calls no flat die cocked, each raised by half its distance to 1; P(on die)
    0.5 tells a cocked die on the other die from a leaning one.  ``pooled``: one cocked threshold for
    P(leaning) and P(on the other die), from the flat dice's highest P(leaning) + P(on die) (their two
    tails together: a slice of ~470 flat dice leaves the on-die tail alone too thin; the die_pose.onnx
    of 04:14 called 4 of 660 held-out flat dice cocked at the split rule's 0.9646, 0 at the pooled
    0.99709); else (``--split``) each from its own tail.  ``allow``: the share of the slice's dice a
    threshold may leave beyond it (from the (k+1)-th highest value, k = floor(``allow`` x n): one outlier
    of a large seen slice no longer sets it alone; 0: the highest)."""
    from vision.dice.pose import CENTRE_CHECK_MIN_UP

    ok = [b for r in rows if not r["hidden"] and (b := probs(r, where)) is not None]
    labels = [r["label"] for r in rows if r[where] is not None and not r["hidden"]]
    moved = [r.get(f"{where}_moved_up") for r in rows if r[where] is not None and not r["hidden"]]
    checked_out = [m is not None and m < CENTRE_CHECK_MIN_UP for m in moved]  # the centre check keeps them uncalled

    def above(vals: list[float]) -> float:
        top = sorted(vals, reverse=True)[int(allow * len(vals)):] or [0.5]
        return round(min(0.9999, 1 - (1 - top[0]) / 2), 5)

    flat = [p for p, y, out in zip(ok, labels, checked_out, strict=True) if y == 0 and not out]
    lean, on = (above([p[1] + p[2] for p in flat]),) * 2 if pooled else (above([p[1] for p in flat]), above([p[2] for p in flat]))
    return {"leaning_min_probability": lean, "on_die_call_min_probability": on,
            "flat_min_probability": above([p[0] for p, y in zip(ok, labels, strict=True) if y != 0]),
            "on_die_min_probability": 0.5}


def _seed_range(text: str | None) -> range:
    """``FIRST-LAST`` (inclusive) as a range of pose training seeds; None: all of them."""
    from vision.training.stacks import seed_range

    if text is None:
        return POSE_TRAIN_SEEDS
    try:
        seeds = seed_range(text)
    except ValueError as e:
        raise ValueError(f"--pose-seeds: {e}") from None
    if not (POSE_TRAIN_SEEDS.start <= seeds.start and seeds.stop <= POSE_TRAIN_SEEDS.stop):
        raise ValueError(f"--pose-seeds {text!r}: not within the training seeds {POSE_TRAIN_SEEDS.start}-{POSE_TRAIN_SEEDS.stop - 1}")
    return seeds


def main(argv: list[str] | None = None) -> int:
    from vision.training.stacks import seed_range

    p = argparse.ArgumentParser(prog="python -m vision.training.pose")
    sub = p.add_subparsers(dest="what", required=True)
    r = sub.add_parser("render", help="render pose frames (no torch needed)")
    r.add_argument("first", type=int)
    r.add_argument("count", type=int)
    r.add_argument("n", type=int, help="positions per scene")
    r.add_argument("--size", default="1280x720")
    g = sub.add_parser("render-games", help="game stills of cocked dice and flat throws (render_game_stills; no torch needed)")
    g.add_argument("seeds", type=seed_range, help="FIRST-LAST")
    g.add_argument("--flat-every", type=int, default=3, help="save every N-th throw with both dice flat")
    g.add_argument("--out", type=Path, default=None)
    t = sub.add_parser("train", help="train the pose model (needs torch)")
    t.add_argument("--seed", type=int, default=7)
    t.add_argument("--epochs", type=int, default=20)
    t.add_argument("--out", type=Path, default=None)
    t.add_argument("--cache", type=Path, default=None, help="keep the extracted patches here (repeated runs)")
    t.add_argument("--copies", default="2,4,6", help="patches per flat, cocked, on-die die")
    t.add_argument("--no-found", action="store_true", help="do not run the die stage for its centres (faster)")
    t.add_argument("--pose-seeds", default=None, metavar="FIRST-LAST",
                   help="only the pose renders of these training seeds (default: all of 30000-39999 rendered)")
    t.add_argument("--base", type=Path, default=None, help="fine-tune this deciding head (batch norms frozen; needs onnx)")
    t.add_argument("--lr", type=float, default=None, help="peak learning rate (default: fit's)")
    t.add_argument("--min-cocked-tilt", type=float, default=0.0, help="leave leaning dice tilted less than this (degrees) out")
    t.add_argument("--hard-flat", type=float, default=0.0, help="draw flat patches the starting head reads cocked 1 + this times as often")
    t.add_argument("--epoch-samples", type=int, default=None, help="with --hard-flat: draws per epoch (default: all)")
    t.add_argument("--games", type=seed_range, default=None, metavar="FIRST-LAST", help="plus the game stills of these training game seeds (render-games)")
    t.add_argument("--games-repeat", type=int, default=1, help="with --games: draw the game stills this many times")
    t.add_argument("--lean", type=seed_range, default=None, metavar="FIRST-LAST",
                   help="plus the game-lean pose renders of these seeds (32000-32999; render FIRST COUNT N)")
    mg = sub.add_parser("merge", help="one two-head model: a 6-plane deciding model + the v2 face-check model (needs onnx)")
    mg.add_argument("decide", type=Path)
    mg.add_argument("gate", type=Path)
    mg.add_argument("--out", type=Path, default=None)
    av = sub.add_parser("average", help="a deciding head between two (weights (1 - alpha) A + alpha B; needs torch, onnx)")
    av.add_argument("a", type=Path)
    av.add_argument("b", type=Path)
    av.add_argument("--alpha", type=float, required=True)
    av.add_argument("--out", type=Path, required=True)
    c = sub.add_parser("calls", help="thresholds tuned on rows (from eval --rows) and the calls on other rows")
    c.add_argument("--tune-rows", type=Path, nargs="+", required=True, help="rows the thresholds are tuned on")
    c.add_argument("--rows", type=Path, nargs="+", required=True, help="rows the calls are counted on")
    c.add_argument("--split", action="store_true", help="separate leaning / on-die thresholds (else pooled)")
    c.add_argument("--allow", type=float, default=0.0, help="share of the tuning dice a threshold may leave beyond it")
    c.add_argument("--out", type=Path, default=None)
    e = sub.add_parser("eval", help="flat / cocked / on-die calls on held-out pose renders")
    e.add_argument("--first", type=int, default=POSE_EVAL_SEEDS.start)
    e.add_argument("--count", type=int, default=50, help="scenes (each with its positions)")
    e.add_argument("--size", default="1280x720")
    e.add_argument("--tune", action="store_true", help="tune the thresholds on the validation slice of the training seeds")
    e.add_argument("--rows", type=Path, default=None, help="write the per-die rows (JSON) here")
    e.add_argument("--out", type=Path, default=None)
    e.add_argument("--model", type=Path, default=None, help="evaluate this model instead of vision/models/die_pose.onnx")
    e.add_argument("--split", action="store_true", help="with --tune: separate leaning / on-die thresholds (else pooled)")
    e.add_argument("--tune-only", action="store_true", help="with --tune: stop after tuning (no held-out frames)")
    args = p.parse_args(argv)
    if args.what == "render":
        w, h = (int(v) for v in args.size.split("x"))
        for s in range(args.first, args.first + args.count):
            t0 = time.time()
            render_pose(s, args.n, w, h)
            print(s, f"{time.time() - t0:.1f}s", flush=True)
        return 0
    if args.what == "render-games":
        for s in args.seeds:
            t0 = time.time()
            n = render_game_stills(s, args.out, flat_every=args.flat_every)
            print(s, n, f"{time.time() - t0:.1f}s", flush=True)
        return 0
    if args.what == "train":
        from vision.dice.pose import DIE_POSE_MODEL

        cp = tuple(int(v) for v in args.copies.split(","))
        print(train(args.out or DIE_POSE_MODEL, seed=args.seed, epochs=args.epochs, cache=args.cache,
                    copies=(cp[0], cp[1], cp[2]), with_found=not args.no_found,
                    pose_seeds=_seed_range(args.pose_seeds), base=args.base, lr=args.lr,
                    min_cocked_tilt=args.min_cocked_tilt, hard_flat=args.hard_flat,
                    epoch_samples=args.epoch_samples, games=args.games, games_repeat=args.games_repeat,
                    lean=args.lean),
              flush=True)
        return 0
    if args.what == "calls":
        tuning = [r for f in args.tune_rows for r in json.loads(f.read_text())]
        counted = [r for f in args.rows for r in json.loads(f.read_text())]
        th = tune(tuning, pooled=not args.split, allow=args.allow)
        res_c = {"tuned_on": [str(f) for f in args.tune_rows], "tuning_dice": len(tuning), "allow": args.allow, "tuned": th,
                 "rows": [str(f) for f in args.rows], "calls": tally(counted, th)}
        text = json.dumps(res_c, indent=2)
        print(text)
        if args.out:
            args.out.write_text(text + "\n")
        return 0
    if args.what == "average":
        print(json.dumps(average_heads(args.a, args.b, args.alpha, args.out), indent=2), flush=True)
        return 0
    if args.what == "merge":
        from vision.dice.pose import DIE_POSE_MODEL

        print(json.dumps(merge_heads(args.decide, args.gate, args.out or DIE_POSE_MODEL), indent=2), flush=True)
        return 0
    from vision.dice.config import DiceConfig

    w, h = (int(v) for v in args.size.split("x"))
    res: dict[str, Any] = {}
    if args.model is not None:
        from vision.dice.pose import install_pose_model

        install_pose_model(args.model)
        res["model"] = str(args.model)
    if args.tune:
        rows = pose_rows(pose_dir(w, h), range(POSE_TRAIN_SEEDS.start, POSE_TRAIN_SEEDS.stop, 10))  # the validation slice
        res["tuned_on"] = f"{pose_dir(w, h)} training seeds % 10 == 0 ({len(rows)} dice)"
        res["tuned"] = tune(rows, pooled=not args.split)
        if args.rows:
            args.rows.with_suffix(".tune.json").write_text(json.dumps(rows) + "\n")
        if args.tune_only:
            print(json.dumps(res, indent=2))
            return 0
    seeds = range(args.first, args.first + args.count)
    if not held_out(seeds.start) or not held_out(seeds[-1]):
        raise ValueError(f"{args.first}-{seeds[-1]} are not all held-out pose seeds ({POSE_EVAL_SEEDS}, {POSE_FRESH_SEEDS})")
    rows = pose_rows(pose_dir(w, h), seeds)
    d = DiceConfig()
    res["held_out"] = f"{pose_dir(w, h)} seeds {seeds.start}-{seeds.stop - 1} ({len({r['frame'] for r in rows})} frames)"
    res["dice"] = {"n": len(rows), "found": sum(r["found"] for r in rows), "hidden_under_a_die": sum(r["hidden"] for r in rows)}
    res["config"] = tally(rows, config_thresholds(d))
    if "tuned" in res:
        res["tuned_calls"] = tally(rows, res["tuned"])
    ms = sorted(r["pose_ms"] for r in rows if r["pose_ms"] is not None)
    cpu = sorted(r["pose_cpu_ms"] for r in rows if r["pose_cpu_ms"] is not None)
    res["pose_of_ms_median_per_frame"] = round(ms[len(ms) // 2], 3) if ms else None
    res["pose_of_cpu_ms_median_per_frame"] = round(cpu[len(cpu) // 2], 3) if cpu else None
    res["dice_per_frame_found"] = round(sum(r["dice_found"] for r in rows if r["pose_ms"] is not None) / max(1, len(ms)), 2)
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    if args.rows:
        args.rows.write_text(json.dumps(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
