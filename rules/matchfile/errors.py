"""Errors and findings for match files: each one names the file and the line."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum


class MatchFileError(ValueError):
    """A match file that cannot be read: ``source:line: message`` (line 0 when unknown)."""

    def __init__(self, source: str, line: int, message: str) -> None:
        self.source = source
        self.line = line
        self.message = message
        where = f"{source}:{line}" if line else source
        super().__init__(f"{where}: {message}")


class IssueKind(Enum):
    """What is wrong at one place of a match record."""

    ILLEGAL_PLAY = "illegal-play"  # a recorded play the rules do not allow
    NOTATION = "notation"  # a play or token that cannot be read
    CUBE = "cube"  # a double, take or drop that the cube rules do not allow
    RESULT = "result"  # a recorded result that does not follow from the position and cube
    SCORE = "score"  # a game's score that does not follow from the previous results
    ORDER = "order"  # an action by the wrong player or after the game ended
    UNFINISHED = "unfinished"  # a game without a result (not an error in itself)


@dataclass(frozen=True, slots=True)
class Issue:
    """One finding: where (file, line, game) and what."""

    source: str
    line: int
    game: int
    kind: IssueKind
    message: str

    def __str__(self) -> str:
        return f"{self.source}:{self.line}: game {self.game}: {self.kind.value}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.source,
            "line": self.line,
            "game": self.game,
            "kind": self.kind.value,
            "message": self.message,
        }
