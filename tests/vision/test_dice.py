from __future__ import annotations

import json
from pathlib import Path

import cv2
import pytest

from tests.vision.synth import draw_die, table
from vision.dice.classify import FaceClassifier, ModelError
from vision.dice.photo import find_dice
from vision.training.data import read_yolo


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier()


def test_missing_model_is_a_typed_error(tmp_path: Path) -> None:
    with pytest.raises(ModelError, match=r"nope\.onnx"):
        FaceClassifier(tmp_path / "nope.onnx")


@pytest.mark.parametrize("face", [1, 2, 3, 4, 5, 6])
def test_reads_drawn_dice_both_polarities(clf: FaceClassifier, face: int) -> None:
    img = table(seed=face)
    draw_die(img, 200, 240, 56, face, angle=17.0 * face)
    draw_die(img, 430, 220, 56, 7 - face, angle=-9.0 * face, body=(40, 40, 175), pip=(245, 245, 245))
    dice = find_dice(img, clf)
    faces = [d.face for d in dice]
    assert 1 <= len(dice) <= 2, dice
    # left to right; a face may be None (unsure) but never wrong
    assert all(f in (face, 7 - face, None) for f in faces)
    if len(dice) == 2:
        assert faces[0] in (face, None) and faces[1] in (7 - face, None)


def test_nothing_on_an_empty_table(clf: FaceClassifier) -> None:
    img = table(seed=3)
    cv2.circle(img, (320, 240), 40, (30, 30, 30), -1)  # a dark checker-like disc
    assert find_dice(img, clf) == []


def test_real_webcam_photos(shared_data: Path, clf: FaceClassifier) -> None:
    folder = shared_data / "dice" / "webcam_matteop65" / "Valid"
    right = total = 0
    for name in ("valid_1", "valid_10", "valid_20", "valid_30", "valid_40", "valid_50"):
        img = cv2.imread(str(folder / f"{name}.jpg"))
        labels = read_yolo(folder / f"{name}.txt", img.shape[1], img.shape[0])
        found = find_dice(img, clf)
        for lb in labels:
            total += 1
            hit = [d for d in found if d.image_box[0] <= lb.cx <= d.image_box[0] + d.image_box[2]
                   and d.image_box[1] <= lb.cy <= d.image_box[1] + d.image_box[3]]
            assert all(d.face in (lb.face, None) for d in hit), (name, lb, hit)
            right += any(d.face == lb.face for d in hit)
    assert right >= total - 1


def test_cli_dice_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    img = table(seed=5)
    draw_die(img, 300, 200, 60, 4, angle=30)
    path = tmp_path / "dice.png"
    cv2.imwrite(str(path), img)
    out_png = tmp_path / "ann.png"
    assert main(["vision", "dice", str(path), "--json", "--annotate", str(out_png)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [d["face"] for d in data["dice"]] in ([4], [None])
    assert out_png.is_file()


def test_cli_bad_image(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    bad = tmp_path / "x.png"
    bad.write_bytes(b"not an image")
    assert main(["vision", "dice", str(bad)]) == 2
    assert "cannot decode" in capsys.readouterr().err


class _Stub:
    """A classifier stub: the answer depends on how far the crop's centre is from (100, 100)."""

    def __init__(self, far_face: int, near_face: int, near_notdie: float) -> None:
        self.far_face, self.near_face, self.near_notdie = far_face, near_face, near_notdie

    def classify(self, gray: object, squares: list[tuple[tuple[float, float], float, float]],
                 tta: bool = True) -> list[object]:
        from vision.dice.classify import FaceGuess

        out = []
        for (cx, cy), _side, _a in squares:
            if abs(cx - 100) < 1 and abs(cy - 100) < 1:
                out.append(FaceGuess(self.near_face, 0.99, self.near_notdie))
            else:
                out.append(FaceGuess(self.far_face, 0.6, 0.5))
        return out


def _refined(stub: _Stub) -> tuple[object, object]:
    import numpy as np

    from vision.dice.board import refine
    from vision.dice.config import DiceConfig
    from vision.preprocess import Square

    cands = [Square(100 - 0.15 * 20, 100.0, 20.0, 0.0)]
    c, g = refine(np.zeros((200, 200), np.uint8), cands, stub, DiceConfig(vote_share=0.0))  # type: ignore[arg-type]
    return c[0], g[0]


def test_refinement_moves_to_the_clearly_die_like_crop() -> None:
    c, g = _refined(_Stub(far_face=3, near_face=5, near_notdie=0.001))
    assert (round(c.cx), round(c.cy)) == (100, 100)  # type: ignore[attr-defined]
    assert (g.face, g.probability) == (5, 0.99)  # type: ignore[attr-defined]


def test_refinement_never_adopts_a_doubtful_crop() -> None:
    c, g = _refined(_Stub(far_face=3, near_face=5, near_notdie=0.2))
    assert round(c.cx) == 97 and g.face == 3  # type: ignore[attr-defined]


def test_test_time_augmentation_is_orientation_invariant(clf: FaceClassifier) -> None:
    import numpy as np

    from vision.preprocess import crop_patch

    img = table(seed=3)
    draw_die(img, 200, 240, 56, 3, angle=11.0)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    p = crop_patch(gray, (200.0, 240.0), 56.0, 11.0)
    a = clf.classify_patches([p, np.rot90(p).copy(), p[:, ::-1].copy()])
    assert a[0].face == a[1].face == a[2].face == 3
    assert abs(a[0].probability - a[1].probability) < 1e-4 and abs(a[0].not_die - a[2].not_die) < 1e-4
    single = clf.classify_patches([p], tta=False)[0]
    assert single.face == 3
