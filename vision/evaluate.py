"""``python -m vision.evaluate [--data DIR] [--out docs/vision_accuracy.json] [--only real|rendered]``.

Measures each stage on held-out data and writes the figures to a JSON file a commit can carry:

* ``real_dice.tomitomi_heldout``: face accuracy on the ``crops_tomitomi3`` crops never used in
  training (index % 5 == 0);
* ``real_dice.webcam_valid_classify``: face accuracy on ``webcam_matteop65/Valid`` for the candidate
  that matches each labelled die (isolates the classifier);
* ``real_dice.webcam_valid_find``: the whole profile-free finder (``bgref vision dice``): per labelled
  die right / wrong / unsure / missed, and false dice reported where there is none;
* ``rendered``: whole-board reading on rendered frames from held-out seeds (when the renderer exists).

"Unsure" (face None) is counted apart from "wrong": the referee treats it as "look again".
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import cv2

from vision.config import VisionConfig
from vision.dice.classify import FaceClassifier
from vision.preprocess import crop_patch, to_gray
from vision.training.data import load, shared_dir, tomi_samples, webcam_samples

REPO = Path(__file__).resolve().parent.parent


def _rate(n: int, d: int) -> float | None:
    return round(n / d, 5) if d else None


def eval_tomitomi(root: Path, clf: FaceClassifier, cfg: VisionConfig) -> dict[str, Any]:
    right = wrong = unsure = 0
    errors: list[str] = []
    for s in tomi_samples(root, held_out=True):
        g = clf.classify_patches([crop_patch(load(s.image), (s.square.cx, s.square.cy), s.square.side, s.square.angle)])[0]
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
            g = clf.classify_patches([crop_patch(gray, (c.cx, c.cy), c.side, c.angle)])[0]
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


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vision.evaluate")
    p.add_argument("--data", type=Path, default=shared_dir())
    p.add_argument("--out", type=Path, default=REPO / "docs" / "vision_accuracy.json")
    p.add_argument("--only", choices=("real", "rendered"), default=None)
    p.add_argument("--frames", type=int, default=200, help="rendered frames to evaluate")
    args = p.parse_args(argv)
    cfg = VisionConfig()
    clf = FaceClassifier()
    result: dict[str, Any] = {}
    if args.out.is_file():
        result = json.loads(args.out.read_text())
    if args.only in (None, "real"):
        root = args.data / "dice"
        if not root.is_dir():
            print(f"real data not found at {root}: set BGREF_SHARED_DATA", file=sys.stderr)
            return 2
        tomi = eval_tomitomi(root, clf, cfg)
        cls, find = eval_webcam(root, clf, cfg)
        result["real_dice"] = {"tomitomi_heldout": tomi, "webcam_valid_classify": cls, "webcam_valid_find": find}
        print(json.dumps(result["real_dice"], indent=2))
    if args.only in (None, "rendered"):
        from vision.evaluate_rendered import evaluate_rendered

        rendered = evaluate_rendered(args.frames, cfg)
        if rendered is not None:
            result["rendered"] = rendered
            print(json.dumps(rendered, indent=2))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(result, indent=2, sort_keys=True) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
