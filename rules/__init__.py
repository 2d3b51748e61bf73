"""The laws of backgammon as code: positions, legal plays, judging, throws, the cube and scoring.

This package imports nothing else of the project and needs only the standard library.
"""

from rules.dice import Dice, DiceError
from rules.ids import GameState, IdError, MatchId, Xgid
from rules.judge import Judgment, Reason, ReasonCode, judge
from rules.moves import LegalPlays, Play, Step, format_steps, legal_plays
from rules.notation import IllegalPlayError, NotationError, parse_play
from rules.position import BAR, CHECKERS, OFF, Position, PositionError, Side, from_absolute, to_absolute

__all__ = [
    "BAR",
    "CHECKERS",
    "OFF",
    "Dice",
    "DiceError",
    "GameState",
    "IdError",
    "IllegalPlayError",
    "Judgment",
    "LegalPlays",
    "MatchId",
    "NotationError",
    "Play",
    "Position",
    "PositionError",
    "Reason",
    "ReasonCode",
    "Side",
    "Step",
    "Xgid",
    "format_steps",
    "from_absolute",
    "judge",
    "legal_plays",
    "parse_play",
    "to_absolute",
]
