from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from referee.evidence import EvidenceWriter, Mark, annotate, evidence_dir, kind_slug


def test_names_sort_by_game_and_move_and_never_overwrite(tmp_path: Path) -> None:
    w = EvidenceWriter(evidence_dir(tmp_path / "session.jsonl"))
    frame = np.full((120, 160, 3), 60, np.uint8)
    before = np.full((120, 160, 3), 30, np.uint8)
    a = w.save(game=1, move=14, kind="illegal-play", frame=frame, before=before,
               marks=[Mark.box(10, 20, 50, 60, "13")])
    b = w.save(game=1, move=14, kind="illegal-play", frame=frame, before=None)
    assert a.at.name == "g01-m014-illegal_play-at.jpg"
    assert a.before is not None and a.before.name == "g01-m014-illegal_play-before.jpg"
    assert b.at.name == "g01-m014-illegal_play-2-at.jpg" and b.before is None
    assert a.at.parent.name == "session.evidence"
    img = cv2.imread(str(a.at))
    assert img is not None and img.shape == (120, 160, 3)
    # the annotated frame differs from the raw one where the mark was drawn; the frame before is untouched
    raw = cv2.imread(str(a.before))
    assert abs(float(raw.mean()) - 30) < 2
    assert img[20:60, 10:12, 2].mean() > 150  # the red outline on the left edge of the box


def test_annotate_keeps_the_input_and_marks_unsure_in_yellow() -> None:
    img = np.zeros((100, 200, 3), np.uint8)
    out = annotate(img, [Mark.box(50, 50, 90, 90, unsure=True)], "check the 6-point")
    assert img.sum() == 0
    edge = out[50:90, 50]
    assert edge[:, 1].max() > 150 and edge[:, 2].max() > 150 and edge[:, 0].max() < 50


def test_kind_slug() -> None:
    assert kind_slug("Dice cocked / rethrow") == "dice_cocked_rethrow"
    assert kind_slug("///") == "infraction"
