"""Shared fixtures: where the real data lives, and skips when a peer tool is missing."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def shared_data_dir() -> Path | None:
    env = os.environ.get("BGREF_SHARED_DATA")
    candidates = [Path(env)] if env else []
    candidates.append(REPO.parent / "shared" / "data")
    for c in candidates:
        if c.is_dir():
            return c
    return None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    d = shared_data_dir()
    if d is None:
        pytest.skip("real data not found: set BGREF_SHARED_DATA or put shared/data beside the checkout")
    return d


@pytest.fixture(scope="session")
def gnubg_path() -> str:
    path = shutil.which("gnubg") or shutil.which("gnubg", path="/usr/games")
    if path is None:
        pytest.skip("gnubg not installed (apt-get install gnubg; ./scripts/test.sh does it)")
    return path
