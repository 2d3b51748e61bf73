"""What a simulated device does that a test can observe: LED frames and pin changes.

Both peers (the Python emulator and the firmware in simavr) report into an
:class:`EventLog`; times are the device's own clock in seconds (simulated cycles for
simavr), so timing checks do not depend on how busy the host machine is.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

RGB = tuple[int, int, int]


@dataclass(frozen=True, slots=True)
class LedFrame:
    """One refresh of the WS2812 chain: the colour of each of the 27 LEDs."""

    t: float
    colours: tuple[RGB, ...]


@dataclass(frozen=True, slots=True)
class PinChange:
    """The buzzer or status LED output changed."""

    t: float
    pin: str  # "buzzer" or "status"
    on: bool


@dataclass(frozen=True, slots=True)
class Booted:
    """The device (re)started."""

    t: float


Event = LedFrame | PinChange | Booted
E = TypeVar("E", LedFrame, PinChange, Booted)


class EventLog:
    """A thread-safe append-only list of events with waiting by predicate."""

    def __init__(self) -> None:
        self._events: list[Event] = []
        self._cond = threading.Condition()

    def append(self, event: Event) -> None:
        with self._cond:
            self._events.append(event)
            self._cond.notify_all()

    def __len__(self) -> int:
        with self._cond:
            return len(self._events)

    def snapshot(self, start: int = 0) -> list[Event]:
        with self._cond:
            return list(self._events[start:])

    def wait_for(self, kind: type[E], pred: Callable[[E], bool], timeout: float, start: int = 0) -> tuple[int, E]:
        """The first event of ``kind`` at index >= ``start`` matching ``pred``; TimeoutError after ``timeout``."""
        with self._cond:
            i = start
            found: tuple[int, E] | None = None

            def scan() -> bool:
                nonlocal i, found
                while i < len(self._events):
                    ev = self._events[i]
                    if isinstance(ev, kind) and pred(ev):
                        found = (i, ev)
                        return True
                    i += 1
                return False

            if not self._cond.wait_for(scan, timeout):
                tail = self._events[-5:]
                raise TimeoutError(f"no matching {kind.__name__} within {timeout} s; last events: {tail}")
            assert found is not None
            return found
