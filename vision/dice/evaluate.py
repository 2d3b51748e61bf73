"""``python -m vision.dice.evaluate [--first 900040] [--frames 200] [--size 1280x720] [--out F.json] [--why] [--leaning DIR]``.

The dice stage alone (:func:`vision.dice.board.read_dice`) on rendered frames of held-out seeds
(``EVAL_SEEDS``; 900000..900039 chose the thresholds): per die right / wrong / unsure / missed,
false dice, cocked recall and flat dice called cocked, on-die, owner, right-hand-table decisions
where the die is more than ``boundary_uncertain_mm`` from a boundary, and the stage's median time
on one core (wall clock, and the process's CPU time: on a shared machine the CPU time is the
figure a free core would give).  Frames missing from the render cache are rendered (set ``BGREF_RENDER_CACHE`` to a
folder of your own to keep evaluation renders apart).  ``--why`` adds why each missed die was
missed (:func:`miss_cause`); ``--leaning DIR`` measures multi-view renders such as the pose renders
per what each die leans on (:func:`leaning_figures`: how many cocked dice the stage finds at all).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any

from vision.config import VisionConfig
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier
from vision.dice.config import DiceConfig
from vision.geometry import Area
from vision.observation import DieReading


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 5) if d else None


def match(truth: list[dict[str, Any]], found: tuple[DieReading, ...]) -> list[int | None]:
    """For each true die, the index of the reading nearest its centre (within 1.5 die sizes), each
    reading used once (nearest pairs first; a die resting on the other die first: it is the one
    seen, the die under it is hidden)."""
    pairs = []
    for i, die in enumerate(truth):
        x, y = die["center_mm"][:2]
        for j, o in enumerate(found):
            dist = math.hypot(o.center_mm[0] - x, o.center_mm[1] - y)
            if dist < 1.5 * die["size_mm"]:
                pairs.append((0 if die.get("on_die") else 1, dist, i, j))
    out: list[int | None] = [None] * len(truth)
    used: set[int] = set()
    for _, _, i, j in sorted(pairs):
        if out[i] is None and j not in used:
            out[i] = j
            used.add(j)
    return out


def _owner_config(truth: dict[str, Any], dcfg: DiceConfig, seed: int) -> DiceConfig:
    """The rendered pair's body colour for its owner, another style's for the other player (the
    simulator throws one pair; this measures telling two differently coloured pairs apart)."""
    import dataclasses
    import random

    from vision.sim.scene import DieStyle

    if not truth["dice"] or truth["dice"][0].get("owner") is None:
        return dcfg
    style = DieStyle(truth["dice"][0]["style"])
    other = random.Random(seed).choice([s for s in DieStyle if s is not style and
                                        {s.value, style.value} != {"white", "ivory"}])
    own, opp = style.body, other.body
    white_is_owner = truth["dice"][0]["owner"] == "WHITE"
    return dataclasses.replace(dcfg, white_dice_bgr=own if white_is_owner else opp,
                               black_dice_bgr=opp if white_is_owner else own)


def _frame(seed: int, width: int, height: int, extra_cache: Path | None) -> Any:
    """The frame from the shared render cache, else rendered into ``extra_cache`` (when given)."""
    import os

    from vision.training.rendered import cache_dir, rendered

    if extra_cache is None or (cache_dir() / f"{width}x{height}" / f"{seed}.json").is_file():
        return rendered(seed, width, height)
    old = os.environ.get("BGREF_RENDER_CACHE")
    os.environ["BGREF_RENDER_CACHE"] = str(extra_cache)
    try:
        return rendered(seed, width, height)
    finally:
        if old is None:
            del os.environ["BGREF_RENDER_CACHE"]
        else:
            os.environ["BGREF_RENDER_CACHE"] = old


class DiceTally:
    """Per-die figures over frames: faces (right / wrong / unsure / missed, false dice), flat or
    cocked, on the other die, owner, and the right-hand-table decision where the die is more than
    ``boundary_uncertain_mm`` from a boundary.  Used by this evaluator and by ``vision.evaluate``."""

    def __init__(self, cfg: VisionConfig, *, verbose: bool = False) -> None:
        self.cfg = cfg
        self.verbose = verbose
        self.d = {"frames": 0, "n": 0, "right": 0, "wrong": 0, "unsure": 0, "missed": 0, "false": 0}
        self.ck = {"cocked_n": 0, "cocked_found": 0, "cocked_unsure": 0, "cocked_flat": 0, "flat_n": 0,
                   "flat_called_cocked": 0, "flat_unsure": 0, "on_die_n": 0, "on_die_found": 0, "flat_called_on_die": 0}
        self.area = {"n_clear": 0, "right": 0, "wrong": 0}
        self.owner = {"n": 0, "right": 0, "wrong": 0, "none": 0}
        self.errors: list[str] = []

    def add(self, seed: int, truth: list[dict[str, Any]], found: tuple[DieReading, ...]) -> None:
        """One frame: the true dice (truth JSON ``dice``) and what was read."""
        d, ck, area, owner, errors = self.d, self.ck, self.area, self.owner, self.errors
        d["frames"] += 1
        m = match(truth, found)
        for die, j in zip(truth, m, strict=True):
            d["n"] += 1
            x, y = die["center_mm"][:2]
            tag = f"{seed}: die {die['face']} ({die['style']}, {'cocked ' + str(die['leaning_on']) if die['cocked'] else 'flat'}) at {x:.0f},{y:.0f}"
            if j is None:
                d["missed"] += 1
                errors.append(f"{tag} missed")
                if die["cocked"]:
                    ck["cocked_n"] += 1
                else:
                    ck["flat_n"] += 1
                continue
            o = found[j]
            if o.face is None:
                d["unsure"] += 1
                if self.verbose:
                    errors.append(f"{tag} unsure ({o.face_confidence})")
            elif o.face == die["face"]:
                d["right"] += 1
            else:
                d["wrong"] += 1
                errors.append(f"{tag} read {o.face} ({o.face_confidence})")
            if die["cocked"]:
                ck["cocked_n"] += 1
                ck["cocked_found"] += o.cocked is True
                ck["cocked_unsure"] += o.cocked is None
                ck["cocked_flat"] += o.cocked is False
                if o.cocked is False:
                    errors.append(f"{tag} called flat")
            else:
                ck["flat_n"] += 1
                ck["flat_called_cocked"] += o.cocked is True
                ck["flat_unsure"] += o.cocked is None
                if o.cocked is True:
                    errors.append(f"{tag} called cocked")
            if die.get("on_die"):
                ck["on_die_n"] += 1
                ck["on_die_found"] += o.on_die
            elif o.on_die:
                ck["flat_called_on_die"] += 1
            if die.get("owner") is not None:
                owner["n"] += 1
                if o.owner is None:
                    owner["none"] += 1
                elif o.owner.name == die["owner"]:
                    owner["right"] += 1
                else:
                    owner["wrong"] += 1
            if die["boundary_mm"] > self.cfg.boundary_uncertain_mm and Area(die["area"]) in (Area.LEFT_TABLE, Area.RIGHT_TABLE):
                area["n_clear"] += 1
                if o.area.value == die["area"]:
                    area["right"] += 1
                else:
                    area["wrong"] += 1
                    errors.append(f"{tag} placed in {o.area.value}, truth {die['area']}")
        extra = [found[j] for j in range(len(found)) if j not in set(m)]
        d["false"] += len(extra)
        errors.extend(f"{seed}: false die {o.face} at {o.center_mm}" for o in extra)

    def sections(self, *, owner: bool = True) -> dict[str, Any]:
        """``dice``, ``cocked``, ``right_hand_table`` (and ``owner``) with their rates."""
        d, ck, area = self.d, self.ck, self.area
        out: dict[str, Any] = {
            "dice": {**d, "face_accuracy": _rate(d["right"], d["n"]),
                     "face_accuracy_of_answered": _rate(d["right"], d["right"] + d["wrong"])},
            "cocked": {**ck, "cocked_recall": _rate(ck["cocked_found"], ck["cocked_n"]),
                       "flat_called_cocked_rate": _rate(ck["flat_called_cocked"], ck["flat_n"])},
            "right_hand_table": {**area, "accuracy": _rate(area["right"], area["n_clear"])},
        }
        if owner:
            out["owner"] = self.owner
        return out

    def errors_first(self, n: int) -> list[str]:
        """The first ``n`` errors, misreadings before misses."""
        e = self.errors
        return ([x for x in e if "missed" not in x] + [x for x in e if "missed" in x])[:n]


def evaluate(seeds: list[int], width: int, height: int, cfg: VisionConfig, dcfg: DiceConfig,
             verbose: bool = False, owners: bool = True, extra_cache: Path | None = None,
             why: bool = False) -> dict[str, Any]:
    import cv2

    from vision.training.rendered import profile_for

    cv2.setNumThreads(1)  # one core, as the live loop's budget assumes (and as vision.bench measures)
    clf = FaceClassifier()
    tally = DiceTally(cfg, verbose=verbose)
    times: list[float] = []
    cpu: list[float] = []
    causes: dict[str, int] = {}
    for seed in seeds:
        r = _frame(seed, width, height, extra_cache)
        t = r.truth
        prof = profile_for(t)
        img = r.image()
        search = DiceSearch.for_profile(prof)
        fcfg = _owner_config(t, dcfg, seed) if owners else dcfg
        read_dice(img, prof, clf, cfg, search, fcfg)  # warm caches of this profile
        t0, c0 = time.perf_counter(), time.process_time()
        found = read_dice(img, prof, clf, cfg, search, fcfg)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        tally.add(seed, t["dice"], found)
        if why:
            for c in frame_miss_causes(img, prof, t, found, fcfg, search, clf):
                causes[c] = causes.get(c, 0) + 1
    times.sort()
    cpu.sort()
    return {
        "seeds": [seeds[0], seeds[-1]] if seeds else [], "size": f"{width}x{height}",
        **tally.sections(),
        "ms_median": round(1000 * times[len(times) // 2], 2) if times else None,
        "ms_p90": round(1000 * times[int(len(times) * 0.9)], 2) if times else None,
        "cpu_ms_median": round(1000 * cpu[len(cpu) // 2], 2) if cpu else None,
        "errors": tally.errors_first(120),
        **({"missed_why": {c: causes.get(c, 0) for c in MISS_CAUSES}} if why else {}),
    }


MISS_CAUSES = ("hand in the frame", "no detector peak", "peak below the score or the peak limit",
               "face model: not a die", "read as a die, then merged or dropped")
"""Why a die was missed (:func:`miss_cause`), in the order the causes are tested.  A peak the first
look did not read counts as "peak below the score or the peak limit" whether or not the second
look (``board.second_look``) read and rejected it."""


def miss_cause(die: dict[str, Any], hand: bool, peaks: list[tuple[float, float, float]],
               not_die: list[float], dcfg: DiceConfig, near_mm: float = 10.0) -> str:
    """The first of :data:`MISS_CAUSES` that explains a missed die: ``hand``: a hand covers part of
    the frame; ``peaks``: the detector's peaks (board x, y mm, score), best first, down to a low
    score; ``not_die``: the up-face reading's P(not a die) of the peaks the stage read (the first
    ``detect_max_peaks`` at ``detect_min_score`` or more), in the same order.

    >>> d = {"center_mm": [100.0, 100.0, 8.0]}
    >>> miss_cause(d, False, [(101.0, 100.0, 0.9)], [0.5], DiceConfig())
    'face model: not a die'
    >>> miss_cause(d, False, [(150.0, 100.0, 0.9), (100.0, 99.0, 0.1)], [0.9], DiceConfig())
    'peak below the score or the peak limit'
    """
    if hand:
        return MISS_CAUSES[0]
    x, y = die["center_mm"][:2]
    near = [i for i, (px, py, _) in enumerate(peaks) if math.hypot(px - x, py - y) < near_mm]
    if not near:
        return MISS_CAUSES[1]
    read = [i for i in near if i < len(not_die)]
    if not read:
        return MISS_CAUSES[2]
    if all(not_die[i] >= dcfg.top_notdie_max for i in read):
        return MISS_CAUSES[3]
    return MISS_CAUSES[4]


def frame_miss_causes(img: Any, prof: Any, truth: dict[str, Any], found: tuple[DieReading, ...],
                      dcfg: DiceConfig, search: DiceSearch, clf: FaceClassifier) -> list[str]:
    """:func:`miss_cause` of each die of ``truth`` that ``found`` misses (:func:`match`), from the
    detector's peaks down to score 0.02 and the stage's own first reading of its candidates (the
    centre model's move, the up-face reading of ``vision.dice.faceread``)."""
    import numpy as np

    from vision.dice.board import refine_centres
    from vision.dice.classify import top_classifier
    from vision.dice.detect import detector, top_view
    from vision.dice.faceread import read_top_faces
    from vision.preprocess import to_gray

    missed = [d for d, j in zip(truth["dice"], match(truth["dice"], found), strict=True) if j is None]
    top_model = top_classifier(clf)
    if not missed or top_model is None:
        return []
    pk = detector().peaks(top_view(img, *search.fixed_maps), 0.02, 64, centroid=dcfg.detect_centroid)
    mm = np.array([search.to_mm(p.u, p.v) for p in pk]).reshape(-1, 2)
    k = sum(1 for p in pk[: dcfg.detect_max_peaks] if p.score >= dcfg.detect_min_score)
    gray = to_gray(img)
    not_die: list[float] = []
    if k:
        cmm = refine_centres(gray, prof, mm[:k], search.z, dcfg)
        not_die = [g.not_die for g in read_top_faces(gray, prof, cmm, search.z, top_model, dcfg)[1]]
    hand = bool(truth.get("hands", {}).get("present")) and bool(truth["hands"].get("covered"))
    peaks = [(float(a), float(b), p.score) for (a, b), p in zip(mm, pk, strict=True)]
    return [miss_cause(d, hand, peaks, not_die, dcfg) for d in missed]


def leaning_figures(folder: Path, seeds: range, cfg: VisionConfig, dcfg: DiceConfig) -> dict[str, Any]:
    """The dice stage on multi-view renders (``SEED_K.json`` in ``folder``, e.g. the pose renders
    ``dice_pose/v2/1280x720``), per visible die (not under another die): per what it leans on
    ("flat", "checker", "die", "die_top", "bar", "rail") how many there are, how many the stage
    found, and why it missed the others (:func:`frame_miss_causes`); right / wrong / unsure faces of
    the found ones and the false dice of all frames.  A ValueError names the folder and seeds when
    there is no render of them."""
    import cv2

    from vision.training.pose import hidden_under
    from vision.training.rendered import frames_in, profile_for

    cv2.setNumThreads(1)
    clf = FaceClassifier()
    faces = {"right": 0, "wrong": 0, "unsure": 0, "false": 0}
    lean: dict[str, dict[str, int]] = {}
    wrong: list[str] = []
    frames = frames_in(folder, seeds)
    if not frames:
        raise ValueError(f"no multi-view renders (SEED_K.json) of seeds {seeds.start}-{seeds.stop - 1} in {folder}")
    for r in frames:
        img, t = r.image(), r.truth
        prof = profile_for(t)
        search = DiceSearch.for_profile(prof)
        found = read_dice(img, prof, clf, cfg, search, dcfg)
        m = match(t["dice"], found)
        causes = iter(frame_miss_causes(img, prof, t, found, dcfg, search, clf))
        hidden = hidden_under(t["dice"])
        for i, (die, j) in enumerate(zip(t["dice"], m, strict=True)):
            cause = next(causes) if j is None else None
            if i in hidden:
                continue
            row = lean.setdefault(str(die.get("leaning_on")) if die["cocked"] else "flat", {"n": 0, "found": 0})
            row["n"] += 1
            if cause is not None:
                row[cause] = row.get(cause, 0) + 1
                continue
            row["found"] += 1
            o = found[j]  # type: ignore[index]
            k = "unsure" if o.face is None else "right" if o.face == die["face"] else "wrong"
            faces[k] += 1
            if k == "wrong":
                wrong.append(f"{r.image_path.stem}: {die['face']} ({die.get('leaning_on') or 'flat'}) read {o.face} ({o.face_confidence})")
        faces["false"] += len(found) - sum(j is not None for j in m)
    cocked = [v for k, v in lean.items() if k != "flat"]
    return {"folder": str(folder), "seeds": [seeds.start, seeds.stop - 1], "faces": faces,
            "cocked_found": sum(v["found"] for v in cocked), "cocked_visible": sum(v["n"] for v in cocked),
            "by_leaning_on": lean, "wrong": wrong}


def render_main(argv: list[str]) -> int:
    """``python -m vision.dice.evaluate render FIRST COUNT [DIR]``: fill an evaluation cache."""
    first, count = int(argv[0]), int(argv[1])
    folder = Path(argv[2]) if len(argv) > 2 else Path("/tmp/bgref_renders/dice_eval")
    for s in range(first, first + count):
        _frame(s, 1280, 720, folder)
        print(s, flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    args_ = sys.argv[1:] if argv is None else argv
    if args_ and args_[0] == "render":
        return render_main(args_[1:])
    p = argparse.ArgumentParser(prog="python -m vision.dice.evaluate")
    p.add_argument("--first", type=int, default=900040)
    p.add_argument("--frames", type=int, default=160)
    p.add_argument("--size", default="1280x720")
    p.add_argument("--out", type=Path, default=None)
    p.add_argument("--verbose", action="store_true")
    p.add_argument("--why", action="store_true", help="tally why each missed die was missed (MISS_CAUSES)")
    p.add_argument("--cached-only", action="store_true", help="only frames already rendered (no rendering)")
    p.add_argument("--leaning", type=Path, default=None,
                   help="a folder of multi-view renders (SEED_K.json, e.g. /tmp/bgref_renders/dice_pose/v2/1280x720): "
                        "found dice and why the others were missed, per what each die leans on (leaning_figures)")
    p.add_argument("--cache", type=Path, default=None,
                   help="render frames missing from the shared cache into this folder (e.g. /tmp/bgref_renders/dice_eval)")
    args = p.parse_args(args_)
    from vision.training.rendered import EVAL_SEEDS, cache_dir

    if args.leaning is not None:
        try:
            res = leaning_figures(args.leaning, range(args.first, args.first + args.frames), VisionConfig(), DiceConfig())
        except ValueError as exc:
            p.error(f"--leaning: {exc}")
        text = json.dumps(res, indent=2)
        print(text)
        if args.out:
            args.out.write_text(text + "\n")
        return 0
    seeds = [s for s in range(args.first, args.first + args.frames) if s in EVAL_SEEDS]
    if args.cached_only:
        seeds = [s for s in seeds if any((d / args.size / f"{s}.json").is_file()
                                         for d in (cache_dir(), args.cache) if d is not None)]
    if not seeds:
        raise ValueError(f"no evaluation seeds in {args.first}..{args.first + args.frames - 1}")
    w, h = (int(v) for v in args.size.split("x"))
    res = evaluate(seeds, w, h, VisionConfig(), DiceConfig(), args.verbose, extra_cache=args.cache, why=args.why)
    text = json.dumps(res, indent=2)
    print(text)
    if args.out:
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
