"""``bgref replay`` and ``bgref run --camera FILE`` end to end with the real reader on a rendered recording
(skipped with a message while the reader cannot load its models)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import cv2
import pytest

from referee import cli


@pytest.fixture(scope="module")
def recording(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    from vision.reader import BoardReader
    from vision.sim.game import GameDirector
    from vision.training.rendered import profile_for

    folder = tmp_path_factory.mktemp("rec")
    director = GameDirector(4243, width=480, height=270, jpeg=True)
    video = folder / "game.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 30.0, (480, 270))
    truth0: dict[str, Any] = {}
    first = None
    for i, (img, truth) in enumerate(director.frames()):
        truth0 = truth0 or truth
        first = img if first is None else first
        out.write(img)
        if i >= 89:
            break
    out.release()
    prof = profile_for(truth0)
    path = folder / "board.json"
    prof.save(path)
    try:
        BoardReader().read_image(first, prof)
    except (OSError, ValueError, RuntimeError) as exc:
        pytest.skip(f"the real reader cannot read frames now: {exc}")
    return video, path


def _summary(capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    out = capsys.readouterr().out.strip().splitlines()
    return dict(json.loads(out[-1]))


def test_replay_then_resume_and_run_from_a_recording(recording: tuple[Path, Path], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    video, prof = recording
    journal = tmp_path / "j.jsonl"
    common = ["--profile", str(prof), "--no-status", "--json"]
    assert cli.main(["replay", str(video), "--journal", str(journal), *common]) == 0
    s = _summary(capsys)
    assert s["ended"] == "the video ended" and s["frames"] == s["processed"] == 90 and s["dropped"] == 0
    assert s["full_reads"] >= 1 and s["corrupt"] == 0 and s["unread"] == 0
    assert Path(s["journal"]) == journal

    assert cli.main(["replay", str(video), "--resume", str(journal), *common]) == 0
    again = _summary(capsys)
    # the same recording: what the journal judged is passed over (frames after its last record are read
    # again: they made no record, so they make none now) and nothing is judged twice
    assert again["processed"] + again["skipped"] == 90 and again["state"] == s["state"]
    from referee.journal import read_journal

    seqs = [r.data["seq"] for r in read_journal(journal).records if r.kind == "observation"]
    assert len(seqs) == len(set(seqs)) and seqs == sorted(seqs)

    assert cli.main(["run", "--camera", str(video), "--journal", str(tmp_path / "live.jsonl"), *common]) == 0
    live = _summary(capsys)
    assert live["ended"] == "the video ended" and live["frames"] == 90
    assert live["processed"] + live["dropped"] + live["corrupt"] + live["unread"] == 90


@pytest.mark.parametrize("content", ["", "{garbage\n", '{"kind": "observation", "n": 0}\n'])
def test_resume_from_a_broken_journal_is_one_clear_error(recording: tuple[Path, Path], tmp_path: Path,
                                                         content: str, capsys: pytest.CaptureFixture[str]) -> None:
    """--resume with the real reader reads the journal's seat first: an empty, garbled or headless
    journal is refused in one line naming the file, and the file is left as it was."""
    video, prof = recording
    journal = tmp_path / "broken.jsonl"
    journal.write_text(content)
    assert cli.main(["replay", str(video), "--profile", str(prof), "--resume", str(journal), "--no-status"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("bgref replay: error:") and str(journal) in err[0]
    assert journal.read_text() == content
