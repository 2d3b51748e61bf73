"""From the laws' verdicts to what the device shows: a :class:`firmware_bridge.signals.Signal`.

Only what is at fault is ever lit (the points, the bar, the offender's tray or right-hand
table); a verdict's players' view is all that is read, never the director's record, so no
legal play, hint or pip count can reach the players.

>>> from rules.laws.verdicts import Infraction
>>> FAULT_OF[Infraction.DICE_COCKED], FAULT_OF[Infraction.ILLEGAL_PLAY]
(<Fault.RETHROW: 'rethrow'>, <Fault.ILLEGAL_PLAY: 'illegal_play'>)
"""

from __future__ import annotations

from typing import Final

from firmware_bridge.signals import Fault, Seat, Signal
from rules.laws.verdicts import Infraction, Verdict, VerdictKind
from rules.position import Side

FAULT_OF: Final[dict[Infraction, Fault]] = {
    Infraction.DICE_WRONG_TABLE: Fault.MISPLACED_DIE,
    Infraction.DICE_ON_BAR: Fault.RETHROW,
    Infraction.DICE_OFF_BOARD: Fault.RETHROW,
    Infraction.DICE_COCKED: Fault.RETHROW,
    Infraction.DICE_ON_DIE: Fault.RETHROW,
    Infraction.DICE_ON_CHECKER: Fault.RETHROW,
    Infraction.DICE_NOT_TOGETHER: Fault.RETHROW,
    Infraction.DICE_TOUCHED: Fault.RETHROW,
    Infraction.PREMATURE_THROW: Fault.PREMATURE_THROW,
    Infraction.THROW_OUT_OF_TURN: Fault.PREMATURE_THROW,
    Infraction.INCOMPLETE_PLAY: Fault.ILLEGAL_PLAY,
    Infraction.ILLEGAL_PLAY: Fault.ILLEGAL_PLAY,
    Infraction.MOVE_WITHOUT_THROW: Fault.ILLEGAL_PLAY,
    Infraction.DOUBLE_CUBE_NOT_OWNED: Fault.ILLEGAL_CUBE,
    Infraction.DOUBLE_AFTER_THROW: Fault.ILLEGAL_CUBE,
    Infraction.DOUBLE_IN_CRAWFORD: Fault.ILLEGAL_CUBE,
    Infraction.DOUBLE_NOT_ALLOWED: Fault.ILLEGAL_CUBE,
    Infraction.PREMATURE_DOUBLE: Fault.ILLEGAL_CUBE,
    Infraction.CUBE_WRONG_VALUE: Fault.ILLEGAL_CUBE,
    Infraction.BEAVER_NOT_ALLOWED: Fault.ILLEGAL_CUBE,
    Infraction.WRONG_SETUP: Fault.SETUP_ERROR,
    Infraction.WRONG_RESULT: Fault.SETUP_ERROR,
}

_NEEDS_OFFENDER: Final = frozenset({Fault.PREMATURE_THROW, Fault.MISPLACED_DIE})


def seat(side: Side) -> Seat:
    return Seat.WHITE if side is Side.WHITE else Seat.BLACK


def signal_for(verdict: Verdict, *, home_on_right: bool = True, thrower: Side | None = None) -> Signal | None:
    """The device signal for a verdict; None for an ok verdict.

    ``thrower`` names the side whose throw it was when the verdict does not name an offender
    (needed for a misplaced die's right-hand table).
    """
    if verdict.kind is VerdictKind.OK:
        return None
    points = tuple(sorted({p for p in verdict.players.points if 1 <= p <= 24}))
    if verdict.kind is VerdictKind.CHECK:
        return Signal(Fault.UNCERTAIN, points=points, bar=verdict.players.cube, home_on_right=home_on_right)
    assert verdict.code is not None, f"an infraction without a code: {verdict!r}"
    fault = FAULT_OF[verdict.code]
    who = verdict.offender if verdict.offender is not None else thrower
    if fault in _NEEDS_OFFENDER and who is None:
        fault = Fault.RETHROW if fault is Fault.MISPLACED_DIE else Fault.ILLEGAL_PLAY
    return Signal(
        fault,
        points=points,
        bar=verdict.players.cube,
        offender=None if who is None else seat(who),
        home_on_right=home_on_right,
    )


def check_signal(points: tuple[int, ...], *, home_on_right: bool = True) -> Signal:
    """Ask the players to check (an unsure reading resolved by the referee): the points in doubt."""
    return Signal(Fault.UNCERTAIN, points=tuple(sorted({p for p in points if 1 <= p <= 24})),
                  home_on_right=home_on_right)
