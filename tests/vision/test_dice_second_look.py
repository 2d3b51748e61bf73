"""The second look on every frame (session 15): a die the detector ranks below board texture is read
even when other dice were found.

In played games the die of a throw never found was mostly one the detector ranked 11th-18th while the
other die (or, in a premature throw, the mover's pair) was found, so the second look, run only when
fewer than two dice were found, never read it (``DiceConfig.second_look_found_below``,
``second_look_found_reads``; and ``second_look_peaks``, ``second_look_max_reads`` when it ran).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest

from tests.vision.renders import rendered_frames
from vision.config import VisionConfig
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import FaceClassifier
from vision.dice.config import DiceConfig

# sessions 8-14's second look: only when fewer than two dice were found, 12 peaks, 4 reads
OLD = replace(DiceConfig(), second_look_found_below=0, second_look_peaks=12, second_look_max_reads=4)


@pytest.fixture(scope="module")
def frames(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[Any, Any, dict[str, Any]]]:
    """Rendered seeds 900133 and 900307 (1280x720, ~3 s each to render; seen slot-evaluation scenes)."""
    return rendered_frames(tmp_path_factory.mktemp("renders"), (900133, 900307))


def _read(frame: tuple[Any, Any, dict[str, Any]], dcfg: DiceConfig) -> tuple[Any, ...]:
    img, prof, _ = frame
    return read_dice(img, prof, FaceClassifier(), VisionConfig(), DiceSearch(prof), dcfg)


def _faces_at(found: tuple[Any, ...], die: dict[str, Any]) -> list[int | None]:
    x, y = die["center_mm"][:2]
    return [d.face for d in found if math.hypot(d.center_mm[0] - x, d.center_mm[1] - y) < 0.6 * die["size_mm"]]


def _die(truth: dict[str, Any], face: int) -> dict[str, Any]:
    return next(d for d in truth["dice"] if d["face"] == face)


def test_a_die_ranked_below_the_second_looks_old_reach_is_read(frames: dict[int, Any]) -> None:
    """900133: a flat 4 found by the first look; a flat 3 whose detector peak (0.16) is the 13th,
    beyond the old 12 peaks, reads 3 at 0.999 at that peak (one die found: the second look reads
    ``second_look_max_reads`` of up to ``second_look_peaks`` peaks)."""
    frame = frames[900133]
    four, three = _die(frame[2], 4), _die(frame[2], 3)
    found = _read(frame, DiceConfig())
    assert _faces_at(found, three) == [3] and _faces_at(found, four) == [4], found
    old = _read(frame, OLD)
    assert _faces_at(old, three) == [] and _faces_at(old, four) == [4], old


def test_a_second_look_runs_when_a_pair_was_found(frames: dict[int, Any]) -> None:
    """900307: a flat 6 read, and a flat 1 whose side face toward the camera the first look read
    (17 mm off its top, face unsure): two dice found, so the old second look never ran and the 1
    stayed unread.  The second look reads its top (1), and the side face is dropped as its side
    (two dice found: ``second_look_found_reads``)."""
    frame = frames[900307]
    one, six = _die(frame[2], 1), _die(frame[2], 6)
    found = _read(frame, DiceConfig())
    assert _faces_at(found, one) == [1] and _faces_at(found, six) == [6], found
    assert len(found) == 2, found
    old = _read(frame, OLD)
    assert _faces_at(old, one) == [] and _faces_at(old, six) == [6], old
    # the old look left a face-unread reading off the 1's top (its side face)
    assert [d.face for d in old].count(None) == 1 and len(old) == 2, old
    # a frame that found a pair reads only ``second_look_found_reads`` of those peaks: none, none read
    none = _read(frame, replace(DiceConfig(), second_look_found_reads=0))
    assert _faces_at(none, one) == [] and _faces_at(none, six) == [6], none
