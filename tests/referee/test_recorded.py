"""Recordings of real-vision games (referee.recorded): a bad file is refused in one line, left as it was."""

from __future__ import annotations

import gzip
import pickle
from pathlib import Path

import pytest

from referee.recorded import load_game


@pytest.mark.parametrize("content", [b"", b"not gzip at all", gzip.compress(b"\x80\x05garbled", mtime=0),
                                     gzip.compress(pickle.dumps({"seed": 7101}), mtime=0)[:20]],
                         ids=["empty", "not-gzip", "gzip-of-garbage", "truncated"])
def test_a_garbled_recording_is_refused_by_name_and_left_untouched(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "7101_r3.pkl.gz"
    p.write_bytes(content)
    with pytest.raises(ValueError, match=r"7101_r3\.pkl\.gz: not a") as err:
        load_game(p)
    assert "\n" not in str(err.value)
    assert p.read_bytes() == content


def test_a_recording_of_something_else_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "other.pkl.gz"
    p.write_bytes(gzip.compress(pickle.dumps({"seed": 7101})))
    with pytest.raises(ValueError, match=r"not a recorded game \(got dict\)"):
        load_game(p)


def test_a_missing_recording_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"nope\.pkl\.gz: not a readable recording"):
        load_game(tmp_path / "nope.pkl.gz")
