from __future__ import annotations

import errno
import re
import threading
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from referee.journal import read_journal
from referee.loop import run_loop
from referee.session import Session, SessionInfo
from referee.status import model_of, render_text
from referee.synthetic import Seeded, fault_plan, random_game
from vision.observation import BoardObservation

IMG = np.zeros((8, 8, 3), np.uint8)


@dataclass(frozen=True, eq=False)
class F:
    obs: BoardObservation
    image: np.ndarray | None = None

    def __post_init__(self) -> None:
        if self.image is None and not hasattr(self, "_bare"):
            object.__setattr__(self, "image", IMG)

    @property
    def seq(self) -> int:
        return self.obs.seq

    @property
    def t(self) -> float:
        return self.obs.t


def frames(seed: int = 3, turns: int = 12) -> list[F]:
    return [F(o) for o in random_game(seed, turns=turns, faults=fault_plan(seed, turns))]


def test_every_seeded_infraction_caught_and_named_no_false_alarm() -> None:
    names = {"cocked": "dice-cocked", "wrong_table": "dice-wrong-table", "illegal": "illegal-play",
             "premature": "premature-throw"}
    seeded_all: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    turns = 0
    for seed in (101, 102, 103):
        seeded: list[Seeded] = []
        s = Session.start(SessionInfo(), None)
        for o in random_game(seed, turns=60, faults=fault_plan(seed, 60), seeded=seeded):
            s.process(o)
        turns += s.tracker.state.move
        seeded_all.update(names[x.kind] for x in seeded)
        got = [(j.verdict.code.value if j.verdict.code else "", j.verdict.offender) for j in s.infractions]
        assert sorted(c for c, _ in got) == sorted(names[x.kind] for x in seeded)
        assert sorted((c, o) for c, o in got) == sorted((names[x.kind], x.side) for x in seeded)
        caught.update(c for c, _ in got)
        assert s.stats.checks == 0
    assert caught == seeded_all and turns > 100


def test_corrupt_frames_are_counted_and_skipped() -> None:
    fs = frames()
    bare = F(fs[5].obs)
    object.__setattr__(bare, "image", None)
    fs[5] = bare
    fs[9] = F(fs[9].obs, np.zeros((0, 0, 3), np.uint8))
    s = Session.start(SessionInfo(), None)
    stats = run_loop(fs, lambda f: f.obs, s)
    assert stats.corrupt == 2 and stats.processed == len(fs) - 2
    assert stats.ended == "the video ended"


class Unplugged:
    """A camera that fails with an OSError after ``n`` frames."""

    def __init__(self, fs: list[F], n: int) -> None:
        self.fs, self.n = fs, n

    def __iter__(self):  # type: ignore[no-untyped-def]
        for i, f in enumerate(self.fs):
            if i == self.n:
                raise OSError(errno.ENODEV, "camera unplugged")
            yield f


def test_camera_unplugged_then_back_keeps_the_game(tmp_path: Path) -> None:
    fs = frames()
    whole = Session.start(SessionInfo(), None)
    for f in fs:
        whole.process(f.obs)
    s = Session.start(SessionInfo(), tmp_path / "j.jsonl", evidence=False)
    first = Unplugged(fs, 40)
    rest = [f for f in fs if f.seq >= 40]
    stats = run_loop(first, lambda f: f.obs, s, reopen=lambda: rest)
    assert stats.camera_faults == 1 and stats.processed == len(fs)
    assert s.snapshot() == whole.snapshot()
    s.close()
    faults = [r.data["message"] for r in read_journal(tmp_path / "j.jsonl").records if r.kind == "fault"]
    assert faults[0].startswith("[Errno") and faults[-1] == "camera back"


def test_camera_lost_for_good_ends_with_a_clear_message() -> None:
    s = Session.start(SessionInfo(), None)
    stats = run_loop(Unplugged(frames(), 10), lambda f: f.obs, s)
    assert "camera lost" in stats.ended and "--resume" in stats.ended


def test_live_mode_drops_frames_it_cannot_keep_up_with() -> None:
    fs = frames()
    gate = threading.Event()
    seen = []

    def slow_reader(f: F) -> BoardObservation:
        gate.wait(0.002)
        seen.append(f.seq)
        return f.obs

    s = Session.start(SessionInfo(), None)

    def camera():  # type: ignore[no-untyped-def]
        yield from fs  # as fast as it can: faster than the reader
    stats = run_loop(camera(), slow_reader, s, live=True)
    assert stats.frames == len(fs)
    assert stats.dropped > 0 and stats.processed + stats.dropped == stats.frames
    assert seen == sorted(seen)


def test_players_view_never_shows_pips_hints_or_legal_plays() -> None:
    s = Session.start(SessionInfo(players=("Ann", "Bob"), match_length=7), None)
    for f in frames(turns=30):
        s.process(f.obs)
    text = render_text(model_of(s))
    assert "Ann" in text and "match to 7" in text
    assert "Infractions" in text
    for word in (r"\bpips?\b", r"\bhint", r"\blegal plays?\b", r"\bposition "):
        assert not re.search(word, text.lower()), word
    director = render_text(model_of(s), director=True)
    assert "position " in director


@pytest.mark.parametrize("kind", ["journal"])
def test_disk_full_during_a_game_keeps_state_and_catches_up(tmp_path: Path, kind: str) -> None:
    from referee.journal import Journal

    full = {"on": False}

    def writer(fd: int, data: bytes) -> int:
        import os

        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)

    s = Session.start(SessionInfo(), tmp_path / "j.jsonl", evidence=False)
    assert s.journal is not None
    s.journal.close()
    s.journal = Journal.open(tmp_path / "j.jsonl", resume=True, writer=writer)
    fs = frames()
    for f in fs[:50]:
        s.process(f.obs)
    full["on"] = True
    for f in fs[50:120]:
        s.process(f.obs)
    assert "disk full" in s.stats.journal_problem and s.journal.held > 0
    full["on"] = False
    for f in fs[120:]:
        s.process(f.obs)
    assert s.journal.held == 0 and s.stats.journal_problem == ""
    s.close()
    resumed = Session.resume(tmp_path / "j.jsonl", evidence=False)
    assert resumed.snapshot() == s.snapshot()
