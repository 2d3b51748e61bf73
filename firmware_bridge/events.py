"""What a simulated device does that a test can observe: LED frames and pin changes.

Both peers (the Python emulator and the firmware in simavr) report into an
:class:`EventLog`; times are the device's own clock in seconds (simulated cycles for
simavr), so timing checks do not depend on how busy the host machine is.
"""

from __future__ import annotations

import threading
import time
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


def is_alert_output(event: Event) -> bool:
    """An output the players notice when an alert arrives: an LED refresh or the buzzer sounding.

    The device refreshes the LED chain only when the picture changes, so an alert whose LEDs
    look like what was shown before (two identical alerts in a row) is seen on the buzzer alone.
    """
    return isinstance(event, LedFrame) or (isinstance(event, PinChange) and event.pin == "buzzer" and event.on)


def first_outputs(sent: list[float], outputs: list[float]) -> list[float | None]:
    """For each alert sent at ``sent[i]``, the time of the device's first output caused by it.

    An output counts for alert ``i`` only if it comes at or after ``sent[i]`` and before the
    next alert was sent: a later alert's output is never credited to an earlier one (an alert
    that changed nothing visible or audible gets None, not the next alert's LED frame).
    Both lists hold times on the same clock; ``outputs`` need not be sorted.
    """
    outs = sorted(outputs)
    order = sorted(range(len(sent)), key=lambda i: sent[i])
    got: list[float | None] = [None] * len(sent)
    j = 0
    for k, i in enumerate(order):
        start = sent[i]
        end = sent[order[k + 1]] if k + 1 < len(order) else float("inf")
        while j < len(outs) and outs[j] < start:
            j += 1
        if j < len(outs) and outs[j] < end:
            got[i] = outs[j]
    return got


class OutputStamps:
    """Wall-clock (``time.perf_counter``) stamps of a simulated device's alert outputs.

    Wrap the peer's event sink (``emulator.core.emit`` or ``SimulatedDevice.events.append``)::

        stamps = OutputStamps(emu.core.emit)
        emu.core.emit = stamps
    """

    def __init__(self, inner: Callable[[Event], None]) -> None:
        self._inner = inner
        self._lock = threading.Lock()
        self.times: list[float] = []

    def __call__(self, event: Event) -> None:
        if is_alert_output(event):
            now = time.perf_counter()
            with self._lock:
                self.times.append(now)
        self._inner(event)

    def arrivals(self, sent: list[float]) -> list[float | None]:
        with self._lock:
            outs = list(self.times)
        return first_outputs(sent, outs)
