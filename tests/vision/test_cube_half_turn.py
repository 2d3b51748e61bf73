"""The turn checks: a face stands only when the same crop, turned half a turn, reads the same face
(``CubeConfig.half_turn_check``); a look-alike face (2, 8, 16, 32) only when the crop turned by
each quarter turn does (``CubeConfig.look_alike_turns_below``)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

import vision.cube as cube
from tests.vision.test_cube import _golden_cube_painted
from vision.cube import CUBE_MODEL, MODEL_FACES, CubeConfig, CubeNumeral, CubeSampler, half_turned, read_cube

needs_model = pytest.mark.skipif(not CUBE_MODEL.is_file(), reason="cube model not installed")
MARK = 7  # grey level of a crop the test marks as "turned"


class _TurnedReadsOther(CubeNumeral):
    """The installed model, except that a marked (turned) crop reads ``other`` surely."""

    def __init__(self, other: int) -> None:
        super().__init__(CUBE_MODEL)
        self.other = other
        self.turned_reads = 0

    def cube_probabilities(self, patches: list[Any]) -> Any:
        p = super().cube_probabilities(patches)
        for i, crop in enumerate(patches):
            if np.all(crop == MARK):
                self.turned_reads += 1
                p[i] = 0.0
                p[i, 1 + 4 * MODEL_FACES.index(self.other)] = 1.0
        return p


def test_half_turned_crop_is_the_crop_turned_twice() -> None:
    crop = np.arange(48 * 48, dtype=np.uint8).reshape(48, 48)
    assert np.array_equal(half_turned(crop), np.rot90(crop, 2))
    assert half_turned(crop).flags.c_contiguous


@needs_model
@pytest.mark.parametrize("decisive_first", [True, False])
def test_a_face_the_turned_crop_reads_otherwise_is_dropped(monkeypatch: pytest.MonkeyPatch,
                                                          decisive_first: bool) -> None:
    img, prof, _ = _golden_cube_painted(16)
    sampler = CubeSampler(prof)
    on = replace(CubeConfig(), half_turn_check=True, half_turn_below=1.01, decisive_first=decisive_first,
                 turned_read=False, look_alike_turns_below=0.0)
    off = replace(on, half_turn_check=False)
    # the real model reads the painted 16 both ways up: the check keeps it
    assert read_cube(img, sampler, off).face == 16
    assert read_cube(img, sampler, on).face == 16
    # a model that reads the turned crop as 32: the face is dropped (unsure), never another face
    monkeypatch.setattr(cube, "half_turned", lambda crop: np.full_like(crop, MARK))
    num = _TurnedReadsOther(32)
    got = read_cube(img, sampler, on, num)
    assert got is not None and got.face is None and num.turned_reads >= 1
    assert read_cube(img, sampler, off, _TurnedReadsOther(32)).face == 16
    # ...one that reads it as 16 keeps it
    assert read_cube(img, sampler, on, _TurnedReadsOther(16)).face == 16
    # a read at or above ``half_turn_below`` is not checked (the painted 16 reads above 0.99)
    sure = read_cube(img, sampler, off)
    assert sure is not None and sure.face_confidence >= 0.99
    num = _TurnedReadsOther(32)
    assert read_cube(img, sampler, replace(on, half_turn_below=0.99), num).face == 16 and num.turned_reads == 0


@needs_model
@pytest.mark.parametrize("decisive_first", [True, False])
def test_a_look_alike_face_a_quarter_turned_crop_reads_otherwise_is_dropped(monkeypatch: pytest.MonkeyPatch,
                                                                           decisive_first: bool) -> None:
    """715521_7 (fresh, session 10): a 16 read as 32 at 0.994, its crop turned a quarter reading 16."""
    img, prof, _ = _golden_cube_painted(16)
    sampler = CubeSampler(prof)
    on = replace(CubeConfig(), look_alike_turns_below=1.01, half_turn_check=False, decisive_first=decisive_first,
                 turned_read=False)
    off = replace(on, look_alike_turns_below=0.0)
    # the real model reads the painted 16 in every turn: the check keeps it
    assert read_cube(img, sampler, on).face == 16
    # a model that reads the crop turned one quarter as 32: dropped (unsure), never another face
    real_turned = cube.turned
    monkeypatch.setattr(cube, "turned", lambda crop, q: np.full_like(crop, MARK) if q == 1 else real_turned(crop, q))
    num = _TurnedReadsOther(32)
    got = read_cube(img, sampler, on, num)
    assert got is not None and got.face is None and num.turned_reads >= 1
    assert read_cube(img, sampler, off, _TurnedReadsOther(32)).face == 16
    assert read_cube(img, sampler, on, _TurnedReadsOther(16)).face == 16
    # a read at or above ``look_alike_turns_below`` is not checked (the painted 16 reads above 0.99)
    num = _TurnedReadsOther(32)
    assert read_cube(img, sampler, replace(on, look_alike_turns_below=0.99), num).face == 16 and num.turned_reads == 0
