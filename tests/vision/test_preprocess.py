from __future__ import annotations

import numpy as np

from tests.vision.synth import draw_die, table
from vision.preprocess import PATCH, Square, crop_patch, normalise_patch, pips_are_light, to_gray


def test_crop_is_patch_sized_and_centred() -> None:
    img = table(200, 200)
    draw_die(img, 100, 100, 60, 1)
    p = crop_patch(to_gray(img), (100.0, 100.0), 60.0)
    assert p.shape == (PATCH, PATCH)
    assert p[PATCH // 2, PATCH // 2] < 80 < p[PATCH // 2, PATCH // 4]


def test_polarity_is_normalised() -> None:
    light = table(200, 200)
    draw_die(light, 100, 100, 60, 5)
    dark = table(200, 200)
    draw_die(dark, 100, 100, 60, 5, body=(40, 40, 170), pip=(240, 240, 240))
    a = normalise_patch(crop_patch(to_gray(light), (100.0, 100.0), 60.0))
    b = normalise_patch(crop_patch(to_gray(dark), (100.0, 100.0), 60.0))
    assert not pips_are_light(crop_patch(to_gray(light), (100.0, 100.0), 60.0))
    assert pips_are_light(crop_patch(to_gray(dark), (100.0, 100.0), 60.0))
    inner = (slice(6, PATCH - 6), slice(6, PATCH - 6))
    assert np.corrcoef(a[inner].ravel(), b[inner].ravel())[0, 1] > 0.9


def test_square_box_encloses_rotation() -> None:
    assert Square(50, 50, 20, 0).box() == (40, 40, 20, 20)
    _x, _y, w, h = Square(50, 50, 20, 45).box()
    assert w == h and 27 <= w <= 29


def test_batch_normalisation_matches_one_by_one() -> None:
    from vision.preprocess import batch, normalise_patches

    rng = np.random.default_rng(4)
    patches = [(rng.random((PATCH, PATCH)) * 255).astype(np.uint8) for _ in range(5)]
    img = table(200, 200)
    draw_die(img, 100, 100, 60, 5, body=(40, 40, 170), pip=(240, 240, 240))  # light pips: inverted
    patches.append(crop_patch(to_gray(img), (100.0, 100.0), 60.0))
    one = batch([normalise_patch(p) for p in patches])
    assert np.allclose(normalise_patches(patches), one, atol=1e-5)
    assert normalise_patches([]).shape == (0, 1, PATCH, PATCH)
