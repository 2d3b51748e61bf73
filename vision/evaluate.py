"""``python -m vision.evaluate [--data DIR] [--out docs/vision_accuracy.json] [--only real|rendered]``.

Measures each stage on held-out data and writes the figures to a JSON file a commit can carry:

* ``real_dice.tomitomi_heldout``: face accuracy on the ``crops_tomitomi3`` crops never used in
  training (index % 5 == 0);
* ``real_dice.webcam_valid_classify``: face accuracy on ``webcam_matteop65/Valid`` for the candidate
  that matches each labelled die (isolates the classifier);
* ``real_dice.webcam_valid_find``: the whole profile-free finder (``bgref vision dice``): per labelled
  die right / wrong / unsure / missed, and false dice reported where there is none;
* ``rendered``: whole-board, dice and cube reading on rendered frames from held-out seeds
  (900040.. by default; 900000..900039 served as the validation set for thresholds and model choice).

"Unsure" (face None) is counted apart from "wrong": the referee treats it as "look again".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import cv2
import numpy as np

from vision.config import VisionConfig
from vision.dice.config import DiceConfig

if TYPE_CHECKING:
    from vision.dice.classify import FaceClassifier

REPO = Path(__file__).resolve().parent.parent


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 5) if d else None


def eval_tomitomi(root: Path, clf: FaceClassifier, cfg: VisionConfig) -> dict[str, Any]:
    from vision.training.data import load, tomi_samples

    right = wrong = unsure = 0
    errors: list[str] = []
    for s in tomi_samples(root, held_out=True):
        square = ((s.square.cx, s.square.cy), s.square.side, s.square.angle)
        g = clf.classify(load(s.image), [square], scales=DiceConfig().photo_read_scales)[0]
        if g.probability < cfg.face_min_confidence:
            unsure += 1
        elif g.face == s.label:
            right += 1
        else:
            wrong += 1
            errors.append(f"{s.image.parent.name}/{s.image.name} read {g.face}")
    n = right + wrong + unsure
    return {"n": n, "right": right, "wrong": wrong, "unsure": unsure, "accuracy": _rate(right, n),
            "accuracy_of_answered": _rate(right, right + wrong), "errors": errors[:20]}


def eval_webcam(root: Path, clf: FaceClassifier, cfg: VisionConfig) -> tuple[dict[str, Any], dict[str, Any]]:
    from vision.dice.photo import find_dice
    from vision.preprocess import to_gray
    from vision.training.data import webcam_samples

    c_right = c_wrong = c_unsure = c_nocand = 0
    f_right = f_wrong = f_unsure = f_missed = f_false = 0
    errors: list[str] = []
    times: list[float] = []
    for jpg, cands, labels, boxes in webcam_samples(root, "Valid", cfg):
        img = cv2.imread(str(jpg))
        if img is None:
            continue
        gray = to_gray(img)
        # classifier alone, on the matched candidate of each labelled die
        for lb in boxes:
            idx = [i for i, lab in enumerate(labels) if lab == lb.face and _contains(cands[i].box(), lb.cx, lb.cy)]
            if not idx:
                c_nocand += 1
                continue
            c = max((cands[i] for i in idx), key=lambda s: s.side)
            g = clf.classify(gray, [((c.cx, c.cy), c.side, c.angle)], scales=DiceConfig().photo_read_scales)[0]
            if g.probability < cfg.face_min_confidence:
                c_unsure += 1
            elif g.face == lb.face:
                c_right += 1
            else:
                c_wrong += 1
        # the whole finder
        t0 = time.perf_counter()
        found = find_dice(img, clf, cfg)
        times.append(time.perf_counter() - t0)
        used: set[int] = set()
        for lb in boxes:
            hit = [i for i, d in enumerate(found) if _contains(d.image_box, lb.cx, lb.cy)]
            if not hit:
                f_missed += 1
                errors.append(f"{jpg.name}: missed a {lb.face}")
                continue
            used.update(hit)
            d = found[hit[0]]
            if d.face is None:
                f_unsure += 1
            elif d.face == lb.face:
                f_right += 1
            else:
                f_wrong += 1
                errors.append(f"{jpg.name}: a {lb.face} read as {d.face}")
        extra = [i for i in range(len(found)) if i not in used]
        f_false += len(extra)
        errors.extend(f"{jpg.name}: false die at {found[i].image_box}" for i in extra)
    nc = c_right + c_wrong + c_unsure
    nf = f_right + f_wrong + f_unsure + f_missed
    times.sort()
    return (
        {"n": nc, "right": c_right, "wrong": c_wrong, "unsure": c_unsure, "no_candidate": c_nocand,
         "accuracy": _rate(c_right, nc), "accuracy_of_answered": _rate(c_right, c_right + c_wrong)},
        {"labelled_dice": nf, "right": f_right, "wrong": f_wrong, "unsure": f_unsure, "missed": f_missed,
         "false_dice": f_false, "accuracy": _rate(f_right, nf), "accuracy_of_answered": _rate(f_right, f_right + f_wrong),
         "median_ms_640x480": round(1000 * times[len(times) // 2], 2) if times else None, "errors": errors[:30]},
    )


def _contains(box: tuple[int, int, int, int], x: float, y: float) -> bool:
    bx, by, bw, bh = box
    return bx <= x <= bx + bw and by <= y <= by + bh


def evaluate_rendered(frames: int, cfg: VisionConfig, first: int = 40) -> dict[str, Any] | None:
    """Whole-board, dice and cube figures on rendered frames from held-out seeds (EVAL_SEEDS)."""
    from vision.dice.evaluate import DiceTally
    from vision.reader import BoardReader
    from vision.training.rendered import EVAL_SEEDS, profile_for, rendered

    try:
        reader = BoardReader(cfg)
    except ValueError as exc:
        print(f"rendered evaluation skipped: {exc}", file=sys.stderr)
        return None
    n_frames = n_clear = exact = confident_wrong = unsure = 0
    covered_reported = covered_total = 0
    regions = {"confident_right": 0, "confident_wrong": 0, "unsure": 0}
    sweep = (0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
    region_conf: list[tuple[float, bool]] = []  # (confidence, right) of every uncovered point/bar reading
    board_conf: list[tuple[float, bool]] = []  # (weakest confidence, exact) of every frame without hands
    dice = DiceTally(cfg)  # the dice evaluator's figures (pairing: on a die-on-die, the top one)
    cube = {"n": 0, "face_right": 0, "face_wrong": 0, "face_unsure": 0, "position_right": 0, "position_wrong": 0, "position_unsure": 0,
            "missed": 0}
    errors: list[str] = []
    seeds = list(EVAL_SEEDS)[first : first + frames]
    for seed in seeds:
        r = rendered(seed)
        t = r.truth
        prof = profile_for(t)
        obs = reader.read_image(r.image(), prof)
        n_frames += 1
        truth_cov = set(t["hands"]["covered"])
        covered_total += len(truth_cov)
        for name in truth_cov:
            if obs.reading(name).confidence >= cfg.count_min_confidence:
                covered_reported += 1
                errors.append(f"{seed}: covered {name} read with confidence {obs.reading(name).confidence}")
        c = t["counts"]
        want = {f"p{i + 1}": tuple(x) for i, x in enumerate(c["points"])}
        want["bar"] = tuple(c["bar"])
        for name, w in want.items():
            if name in truth_cov:
                continue
            rd = obs.reading(name)
            region_conf.append((rd.confidence, (rd.white, rd.black) == w))
            if rd.confidence < cfg.count_min_confidence:
                regions["unsure"] += 1
            elif (rd.white, rd.black) == w:
                regions["confident_right"] += 1
            else:
                regions["confident_wrong"] += 1
                errors.append(f"{seed}: {name} read {rd.white}W {rd.black}B, truth {w}")
        same = all((o.white, o.black) == tuple(tp) for o, tp in zip(obs.points, c["points"], strict=True))
        same = same and (obs.bar.white, obs.bar.black) == tuple(c["bar"])
        same = same and obs.trays[0].white == c["tray_w"] and obs.trays[1].black == c["tray_b"]
        if not truth_cov:
            n_clear += 1
            board_conf.append((min(r.confidence for r in (*obs.points, obs.bar, *obs.trays)), same))
            if obs.confident and same:
                exact += 1
            elif obs.confident:
                confident_wrong += 1
                errors.append(f"{seed}: confident but wrong board")
            else:
                unsure += 1
        dice.add(seed, t["dice"], obs.dice)
        # cube
        if t.get("cube"):
            cube["n"] += 1
            if obs.cube is None:
                cube["missed"] += 1
            else:
                tc = t["cube"]
                if obs.cube.face is None:
                    cube["face_unsure"] += 1
                elif obs.cube.face == tc["face"]:
                    cube["face_right"] += 1
                else:
                    cube["face_wrong"] += 1
                if obs.cube.position_confidence < cfg.observation_min_confidence:
                    cube["position_unsure"] += 1  # right or not, an unsure place is not a reading
                elif obs.cube.position.value == tc["position"]:
                    cube["position_right"] += 1
                else:
                    cube["position_wrong"] += 1
                    errors.append(f"{seed}: cube {tc['position']} read {obs.cube.position.value}")
    return {
        "frames": n_frames, "seeds": [seeds[0], seeds[-1]] if seeds else [],
        "board": {"frames_without_hands": n_clear, "exact_and_confident": exact, "confident_but_wrong": confident_wrong,
                  "unsure": unsure, "exact_rate": _rate(exact, n_clear)},
        "regions": {**regions, "points_and_bar_read": sum(regions.values()),
                    "confident_rate": _rate(regions["confident_right"] + regions["confident_wrong"], sum(regions.values()))},
        "checker_thresholds": {
            str(th): {"regions_confident_right": sum(c >= th and ok for c, ok in region_conf),
                      "regions_confident_wrong": sum(c >= th and not ok for c, ok in region_conf),
                      "boards_exact_and_confident": sum(c >= th and ok for c, ok in board_conf),
                      "boards_confident_but_wrong": sum(c >= th and not ok for c, ok in board_conf)}
            for th in sweep},
        "hands": {"covered_regions": covered_total, "covered_regions_read_confidently": covered_reported},
        **dice.sections(owner=False),  # the reader has no dice colours configured: no owners
        "cube": {**cube, "face_accuracy": _rate(cube["face_right"], cube["n"]),
                 "position_accuracy": _rate(cube["position_right"], cube["n"])},
        "errors": (errors + dice.errors_first(40))[:40],
    }


def unsure_cause(region: str, probs: Any, slots: Any, hand_max: float, neighbour_hand_max: float,
                 bar_hand_corroboration: float = 0.0) -> str:
    """Why a region's reading is not confident: "hand" (one of its slots looks like a hand),
    "neighbour_hand" (a slot of a neighbouring region does), "contradiction" (its slots' best classes
    mix colours or leave a gap), else "posterior" (the decoder's posterior is below the threshold,
    full-row error weight included)."""
    from vision.checkers import HAND, _argmax_doubt, _region_index, corroborated_hands, neighbours

    groups = _region_index(slots)
    probs = corroborated_hands(slots, np.asarray(probs, np.float64), bar_hand_corroboration)
    ps = probs[groups[region]]
    if float(ps[:, HAND].max()) >= hand_max or bool((ps.argmax(axis=1) == HAND).any()):
        return "hand"
    if any(float(probs[groups[n], HAND].max()) >= neighbour_hand_max for n in neighbours(region) if n in groups):
        return "neighbour_hand"
    if region == "bar":
        if any(_argmax_doubt(probs[[i for i in groups[region] if slots[i].side is sd]], sd)
               for sd in {slots[i].side for i in groups[region]}):
            return "contradiction"
    elif _argmax_doubt(ps, None):
        return "contradiction"
    return "posterior"


def _stack_kind(w: int, b: int) -> str:
    n = max(w, b)
    return "empty" if n == 0 else "1-4" if n <= 4 else "5" if n == 5 else "6+"


def evaluate_checkers(frames: int, cfg: VisionConfig, first: int = 40,
                      frames_list: list[Any] | None = None) -> dict[str, Any]:
    """The checker stage alone (slot patches, model, joint decoding) on held-out rendered frames:
    what ``evaluate_rendered`` reports for the board, without running the dice and cube stages.

    Also the diagnosis: what the ARGMAX reading (ignoring confidence) gets right per region and per
    whole board, by colour scheme and by region kind (bar / points by true stack height); why the
    unsure regions are unsure (:func:`unsure_cause`); how often the truth is the reading or one of
    its ``alternatives`` (and their mean probability of the truth); the checker stage's CPU time.

    ``frames_list``: these frames (``vision.training.rendered.Rendered``, e.g. a game's still frames from
    ``vision.training.games``) instead of the evaluation seeds; where a frame's truth has
    ``stack_positions``, the points whose checkers are not packed from the rail are also tallied apart
    (``gapped``)."""
    import statistics
    from collections import Counter

    from vision.checkers import (
        TRAY_MODEL,
        SlotClassifier,
        SlotSampler,
        TrayClassifier,
        TraySampler,
        counts_from_slot_probs,
    )
    from vision.hands import hand_model_or_none
    from vision.stacks import STACK_MODEL, StackClassifier, StackSampler
    from vision.training.games import gapped
    from vision.training.rendered import EVAL_SEEDS, profile_for, rendered

    clf = SlotClassifier()
    hand_clf = hand_model_or_none()
    hand_asked = 0
    tray_clf = TrayClassifier() if TRAY_MODEL.is_file() else None
    stack_clf = StackClassifier() if STACK_MODEL.is_file() else None
    tray_tally: dict[str, Counter[str]] = {"read": Counter(), "derived": Counter()}
    tray_errors: list[str] = []
    sweep = (0.9, 0.95, 0.98, 0.99, 0.995, 0.999)
    th = cfg.count_min_confidence
    region_conf: list[tuple[float, bool]] = []
    board_conf: list[tuple[float, bool]] = []
    covered_conf: list[float] = []
    covered_trays: list[float] = []
    errors: list[str] = []
    argmax_errors: list[str] = []
    cpu_ms: list[float] = []
    by_scheme: dict[str, Counter[str]] = {}
    by_kind: dict[str, Counter[str]] = {}
    causes: Counter[str] = Counter()
    truth_prob: list[float] = []
    in_alternatives = not_in = 0
    gap_tally: Counter[str] = Counter()
    gap_errors: list[str] = []
    todo = frames_list if frames_list is not None else [rendered(s) for s in list(EVAL_SEEDS)[first : first + frames]]
    seeds = [r.seed for r in todo]
    for r in todo:
        seed = r.seed if frames_list is None else r.image_path.stem
        t = r.truth
        prof = profile_for(t)
        sampler = SlotSampler(prof, clf.patch)
        tray_sampler = TraySampler(prof) if tray_clf is not None else None
        stack_sampler = StackSampler(prof) if stack_clf is not None else None
        img = r.image()

        def stack_probs(points: list[int], img: Any = img, ss: Any = stack_sampler) -> Any:
            assert stack_clf is not None
            return stack_clf.probabilities(ss.strips(img, points))

        def hand_probability(img: Any = img) -> float:
            nonlocal hand_asked
            assert hand_clf is not None
            hand_asked += 1
            return hand_clf.probability(img)

        t0 = time.process_time()
        probs = clf.probabilities(sampler.patches(img), cfg.slot_temperature)
        tray_probs = None if tray_clf is None or tray_sampler is None else tray_clf.probabilities(tray_sampler.strips(img))
        rd = counts_from_slot_probs(sampler.slots, probs, frozenset(), cfg.slot_hand_max, cfg.slot_layer_error_factor,
                                    cfg.slot_neighbour_hand_max, cfg.slot_object_weight, tray_probs,
                                    cfg.tray_disagree_factor, cfg.slot_bar_hand_corroboration, cfg.slot_hand_pair_max,
                                    cfg.slot_layer_error_cap, None if stack_clf is None else stack_probs, cfg,
                                    None if hand_clf is None else hand_probability)
        cpu_ms.append((time.process_time() - t0) * 1000)
        c = t["counts"]
        cov = set(t["hands"]["covered"])
        derived = counts_from_slot_probs(sampler.slots, probs, frozenset(), cfg.slot_hand_max,
                                         cfg.slot_layer_error_factor, cfg.slot_neighbour_hand_max,
                                         cfg.slot_object_weight,
                                         bar_hand_corroboration=cfg.slot_bar_hand_corroboration,
                                         hand_pair_max=cfg.slot_hand_pair_max,
                                         layer_error_cap=cfg.slot_layer_error_cap).trays
        for how, trays in (("read", rd.trays), ("derived", derived)):
            for name, g, want in (("tray_w", trays[0], c["tray_w"]), ("tray_b", trays[1], c["tray_b"])):
                if name in cov:
                    if how == "read":
                        covered_trays.append(g.confidence)
                        if g.confidence >= th:
                            errors.append(f"{seed}: covered {name} read with confidence {g.confidence}")
                    continue
                ok = g.white + g.black == want
                tt = tray_tally[how]
                tt["right" if ok and g.confidence >= th else "wrong" if g.confidence >= th else "unsure"] += 1
                tt["argmax_right"] += ok
                if how == "read" and not ok and g.confidence >= th:
                    tray_errors.append(f"{seed}: {name} read {g.white + g.black} at {g.confidence}, truth {want}")
        scheme = str(t["board"].get("scheme", "?"))
        sch = by_scheme.setdefault(scheme, Counter())
        exact = True
        for i, g in enumerate((*rd.points, rd.bar)):
            name = "bar" if i == 24 else f"p{i + 1}"
            want = tuple(c["bar"]) if i == 24 else tuple(c["points"][i])
            if name in cov:
                covered_conf.append(g.confidence)
                if g.confidence >= th:
                    errors.append(f"{seed}: covered {name} read with confidence {g.confidence}")
                continue
            ok = (g.white, g.black) == want
            exact = exact and ok
            region_conf.append((g.confidence, ok))
            if i < 24 and gapped(t.get("stack_positions", {}).get(name, [])):
                gap_tally["right" if ok and g.confidence >= th else "wrong" if g.confidence >= th else "unsure"] += 1
                if not ok and g.confidence >= th:
                    gap_errors.append(f"{seed}: {name} at {t['stack_positions'][name]} read {g.white}W {g.black}B "
                                      f"at {g.confidence}, truth {want}")
            kind = by_kind.setdefault("bar" if i == 24 else f"point_{_stack_kind(*want)}", Counter())
            for tally in (sch, kind):
                tally["regions"] += 1
                tally["argmax_right"] += ok
                tally["confident_right"] += ok and g.confidence >= th
                tally["confident_wrong"] += (not ok) and g.confidence >= th
            if not ok:
                argmax_errors.append(f"{seed} {scheme} {name}: {g.white}W {g.black}B, truth {want} ({g.confidence})")
                if g.confidence >= th:
                    errors.append(f"{seed}: {name} read {g.white}W {g.black}B at {g.confidence}, truth {want}")
            if g.confidence < th:
                causes[unsure_cause(name, probs, sampler.slots, cfg.slot_hand_max, cfg.slot_neighbour_hand_max,
                                    cfg.slot_bar_hand_corroboration)] += 1
            if g.confidence > 0:
                alts = {(w, b): p for w, b, p in g.alternatives}
                truth_prob.append(g.confidence if ok else alts.get(want, 0.0))
                if not ok:
                    in_alternatives += want in alts
                    not_in += want not in alts
        if not cov:
            exact = exact and rd.trays[0].white == c["tray_w"] and rd.trays[1].black == c["tray_b"]
            weakest = min(x.confidence for x in (*rd.points, rd.bar, *rd.trays))
            board_conf.append((weakest, exact))
            sch["boards"] += 1
            sch["argmax_exact_boards"] += exact
            sch["exact_and_confident"] += weakest >= th and exact
    n_clear = len(board_conf)
    exact_n = sum(c >= th and ok for c, ok in board_conf)
    return {
        "frames": len(seeds), "seeds": [seeds[0], seeds[-1]] if seeds else [], "threshold": th,
        "temperature": clf.temperature if cfg.slot_temperature is None else cfg.slot_temperature,
        "stack_model": stack_clf is not None,
        "hand_model": hand_clf is not None,
        "hand_model_asked_frames": hand_asked,
        "board": {"frames_without_hands": n_clear, "exact_and_confident": exact_n,
                  "confident_but_wrong": sum(c >= th and not ok for c, ok in board_conf),
                  "unsure": sum(c < th for c, _ in board_conf), "exact_rate": _rate(exact_n, n_clear),
                  "argmax_exact": sum(ok for _, ok in board_conf)},
        "regions": {"confident_right": sum(c >= th and ok for c, ok in region_conf),
                    "confident_wrong": sum(c >= th and not ok for c, ok in region_conf),
                    "unsure": sum(c < th for c, _ in region_conf),
                    "right_any_confidence": sum(ok for _, ok in region_conf),
                    "argmax_wrong": sum(not ok for _, ok in region_conf)},
        "trays": {"model": tray_clf is not None, "read": dict(tray_tally["read"]),
                  "derived_before": dict(tray_tally["derived"]), "errors": tray_errors[:20]},
        "unsure_causes": dict(causes.most_common()),
        "alternatives": {"read_regions_wrong_truth_in_alternatives": in_alternatives,
                         "read_regions_wrong_truth_missing": not_in,
                         "mean_probability_of_truth": round(statistics.fmean(truth_prob), 5) if truth_prob else None},
        "hands": {"covered_regions": len(covered_conf),
                  "covered_regions_read_confidently": sum(c >= th for c in covered_conf),
                  "covered_trays": len(covered_trays),
                  "covered_trays_read_confidently": sum(c >= th for c in covered_trays)},
        "gapped": {"regions": dict(gap_tally), "errors": gap_errors[:20]},
        "by_scheme": {k: dict(v) for k, v in sorted(by_scheme.items())},
        "by_region_kind": {k: dict(v) for k, v in sorted(by_kind.items())},
        "exact_boards_by_scheme": {k: f"{v['exact_and_confident']}/{v['boards']}" for k, v in sorted(by_scheme.items())},
        "thresholds": {
            str(x): {"regions_confident_right": sum(c >= x and ok for c, ok in region_conf),
                     "regions_confident_wrong": sum(c >= x and not ok for c, ok in region_conf),
                     "boards_exact_and_confident": sum(c >= x and ok for c, ok in board_conf),
                     "boards_confident_but_wrong": sum(c >= x and not ok for c, ok in board_conf),
                     "covered_read": sum(c >= x for c in covered_conf)}
            for x in sweep},
        "checker_stage_cpu_ms_median_1280x720": round(statistics.median(cpu_ms), 3) if cpu_ms else None,
        "errors": errors[:40],
        "argmax_errors": argmax_errors[:60],
    }


def evaluate_trays(cfg: VisionConfig, first: int = 900_900, count: int = 20) -> dict[str, Any]:
    """The tray reading on its own on the tray renders of held-out scenes ``first..first+count``
    (``trays_eval_1280x720``: 0..15 borne off per side, ``python -m vision.training.trays render 900900 20 5
    1280 720 trays_eval``): right / wrong / unsure per tray at ``count_min_confidence``, with the model's
    reading alone and cross-checked with the board (``checkers.tray_readings``), and by true count."""
    from collections import Counter

    from vision.checkers import (
        SlotClassifier,
        SlotSampler,
        TrayClassifier,
        TraySampler,
        counts_from_slot_probs,
    )
    from vision.training.rendered import profile_for
    from vision.training.trays import tray_frames

    th = cfg.count_min_confidence
    slots, trays = SlotClassifier(), TrayClassifier()
    frames = tray_frames(1280, 720, "trays_eval", range(first, first + count))
    tally: dict[str, Counter[str]] = {"model_alone": Counter(), "cross_checked": Counter()}
    by_count: dict[int, Counter[str]] = {}
    errors: list[str] = []
    for r in frames:
        prof = profile_for(r.truth)
        img = r.image()
        tp = trays.probabilities(TraySampler(prof).strips(img))
        sampler = SlotSampler(prof, slots.patch)
        probs = slots.probabilities(sampler.patches(img), cfg.slot_temperature)
        rd = counts_from_slot_probs(sampler.slots, probs, frozenset(), cfg.slot_hand_max, cfg.slot_layer_error_factor,
                                    cfg.slot_neighbour_hand_max, cfg.slot_object_weight, tp, cfg.tray_disagree_factor,
                                    cfg.slot_bar_hand_corroboration, cfg.slot_hand_pair_max, cfg.slot_layer_error_cap)
        cov = set(r.truth["hands"]["covered"])
        for i, name in enumerate(("tray_w", "tray_b")):
            if name in cov:
                continue
            want = int(r.truth["counts"][name])
            alone = int(tp[i, :-1].argmax())
            for kind, n, conf in (("model_alone", alone, float(tp[i, alone])),
                                  ("cross_checked", rd.trays[i].white + rd.trays[i].black, rd.trays[i].confidence)):
                k = "right" if n == want and conf >= th else "wrong" if conf >= th else "unsure"
                tally[kind][k] += 1
                tally[kind]["argmax_right"] += n == want
                if kind == "cross_checked":
                    by_count.setdefault(want, Counter())[k] += 1
                if k == "wrong":
                    errors.append(f"{r.image_path.stem} {kind}: {name} read {n} at {conf:.5f}, truth {want}")
    return {"frames": len(frames), "seeds": [first, first + count - 1], "threshold": th,
            **{k: dict(v) for k, v in tally.items()},
            "by_true_count": {str(k): dict(v) for k, v in sorted(by_count.items())}, "errors": errors[:30]}


def main(argv: list[str] | None = None) -> int:
    """Dice, cube and the real-photo sections are imported only when asked for, so the checker
    evaluation runs on its own."""
    from vision.training.data import shared_dir

    p = argparse.ArgumentParser(prog="python -m vision.evaluate")
    p.add_argument("--data", type=Path, default=shared_dir())
    p.add_argument("--out", type=Path, default=REPO / "docs" / "vision_accuracy.json")
    p.add_argument("--only", choices=("real", "rendered", "checkers", "trays"), default=None,
                   help="checkers: the checker stage alone on the rendered frames (fast)")
    p.add_argument("--frames", type=int, default=80, help="rendered frames to evaluate")
    p.add_argument("--first", type=int, default=40,
                   help="skip this many evaluation seeds (900000..900039 were used to choose thresholds)")
    args = p.parse_args(argv)
    cfg = VisionConfig()
    clf = None
    if args.only in (None, "real"):
        from vision.dice.classify import FaceClassifier

        clf = FaceClassifier()
    result: dict[str, Any] = {}
    if args.out.is_file():
        result = json.loads(args.out.read_text())
    if args.only in (None, "real") and clf is not None:
        root = args.data / "dice"
        if not root.is_dir():
            print(f"real data not found at {root}: set BGREF_SHARED_DATA", file=sys.stderr)
            return 2
        tomi = eval_tomitomi(root, clf, cfg)
        cls, find = eval_webcam(root, clf, cfg)
        result["real_dice"] = {"tomitomi_heldout": tomi, "webcam_valid_classify": cls, "webcam_valid_find": find}
        print(json.dumps(result["real_dice"], indent=2))
    if args.only == "checkers":
        result["rendered_checkers"] = evaluate_checkers(args.frames, cfg, args.first)
        print(json.dumps(result["rendered_checkers"], indent=2))
    if args.only == "trays":
        result["rendered_trays"] = evaluate_trays(cfg)
        print(json.dumps(result["rendered_trays"], indent=2))
    if args.only in (None, "rendered"):
        rendered = evaluate_rendered(args.frames, cfg, args.first)
        if rendered is not None:
            result["rendered"] = rendered
            print(json.dumps(rendered, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
