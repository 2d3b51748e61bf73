"""The vocabulary: what each infraction lights and sounds, and that it never aids the players."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge.protocol import BAR_LED, BLACK_TRAY_LED, N_LEDS, WHITE_TRAY_LED
from firmware_bridge.signals import (
    BUZZ_PATTERNS,
    Fault,
    Seat,
    Signal,
    SignalError,
    lit_leds,
    render,
    right_hand_table,
)


def test_every_fault_has_a_distinct_sound_except_rethrow_kinds() -> None:
    assert set(BUZZ_PATTERNS) == set(Fault)
    sounds = {f: BUZZ_PATTERNS[f] for f in Fault if f is not Fault.MISPLACED_DIE}
    assert len(set(sounds.values())) == len(sounds)
    assert BUZZ_PATTERNS[Fault.MISPLACED_DIE] == BUZZ_PATTERNS[Fault.RETHROW]  # it is a rethrow


@given(
    st.sampled_from(list(Fault)),
    st.lists(st.integers(1, 24), max_size=6, unique=True),
    st.sampled_from(list(Seat)),
    st.booleans(),
)
def test_only_what_is_at_fault_lights(fault: Fault, points: list[int], seat: Seat, bar: bool) -> None:
    sig = Signal(fault, tuple(points), bar=bar, offender=seat)
    state, _ = render(sig)
    lit = {i for i, led in enumerate(state.leds) if led.lit}
    allowed = {p - 1 for p in points}
    if bar or fault is Fault.ILLEGAL_CUBE:
        allowed.add(BAR_LED)
    if fault is Fault.PREMATURE_THROW:
        allowed.add(WHITE_TRAY_LED if seat is Seat.WHITE else BLACK_TRAY_LED)
    if fault is Fault.MISPLACED_DIE:
        allowed |= {p - 1 for p in right_hand_table(seat)}
    if not allowed:  # nothing named: still seen, by what names only the offender
        allowed = ({p - 1 for p in right_hand_table(seat)} if fault is Fault.RETHROW
                   else {WHITE_TRAY_LED if seat is Seat.WHITE else BLACK_TRAY_LED})
    assert lit == allowed == lit_leds(sig)


def test_misplaced_die_lights_the_right_hand_table() -> None:
    state, _ = render(Signal(Fault.MISPLACED_DIE, offender=Seat.BLACK))
    assert [i + 1 for i, led in enumerate(state.leds) if led.lit] == list(range(7, 19))
    flipped, _ = render(Signal(Fault.MISPLACED_DIE, offender=Seat.BLACK, home_on_right=False))
    assert [i + 1 for i, led in enumerate(flipped.leds) if led.lit] == [*range(1, 7), *range(19, 25)]


def test_bad_signals_are_refused() -> None:
    with pytest.raises(SignalError, match="25"):
        Signal(Fault.ILLEGAL_PLAY, points=(25,))
    with pytest.raises(SignalError, match="offender"):
        Signal(Fault.PREMATURE_THROW)
    assert len(render(Signal(Fault.UNCERTAIN))[0].leds) == N_LEDS
