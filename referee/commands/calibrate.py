"""``bgref calibrate``: make a calibration profile from a frame, and check one against a frame.

    bgref calibrate --image FRAME.png --out profile.json              # automatic
    bgref calibrate --camera 0 --out profile.json                     # grab a frame from a webcam
    bgref calibrate --image FRAME.png --corners x1,y1,...,x4,y4 --out profile.json   # manual, headless
    bgref calibrate --image FRAME.png --click --out profile.json      # manual, click in a window
    bgref calibrate --image FRAME.png --aruco --out profile.json      # ArUco markers 0-3 on the corners
    bgref calibrate check profile.json FRAME.png [--out annotated.png]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from referee.cli import CommandError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser(
        "calibrate",
        help="make a camera/board calibration profile (or `calibrate check PROFILE FRAME`)",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("check", nargs="*", metavar="check PROFILE FRAME",
                   help="`check profile.json FRAME.png`: draw the profile's geometry on a frame")
    src = p.add_argument_group("source of the frame")
    src.add_argument("--image", type=Path, help="a frame of the board in the starting position")
    src.add_argument("--camera", help="a camera index or video source to grab one frame from (e.g. 0)")
    p.add_argument("--out", type=Path, help="where to write the profile (or, for check, the annotated image)")
    p.add_argument("--board", default="auto",
                   help="board type: tournament or travel (give it: a director knows his board); "
                        "auto = a best-effort guess from the fit (tournament for --corners/--aruco)")
    how = p.add_mutually_exclusive_group()
    how.add_argument("--corners", help="manual: the four outer frame corners x1,y1,...,x4,y4 in any order")
    how.add_argument("--click", action="store_true", help="manual: click the four corners in a window")
    how.add_argument("--aruco", action="store_true", help="use ArUco markers 0-3 (DICT_4X4_50) on the corners")
    p.add_argument("--white", choices=("near", "far"), help="skip seat detection: WHITE's long side")
    p.add_argument("--home", choices=("right", "left"), help="skip seat detection: WHITE's home as he sees it")
    p.add_argument("--intrinsics", type=Path, help="folder of chessboard / ChArUco target photos for the lens")
    p.add_argument("--target", default="chessboard:9x6:25",
                   help="the target: chessboard:COLSxROWS:SQUARE_MM or charuco:COLSxROWS:SQUARE_MM:MARKER_MM")
    p.add_argument("--camera-name", default="", help="a name stored in the profile")
    p.set_defaults(func=_run)


def _read_image(path: Path) -> npt.NDArray[np.uint8]:
    if not path.exists():
        raise CommandError(f"{path}: no such image")
    img = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if img is None:
        raise CommandError(f"{path}: not an image OpenCV can read")
    return np.asarray(img, dtype=np.uint8)


def _grab(spec: str) -> npt.NDArray[np.uint8]:
    try:
        from vision.camera import open_source  # the project's camera sources, when present

        with open_source(spec) as source:
            for frame in source:
                image = getattr(frame, "image", None)  # a CorruptFrame notice has none: take the next
                if image is not None:
                    return np.asarray(image, dtype=np.uint8)
        raise CommandError(f"camera {spec!r} delivered no frame")
    except ImportError:
        pass
    cap = cv2.VideoCapture(int(spec) if spec.isdigit() else spec)
    try:
        if not cap.isOpened():
            raise CommandError(f"camera {spec!r} cannot be opened (unplugged, or in use?)")
        img = None
        for _ in range(10):  # let exposure settle
            _ok, img = cap.read()
        if img is None:
            raise CommandError(f"camera {spec!r} delivered no frame")
        return np.asarray(img, dtype=np.uint8)
    finally:
        cap.release()


def _click_corners(image: npt.NDArray[np.uint8]) -> npt.NDArray[np.float64]:
    if not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY") or sys.platform in ("win32", "darwin")):
        raise CommandError("--click needs a display; on a headless machine pass --corners x1,y1,...,x4,y4")
    pts: list[tuple[float, float]] = []
    scale = min(1.0, 1600 / image.shape[1])
    view = cv2.resize(image, None, fx=scale, fy=scale) if scale < 1 else image.copy()
    name = "bgref calibrate: click the 4 outer corners of the board (Esc cancels)"

    def on_mouse(event: int, x: int, y: int, *_: object) -> None:
        if event == cv2.EVENT_LBUTTONDOWN and len(pts) < 4:
            pts.append((x / scale, y / scale))
            cv2.circle(view, (x, y), 6, (0, 0, 255), 2)

    try:
        cv2.namedWindow(name)
        cv2.setMouseCallback(name, on_mouse)
        while len(pts) < 4:
            cv2.imshow(name, view)
            if cv2.waitKey(30) == 27:
                raise CommandError("cancelled")
        cv2.destroyWindow(name)
    except cv2.error as exc:
        raise CommandError(f"no OpenCV window available ({exc.msg.strip()}); pass --corners instead") from None
    return np.array(pts)


def _intrinsics(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from calibration.camera import from_charuco, from_chessboard

    folder: Path = args.intrinsics
    files = sorted(p for p in folder.iterdir() if p.suffix.lower() in (".png", ".jpg", ".jpeg", ".bmp"))
    images = [_read_image(p) for p in files]
    parts = args.target.split(":")
    try:
        cols, rows = (int(v) for v in parts[1].lower().split("x"))
        if parts[0] == "chessboard":
            return from_chessboard(images, (cols, rows), float(parts[2]))
        if parts[0] == "charuco":
            return from_charuco(images, (cols, rows), float(parts[2]), float(parts[3]))
    except (IndexError, ValueError):
        pass
    raise CommandError(f"--target {args.target!r}: expected chessboard:9x6:25 or charuco:7x5:30:22")


def _run(args: argparse.Namespace) -> int:
    from calibration.homography import parse_corners
    from vision.geometry import BoardSpec, HomeEnd, LongSide, Seating

    if args.check:
        return _check(args)
    if (args.image is None) == (args.camera is None):
        raise CommandError("give exactly one of --image FRAME or --camera N (or `check PROFILE FRAME`)")
    if args.out is None:
        raise CommandError("--out PROFILE.json is required")
    from calibration.pipeline import calibrate_frame

    image = _read_image(args.image) if args.image is not None else _grab(args.camera)
    spec = None if args.board == "auto" else BoardSpec.by_name(args.board)
    camera = _intrinsics(args) if args.intrinsics else None
    seating = None
    if args.white or args.home:
        seating = Seating(LongSide(args.white or "near"), HomeEnd(args.home or "right"))
    corners = parse_corners(args.corners) if args.corners else _click_corners(image) if args.click else None
    result = calibrate_frame(image, spec, camera=camera, corners=corners, aruco=args.aruco, seating=seating,
                             camera_name=args.camera_name or (f"camera {args.camera}" if args.camera else ""))
    result.profile.save(args.out)
    q = result.profile.quality
    s = result.profile.seating
    print(f"wrote {args.out}: {q.method} fit, reprojection {q.reprojection_px:.2f} px, corner confidence "
          f"{q.corner_confidence:.2f}, points pattern {q.pattern_score or 0:.2f}, tilt {q.tilt_deg:.0f} deg; "
          f"WHITE sits {s.white.value}, home on his {s.white_home.value}")
    for note in result.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    from calibration.config import CalibrationConfig
    from calibration.draw import draw_profile
    from calibration.profile import CalibrationProfile
    from calibration.tracking import board_support, support_score

    rest = list(args.check)
    if rest[0] != "check" or len(rest) != 3:
        raise CommandError(f"unexpected arguments {' '.join(rest)!r}: use `bgref calibrate check PROFILE FRAME`")
    profile = CalibrationProfile.load(rest[1])
    image = _read_image(Path(rest[2]))
    profile.check_frame(image, rest[2])
    out = args.out or Path(rest[2]).with_name(Path(rest[2]).stem + ".calibration.png")
    cv2.imwrite(str(out), draw_profile(image, profile))
    support = support_score(board_support(image, profile))
    need = CalibrationConfig().check_support_min
    q = profile.quality
    verdict = "fits" if support >= need else "DOES NOT FIT (board moved? recalibrate)"
    print(f"{rest[1]}: {q.method} fit of {q.created}, reprojection {q.reprojection_px:.2f} px; board edge support "
          f"on this frame {support:.2f} (need {need:.2f}): {verdict}; drawn to {out}")
    return 0 if support >= need else 1
