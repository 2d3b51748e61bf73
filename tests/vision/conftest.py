"""Fixtures of the vision tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def cube_reads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the reader's calls of the cube stage (``vision.reader.read_cube``): one entry per call."""
    import vision.reader as reader_mod

    calls: list[int] = []
    real = reader_mod.read_cube

    def counted(*a: object, **k: object) -> object:
        calls.append(1)
        return real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(reader_mod, "read_cube", counted)
    return calls
