"""The laws of backgammon as code: positions, legal plays, judging, throws, the cube and scoring.

This package imports nothing else of the project and needs only the standard library.
"""

from rules.position import BAR, CHECKERS, OFF, Position, PositionError, Side, from_absolute, to_absolute

__all__ = ["BAR", "CHECKERS", "OFF", "Position", "PositionError", "Side", "from_absolute", "to_absolute"]
