"""What the players see and hear for each kind of infraction.

The referee's verdicts are mapped (elsewhere) to a :class:`Signal`: a plain kind plus
what is at fault (points in White's numbering 1-24, the bar, a player's tray, a
table).  :func:`render` turns a signal into the device's whole state and a buzzer
pattern.

Tournament rules forbid aids to the players, so a signal can only light what is at
fault: the points named in the signal, the bar, a tray, or the table where the dice
must land.  It never carries or shows a legal play, a hint or a pip count; there is
no field to put one in.

>>> state, buzz = render(Signal(Fault.ILLEGAL_PLAY, points=(13, 7)))
>>> [i + 1 for i, led in enumerate(state.leds) if led.lit]
[7, 13]
>>> buzz == BUZZ_PATTERNS[Fault.ILLEGAL_PLAY]
True
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from firmware_bridge.protocol import (
    BAR_LED,
    BLACK_TRAY_LED,
    N_LEDS,
    OFF_LED,
    SILENCE,
    WHITE_TRAY_LED,
    Blink,
    BuzzPattern,
    DeviceState,
    Led,
    StatusMode,
)


class Fault(StrEnum):
    """Kinds of infraction the device can signal (plain names; the laws map onto them)."""

    ILLEGAL_PLAY = "illegal_play"  # checkers moved illegally: the points involved blink red
    PREMATURE_THROW = "premature_throw"  # threw before the opponent finished: offender's tray
    RETHROW = "rethrow"  # cocked die, die off the board or on a checker: the points named, else the thrower's right-hand table
    MISPLACED_DIE = "misplaced_die"  # die not in the right-hand table: that table lights
    ILLEGAL_CUBE = "illegal_cube"  # cube action not allowed (e.g. Crawford game): bar LED
    SETUP_ERROR = "setup_error"  # checkers wrongly placed at the start: the points at fault
    UNCERTAIN = "uncertain"  # the referee cannot see clearly: points to check, no accusation


class Seat(StrEnum):
    """The two players by checker colour (White's home board is points 1-6)."""

    WHITE = "white"
    BLACK = "black"


RED: Final = (255, 0, 0)
AMBER: Final = (255, 96, 0)
BLUE: Final = (0, 64, 255)
DIM_WHITE: Final = (40, 40, 40)

#: Buzzer patterns, each distinct by rhythm so players learn them by ear.
BUZZ_PATTERNS: Final[dict[Fault, BuzzPattern]] = {
    Fault.ILLEGAL_PLAY: BuzzPattern(((100, 100), (100, 100), (100, 300))),  # three short
    Fault.PREMATURE_THROW: BuzzPattern(((400, 100), (100, 300))),  # long-short
    Fault.RETHROW: BuzzPattern(((300, 200), (300, 300))),  # two long
    Fault.MISPLACED_DIE: BuzzPattern(((300, 200), (300, 300))),  # a rethrow too
    Fault.ILLEGAL_CUBE: BuzzPattern(((800, 200),)),  # one very long
    Fault.SETUP_ERROR: BuzzPattern(((100, 100), (400, 300))),  # short-long
    Fault.UNCERTAIN: BuzzPattern(((50, 950),)),  # a soft chirp
}

_LOOK: Final[dict[Fault, tuple[tuple[int, int, int], Blink]]] = {
    Fault.ILLEGAL_PLAY: (RED, Blink.FAST),
    Fault.PREMATURE_THROW: (AMBER, Blink.FAST),
    Fault.RETHROW: (AMBER, Blink.SLOW),
    Fault.MISPLACED_DIE: (AMBER, Blink.STEADY),
    Fault.ILLEGAL_CUBE: (RED, Blink.SLOW),
    Fault.SETUP_ERROR: (AMBER, Blink.FAST),
    Fault.UNCERTAIN: (BLUE, Blink.FLASH),
}


class SignalError(ValueError):
    """A signal that names something the device cannot show."""


@dataclass(frozen=True, slots=True)
class Signal:
    """One infraction to show: its kind and what is at fault.

    ``points`` are White's point numbers 1-24 (the checkers or points at fault);
    ``bar`` lights the bar LED; ``offender`` names the player at fault (their tray
    lights for a premature throw, their right-hand table for a misplaced die);
    ``home_on_right`` says on which side White's home board lies, seen from White's chair.
    """

    fault: Fault
    points: tuple[int, ...] = ()
    bar: bool = False
    offender: Seat | None = None
    home_on_right: bool = True

    def __post_init__(self) -> None:
        bad = [p for p in self.points if not 1 <= p <= 24]
        if bad:
            raise SignalError(f"points {bad} in {self!r} are not points 1-24")
        if self.fault in (Fault.PREMATURE_THROW, Fault.MISPLACED_DIE) and self.offender is None:
            raise SignalError(f"{self.fault.value} needs the offender's seat: {self!r}")


def right_hand_table(seat: Seat, home_on_right: bool = True) -> tuple[int, ...]:
    """White's point numbers of the table to ``seat``'s right, where the dice must land.

    >>> right_hand_table(Seat.WHITE)
    (1, 2, 3, 4, 5, 6, 19, 20, 21, 22, 23, 24)
    >>> right_hand_table(Seat.BLACK)
    (7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18)
    """
    white_right = tuple(range(1, 7)) + tuple(range(19, 25))
    black_right = tuple(range(7, 19))
    if not home_on_right:
        white_right, black_right = black_right, white_right
    return white_right if seat is Seat.WHITE else black_right


def tray_led(seat: Seat) -> int:
    return WHITE_TRAY_LED if seat is Seat.WHITE else BLACK_TRAY_LED


def lit_leds(signal: Signal) -> frozenset[int]:
    """The LED indices a signal may light: only what is at fault."""
    leds = {p - 1 for p in signal.points}
    if signal.bar or signal.fault is Fault.ILLEGAL_CUBE:
        leds.add(BAR_LED)
    if signal.fault is Fault.PREMATURE_THROW and signal.offender is not None:
        leds.add(tray_led(signal.offender))
    if signal.fault is Fault.MISPLACED_DIE and signal.offender is not None:
        leds.update(p - 1 for p in right_hand_table(signal.offender, signal.home_on_right))
    if not leds and signal.offender is not None:
        # Nothing named, yet every alert must be seen, not only heard.  A rethrow (a cocked die, a
        # die off the board): the table the dice must be thrown into again; otherwise the
        # offender's tray.  (With no offender either, render() blinks the status LED.)
        if signal.fault is Fault.RETHROW:
            leds.update(p - 1 for p in right_hand_table(signal.offender, signal.home_on_right))
        else:
            leds.add(tray_led(signal.offender))
    return frozenset(leds)


def render(signal: Signal) -> tuple[DeviceState, BuzzPattern]:
    """The whole device state and buzzer pattern for one signal."""
    colour, blink = _LOOK[signal.fault]
    led = Led(*colour, blink=blink)
    lit = lit_leds(signal)
    leds = tuple(led if i in lit else OFF_LED for i in range(N_LEDS))
    # Every alert must be visible: with nothing at fault to light, the status LED blinks fast.
    return DeviceState(leds, StatusMode.ON if lit else StatusMode.FAST), BUZZ_PATTERNS[signal.fault]


#: Shown while the referee is connected and nothing is wrong: everything dark, status on.
IDLE_STATE: Final = DeviceState()

#: What the device shows on its own after 3 s without the host ("referee offline"): both
#: tray LEDs blink amber slowly and the status LED blinks fast; the buzzer is silent.
SAFE_STATE: Final = DeviceState(
    tuple(Led(*AMBER, blink=Blink.SLOW) if i in (WHITE_TRAY_LED, BLACK_TRAY_LED) else OFF_LED for i in range(N_LEDS)),
    StatusMode.FAST,
)

__all__ = [
    "BUZZ_PATTERNS",
    "IDLE_STATE",
    "SAFE_STATE",
    "SILENCE",
    "Fault",
    "Seat",
    "Signal",
    "SignalError",
    "lit_leds",
    "render",
    "right_hand_table",
]
