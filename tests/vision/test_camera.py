"""Camera sources: folder, video file, simulator, and the errors they raise."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.camera import CameraError, CorruptFrame, Frame, open_source


def _write_video(path: Path, n: int) -> None:
    w = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    for i in range(n):
        w.write(np.full((48, 64, 3), i * 20, np.uint8))
    w.release()


def test_folder_source_in_name_order_with_corrupt_notice(tmp_path: Path) -> None:
    for i in range(3):
        cv2.imwrite(str(tmp_path / f"f{i}.png"), np.full((10, 12, 3), i * 50, np.uint8))
    (tmp_path / "f1b.png").write_bytes(b"not an image")
    with open_source(str(tmp_path)) as cam:
        items = list(cam)
    assert [type(x) for x in items] == [Frame, Frame, CorruptFrame, Frame]
    assert isinstance(items[2], CorruptFrame) and "f1b.png" in items[2].reason
    assert [x.seq for x in items] == [0, 1, 2, 3]
    f = items[3]
    assert isinstance(f, Frame) and int(f.image[0, 0, 0]) == 100 and f.t == pytest.approx(3 / 30)


def test_video_file_source(tmp_path: Path) -> None:
    p = tmp_path / "v.avi"
    _write_video(p, 5)
    with open_source(str(p)) as cam:
        frames = [x for x in cam if isinstance(x, Frame)]
    assert len(frames) == 5
    assert frames[1].t == pytest.approx(0.1)
    assert abs(int(frames[4].image.mean()) - 80) < 6


def test_sim_source_gives_frames_and_truth() -> None:
    with open_source("sim:4?size=320x240&turns=1&clean=1") as cam:
        it = iter(cam)
        frames = [next(it) for _ in range(3)]
        truth = cam.last_truth  # type: ignore[attr-defined]
    assert all(isinstance(f, Frame) and f.image.shape == (240, 320, 3) for f in frames)
    assert truth is not None and truth["seq"] == 2


@pytest.mark.parametrize("spec, match", [
    ("/no/such/file.mp4", r"file\.mp4"),
    ("sim:x", "numeric seed"),
    ("sim:1?colour=red", "colour"),
    ("sim:1?infractions=bogus@2", "bogus"),
])
def test_errors_are_camera_errors_with_the_spec(spec: str, match: str) -> None:
    with pytest.raises(CameraError, match=match):
        open_source(spec)


def test_empty_folder_and_unreadable_video(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="no images"):
        open_source(str(tmp_path))
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00" * 100)
    with pytest.raises(CameraError, match=r"bad\.mp4"):
        open_source(str(bad))
