"""Reading dice in a photo without a profile: the face model read at several scales of a square."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tests.vision.synth import draw_die, table
from vision.config import VisionConfig
from vision.dice.classify import FaceClassifier, FaceGuess
from vision.dice.config import DiceConfig
from vision.dice.photo import find_dice
from vision.preprocess import crop_patch, to_gray


@pytest.fixture(scope="module")
def clf() -> FaceClassifier:
    return FaceClassifier()


def test_a_square_read_at_two_scales_averages_their_probabilities(clf: FaceClassifier) -> None:
    img = table(seed=2)
    draw_die(img, 300, 240, 60, 5, angle=20.0)
    gray = to_gray(img)
    sq = ((300.0, 240.0), 58.0, 20.0)
    one = clf.classify(gray, [sq])[0]
    assert one == clf.classify_patches([crop_patch(gray, *sq)])[0]
    two = clf.classify(gray, [sq, ((120.0, 100.0), 40.0, 0.0)], scales=(1.0, 1.1))[0]
    p = (clf.mean_probabilities([crop_patch(gray, sq[0], 58.0, 20.0)])[0]
         + clf.mean_probabilities([crop_patch(gray, sq[0], 58.0 * 1.1, 20.0)])[0]) / 2
    want = int(p[1:].argmax()) + 1
    assert (two.face, two.not_die) == (want, pytest.approx(float(p[0]), abs=1e-6))
    assert two.probability == pytest.approx(float(p[want] / p[1:].sum()), abs=1e-6)
    assert clf.classify(gray, [], scales=(1.0, 1.1)) == []


class _Spy(FaceClassifier):
    def __init__(self) -> None:  # no model: records the scales it is asked to read at
        self.scales: list[tuple[float, ...]] = []

    def classify(self, gray: np.ndarray, squares: list[tuple[tuple[float, float], float, float]], *,
                 tta: bool = True, scales: tuple[float, ...] = (1.0,)) -> list[FaceGuess]:
        self.scales.append(scales)
        return [FaceGuess(3, 0.99, 0.0) for _ in squares]


@pytest.mark.parametrize("scales", [(1.0, 1.1), (1.0,)])
def test_the_finder_reads_at_the_configured_scales(scales: tuple[float, ...]) -> None:
    img = table(seed=4)
    draw_die(img, 320, 240, 60, 3, angle=10.0)
    spy = _Spy()
    found = find_dice(img, spy, VisionConfig(), DiceConfig(photo_read_scales=scales))
    # the first scale for every candidate, all of them for those not rejected outright
    assert spy.scales == ([(1.0,), scales] if len(scales) > 1 else [scales])
    assert found and all(d.face == 3 for d in found)


def test_held_out_tomitomi_crops_read_at_the_photo_scales(shared_data: Path, clf: FaceClassifier) -> None:
    """The held-out crops (index % 5 == 0): at the configured scales at most 2 of 240 unsure, none
    wrong (one scale, 1.0: 3 unsure, the tight squares of three 5s)."""
    from vision.training.data import load, tomi_samples

    right = wrong = unsure = 0
    scales = DiceConfig().photo_read_scales
    for s in tomi_samples(shared_data / "dice", held_out=True):
        g = clf.classify(load(s.image), [((s.square.cx, s.square.cy), s.square.side, s.square.angle)], scales=scales)[0]
        if g.probability < VisionConfig().face_min_confidence:
            unsure += 1
        elif g.face == s.label:
            right += 1
        else:
            wrong += 1
    assert (wrong, right + unsure) == (0, 240) and unsure <= 2
