"""Evidence for a director: for every infraction, the annotated frame and the frame before, as JPEG.

Files go beside the journal, in ``<journal stem>.evidence/``, named by game, move and kind so
that they sort in the order of play::

    g01-m014-illegal_play-at.jpg       the frame on which the infraction was seen, annotated
    g01-m014-illegal_play-before.jpg   the last still frame before it, as the camera saw it

A second infraction of the same kind on the same move gets ``-2``, ``-3`` ... before ``-at``.
"""

from __future__ import annotations

import contextlib
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

_KIND = re.compile(r"[^a-z0-9_]+")
RED = (0, 0, 255)
YELLOW = (0, 215, 255)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)


class EvidenceError(OSError):
    """An evidence image could not be written (disk full, bad folder)."""


@dataclass(frozen=True, slots=True)
class Mark:
    """Something at fault, drawn on the frame: a polygon in image pixels and a short label."""

    polygon: tuple[tuple[float, float], ...]
    label: str = ""
    unsure: bool = False

    @classmethod
    def box(cls, x0: float, y0: float, x1: float, y1: float, label: str = "", unsure: bool = False) -> Mark:
        return cls(((x0, y0), (x1, y0), (x1, y1), (x0, y1)), label, unsure)


@dataclass(frozen=True, slots=True)
class EvidenceFiles:
    at: Path
    before: Path | None


def evidence_dir(journal_path: str | os.PathLike[str]) -> Path:
    p = Path(journal_path)
    return p.with_name(p.stem + ".evidence")


def kind_slug(kind: str) -> str:
    """``"Illegal play"`` -> ``"illegal_play"`` (safe in any file system)."""
    slug = _KIND.sub("_", kind.strip().lower()).strip("_")
    return slug or "infraction"


def annotate(image: np.ndarray, marks: Sequence[Mark], caption: str) -> np.ndarray:
    """A copy of ``image`` with the marks outlined and a caption banner across the top."""
    if image.ndim != 3 or image.shape[2] != 3 or image.dtype != np.uint8:
        raise ValueError(f"evidence needs a BGR uint8 image, got shape {image.shape} dtype {image.dtype}")
    out = image.copy()
    _h, w = out.shape[:2]
    scale = max(0.5, w / 1600)
    thick = max(2, round(w / 640))
    for m in marks:
        if len(m.polygon) < 2:
            continue
        pts = np.round(np.array(m.polygon, dtype=np.float64)).astype(np.int32).reshape(-1, 1, 2)
        colour = YELLOW if m.unsure else RED
        cv2.polylines(out, [pts], isClosed=True, color=colour, thickness=thick, lineType=cv2.LINE_AA)
        if m.label:
            x, y = int(pts[:, 0, 0].min()), int(pts[:, 0, 1].min())
            cv2.putText(out, m.label, (x, max(12, y - 6)), cv2.FONT_HERSHEY_SIMPLEX, scale * 0.8, BLACK,
                        thick + 2, cv2.LINE_AA)
            cv2.putText(out, m.label, (x, max(12, y - 6)), cv2.FONT_HERSHEY_SIMPLEX, scale * 0.8, colour,
                        thick, cv2.LINE_AA)
    banner = int(34 * scale)
    cv2.rectangle(out, (0, 0), (w, banner), BLACK, thickness=-1)
    cv2.putText(out, caption[:160], (8, int(banner * 0.72)), cv2.FONT_HERSHEY_SIMPLEX, scale * 0.7, WHITE,
                max(1, thick // 2), cv2.LINE_AA)
    return out


class EvidenceWriter:
    """Writes evidence pairs into one folder; never overwrites an earlier file."""

    def __init__(self, folder: str | os.PathLike[str], *, quality: int = 90) -> None:
        self.folder = Path(folder)
        self.quality = quality

    def _name(self, game: int, move: int, kind: str) -> str:
        base = f"g{game:02d}-m{move:03d}-{kind_slug(kind)}"
        k = 1
        name = base
        while (self.folder / f"{name}-at.jpg").exists():
            k += 1
            name = f"{base}-{k}"
        return name

    def save(self, *, game: int, move: int, kind: str, frame: np.ndarray, before: np.ndarray | None,
             marks: Sequence[Mark] = (), caption: str = "") -> EvidenceFiles:
        """Write the annotated frame (and the frame before, untouched); return the paths."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise EvidenceError(exc.errno, f"cannot create the evidence folder {self.folder}: {exc.strerror}") from exc
        name = self._name(game, move, kind)
        at = self.folder / f"{name}-at.jpg"
        text = caption or f"game {game} move {move}: {kind}"
        self._write(at, annotate(frame, marks, text))
        before_path = None
        if before is not None:
            before_path = self.folder / f"{name}-before.jpg"
            self._write(before_path, before)
        return EvidenceFiles(at, before_path)

    def _write(self, path: Path, image: np.ndarray) -> None:
        ok, buf = cv2.imencode(".jpg", image, [int(cv2.IMWRITE_JPEG_QUALITY), self.quality])
        if not ok:
            raise EvidenceError(f"cannot encode evidence image {path.name}")
        tmp = path.with_suffix(".jpg.part")
        try:
            with open(tmp, "wb") as f:
                f.write(buf.tobytes())
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except OSError as exc:
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
            raise EvidenceError(exc.errno, f"cannot write evidence {path}: {exc.strerror}") from exc
