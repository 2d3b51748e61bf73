"""``bgref bench calibration``: automatic calibration on rendered starting positions, against the truth.

    bgref bench calibration --n 100 --seed 2000 --size 1920x1080 --json out.json   # the held-out set

Scenes come from the simulator (random board type, colour scheme, camera tilt 0..45 degrees, lens,
light, noise), cached under ``build/calib_scenes`` (:mod:`calibration.scenes`), so a second run only
calibrates.  A scene succeeds when the board is found, all four outer corners are within 1.5 px of the
truth (up to the board's 180-degree symmetry), the seats and home side are right, and every checker on a
point falls inside that point as the profile maps it.  Figures: success rate, corner error median /
p99 / max (px), the worst checker margin, seconds per calibration.
"""

from __future__ import annotations

import argparse
import ast
import json
import time
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import numpy as np

from calibration.board import BoardFit, _polish_cost, smoothed_lab
from calibration.camera import CameraModel
from calibration.config import CalibrationConfig
from calibration.errors import CalibrationError, CornerOutside, FitUntrusted, SidesUntrusted
from calibration.pipeline import calibrate_frame
from calibration.profile import CalibrationProfile
from calibration.scenes import DEFAULT_DIR, checkers_in_points, corner_errors, load_or_render

CORNER_TOL_PX = 1.5


def seats_right(profile: Any, truth: Any) -> bool:
    """The profile's points 1, 7, 13 and 19 are where the truth has them (so seats and home side agree)."""
    tol = truth.spec.point_width_mm / 3
    for p in (1, 7, 13, 19):
        x, y = profile.layout.point_center(p)
        tx, ty = truth.layout.point_center(p)
        img = truth.project([(tx, ty, 0.0)])
        got = profile.image_to_board(img)[0]
        if float(np.hypot(got[0] - x, got[1] - y)) > tol:
            return False
    return True


def config_with(cfg: CalibrationConfig, settings: list[str]) -> CalibrationConfig:
    """``cfg`` with ``FIELD=VALUE`` overrides (Python literals); a ValueError quoting a bad one."""
    names = {f.name for f in fields(cfg)}
    for item in settings:
        key, sep, text = item.partition("=")
        if not sep or key.strip() not in names:
            raise ValueError(f"--set {item!r}: expected FIELD=VALUE with FIELD one of CalibrationConfig's fields")
        try:
            value = ast.literal_eval(text.strip())
        except (ValueError, SyntaxError):
            raise ValueError(f"--set {item!r}: {text!r} is not a Python literal") from None
        cfg = replace(cfg, **{key.strip(): value})
    return cfg


def truth_profile(truth: Any, width: int, height: int) -> CalibrationProfile:
    """The profile of the TRUE camera and pose of a rendered scene (what a perfect calibration would hold)."""
    K = truth.K
    d = [float(x) for x in np.asarray(truth.dist).ravel()] + [0.0] * 5
    cam = CameraModel(width, height, float(K[0, 0]), float(K[1, 1]), float(K[0, 2]), float(K[1, 2]),
                      (d[0], d[1], d[2], d[3], d[4]), "default")
    return CalibrationProfile.from_pose(cam, truth.spec, truth.rvec, truth.tvec, reprojection_px=0.0)


def failure_kind(lab: Any, fitted: CalibrationProfile, truth: Any, config: CalibrationConfig) -> dict[str, Any]:
    """Why a decided fit missed the corners: ``stuck`` when the polish edge cost
    (:func:`calibration.board._polish_cost`, what the restarts compare) is LOWER at the true pose than at
    the fit (a better optimum the search did not reach), ``biased`` when it is not (the image's edges
    themselves favour the wrong fit: no restart can help, the cost must change)."""
    h, w = lab.shape[:2]
    at_fit = _polish_cost(lab, fitted, config)
    at_truth = _polish_cost(lab, truth_profile(truth, w, h), config)
    return {"failure_kind": "stuck" if at_truth < at_fit else "biased",
            "edge_cost_fit": round(at_fit, 4), "edge_cost_truth": round(at_truth, 4)}


def _r(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


def run_one(seed: int, width: int, height: int, tilt_max: float, board: str, folder: Path | None = None,
            config: CalibrationConfig | None = None) -> dict[str, Any]:
    from vision.geometry import BoardSpec

    img, truth = load_or_render(seed, width, height, tilt_max, folder)
    rec: dict[str, Any] = {"seed": seed, "board": truth.spec.name, "scheme": truth.scheme,
                           "tilt": round(truth.tilt_deg, 1)}
    spec = None if board == "auto" else (truth.spec if board == "truth" else BoardSpec.by_name(board))
    t0, c0 = time.perf_counter(), time.process_time()
    try:
        res = calibrate_frame(img, spec, config=config)
    except FitUntrusted as exc:
        # an abstention; what the untrusted fit would have been is kept for choosing the guard's threshold
        rec.update(found=False, error=str(exc), seconds=round(time.perf_counter() - t0, 3), success=False,
                   cpu_seconds=round(time.process_time() - c0, 3),
                   abstained="guard_sides" if isinstance(exc, SidesUntrusted)
                   else "guard_outside" if isinstance(exc, CornerOutside) else "guard",
                   corner_confidence=round(exc.confidence, 4))
        if isinstance(exc, SidesUntrusted):
            rec.update(side_support=round(exc.side_support, 4), side_contrast=round(exc.contrast, 2))
        if isinstance(exc.fit, BoardFit):
            err = corner_errors(exc.fit.corners_px, truth)
            rec["unguarded_corner_err"] = [round(float(e), 3) for e in err]
            rec["unguarded_pattern"] = round(float(exc.fit.pattern_score), 4)
        return rec
    except CalibrationError as exc:
        rec.update(found=False, error=str(exc), seconds=round(time.perf_counter() - t0, 3), success=False,
                   cpu_seconds=round(time.process_time() - c0, 3),
                   abstained=type(exc).__name__)
        return rec
    rec["seconds"] = round(time.perf_counter() - t0, 3)
    rec["cpu_seconds"] = round(time.process_time() - c0, 3)
    prof = res.profile
    err = corner_errors(prof.corners_px, truth)
    if res.fit is not None and res.fit.profile is not None:  # the second guard's figures, for its threshold
        from calibration.guard import side_contrast, side_support

        rec.update(side_contrast=round(side_contrast(img, res.fit.profile), 2),
                   side_support=round(side_support(smoothed_lab(img), res.fit.profile), 4))
    bad, margin = checkers_in_points(prof, truth) if prof.spec.name == truth.spec.name else (99, -99.0)
    seats = prof.spec.name == truth.spec.name and seats_right(prof, truth)
    rec.update(found=True, board_found=prof.spec.name, corner_err=[round(float(e), 3) for e in err],
               seats_ok=seats, checkers_outside=bad, checker_margin_mm=round(margin, 2),
               start_ok=prof.quality.start_position_ok,
               corner_confidence=_r(prof.quality.corner_confidence),
               pattern_score=_r(prof.quality.pattern_score),
               seat_score=None if res.seats is None else round(float(res.seats.score), 3),
               seat_margin=None if res.seats is None else round(float(res.seats.margin), 3),
               success=bool(seats and bad == 0 and float(err.max()) <= CORNER_TOL_PX * width / 1920))
    if seats and float(err.max()) > CORNER_TOL_PX * width / 1920:  # a corner failure: stuck or biased (not timed)
        rec.update(failure_kind(smoothed_lab(img), prof, truth, config or CalibrationConfig()))
    return rec


def summarise(recs: list[dict[str, Any]], size: str) -> dict[str, Any]:
    n = max(1, len(recs))
    found = [r for r in recs if r["found"]]
    errs = np.array([e for r in found for e in r["corner_err"]]) if found else np.array([np.inf])
    per_scene = np.array([max(r["corner_err"]) for r in found]) if found else np.array([np.inf])
    return {
        "scenes": len(recs),
        "size": size,
        "success_rate": sum(r["success"] for r in recs) / n,
        "found_rate": len(found) / n,
        "seats_right_rate": sum(1 for r in found if r["seats_ok"]) / n,
        "wrong_placements": [r["seed"] for r in found if not r["seats_ok"] or r["checkers_outside"] > 0],
        "abstained": {k: [r["seed"] for r in recs if r.get("abstained") == k]
                      for k in sorted({str(r["abstained"]) for r in recs if r.get("abstained")})},
        "checkers_in_points_rate": sum(1 for r in found if r["checkers_outside"] == 0) / n,
        "corners_within_tol_rate": float(np.mean(per_scene <= CORNER_TOL_PX)) * len(found) / n,
        "corner_err_median_px": round(float(np.median(errs)), 3),
        "corner_err_p99_px": round(float(np.percentile(errs, 99)), 3),
        "corner_err_max_px": round(float(np.max(errs)), 3),
        "scene_max_corner_err_median_px": round(float(np.median(per_scene)), 3),
        "corner_failures_by_kind": {k: [r["seed"] for r in found if r.get("failure_kind") == k]
                                    for k in ("biased", "stuck")},
        "worst_checker_margin_mm": min((r["checker_margin_mm"] for r in found), default=None),
        "seconds_median": round(float(np.median([r["seconds"] for r in recs])), 2),
        "cpu_seconds_median": round(float(np.median([r.get("cpu_seconds", np.nan) for r in recs])), 2),
        "cpu_seconds_mean": round(float(np.mean([r.get("cpu_seconds", np.nan) for r in recs])), 2),
        "tilt_range_deg": [min(r["tilt"] for r in recs), max(r["tilt"] for r in recs)] if recs else [],
        "boards": sorted({r["board"] for r in recs}),
        "schemes": sorted({r["scheme"] for r in recs}),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bgref bench calibration", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=60, help="number of rendered scenes")
    ap.add_argument("--seed", type=int, default=0, help="first scene seed")
    ap.add_argument("--size", default="1920x1080")
    ap.add_argument("--tilt-max", type=float, default=45.0)
    ap.add_argument("--board", default="truth",
                    help="truth (default: the board type is given, as a director gives it), auto (guessed), "
                         "tournament or travel")
    ap.add_argument("--auto-guess", action="store_true",
                    help="also calibrate every scene with --board auto and report the guess separately")
    ap.add_argument("--nudge", type=int, default=0, help="also run the nudge clip on this many seeds")
    ap.add_argument("--cache", type=Path, default=DEFAULT_DIR, help=f"render cache (default {DEFAULT_DIR})")
    ap.add_argument("--json", type=Path, help="write the figures and per-scene records here")
    ap.add_argument("--min-corner-confidence", type=float, default=None,
                    help="the fit guard's threshold (default: the config's; 0: off; abstentions by the guard "
                         "keep the corner errors the untrusted fit would have had)")
    ap.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE",
                    help="override a CalibrationConfig field for this run (a Python literal), e.g. "
                         "--set 'focal_restarts=()' (an arm of a before/after measurement)")
    args = ap.parse_args(argv)
    cfg = config_with(CalibrationConfig(), args.set)
    if args.min_corner_confidence is not None:
        cfg = replace(cfg, min_corner_confidence=args.min_corner_confidence)
    try:
        w, h = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise ValueError(f"--size {args.size!r}: expected WIDTHxHEIGHT, e.g. 1920x1080") from None
    recs = []
    for i in range(args.n):
        r = run_one(args.seed + i, w, h, args.tilt_max, args.board, args.cache, cfg)
        recs.append(r)
        status = ("FAIL " + str(r.get("error", ""))[:70]) if not r["found"] else (
            f"corner err max {max(r['corner_err']):.2f}px seats={r['seats_ok']} outside={r['checkers_outside']}"
            f" margin={r['checker_margin_mm']:.1f}mm" + ("" if r["success"] else "  <-- FAIL"))
        print(f"seed {r['seed']:4d} {r['board']:10s} {r['scheme']:16s} tilt {r['tilt']:4.1f} {r['seconds']:.1f}s "
              f"{status}", flush=True)
    summary = summarise(recs, args.size)
    summary["board_type"] = "given" if args.board == "truth" else args.board
    out: dict[str, Any] = {"summary": summary, "scenes": recs}
    if args.auto_guess:
        autos = [run_one(args.seed + i, w, h, args.tilt_max, "auto", args.cache) for i in range(args.n)]
        out["auto_guess"] = {
            "board_type_right_rate": sum(1 for r in autos if r.get("board_found") == r["board"]) / max(1, len(autos)),
            "success_rate": sum(r["success"] for r in autos) / max(1, len(autos)),
            "wrong": [r["seed"] for r in autos if r.get("board_found") != r["board"]],
        }
        print("auto guess:", out["auto_guess"])
    if args.nudge:
        from calibration.nudge import nudge_bench

        nud = nudge_bench(list(range(args.seed, args.seed + args.nudge)), w, h, args.tilt_max, args.board)
        for r in nud:
            print("nudge", r, flush=True)
        ok = [r for r in nud if r["success"]]
        det = [r["detected_s"] for r in nud if r.get("detected_s") is not None]
        out["nudge"] = {"clips": len(nud), "success_rate": len(ok) / max(1, len(nud)),
                        "detected_rate": len(det) / max(1, len(nud)),
                        "detected_s_max": max(det) if det else None, "records": nud}
        print("nudge:", {k: v for k, v in out["nudge"].items() if k != "records"})
    for k, v in summary.items():
        print(f"{k}: {v:.3f}" if isinstance(v, float) else f"{k}: {v}")
    if args.json:
        args.json.write_text(json.dumps(out, indent=1) + "\n")
    return 0
