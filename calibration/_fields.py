"""Reading JSON values with errors that name the field, what was expected and what was found."""

from __future__ import annotations

from typing import Any

from calibration.errors import ProfileFieldError


def _show(v: Any) -> str:
    s = repr(v)
    return s if len(s) <= 60 else s[:57] + "..."


class Reader:
    """Typed access into a decoded JSON object; ``path`` names where it sits in the file."""

    def __init__(self, data: Any, path: str = "", source: str | None = None) -> None:
        self.data = data
        self.path = path
        self.source = source
        if not isinstance(data, dict):
            raise ProfileFieldError(path or "(top level)", expected="an object", found=_show(data), source=source)

    def _name(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str, expected: str, found: Any) -> ProfileFieldError:
        return ProfileFieldError(self._name(key), expected=expected, found=_show(found), source=self.source)

    def has(self, key: str) -> bool:
        return key in self.data and self.data[key] is not None

    def raw(self, key: str) -> Any:
        if key not in self.data:
            raise ProfileFieldError(self._name(key), expected="a value", found="nothing (missing)", source=self.source)
        return self.data[key]

    def obj(self, key: str) -> Reader:
        v = self.raw(key)
        if not isinstance(v, dict):
            raise self.fail(key, "an object", v)
        return Reader(v, self._name(key), self.source)

    def num(self, key: str, *, lo: float | None = None, hi: float | None = None, positive: bool = False) -> float:
        v = self.raw(key)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise self.fail(key, "a number", v)
        f = float(v)
        if f != f or f in (float("inf"), float("-inf")):
            raise self.fail(key, "a finite number", v)
        if positive and f <= 0:
            raise self.fail(key, "a positive number", v)
        if lo is not None and f < lo:
            raise self.fail(key, f"a number >= {lo}", v)
        if hi is not None and f > hi:
            raise self.fail(key, f"a number <= {hi}", v)
        return f

    def opt_num(self, key: str, **kw: Any) -> float | None:
        return self.num(key, **kw) if self.has(key) else None

    def int_(self, key: str, *, lo: int | None = None) -> int:
        v = self.raw(key)
        if isinstance(v, bool) or not isinstance(v, int):
            raise self.fail(key, "an integer", v)
        if lo is not None and v < lo:
            raise self.fail(key, f"an integer >= {lo}", v)
        return v

    def str_(self, key: str, choices: tuple[str, ...] | None = None) -> str:
        v = self.raw(key)
        if not isinstance(v, str):
            raise self.fail(key, "a string", v)
        if choices is not None and v not in choices:
            raise self.fail(key, "one of " + ", ".join(repr(c) for c in choices), v)
        return v

    def nums(self, key: str, n: int | None = None) -> tuple[float, ...]:
        v = self.raw(key)
        if not isinstance(v, list) or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in v):
            raise self.fail(key, "a list of numbers", v)
        if n is not None and len(v) != n:
            raise self.fail(key, f"{n} numbers", f"{len(v)} numbers")
        return tuple(float(x) for x in v)

    def matrix(self, key: str, rows: int, cols: int) -> tuple[tuple[float, ...], ...]:
        v = self.raw(key)
        ok = isinstance(v, list) and len(v) == rows and all(
            isinstance(r, list) and len(r) == cols and all(isinstance(x, int | float) and not isinstance(x, bool) for x in r)
            for r in v
        )
        if not ok:
            raise self.fail(key, f"a {rows}x{cols} list of numbers", v)
        return tuple(tuple(float(x) for x in r) for r in v)
