"""Camera faults on recorded input: a camera unplugged and back (numbering its frames from 0 again), corrupt
frames in a real video file, a video that ends and the next recording after ``--resume``, and vision
failing on some frames.  Each: a clear message, the game state kept, play continues."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from referee.app import _current_source
from referee.journal import read_journal
from referee.loop import run_loop
from referee.session import Session, SessionInfo
from referee.synthetic import fault_plan, random_game
from vision.camera import CameraError, CameraSource, CorruptFrame, Frame, open_source
from vision.observation import BoardObservation

IMG = np.zeros((48, 64, 3), np.uint8)


def game(seed: int = 5, turns: int = 16) -> list[BoardObservation]:
    return list(random_game(seed, turns=turns, faults=fault_plan(seed, turns, every=3)))


def whole_run(obs: list[BoardObservation], skip: frozenset[int] = frozenset()) -> Session:
    s = Session.start(SessionInfo(), None)
    for o in obs:
        if o.seq not in skip:
            s.process(o)
    return s


class LockStepCamera(CameraSource):
    """A webcam numbering its frames from 0, delivering the next one when the referee has taken the last
    (so nothing is dropped and the game is the same), and going away after ``fail_at`` frames."""

    def __init__(self, obs: list[BoardObservation], taken: threading.Event, fail_at: int | None = None) -> None:
        self.obs, self.taken, self.fail_at = obs, taken, fail_at
        self.i = 0

    def read(self) -> Frame | CorruptFrame | None:
        if self.i == self.fail_at:
            raise CameraError("webcam 0 stopped delivering frames (30 failed reads): unplugged?")
        if self.i >= len(self.obs):
            return None
        if self.i:
            self.taken.wait(5.0)
        self.taken.clear()
        self.i += 1
        return Frame(IMG, (self.i - 1) / 30, self.i - 1)

    def close(self) -> None:
        pass


def test_camera_unplugged_and_back_numbering_from_zero_keeps_the_game(tmp_path: Path) -> None:
    obs = game()
    cut = len(obs) // 2
    taken = threading.Event()
    seen: list[int] = []

    def reader(f: Frame) -> BoardObservation:
        seen.append(f.seq)
        o = obs[f.seq]  # the camera's frame f.seq shows the game's observation f.seq
        taken.set()
        return o

    s = Session.start(SessionInfo(), tmp_path / "j.jsonl", evidence=False)
    stats = run_loop(LockStepCamera(obs, taken, fail_at=cut), reader, s, live=True,
                     reopen=lambda: LockStepCamera(obs[cut:], taken), max_reopen_wait_s=0.25)
    assert stats.camera_faults == 1 and "camera back" in stats.message
    assert seen == list(range(len(obs)))  # the reopened camera's frames follow on: none ignored as seen
    assert stats.processed == len(obs) and stats.dropped == 0
    assert s.snapshot() == whole_run(obs).snapshot()
    s.close()
    faults = [r.data["message"] for r in read_journal(tmp_path / "j.jsonl").records if r.kind == "fault"]
    assert "unplugged" in faults[0] and faults[-1] == "camera back"


def _video(path: Path, n: int, garble: tuple[int, ...]) -> None:
    """An MJPG recording of ``n`` frames, the frames ``garble`` overwritten with noise (a bad sector, a
    broken transfer)."""
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (64, 48))
    for i in range(n):
        img = np.full((48, 64, 3), 30, np.uint8)
        cv2.putText(img, str(i % 100), (4, 30), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (255, 255, 255), 2)
        w.write(img)
    w.release()
    data = bytearray(path.read_bytes())
    soi = [i for i in range(len(data) - 1) if data[i] == 0xFF and data[i + 1] == 0xD8]
    assert len(soi) == n
    rng = np.random.default_rng(0)
    for k in garble:
        end = soi[k + 1] if k + 1 < n else len(data)
        half = (end - soi[k]) // 2
        data[soi[k]:soi[k] + half] = rng.integers(0, 255, half, dtype=np.uint8).tobytes()
    path.write_bytes(bytes(data))


def test_corrupt_frames_in_a_recording_are_counted_and_the_game_goes_on(tmp_path: Path) -> None:
    obs = game(7)
    bad = (len(obs) // 4, len(obs) // 4 + 1, len(obs) // 2)
    video = tmp_path / "game.avi"
    _video(video, len(obs), bad)
    s = Session.start(SessionInfo(), tmp_path / "j.jsonl", evidence=False)
    stats = run_loop(open_source(str(video)), lambda f: obs[f.seq], s)
    assert stats.corrupt == len(bad) and stats.processed == len(obs) - len(bad)
    assert stats.ended == "the video ended" and f"frame {bad[-1]}" in stats.message
    assert s.snapshot() == whole_run(obs, frozenset(bad)).snapshot()
    assert s.stats.infractions > 0


def test_video_ends_then_resume_continues_with_the_next_recording(tmp_path: Path) -> None:
    obs = game(9)
    cut = len(obs) // 2
    journal = tmp_path / "j.jsonl"

    def frames(part: list[BoardObservation]) -> Iterator[Frame]:  # each recording numbers from 0
        for i, _ in enumerate(part):
            yield Frame(IMG, i / 30, i)

    s = Session.start(SessionInfo(source="part1.mp4"), journal, evidence=False)
    first = run_loop(frames(obs[:cut]), lambda f: obs[f.seq], s)
    assert first.ended == "the video ended"
    s.close()

    resumed = Session.resume(journal, evidence=False)
    after = resumed.last_seq
    assert _current_source(str(journal), resumed.info.source) == ("part1.mp4", -1)
    resumed.note("source", source="part2.mp4", after_seq=after)
    second = run_loop(frames(obs[cut:]), lambda f: obs[f.seq], resumed, continue_after=after)
    assert second.processed == len(obs) - cut
    assert resumed.snapshot() == whole_run(obs).snapshot()
    resumed.close()
    assert _current_source(str(journal), "part1.mp4") == ("part2.mp4", after)


def test_vision_failing_on_some_frames_is_reported_once_and_play_goes_on(tmp_path: Path) -> None:
    obs = game(11)
    broken = set(range(40, 46))

    def reader(f: Any) -> BoardObservation:
        if f.seq in broken:
            raise ValueError("model file 'die_detect.onnx' not found")
        return obs[f.seq]

    s = Session.start(SessionInfo(), tmp_path / "j.jsonl", evidence=False)
    stats = run_loop([Frame(IMG, o.t, o.seq) for o in obs], reader, s)
    assert stats.unread == len(broken) and stats.corrupt == 0 and stats.processed == len(obs) - len(broken)
    assert "vision could not read frame 45" in stats.message
    assert s.snapshot() == whole_run(obs, frozenset(broken)).snapshot()
    s.close()
    faults = [r.data for r in read_journal(tmp_path / "j.jsonl").records if r.kind == "fault"]
    assert [f["part"] for f in faults] == ["vision"] and "die_detect" in faults[0]["message"]
