"""The session journal: an append-only file of JSON lines, one record per line.

Every record is written with a single ``write`` of the whole line, then flushed and
``fsync``-ed, so a crash or a power cut loses at most the record being written.  A torn
last line (no newline, or not JSON) is recognised when the journal is read back and cut
off when it is reopened for appending; a bad line anywhere else is corruption and raises
:class:`JournalError` naming the line.

When the disk is full (``ENOSPC``/``EDQUOT``) the record is kept in memory, the file is
cut back to its last complete line, :class:`JournalFull` is raised once with a clear
message, and every later :meth:`Journal.append` first retries what is held, in order, so
nothing is lost or reordered once space comes back.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "s.jsonl")
>>> with Journal.open(path) as j:
...     _ = j.append("session", {"players": ["A", "B"]})
...     _ = j.append("event", {"x": 1})
>>> [r.kind for r in read_journal(path).records]
['session', 'event']
"""

from __future__ import annotations

import errno
import json
import os
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

FORMAT = "bgref-journal"
VERSION = 1
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT})


class JournalError(ValueError):
    """A journal that cannot be read: a corrupt line (quoted, with its number) or a wrong format."""


class JournalFull(OSError):
    """The disk is full: the record is held in memory and retried on the next append."""


@dataclass(frozen=True, slots=True)
class Record:
    """One journal line: its number ``n`` (0, 1, 2, ... without gaps), ``kind`` and JSON ``data``."""

    n: int
    kind: str
    data: dict[str, Any]

    def line(self) -> bytes:
        text = json.dumps({"n": self.n, "kind": self.kind, "data": self.data}, separators=(",", ":"),
                          sort_keys=True, ensure_ascii=False)
        return (text + "\n").encode("utf-8")


@dataclass(frozen=True, slots=True)
class JournalContents:
    """What :func:`read_journal` found: the complete records, and where the good part ends."""

    records: tuple[Record, ...]
    good_bytes: int
    torn_tail: bool

    def last(self, kind: str) -> Record | None:
        for r in reversed(self.records):
            if r.kind == kind:
                return r
        return None

    def of_kind(self, kind: str) -> Iterator[Record]:
        return (r for r in self.records if r.kind == kind)


def _parse_line(raw: bytes, lineno: int, path: str) -> Record:
    try:
        obj = json.loads(raw.decode("utf-8"))
        n, kind, data = obj["n"], obj["kind"], obj["data"]
    except (UnicodeDecodeError, json.JSONDecodeError, KeyError, TypeError) as exc:
        snippet = raw[:80].decode("utf-8", "replace")
        raise JournalError(f"{path}:{lineno}: corrupt journal line {snippet!r}: {exc}") from exc
    if not isinstance(n, int) or not isinstance(kind, str) or not isinstance(data, dict):
        raise JournalError(f"{path}:{lineno}: journal line has wrong field types: {raw[:80]!r}")
    return Record(n, kind, data)


def read_journal(path: str | os.PathLike[str]) -> JournalContents:
    """Read every complete record; a torn last line is reported, not raised."""
    p = str(path)
    try:
        blob = Path(p).read_bytes()
    except FileNotFoundError as exc:
        raise JournalError(f"no journal at {p!r}") from exc
    records: list[Record] = []
    pos = 0
    lineno = 0
    torn = False
    while pos < len(blob):
        end = blob.find(b"\n", pos)
        lineno += 1
        if end < 0:  # no newline: the last write was cut short
            torn = True
            break
        raw = blob[pos:end]
        try:
            rec = _parse_line(raw, lineno, p)
        except JournalError:
            if blob.find(b"\n", end + 1) < 0 and not blob[end + 1:].strip(b"\x00"):
                torn = True  # the final line is garbage (e.g. zeros after a power cut)
                break
            raise
        if rec.n != len(records):
            raise JournalError(f"{p}:{lineno}: record number {rec.n}, expected {len(records)} "
                               "(lines lost or duplicated)")
        records.append(rec)
        pos = end + 1
    if records and records[0].kind == "session":
        fmt = records[0].data.get("format")
        if fmt not in (None, FORMAT):
            raise JournalError(f"{p}: not a bgref journal (format {fmt!r})")
    return JournalContents(tuple(records), pos, torn)


Writer = Callable[[int, bytes], int]


class Journal:
    """An open journal for appending.  Use :meth:`open`; a context manager."""

    def __init__(self, path: str, fd: int, next_n: int, *, writer: Writer = os.write,
                 fsync: Callable[[int], None] = os.fsync) -> None:
        self.path = path
        self._fd: int | None = fd
        self._next_n = next_n
        self._held: deque[Record] = deque()
        self._write = writer
        self._fsync = fsync
        self.disk_full = False

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, path: str | os.PathLike[str], *, resume: bool = False, writer: Writer = os.write,
             fsync: Callable[[int], None] = os.fsync) -> Journal:
        """Create a new journal (refusing to overwrite one) or, with ``resume``, reopen one.

        Reopening cuts a torn last line off so that appends continue on a line boundary.
        """
        p = str(path)
        if resume:
            contents = read_journal(p)
            fd = os.open(p, os.O_WRONLY | os.O_APPEND)
            if contents.torn_tail:
                os.ftruncate(fd, contents.good_bytes)
                fsync(fd)
            return cls(p, fd, len(contents.records), writer=writer, fsync=fsync)
        parent = os.path.dirname(os.path.abspath(p))
        os.makedirs(parent, exist_ok=True)
        try:
            fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
        except FileExistsError as exc:
            raise JournalError(f"journal {p!r} already exists: use --resume {p} to continue it, "
                               "or choose another file") from exc
        return cls(p, fd, 0, writer=writer, fsync=fsync)

    # ------------------------------------------------------------------ writing
    @property
    def next_n(self) -> int:
        return self._next_n

    @property
    def held(self) -> int:
        """How many records wait in memory for disk space."""
        return len(self._held)

    def append(self, kind: str, data: dict[str, Any]) -> Record:
        """Write one record durably; raise :class:`JournalFull` (record held) when the disk is full."""
        rec = Record(self._next_n, kind, data)
        rec.line()  # fail now (TypeError) on data that is not JSON, before it is numbered
        self._next_n += 1
        self._held.append(rec)
        self.flush_held()
        return rec

    def flush_held(self) -> bool:
        """Try to write the records held in memory; True when none is left."""
        if self._fd is None:
            raise JournalError(f"journal {self.path!r} is closed")
        while self._held:
            rec = self._held[0]
            try:
                self._write_line(rec.line())
            except OSError as exc:
                if exc.errno in _DISK_FULL:
                    first = not self.disk_full
                    self.disk_full = True
                    if first:
                        raise JournalFull(
                            exc.errno,
                            f"disk full writing the journal {self.path}: {len(self._held)} record(s) held in "
                            "memory, the game goes on; free some space and they will be written",
                        ) from exc
                    return False
                raise
            self._held.popleft()
        self.disk_full = False
        return True

    def _write_line(self, line: bytes) -> None:
        assert self._fd is not None
        start = os.lseek(self._fd, 0, os.SEEK_END)
        done = 0
        try:
            while done < len(line):
                n = self._write(self._fd, line[done:])
                if n <= 0:
                    raise OSError(errno.EIO, f"short write to {self.path}")
                done += n
            self._fsync(self._fd)
        except OSError:
            try:  # never leave half a line behind (a failed write may still have written some bytes)
                if os.fstat(self._fd).st_size > start:
                    os.ftruncate(self._fd, start)
            except OSError:
                pass
            raise

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)

    def __enter__(self) -> Journal:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()
