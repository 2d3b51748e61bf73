"""``bgref vision``: read a board photo with a profile, or find and read dice in any photo.

    bgref vision read IMAGE --profile P [--json] [--annotate OUT.png]
    bgref vision dice IMAGE [--json] [--annotate OUT.png]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("vision", help="read checkers, dice and the cube from an image")
    vs = p.add_subparsers(dest="vision_cmd", required=True)
    r = vs.add_parser("read", help="read a whole board photo (needs a calibration profile)")
    r.add_argument("image", type=Path)
    r.add_argument("--profile", type=Path, required=True, help="calibration profile (bgref calibrate)")
    r.add_argument("--json", action="store_true", help="print the observation as JSON")
    r.add_argument("--annotate", type=Path, default=None, metavar="OUT.png", help="write an annotated copy")
    r.set_defaults(func=_read)
    d = vs.add_parser("dice", help="find and read every die in a photo (no profile needed)")
    d.add_argument("image", type=Path)
    d.add_argument("--json", action="store_true", help="print the dice as JSON")
    d.add_argument("--annotate", type=Path, default=None, metavar="OUT.png", help="write an annotated copy")
    d.set_defaults(func=_dice)


def _load_image(path: Path) -> np.ndarray:
    if not path.is_file():
        raise ValueError(f"image {str(path)!r} not found")
    img = cv2.imdecode(np.fromfile(str(path), np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ValueError(f"cannot decode image {str(path)!r}")
    return img


def _dice(args: argparse.Namespace) -> int:
    from vision.dice.classify import FaceClassifier
    from vision.dice.photo import find_dice

    img = _load_image(args.image)
    dice = find_dice(img, FaceClassifier())
    if args.json:
        print(json.dumps({"image": str(args.image), "dice": [d.as_dict() for d in dice]}, indent=2))
    else:
        if not dice:
            print("no dice found")
        for d in dice:
            face = "?" if d.face is None else str(d.face)
            x, y, w, h = d.image_box
            print(f"die {face}  confidence {d.confidence:.3f}  box x={x} y={y} w={w} h={h}  cocked: "
                  f"{'unknown (no profile)' if d.cocked is None else d.cocked}")
    if args.annotate:
        out = img.copy()
        for d in dice:
            x, y, w, h = d.image_box
            colour = (0, 200, 0) if d.face is not None else (0, 160, 255)
            cv2.rectangle(out, (x, y), (x + w, y + h), colour, 2)
            cv2.putText(out, "?" if d.face is None else str(d.face), (x, max(12, y - 4)),
                        cv2.FONT_HERSHEY_SIMPLEX, 0.7, colour, 2)
        _write(args.annotate, out)
    return 0


def _read(args: argparse.Namespace) -> int:
    from calibration.profile import CalibrationProfile
    from vision.reader import BoardReader, annotate, observation_to_dict

    img = _load_image(args.image)
    profile = CalibrationProfile.load(args.profile)
    reader = BoardReader()
    obs = reader.read_image(img, profile)
    if args.json:
        print(json.dumps(observation_to_dict(obs), indent=2))
    else:
        _print_observation(obs)
    if args.annotate:
        _write(args.annotate, annotate(img, profile, obs))
    return 0


def _print_observation(obs: Any) -> None:
    from vision.config import VisionConfig

    threshold = VisionConfig().count_min_confidence

    def cell(r: Any) -> str:
        s = f"{r.white}W" if r.white else (f"{r.black}B" if r.black else "-")
        return s + ("?" if r.confidence < threshold else "")

    print("points 13..24: " + " ".join(cell(obs.points[i]) for i in range(12, 24)))
    print("points 12..1:  " + " ".join(cell(obs.points[i]) for i in range(11, -1, -1)))
    print(f"bar: {cell(obs.bar)}  trays: W {obs.trays[0].white} B {obs.trays[1].black}")
    for d in obs.dice:
        cocked = "?" if d.cocked is None else ("cocked" if d.cocked else "flat")
        print(f"die {d.face if d.face is not None else '?'} ({d.face_confidence:.2f}) {cocked} in {d.area.value} "
              f"{d.boundary_mm:.1f} mm from its edge")
    if obs.cube is not None:
        c = obs.cube
        print(f"cube {c.face if c.face is not None else '?'} {c.position.value} rotated {c.rotation_deg:.0f}°")
    print(f"confident: {obs.confident}  min confidence {obs.min_confidence:.2f}  ('?' = unsure)")


def _write(path: Path, image: np.ndarray) -> None:
    ok, buf = cv2.imencode(path.suffix or ".png", image)
    if not ok:
        raise ValueError(f"cannot encode {str(path)!r}")
    buf.tofile(str(path))
