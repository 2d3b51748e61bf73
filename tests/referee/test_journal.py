from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from referee.journal import Journal, JournalError, JournalFull, read_journal


def test_append_and_read_back(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    with Journal.open(p) as j:
        for i in range(5):
            j.append("event", {"i": i, "text": "ü 24/18"})
    c = read_journal(p)
    assert [r.n for r in c.records] == [0, 1, 2, 3, 4]
    assert [r.data["i"] for r in c.records] == [0, 1, 2, 3, 4]
    assert c.records[0].data["text"] == "ü 24/18"
    assert not c.torn_tail


def test_refuses_to_overwrite(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    Journal.open(p).close()
    with pytest.raises(JournalError, match="--resume"):
        Journal.open(p)


def test_torn_tail_is_cut_on_resume(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    with Journal.open(p) as j:
        j.append("event", {"i": 0})
        j.append("event", {"i": 1})
    with open(p, "ab") as f:
        f.write(b'{"n":2,"kind":"event","da')
    c = read_journal(p)
    assert c.torn_tail and len(c.records) == 2
    with Journal.open(p, resume=True) as j:
        assert j.next_n == 2
        j.append("event", {"i": 2})
    c = read_journal(p)
    assert [r.data["i"] for r in c.records] == [0, 1, 2] and not c.torn_tail


def test_zero_filled_tail_counts_as_torn(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    with Journal.open(p) as j:
        j.append("event", {"i": 0})
    with open(p, "ab") as f:
        f.write(b"\x00" * 30 + b"\n")
    c = read_journal(p)
    assert c.torn_tail and len(c.records) == 1


def test_corrupt_middle_line_is_an_error_naming_the_line(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    with Journal.open(p) as j:
        for i in range(3):
            j.append("event", {"i": i})
    lines = p.read_bytes().split(b"\n")
    lines[1] = b"garbage"
    p.write_bytes(b"\n".join(lines))
    with pytest.raises(JournalError, match=r":2: corrupt journal line 'garbage'"):
        read_journal(p)


def test_duplicated_line_is_detected(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    with Journal.open(p) as j:
        j.append("event", {"i": 0})
    p.write_bytes(p.read_bytes() * 2)
    with pytest.raises(JournalError, match="expected 1"):
        read_journal(p)


class FlakyDisk:
    """os.write that fails with ENOSPC while ``full`` is set, after writing a few bytes."""

    def __init__(self) -> None:
        self.full = False

    def __call__(self, fd: int, data: bytes) -> int:
        if self.full:
            os.write(fd, data[:7])  # a partial write before the error, as a real disk may do
            raise OSError(errno.ENOSPC, "No space left on device")
        return os.write(fd, data)


def test_disk_full_holds_records_and_writes_them_later_in_order(tmp_path: Path) -> None:
    p = tmp_path / "j.jsonl"
    disk = FlakyDisk()
    j = Journal.open(p, writer=disk)
    j.append("event", {"i": 0})
    disk.full = True
    with pytest.raises(JournalFull, match=r"disk full .* 1 record"):
        j.append("event", {"i": 1})
    j.append("event", {"i": 2})  # no second exception: still held
    assert j.held == 2 and j.disk_full
    c = read_journal(p)  # the file is still well formed: the partial line was cut off
    assert [r.data["i"] for r in c.records] == [0] and not c.torn_tail
    disk.full = False
    j.append("event", {"i": 3})
    assert j.held == 0 and not j.disk_full
    j.close()
    assert [r.data["i"] for r in read_journal(p).records] == [0, 1, 2, 3]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="/dev/full not available")
def test_real_enospc_from_dev_full() -> None:
    fd = os.open("/dev/full", os.O_WRONLY)
    j = Journal("/dev/full", fd, 0)
    with pytest.raises(JournalFull) as info:
        j.append("event", {"i": 0})
    assert info.value.errno == errno.ENOSPC
    assert j.held == 1
    j.close()


def test_non_json_data_is_refused_before_numbering(tmp_path: Path) -> None:
    with Journal.open(tmp_path / "j.jsonl") as j:
        with pytest.raises(TypeError):
            j.append("event", {"x": object()})
        assert j.next_n == 0
