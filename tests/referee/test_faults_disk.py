"""Disk full during a game, through the loop: the journal and the evidence images cannot be written for a
while.  A clear message in the status, the game goes on, the held journal records are written in order
when space comes back, and the journal then resumes to the very same game."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import referee.evidence
from referee.journal import Journal, read_journal
from referee.loop import run_loop
from referee.session import Session, SessionInfo
from referee.status import model_of, render_text
from referee.synthetic import fault_plan, random_game
from vision.camera import Frame


def test_disk_full_then_space_again_keeps_the_game_and_its_record(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    obs = list(random_game(13, turns=30, faults=fault_plan(13, 30, every=2)))
    lo, hi = len(obs) // 3, 2 * len(obs) // 3
    full = {"on": False}

    def writer(fd: int, data: bytes) -> int:
        if full["on"]:
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)

    real_open = open

    def evidence_open(path: Any, mode: str = "r", *a: Any, **kw: Any) -> Any:
        if full["on"] and "w" in mode:
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real_open(path, mode, *a, **kw)

    monkeypatch.setattr(referee.evidence, "open", evidence_open, raising=False)
    journal = tmp_path / "game.jsonl"
    s = Session.start(SessionInfo(), journal)
    assert s.journal is not None
    s.journal.close()
    s.journal = Journal.open(journal, resume=True, writer=writer)
    rng = np.random.default_rng(0)
    frames = [Frame(rng.integers(0, 255, (48, 64, 3), dtype=np.uint8), o.t, o.seq) for o in obs]
    shown: list[str] = []

    def on_observation(o: Any) -> None:
        full["on"] = lo <= o.seq < hi

    def tick(stats: Any) -> None:
        shown.append(render_text(model_of(s, stats)))

    stats = run_loop(frames, lambda f: obs[f.seq], s, on_observation=on_observation, on_tick=tick, tick_s=0.0)
    assert stats.processed == len(obs)
    assert any("disk full" in t and "the game goes on" in t for t in shown)  # said while it lasted
    assert s.journal.held == 0 and s.stats.journal_problem == ""  # all written once space came back
    infractions_in_window = [j for j in s.infractions if lo <= j.emitted.seq < hi]
    assert infractions_in_window  # the game was judged while the disk was full
    s.close()

    whole = Session.start(SessionInfo(), None)
    for o in obs:
        whole.process(o)
    assert s.snapshot() == whole.snapshot() and s.stats.infractions == whole.stats.infractions
    resumed = Session.resume(journal, evidence=False)
    assert resumed.snapshot() == whole.snapshot()
    seqs = [r.data["seq"] for r in read_journal(journal).records if r.kind == "observation"]
    assert seqs == sorted(seqs) and len(seqs) == len(set(seqs))  # in order, none lost or doubled
    pics = sorted(p.name for p in (tmp_path / "game.evidence").glob("*-at.jpg"))
    assert len(pics) == s.stats.infractions - len(infractions_in_window)  # only what the full disk refused is missing
