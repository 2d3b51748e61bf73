"""Rendered frames for training and evaluation: a disk cache of (image, truth) per seed.

Seeds are split by range so evaluation never sees a training seed:
``TRAIN_SEEDS`` (10_000..) for training, ``EVAL_SEEDS`` (900_000..) for ``python -m vision.evaluate``.
The profile of a rendered frame is the renderer's exact camera pose (an "oracle calibration"):
it measures vision, not calibration.
"""

from __future__ import annotations

import json
import math
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

TRAIN_SEEDS = range(10_000, 20_000)
STACK_SEEDS = range(15_000, 20_000)
"""Training seeds whose positions pile checkers on few points (tall stacks, second and third layers)."""
EVAL_SEEDS = range(900_000, 910_000)


def cache_dir() -> Path:
    return Path(os.environ.get("BGREF_RENDER_CACHE", "/tmp/bgref_renders"))


@dataclass(frozen=True, slots=True)
class Rendered:
    seed: int
    image_path: Path
    truth: dict[str, Any]

    def image(self) -> np.ndarray:
        img = cv2.imread(str(self.image_path), cv2.IMREAD_COLOR)
        if img is None:
            raise ValueError(f"cannot read {self.image_path}")
        return img


def rendered(seed: int, width: int = 1280, height: int = 720) -> Rendered:
    """Render (or load from the cache) the still scene of ``seed``."""
    d = cache_dir() / f"{width}x{height}"
    d.mkdir(parents=True, exist_ok=True)
    png = d / f"{seed}.png"
    js = d / f"{seed}.json"
    if not (png.is_file() and js.is_file()):
        from vision.sim.render import render
        from vision.sim.scene import random_scene
        from vision.sim.truth import build_truth

        scene = random_scene(seed, width=width, height=height,
                             position=stacked_position(seed) if seed in STACK_SEEDS else None)
        img, info = render(scene)
        write_frame(png, js, img, build_truth(scene, info))
    return Rendered(seed, png, json.loads(js.read_text()))


def write_frame(png: Path, js: Path, img: np.ndarray, truth: dict[str, Any]) -> None:
    """Write one render and its truth into the cache, each to a temporary name in the same folder first
    and then renamed: a process reading the cache meanwhile (several evaluations render the same seeds
    at once) finds either no frame or a whole one, never a half-written PNG (session 11: "cannot read
    .../900079.png" while another process was writing it)."""
    tag = f".tmp{os.getpid()}"  # no .png / .json ending: the cache's globs never see a temporary file
    tmp_png, tmp_js = png.with_name(png.name + tag), js.with_name(js.name + tag)
    try:
        try:
            ok, buf = cv2.imencode(png.suffix, img)
        except cv2.error as e:
            raise OSError(f"could not encode the render {png}: {e}") from e
        if not ok:
            raise OSError(f"could not encode the render {png} ({png.suffix})")
        tmp_png.write_bytes(buf.tobytes())
        tmp_js.write_text(json.dumps(truth))
        os.replace(tmp_png, png)
        os.replace(tmp_js, js)
    finally:
        tmp_png.unlink(missing_ok=True)
        tmp_js.unlink(missing_ok=True)


def stacked_position(seed: int) -> Any:
    """A legal-looking position with tall stacks: each side's 15 checkers on 2-4 points (and the bar)."""
    import random

    from rules.position import Position

    rng = random.Random(seed * 7 + 1)
    taken: set[int] = set()
    maps: list[dict[int, int]] = []
    for side in (0, 1):
        left = 15
        m: dict[int, int] = {}
        if rng.random() < 0.3:
            m[25] = rng.randint(1, 3)
            left -= m[25]
        k = rng.randint(2, 4)
        for i in range(k):
            n = left if i == k - 1 else rng.randint(1, max(1, left - (k - 1 - i)))
            while True:
                own = rng.randint(1, 24)
                ab = own if side == 0 else 25 - own
                if ab not in taken:
                    break
            taken.add(ab)
            m[own] = m.get(own, 0) + n
            left -= n
            if left <= 0:
                break
        maps.append(m)
    return Position.from_points(maps[0], maps[1])


def profile_for(truth: dict[str, Any]) -> Any:
    """The calibration profile of a rendered frame (exact camera, pose, board and seating)."""
    from calibration.camera import CameraModel as CalCamera
    from calibration.profile import CalibrationProfile, Quality
    from vision.geometry import BoardSpec, HomeEnd, LongSide, Seating
    from vision.sim.optics import CameraModel

    cam = CameraModel.from_json(truth["camera"])
    b = truth["board"]
    spec = BoardSpec.by_name(b["spec"])
    seating = Seating(LongSide(b["seating"]["white"]), HomeEnd(b["seating"]["white_home"]))
    cal = CalCamera(cam.width, cam.height, cam.fx, cam.fy, cam.cx, cam.cy, tuple(cam.dist), source="default")  # type: ignore[arg-type]
    q = Quality(reprojection_px=0.0, corner_confidence=1.0, pattern_score=None, start_position_ok=None,
                tilt_deg=0.0, method="manual", created="sim", camera_name="sim")
    corners = tuple((float(x), float(y)) for x, y in truth["board_corners_image"])
    return CalibrationProfile(cal, spec, corners, tuple(cam.rvec), tuple(cam.tvec), q, seating)  # type: ignore[arg-type]


def variants_dir(width: int = 1280, height: int = 720) -> Path:
    """Multi-position training renders (:func:`render_variants`): ``<cache>/slots_WxH/SEED_I.png``."""
    return cache_dir() / f"slots_{width}x{height}"


def variant_scene(base: Any, seed: int, i: int) -> tuple[Any, int]:
    """Position ``i`` on the board of ``base`` (same board, colours, camera and light): a new position,
    dice, cube, cup, maybe a hand and new sensor settings, all from ``(seed, i)``.  Returns the scene
    and the seed of its sensor noise.  Position mix: 40 % tall stacks (:func:`stacked_position`),
    10 % the initial position, 50 % random mid-game positions."""
    import random

    from rules.position import Position
    from vision.sim.scene import random_position

    rng = random.Random(seed * 1000 + i)
    u = rng.random()
    if u < 0.4:
        position = stacked_position(seed * 1000 + i)
    elif u < 0.5:
        position = Position.initial()
    else:
        position = random_position(rng)
    return scene_with(base, position, rng), seed * 1000 + i


def scene_with(base: Any, position: Any, rng: Any) -> Any:
    """The board, colours, camera and light of ``base`` with ``position``'s checkers and dice, cube, cup,
    maybe a hand, and new sensor settings drawn from ``rng`` (the dice in the thrower's table 80 % of
    the time)."""
    from dataclasses import replace

    from vision.sim.config import SimConfig
    from vision.sim.scene import sample_objects, sample_post

    cfg = SimConfig()
    obj = sample_objects(base.layout, position, rng, cfg, own_table_p=0.8)
    return replace(base, checkers=obj.checkers, dice=obj.dice, cube=obj.cube, cup=obj.cup, hands=obj.hands,
                   turn=obj.turn, post=sample_post(cfg, rng))


def render_variants(seed: int, n: int, width: int = 1280, height: int = 720, scheme: str | None = None) -> list[Path]:
    """Render ``n`` positions on the board/camera/light of scene ``seed`` into :func:`variants_dir`
    (the static board is traced once: each extra position costs ~0.5 s instead of 2-4 s).
    ``scheme``: force that colour scheme (e.g. "dark_on_dark", the hardest to read)."""
    from vision.sim.config import SimConfig
    from vision.sim.scene import random_scene

    base = random_scene(seed, SimConfig(schemes=(scheme,)) if scheme else None, width=width, height=height)
    return render_positions(variants_dir(width, height), seed, n, lambda i: variant_scene(base, seed, i))


OFF_RAIL_P = 0.5
"""Training only (:func:`shift_off_rail`): the share of single-row points (1 to row capacity - 1 checkers)
whose checkers are moved off the rail end."""


def offrail_dir(width: int = 1280, height: int = 720) -> Path:
    """Multi-position training renders with checkers off the rail (:func:`render_offrail`):
    ``<cache>/offrail_WxH/SEED_I.png``."""
    return cache_dir() / f"offrail_{width}x{height}"


def shift_off_rail(layout: Any, scene: Any, rng: Any, p: float = OFF_RAIL_P) -> Any:
    """Training only: ``scene`` with the checkers of some single-row points moved off the rail end, as a
    played game leaves them and a random scene never does (a lone checker in stack position 1 to 4,
    2-4 checkers shifted by one or two positions).  Each point with 1 to row capacity - 1 checkers is
    shifted with probability ``p`` by 1 up to (capacity - count) positions (at most 2 for 2+ checkers);
    a point with a die, the cube or the cup within a diameter and a half of its row is left alone (a die
    may lean on a checker)."""
    from dataclasses import replace

    cap = layout.spec.row_capacity
    dia = layout.spec.checker_diameter_mm
    things = ([d.center for d in scene.dice] + ([scene.cube.center] if scene.cube else [])
              + ([scene.cup.center] if scene.cup else []))
    by_point: dict[str, list[int]] = {}
    for i, c in enumerate(scene.checkers):
        if c.region.startswith("p"):
            by_point.setdefault(c.region, []).append(i)
    moved = list(scene.checkers)
    for region, idx in sorted(by_point.items(), key=lambda kv: int(kv[0][1:])):
        n = len(idx)
        if n >= cap or rng.random() >= p:
            continue
        most = cap - n if n == 1 else min(2, cap - n)
        s = rng.randint(1, most)
        pt = int(region[1:])
        row = [layout.stack_slots(pt, k) for k in range(cap)]
        if any(math.hypot(t[0] - x, t[1] - y) < 1.5 * dia for t in things for x, y, _ in row):
            continue
        # the checkers in stack order (nearest the rail first), each moved s positions toward the tip
        order = sorted(idx, key=lambda i: math.hypot(scene.checkers[i].center[0] - row[0][0],
                                                     scene.checkers[i].center[1] - row[0][1]))
        for k, i in enumerate(order):
            c = scene.checkers[i]
            (x0, y0, _), (x1, y1, _) = layout.stack_slots(pt, k), layout.stack_slots(pt, k + s)
            moved[i] = replace(c, center=(c.center[0] + x1 - x0, c.center[1] + y1 - y0, c.center[2]))
    return replace(scene, checkers=tuple(moved))


def offrail_scene(base: Any, seed: int, i: int) -> tuple[Any, int]:
    """:func:`variant_scene` ``(seed, i)`` with :func:`shift_off_rail` applied (its own random stream, so the
    hands, dice and cube are the variant's and :func:`hand_mask` rebuilds them from :func:`variant_scene`)."""
    import random

    scene, noise = variant_scene(base, seed, i)
    return shift_off_rail(base.layout, scene, random.Random(seed * 1000 + i + 7_000_000)), noise


def scene_stack_positions(layout: Any, checkers: Any) -> dict[str, list[int]]:
    """For each point with checkers: the stack positions its checkers take, nearest first
    (``vision.sim.game.stack_position``; -1: none within half a diameter)."""
    from vision.sim.game import stack_position

    out: dict[str, list[int]] = {}
    for c in checkers:
        if c.region.startswith("p"):
            out.setdefault(c.region, []).append(stack_position(layout, c.region, c.side, c.center,
                                                               3 * layout.spec.row_capacity))
    return {k: sorted(v) for k, v in out.items()}


def render_offrail(seed: int, n: int, width: int = 1280, height: int = 720, scheme: str | None = None) -> list[Path]:
    """Training only: :func:`render_variants`' ``n`` positions of scene ``seed`` with checkers off the rail
    (:func:`offrail_scene`) into :func:`offrail_dir`; each truth has ``stack_positions``.  ``scheme``: force
    that colour scheme (session 14: "walnut_inlay", where a white blot on a light point read empty at 0.999,
    and "dark_on_dark", where lit black blots read white)."""
    from vision.sim.config import SimConfig
    from vision.sim.scene import random_scene

    base = random_scene(seed, SimConfig(schemes=(scheme,)) if scheme else None, width=width, height=height)
    return render_positions(offrail_dir(width, height), seed, n, lambda i: offrail_scene(base, seed, i),
                            positions=True)


def offrail_frames(width: int = 1280, height: int = 720) -> list[Rendered]:
    """Every off-rail training render in the cache."""
    return frames_in(offrail_dir(width, height), TRAIN_SEEDS)


def render_positions(d: Path, seed: int, n: int, scene_of: Callable[[int], tuple[Any, int]],
                     positions: bool = False) -> list[Path]:
    """Frames ``SEED_I.png`` (+ truth ``SEED_I.json``) for i < ``n`` in folder ``d``: ``scene_of(i)`` gives
    the scene and its sensor-noise seed; frames already there are kept (a cache).  ``positions``: the
    truth also holds ``stack_positions`` (:func:`scene_stack_positions`)."""
    from vision.sim.render import Sensor, render
    from vision.sim.truth import build_truth

    d.mkdir(parents=True, exist_ok=True)
    out = []
    for i in range(n):
        png, js = d / f"{seed}_{i}.png", d / f"{seed}_{i}.json"
        if not (png.is_file() and js.is_file()):
            scene, noise = scene_of(i)
            img, info = render(scene, sensor=Sensor(noise))
            truth = build_truth(scene, info)
            if positions:
                truth["stack_positions"] = scene_stack_positions(scene.layout, scene.checkers)
            write_frame(png, js, img, truth)
        out.append(png)
    return out


def frames_in(d: Path, seeds: range, pattern: str = "*_*.json") -> list[Rendered]:
    """Every render ``SEED_I.png`` (with its ``.json`` truth) in folder ``d`` whose seed is in ``seeds``,
    in file-name order."""
    out = []
    for js in sorted(d.glob(pattern)):
        seed = int(js.stem.split("_")[0])
        if seed in seeds and js.with_suffix(".png").is_file():
            out.append(Rendered(seed, js.with_suffix(".png"), json.loads(js.read_text())))
    return out


def variant_frames(width: int = 1280, height: int = 720) -> list[Rendered]:
    """Every multi-position render in the cache (training only: seeds are ``TRAIN_SEEDS``)."""
    return frames_in(variants_dir(width, height), TRAIN_SEEDS)


def cached_arrays(r: Rendered, folder: str, make: Callable[[Rendered], tuple[np.ndarray, np.ndarray]]
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``make(r)`` (training inputs and labels of one rendered frame), cached beside the render cache
    in ``folder/`` (written to a temporary file first, so an interrupted run leaves no torn entry)."""
    d = cache_dir() / folder
    d.mkdir(parents=True, exist_ok=True)
    f = d / f"{r.image_path.parent.name}_{r.image_path.stem}.npz"
    if f.is_file():
        z = np.load(f)
        return z["x"], z["y"]
    x, y = make(r)
    tmp = f.with_suffix(".tmp.npz")
    np.savez(tmp, x=x, y=y)
    tmp.replace(f)
    return x, y


def main(argv: list[str] | None = None) -> int:
    """``python -m vision.training.rendered FIRST COUNT [WIDTH HEIGHT]``: fill the cache;
    ``python -m vision.training.rendered offrail FIRST COUNT N [SCHEME]``: N off-rail positions per scene;
    ``python -m vision.training.rendered variants FIRST COUNT N [WIDTH HEIGHT [SCHEME]]``: N positions per scene."""
    args = sys.argv[1:] if argv is None else argv
    if args and args[0] == "offrail":
        first, count, n = int(args[1]), int(args[2]), int(args[3])
        scheme = args[4] if len(args) >= 5 else None
        if scheme is not None:
            from vision.sim.scene import SCHEMES

            if scheme not in SCHEMES:
                raise ValueError(f"unknown colour scheme {scheme!r} (one of {', '.join(SCHEMES)})")
        for s in range(first, first + count):
            if s not in TRAIN_SEEDS:
                raise ValueError(f"seed {s} is not a training seed ({TRAIN_SEEDS})")
            render_offrail(s, n, scheme=scheme)
            print(s, flush=True)
        return 0
    if args and args[0] == "variants":
        first, count, n = int(args[1]), int(args[2]), int(args[3])
        w, h = (int(args[4]), int(args[5])) if len(args) >= 6 else (1280, 720)
        scheme = args[6] if len(args) >= 7 else None
        for s in range(first, first + count):
            if s not in TRAIN_SEEDS:
                raise ValueError(f"seed {s} is not a training seed ({TRAIN_SEEDS})")
            render_variants(s, n, w, h, scheme)
            print(s, flush=True)
        return 0
    first, count = int(args[0]), int(args[1])
    w, h = (int(args[2]), int(args[3])) if len(args) >= 4 else (1280, 720)
    for s in range(first, first + count):
        rendered(s, w, h)
        print(s, flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())


def die_square(corners: list[list[float]]) -> Any:
    """The Square of a die's up face from its 4 image corners."""
    from vision.preprocess import Square

    c = np.asarray(corners, np.float64)
    cx, cy = c.mean(axis=0)
    x, y = c[:, 0], c[:, 1]
    area = 0.5 * abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1))))
    e = c[1] - c[0]
    angle = float(np.degrees(np.arctan2(e[1], e[0]))) % 90.0
    return Square(float(cx), float(cy), float(np.sqrt(area)), angle)


def rendered_samples(folder: Path | None = None, width: int = 1280, height: int = 720, max_neg: int = 12) -> list[Any]:
    """Die-face samples from the cached training renders: each die's up face, and board candidates
    that are not dice (checkers, point tips, the cube, pips) as "not a die"."""
    from vision.config import VisionConfig
    from vision.dice.board import die_candidates
    from vision.training.data import NOT_A_DIE, Sample

    d = folder or cache_dir() / f"{width}x{height}"
    out: list[Any] = []
    rng = np.random.default_rng(0)
    for js in sorted(d.glob("*.json")):
        seed = int(js.stem)
        if seed not in TRAIN_SEEDS:
            continue
        r = rendered(seed, width, height)
        squares = []
        for die in r.truth["dice"]:
            sq = die_square(die["image_corners"])
            squares.append(sq)
            out.append(Sample(r.image_path, sq, int(die["face"])))
        prof = profile_for(r.truth)
        cands = die_candidates(r.image(), prof, VisionConfig())
        negs = [c for c in cands if all(np.hypot(c.cx - s.cx, c.cy - s.cy) > 0.8 * s.side for s in squares)]
        if len(negs) > max_neg:
            negs = [negs[i] for i in rng.choice(len(negs), max_neg, replace=False)]
        out.extend(Sample(r.image_path, c, NOT_A_DIE) for c in negs)
    return out


def scene_of(r: Rendered) -> Any:
    """Rebuild the scene of a cached render from its seed (single render or multi-position variant)."""
    from vision.sim.scene import random_scene

    w, h = int(r.truth["camera"]["width"]), int(r.truth["camera"]["height"])
    stem = r.image_path.stem
    if "_" in stem:
        seed, i = (int(v) for v in stem.split("_"))
        base = random_scene(seed, width=w, height=h)
        return variant_scene(base, seed, i)[0]
    return random_scene(r.seed, width=w, height=h, position=stacked_position(r.seed) if r.seed in STACK_SEEDS else None)


def hand_mask(r: Rendered) -> np.ndarray | None:
    """Full-resolution uint8 mask (255 = hand or arm) of a cached render, recomputed from its scene's
    hand poses exactly as the renderer draws them; None when the frame has no hand."""
    from vision.sim.render import SCALE, SHIFT, hand_geometry
    from vision.sim.scene import in_board_frame

    scene = in_board_frame(scene_of(r))
    if not scene.hands:
        return None
    cam = scene.camera
    m = np.zeros((cam.height, cam.width), np.uint8)
    for hd in scene.hands:
        for outline, _ in hand_geometry(hd):
            p = np.round(cam.project(outline) * SCALE).astype(np.int32)
            cv2.fillPoly(m, [p], (255.0,), cv2.LINE_AA, SHIFT)
    return m
