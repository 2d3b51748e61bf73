"""Seats and home side from a frame of the starting position.

With the board fitted, each of the four seatings (WHITE on the NEAR or FAR long side, home on his
right or left) predicts where the 2-5-3-5 stacks of each colour stand.  The true seating is the one
whose predicted WHITE discs and BLACK discs form two tight, well separated colour clusters with the
lighter one as WHITE (the "light" checkers of the 1931 books), and whose empty slots look like neither.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np
import numpy.typing as npt

from calibration.profile import CalibrationProfile
from rules.position import Position, Side
from vision.geometry import BoardLayout, HomeEnd, LongSide, Seating

Image = npt.NDArray[np.uint8]
FloatArray = npt.NDArray[np.float64]

ALL_SEATINGS = tuple(Seating(w, h) for w in LongSide for h in HomeEnd)


@dataclass(frozen=True, slots=True)
class SeatingResult:
    seating: Seating
    score: float
    """0..2: both checker sets' 2-5-3-5 patterns under the chosen seating (each set's slots share a colour no
    other slot shows; higher is clearer)."""
    margin: float
    """Score of the chosen seating minus the runner-up's."""
    start_position_ok: bool
    """True when every slot of the starting position holds the colour it should (and no more)."""
    mismatched_slots: int


def _slots(layout: BoardLayout) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Centres (mm, top face) of the first five slots of all 24 points; label 0 empty, 1 WHITE, 2 BLACK."""
    pos = Position.initial()
    s = layout.spec
    pts, lab = [], []
    for p in range(1, 25):
        w, b = pos.at(p)
        for k in range(min(5, s.row_capacity)):
            x, y, z = layout.stack_slots(p, k)
            pts.append((x, y, z + s.checker_height_mm))
            lab.append(1 if k < w else 2 if k < b else 0)
    return np.array(pts, dtype=np.float64), np.array(lab, dtype=np.int64)


def slot_colours(image: Image, profile: CalibrationProfile, layout: BoardLayout) -> tuple[FloatArray, npt.NDArray[np.int64]]:
    """Median Lab colour of a small disc at every slot centre, and the slot labels."""
    centres, labels = _slots(layout)
    r = layout.spec.checker_diameter_mm * 0.22
    offs = np.array([[0, 0, 0], [r, 0, 0], [-r, 0, 0], [0, r, 0], [0, -r, 0]], dtype=np.float64)
    pts = (centres[:, None, :] + offs[None, :, :]).reshape(-1, 3)
    px = profile.board_to_image(pts).astype(np.float32)
    h, w = image.shape[:2]
    px[:, 0] = np.clip(px[:, 0], 0, w - 1)
    px[:, 1] = np.clip(px[:, 1], 0, h - 1)
    cols = cv2.remap(image, px[:, 0:1], px[:, 1:2], cv2.INTER_LINEAR).reshape(-1, 1, 3)
    lab = cv2.cvtColor(cols.astype(np.float32) / 255.0, cv2.COLOR_BGR2LAB).reshape(len(centres), len(offs), 3)
    return np.median(lab, axis=1).astype(np.float64), labels


def _pattern(colours: FloatArray, mine: npt.NDArray[np.bool_]) -> float:
    """0..1: how well the slots ``mine`` show one checker colour that no other slot shows.

    The fraction of ``mine`` near their median colour times the fraction of the other slots (the other
    colour's stacks and the empty points) away from it; "near" is three times the set's own spread
    (at least 6 Lab units)."""
    own = colours[mine]
    m = np.median(own, axis=0)
    spread = float(np.median(np.linalg.norm(own - m, axis=1)))
    thr = max(6.0, 3.0 * spread)
    coherent = float(np.mean(np.linalg.norm(own - m, axis=1) <= thr))
    apart = float(np.mean(np.linalg.norm(colours[~mine] - m, axis=1) > thr))
    return coherent * apart


def _score(colours: FloatArray, labels: npt.NDArray[np.int64]) -> float:
    """Both colours' 2-5-3-5 patterns: each set's slots must share a colour found nowhere else.

    A set that looks like the board (black checkers on a black board) scores low under every seating and
    leaves the decision to the other set; the sign says whether this seating's WHITE is the lighter set."""
    W, B = colours[labels == 1], colours[labels == 2]
    sw, sb = _pattern(colours, labels == 1), _pattern(colours, labels == 2)
    lighter = float(np.median(W[:, 0])) > float(np.median(B[:, 0]))
    s = sw + sb
    return s if lighter else -s


def detect_seating(image: Image, profile: CalibrationProfile) -> SeatingResult:
    """The seating under which the frame shows the starting position most clearly."""
    results = []
    for seating in ALL_SEATINGS:
        lay = BoardLayout(profile.spec, seating)
        colours, labels = slot_colours(image, profile, lay)
        results.append((_score(colours, labels), seating, colours, labels))
    results.sort(key=lambda t: -t[0])
    best, seating, colours, labels = results[0]
    margin = best - results[1][0]
    # verify slot by slot: nearest of WHITE, BLACK and the empty colour of odd / even points
    lay = BoardLayout(profile.spec, seating)
    cap = min(5, lay.spec.row_capacity)
    parity = np.repeat(np.arange(1, 25) % 2, cap)
    classes = labels.copy()
    classes[(labels == 0) & (parity == 0)] = 3
    centres = np.array([np.median(colours[classes == k], axis=0) for k in range(4)])
    d = np.linalg.norm(colours[:, None, :] - centres[None, :, :], axis=2)
    pred = np.argmin(d, axis=1)
    mismatched = int(np.sum(pred != classes))
    return SeatingResult(seating, best, margin, mismatched <= max(2, len(labels) // 10) and best > 0, mismatched)


def side_colour_is_lighter(image: Image, profile: CalibrationProfile, side: Side) -> bool:
    """Whether ``side``'s checkers (per the profile's seating) are the lighter set in ``image``."""
    colours, labels = slot_colours(image, profile, profile.layout)
    lw = float(np.median(colours[labels == 1][:, 0]))
    lb = float(np.median(colours[labels == 2][:, 0]))
    return (lw > lb) == (side is Side.WHITE)
