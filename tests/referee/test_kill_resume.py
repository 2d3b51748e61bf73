"""Kill ``bgref replay`` with SIGKILL at random moments; every resume must continue exactly."""

from __future__ import annotations

import contextlib
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from referee.journal import read_journal
from referee.synthetic import fault_plan, random_game, write_stream

KILLS = 20


def _cmd(stream: Path, journal: Path, resume: bool) -> list[str]:
    base = [sys.executable, "-m", "referee", "replay", str(stream), "--no-status", "--json",
            "--players", "Ann", "Bob", "--match", "7"]
    return base + (["--resume", str(journal)] if resume else ["--journal", str(journal)])


def _events(journal: Path) -> list[tuple[int, str, str]]:
    out = []
    for r in read_journal(journal).records:
        if r.kind == "observation":
            for e in r.data["events"]:
                out.append((r.data["seq"], e["event"]["type"], e["verdict"]["kind"] + str(e["verdict"]["code"])))
    return out


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume_loses_and_duplicates_nothing(tmp_path: Path) -> None:
    stream = tmp_path / "game.obs.jsonl"
    write_stream(str(stream), random_game(11, turns=50, faults=fault_plan(11, 50)))
    ref = tmp_path / "ref.jsonl"
    subprocess.run(_cmd(stream, ref, False), check=True, capture_output=True, timeout=120)
    expected = _events(ref)
    assert len(expected) > 100
    final_state = read_journal(ref).last("observation")
    assert final_state is not None

    rng = random.Random(2024)
    journal = tmp_path / "killed.jsonl"
    kills = 0
    resumed = 0
    while True:
        resume = journal.exists() and any(r.kind == "session" for r in read_journal(journal).records)
        if journal.exists() and not resume:
            journal.unlink()  # killed before even the session record was written
        size0 = journal.stat().st_size if journal.exists() else 0
        proc = subprocess.Popen(_cmd(stream, journal, resume), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if kills < KILLS:
            # wait until this run has made progress, then kill it a random moment later
            while proc.poll() is None and (not journal.exists() or journal.stat().st_size <= size0 + 400):
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=0.005)
            try:
                proc.wait(timeout=rng.uniform(0.0, 0.15))
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                proc.communicate()
                kills += 1
                continue
        _out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
        records = read_journal(journal).records
        resumed += sum(r.kind == "resume" for r in records)
        assert _events(journal) == expected, "the resumed journal differs from the uninterrupted one"
        last = read_journal(journal).last("observation")
        assert last is not None and last.data["snapshot"] == final_state.data["snapshot"]
        if kills >= KILLS:
            break
        journal.unlink()  # finished before enough kills: play the game again
    assert resumed >= KILLS - 2  # (a run killed before its session record is started afresh)
