"""``find_dice``: every die in a photo with no calibration profile (for ``bgref vision dice``).

Classical candidates (vision/dice/find.py) are classified by the face model, whose "not a die"
outcome rejects pips, checkers, cables and shadows; overlapping survivors are merged by
non-maximum suppression.  Without a profile there is no board geometry, so flat/cocked is not
decided here (``cocked`` is None): the board reader decides it from the top face in millimetres.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy.typing as npt

from vision.config import VisionConfig
from vision.dice.classify import FaceClassifier
from vision.dice.config import DiceConfig
from vision.dice.find import find_candidates, nms
from vision.preprocess import Square, to_gray


@dataclass(frozen=True, slots=True)
class FoundDie:
    """One die found in a photo: ``face`` None when unsure; ``confidence`` of the face reading;
    ``die_probability`` that it is a die at all; ``image_box`` (x, y, w, h)."""

    face: int | None
    confidence: float
    die_probability: float
    image_box: tuple[int, int, int, int]
    square: Square
    cocked: bool | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "face": self.face,
            "confidence": round(self.confidence, 4),
            "die_probability": round(self.die_probability, 4),
            "image_box": list(self.image_box),
            "angle_deg": round(self.square.angle, 1),
            "cocked": self.cocked,
        }


def find_dice(
    image: npt.NDArray[Any], classifier: FaceClassifier, config: VisionConfig | None = None,
    dcfg: DiceConfig | None = None,
) -> list[FoundDie]:
    """All dice in ``image`` (BGR or grey), left to right; each candidate read at the scales
    ``DiceConfig.photo_read_scales``."""
    cfg = config or VisionConfig()
    scales = (dcfg or DiceConfig()).photo_read_scales
    gray = to_gray(image)
    cands = find_candidates(gray, cfg)
    squares = [((c.cx, c.cy), c.side, c.angle) for c in cands]
    guesses = classifier.classify(gray, squares, scales=scales[:1])
    if len(scales) > 1:
        # the other scales only where they can matter: a mean over n scales is at least 1/n of the
        # first one's P(not a die), so a candidate at n times the limit there is rejected anyway
        maybe = [i for i, g in enumerate(guesses) if g.not_die < len(scales) * cfg.photo_notdie_max_prob]
        for i, g in zip(maybe, classifier.classify(gray, [squares[i] for i in maybe], scales=scales), strict=True):
            guesses[i] = g
    keep_idx = [i for i, g in enumerate(guesses) if g.not_die < cfg.photo_notdie_max_prob]
    scores = [(1 - guesses[i].not_die) * guesses[i].probability for i in keep_idx]
    kept = [keep_idx[j] for j in nms([cands[i] for i in keep_idx], scores, cfg.find_nms_iou)]
    out = []
    for i in kept:
        g, c = guesses[i], cands[i]
        face = g.face if g.probability >= cfg.face_min_confidence else None
        out.append(FoundDie(face, g.probability, 1 - g.not_die, c.box(), c))
    return sorted(out, key=lambda d: (d.image_box[0], d.image_box[1]))
