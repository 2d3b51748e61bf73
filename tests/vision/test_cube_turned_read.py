"""The turned read (``CubeConfig.turned_read``, session 9): when the face is unsure after every
other read, the chosen window's crop and its turned copies may give it, only when every copy reads
the same face and their mean probability reaches the face's own threshold."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import vision.cube as cube
from tests.vision.test_cube import _golden_cube_painted
from vision.cube import CUBE_MODEL, MODEL_FACES, CubeConfig, CubeNumeral, CubeSampler, read_cube, turned

needs_model = pytest.mark.skipif(not CUBE_MODEL.is_file(), reason="cube model not installed")
MARK = 7  # grey level of a crop the test marks as a turned copy


class _Doubtful(CubeNumeral):
    """The installed model, made unsure: ``doubt`` of each crop's 16 probability moves to 32 (same
    turn), so no read of the painted 16 reaches its 0.95; a marked (turned) copy reads
    ``turned_face`` at 0.99."""

    def __init__(self, doubt: float, turned_face: int) -> None:
        super().__init__(CUBE_MODEL)
        self.doubt, self.turned_face = doubt, turned_face
        self.marked = 0

    def cube_probabilities(self, patches: list[Any]) -> Any:
        p = super().cube_probabilities(patches)
        a, b = (1 + 4 * MODEL_FACES.index(f) for f in (16, 32))
        moved = p[:, a:a + 4] * self.doubt
        p[:, a:a + 4] -= moved
        p[:, b:b + 4] += moved
        for i, crop in enumerate(patches):
            if np.all(crop == MARK):
                self.marked += 1
                p[i] = 0.0
                p[i, 1 + 4 * MODEL_FACES.index(self.turned_face)] = 0.99
                p[i, 1 + 4 * MODEL_FACES.index(2)] = 0.01
        return p


def test_turned_copies_are_the_crop_turned() -> None:
    crop = np.arange(48 * 48, dtype=np.uint8).reshape(48, 48)
    for q in range(4):
        assert np.array_equal(turned(crop, q), np.rot90(crop, q))
        assert turned(crop, q).flags.c_contiguous


@needs_model
def test_an_unsure_face_stands_only_when_every_turned_copy_reads_it(monkeypatch: pytest.MonkeyPatch) -> None:
    img, prof, tc = _golden_cube_painted(16)
    sampler = CubeSampler(prof)
    on = CubeConfig()
    off = replace(on, turned_read=False)
    assert on.turned_read
    # the real model reads the painted 16 surely: nothing changes
    assert read_cube(img, sampler, on).face == read_cube(img, sampler, off).face == 16
    monkeypatch.setattr(cube, "turned", lambda crop, q: np.full_like(crop, MARK))
    # made unsure (16 at ~0.9 < 0.95): every other read leaves it unsure; turned copies reading 16
    # at 0.99 lift the mean over the face's threshold
    num = _Doubtful(0.1, 16)
    without = read_cube(img, sampler, off, num)
    assert without is not None and without.face is None and num.marked == 0
    got = read_cube(img, sampler, on, num)
    assert got is not None and got.face == 16 and 0.95 <= got.face_confidence < 0.99 and num.marked == 3
    assert got.position.value == tc["position"] and got.position_confidence >= on.min_position_confidence
    assert abs((got.rotation_deg - tc["rotation_deg"] + 180) % 360 - 180) <= 10
    # a turned copy that reads another face: unsure, never either face
    got = read_cube(img, sampler, on, _Doubtful(0.1, 32))
    assert got is not None and got.face is None
    # every copy reads 16, but the mean (0.89: 0.6 unturned) stays below 16's 0.95 - 0.05: unsure
    got = read_cube(img, sampler, on, _Doubtful(0.4, 16))
    assert got is not None and got.face is None
    # ...unless the bar is relieved
    assert read_cube(img, sampler, replace(on, turned_read_relief=0.1), _Doubtful(0.4, 16)).face == 16
