"""The replay/live pipeline: decode on its own thread, the motion gate on every frame, full readings on a
worker.  What the referee sees must be what ``BoardReader.read`` gives frame by frame; a slow full
reading must never stall the frames behind it; in live mode what cannot be read in time is dropped and
counted, in replay nothing is."""

from __future__ import annotations

import itertools
import threading
from dataclasses import replace
from typing import Any

import cv2
import numpy as np
import pytest

from referee.loop import GatedReader, run_loop
from referee.session import Session, SessionInfo
from vision.camera import Frame
from vision.config import VisionConfig
from vision.observation import BoardObservation, CountReading


def _profile(w: int = 640, h: int = 360) -> Any:
    from calibration.camera import CameraModel
    from calibration.profile import CalibrationProfile
    from vision.geometry import BoardSpec

    corners = [(0.78 * w, 0.23 * h), (0.22 * w, 0.23 * h), (0.16 * w, 0.83 * h), (0.84 * w, 0.83 * h)]
    return CalibrationProfile.from_corners(corners, CameraModel.default_for_size(w, h), BoardSpec.tournament(),
                                           method="manual")


def _scene_frames(n: int, still: int = 12, moving: int = 6, w: int = 640, h: int = 360) -> list[Frame]:
    """A board-coloured scene with a hand passing over it now and then (a new scene after each pass)."""
    rng = np.random.default_rng(3)
    out = []
    scene = 0
    base = np.full((h, w, 3), (60, 90, 120), np.uint8)
    for i in range(n):
        k = i % (still + moving)
        if k == still:
            scene += 1
            base = base.copy()
            cv2.circle(base, (int(rng.integers(150, w - 150)), int(rng.integers(100, h - 100))), 12, (240, 240, 240), -1)
        img = base.copy()
        if k >= still:  # the hand
            x = int(w * (k - still + 1) / (moving + 1))
            cv2.ellipse(img, (x, h // 2), (60, 90), 0, 0, 360, (120, 150, 210), -1)
        out.append(Frame(img, i / 30, i))
    return out


class FakeReader:
    """A full reading that takes as long as the test says (``release``), counting its calls."""

    def __init__(self, release: threading.Event | None = None) -> None:
        self.config = VisionConfig()
        self.release = release
        self.calls: list[int] = []

    def read_image(self, image: Any, profile: Any, *, seq: int = 0, t: float = 0.0,
                   covered: frozenset[str] = frozenset(), keep_cube: bool = False) -> BoardObservation:
        if self.release is not None and not self.release.wait(10.0):
            raise AssertionError("the full reading was never released: the frames behind it stalled")
        self.calls.append(seq)
        z = CountReading(0, 0, 1.0)
        return BoardObservation(seq=seq, t=t, points=(z,) * 24, bar=z, trays=(z, z), still=True, covered=covered,
                                confident=not covered)


def test_a_slow_full_reading_never_stalls_the_frames_behind_it() -> None:
    frames = _scene_frames(90)
    release = threading.Event()
    gated_while_reading: list[int] = []
    reader = FakeReader(release)

    def on_frame(f: Frame) -> None:
        if reader.calls == [] and f.seq > 40:  # the first reading is still blocked: frames go on being gated
            gated_while_reading.append(f.seq)
            release.set()

    seen: list[int] = []
    s = Session.start(SessionInfo(), None)
    stats = run_loop(frames, GatedReader(reader, _profile(), board_check=False), s, on_frame=on_frame,
                     on_observation=lambda o: seen.append(o.seq))
    assert gated_while_reading  # frame 41 was gated while the reading of an earlier frame had not finished
    assert seen == [f.seq for f in frames]  # replay: every frame judged, in order
    assert stats.dropped == 0 and stats.processed == len(frames)
    assert 3 <= stats.full_reads == len(reader.calls) <= 6  # one per settled scene, not one per frame


def test_still_frames_reuse_the_reading_and_moving_ones_are_not_judged() -> None:
    frames = _scene_frames(54)
    reader = FakeReader()
    got: list[BoardObservation] = []
    s = Session.start(SessionInfo(), None)
    run_loop(frames, GatedReader(reader, _profile(), board_check=False), s, on_observation=got.append)
    still_runs = 0
    for prev, o in itertools.pairwise(got):
        if o.still and not prev.still:
            still_runs += 1
            assert o.seq in reader.calls  # the first still frame of a scene is read in full
        if o.still and prev.still:
            assert o.seq not in reader.calls and o.points == prev.points  # the others reuse it
    assert still_runs == len(reader.calls) == 3  # one full reading per scene
    assert not any(o.still for o in got if o.seq % 18 >= 12)  # while the hand passes: never still


def test_live_mode_drops_superseded_readings_and_counts_them() -> None:
    frames = _scene_frames(180, still=7, moving=3)
    release = threading.Event()
    reader = FakeReader(release)
    calls = 0

    def on_frame(f: Frame) -> None:
        nonlocal calls
        if f.seq % 45 == 44:  # the reader only gets to work now and then: readings wait and are superseded
            release.set()
        else:
            release.clear()
        calls += 1

    s = Session.start(SessionInfo(), None)
    stats = run_loop(iter(frames), GatedReader(reader, _profile(), board_check=False), s, live=True,
                     on_frame=on_frame)
    release.set()
    assert stats.frames == len(frames)
    assert stats.dropped > 0
    assert stats.processed + stats.dropped == stats.frames


def _real_reader() -> Any:
    try:
        from vision.reader import BoardReader

        return BoardReader()
    except (OSError, ValueError, RuntimeError) as exc:
        pytest.skip(f"the real reader cannot load its models: {exc}")


def test_the_pipeline_sees_what_board_reader_read_sees_on_a_rendered_game() -> None:
    from vision.sim.game import GameDirector
    from vision.training.rendered import profile_for

    director = GameDirector(4242, width=480, height=270, jpeg=True)
    clip = []
    truth0: dict[str, Any] = {}
    for img, truth in director.frames():
        truth0 = truth0 or truth
        clip.append(Frame(img, float(truth["t"]), int(truth["seq"])))
        if len(clip) >= 110:
            break
    prof = profile_for(truth0)
    sync = _real_reader()
    try:
        expected = [sync.read(f, prof) for f in clip]
    except ValueError as exc:
        pytest.skip(f"the real reader cannot read frames now: {exc}")
    got: list[BoardObservation] = []
    s = Session.start(SessionInfo(), None)
    stats = run_loop(clip, GatedReader(_real_reader(), prof, board_check=False, rescue=False), s,
                     on_observation=got.append)
    assert stats.full_reads >= 1

    def bare(o: BoardObservation) -> BoardObservation:
        return replace(o, timings_ms=())

    assert [bare(o) for o in got] == [bare(o) for o in expected]


def test_a_skin_coloured_object_at_rest_is_read_after_the_gate_settles() -> None:
    """The gate keeps a skin-coloured die that came to rest "covered" for ever; the pipeline reads the
    scene once nothing has changed for ``still_frames`` frames (and BoardReader.read alone never would)."""
    w, h = 640, 360
    base = np.full((h, w, 3), (60, 90, 120), np.uint8)
    rested = base.copy()
    cv2.circle(rested, (320, 150), 30, (120, 150, 210), -1)  # skin-coloured, then still
    frames = [Frame(base if i < 12 else rested, i / 30, i) for i in range(40)]
    for rescue, expect in ((False, [5]), (True, [5, 17])):
        reader = FakeReader()
        got: list[BoardObservation] = []
        gated = GatedReader(reader, _profile(), board_check=False, rescue=rescue)
        run_loop(frames, gated, Session.start(SessionInfo(), None), on_observation=got.append)
        assert reader.calls == expect and gated.rescued == len(expect) - 1
        assert got[-1].still is rescue and (got[-1].covered == frozenset()) is rescue
