"""The shared corpus of real matches, read once per test session for every test that needs it.

``tests/rules/test_match_corpus.py`` (every play legal, every result and score consistent)
and ``tests/rules/laws/test_replay.py`` (every game refereed without an infraction) both
need every file of ``../shared/data/matches`` read and replayed by :func:`check_match`.
Both split the corpus into the same :data:`CHUNKS` chunks.  Each chunk is read once per
process (an in-memory cache) and, under ``pytest -n``, once per run: the first worker to
read a chunk leaves it (pickled) in the run's shared temporary folder, where another worker
picks it up instead of reading the files again.  Nothing outlives the run, so a changed
reader or corpus is always read afresh.
"""

from __future__ import annotations

import functools
import os
import pickle
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from rules.matchfile import MatchFileError, MatchReport, check_match

CHUNKS = 4

Reading = tuple[Path, MatchReport | MatchFileError]


def corpus_files(shared_data: Path) -> list[Path]:
    matches = shared_data / "matches"
    found = [p for p in sorted(matches.rglob("*")) if p.suffix.lower() in (".txt", ".mat", ".sgf")]
    return [p for p in found if not p.name.upper().startswith("LICENSE")]


def _read(path: Path) -> MatchReport | MatchFileError:
    try:
        report = check_match(path)
    except MatchFileError as exc:
        return exc
    return replace(report, plays={})  # the resolved plays are rebuilt by the writers when needed


@functools.cache
def _chunk(root: Path, chunk: int, shared: Path | None) -> tuple[Reading, ...]:
    stored = shared / f"chunk{chunk}.pickle" if shared is not None else None
    if stored is not None and stored.exists():
        with open(stored, "rb") as f:
            data: tuple[Reading, ...] = pickle.load(f)
        return data
    data = tuple((p, _read(p)) for p in corpus_files(root)[chunk::CHUNKS])
    if stored is not None:
        tmp = stored.with_name(f"{stored.name}.{os.getpid()}")
        with open(tmp, "wb") as f:
            pickle.dump(data, f, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, stored)
    return data


@pytest.fixture(scope="session")
def corpus_chunk(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Callable[[int], tuple[Reading, ...]]:
    """``corpus_chunk(i)``: (path, report or read error) for every ``CHUNKS``-th corpus file from ``i``."""
    shared: Path | None = None
    if os.environ.get("PYTEST_XDIST_WORKER"):
        # workers of one run share the parent of their base temporary folders
        shared = tmp_path_factory.getbasetemp().parent / "bgref-corpus"
        shared.mkdir(exist_ok=True)
    return lambda chunk: _chunk(shared_data, chunk, shared)
