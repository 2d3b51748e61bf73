"""Events made from game records, and whole matches replayed through the laws machine.

A record holds throws, plays (in notation), cube actions and results; the camera would
have seen the set-up, the opening dice, each throw, each new board and each lift.  The
event-makers here produce exactly that stream, so a recorded match can be refereed as
if it were played in front of the camera.

A file that contradicts itself (a play that is not legal with its dice, a score that
does not follow from the previous game) is reported as a :class:`RecordProblem` with
the file's line, never as an infraction of the players.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from rules.dice import Dice, DiceError
from rules.laws.codes import RuleSet
from rules.laws.events import (
    CubeBeavered,
    CubeDropped,
    CubeOffered,
    CubeTaken,
    DiceLifted,
    DiceThrown,
    DieThrow,
    Event,
    GameSetUp,
    OpeningDieThrown,
    PositionObserved,
    ResignationAccepted,
    ResignationOffered,
    ResignationRejected,
    ResultClaimed,
)
from rules.laws.machine import BoardMachine, Phase, cached_legal_plays
from rules.laws.scoring import MatchScore, crawford_games
from rules.laws.verdicts import Infraction, Verdict, VerdictKind
from rules.notation import parse_play, parse_tokens
from rules.position import BAR, Position
from rules.record import Double, Drop, GameRecord, MatchRecord, Move, Resign, Take


class RecordProblem(ValueError):
    """A record that contradicts itself; ``line`` is the file line (0 when unknown)."""

    def __init__(self, message: str, line: int = 0) -> None:
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line


def game_events(game: GameRecord, *, rules: RuleSet, match_over_after: bool = False) -> Iterator[Event]:
    """The events a camera would have reported for ``game``.

    Raises :class:`RecordProblem` (with the line) where the record cannot be so: an
    unreadable or illegal play, a double opening throw, an unknown action.
    """
    yield GameSetUp(Position.initial())
    position = game.start
    first = True
    hf = rules.highest_first_in_bearoff
    cube_value = 1
    for action in game.actions:
        line = getattr(action, "line", 0) or game.line
        if isinstance(action, Move):
            try:
                dice = Dice(*action.dice)
            except (DiceError, TypeError) as exc:
                raise RecordProblem(f"game {game.number}: bad dice {action.dice!r}: {exc}", line) from exc
            position = position.with_turn(action.player)
            if first:
                if dice.is_double:
                    raise RecordProblem(f"game {game.number}: the opening throw cannot be a double ({dice})", line)
                yield OpeningDieThrown(action.player, DieThrow(dice.high))
                yield OpeningDieThrown(action.player.opponent, DieThrow(dice.low))
                first = False
            else:
                yield DiceThrown.flat(action.player, dice.high, dice.low)
            try:
                plays = cached_legal_plays(position, dice, hf)
                after = _fast_after(action.play, position)
                if after is None or after not in plays:
                    after = parse_play(action.play, position, dice, highest_first_in_bearoff=hf, plays=plays).after
            except ValueError as exc:
                raise RecordProblem(f"game {game.number}: {action.play!r} with {dice}: {exc}", line) from exc
            if _board(after) != _board(position):
                yield PositionObserved(after)
            position = after.with_turn(action.player.opponent)
            yield DiceLifted(action.player)
        elif isinstance(action, Double):
            first = False
            yield CubeOffered(action.player, action.value)
            cube_value = action.value
        elif isinstance(action, Take):
            if action.beaver:
                cube_value *= 2
                yield CubeBeavered(action.player, cube_value)
            else:
                yield CubeTaken(action.player)
        elif isinstance(action, Drop):
            yield CubeDropped(action.player)
        elif isinstance(action, Resign):
            yield ResignationOffered(action.player, action.level)
            if action.accepted:
                yield ResignationAccepted(action.player.opponent)
            else:
                yield ResignationRejected(action.player.opponent)
        else:  # pragma: no cover
            raise RecordProblem(f"game {game.number}: unknown action {action!r}", line)
    if game.result is not None:
        yield ResultClaimed(game.result.winner, game.result.points, match_over_after)


def _board(p: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (p.white, p.black)


def _fast_after(text: str, position: Position) -> Position | None:
    """The board that canonical notation (every hit marked) describes, without a search.

    None when the text cannot be so read; the caller then falls back to the full parser.
    """
    try:
        tokens = parse_tokens(text)
    except ValueError:
        return None
    mover = position.turn
    me = list(position.counts(mover))
    opp = list(position.counts(mover.opponent))
    for tok in tokens:
        me[tok.start] -= tok.count
        me[tok.end] += tok.count
        for hit in tok.marked:
            opp[25 - hit] -= 1
            opp[BAR] += 1
    if min(me) < 0 or min(opp) < 0:
        return None
    return position.replace(mover, tuple(me)).replace(mover.opponent, tuple(opp)).with_turn(mover.opponent)


@dataclass(frozen=True, slots=True)
class GameReplay:
    number: int
    verdicts: tuple[Verdict, ...]
    problem: RecordProblem | None = None


@dataclass(slots=True)
class MatchReplay:
    """The outcome of refereeing a recorded match."""

    record: MatchRecord
    games: list[GameReplay] = field(default_factory=list)
    problems: list[RecordProblem] = field(default_factory=list)
    final_score: tuple[int, int] = (0, 0)

    @property
    def infractions(self) -> list[Verdict]:
        return [v for g in self.games for v in g.verdicts if v.is_infraction]

    @property
    def checks(self) -> list[Verdict]:
        return [v for g in self.games for v in g.verdicts if v.kind.value == "check"]


def self_consistency(match: MatchRecord) -> list[RecordProblem]:
    """Where the record's own scores do not follow from its own results."""
    out: list[RecordProblem] = []
    for prev, nxt in zip(match.games, match.games[1:], strict=False):
        if prev.result is None:
            out.append(RecordProblem(f"game {prev.number} has no result but game {nxt.number} follows", nxt.line))
            continue
        s = list(prev.score)
        s[prev.result.winner] += prev.result.points
        if tuple(s) != tuple(nxt.score):
            out.append(
                RecordProblem(
                    f"game {nxt.number} starts at {nxt.score[0]}-{nxt.score[1]} but game {prev.number} "
                    f"({prev.score[0]}-{prev.score[1]}, {prev.result.winner.name.lower()} +{prev.result.points}) "
                    f"gives {s[0]}-{s[1]}",
                    nxt.line,
                )
            )
    return out


def replay_match(match: MatchRecord, rules: RuleSet) -> MatchReplay:
    """Referee every game of ``match``; report the record's own contradictions, never raise.

    The machine runs on from game to game; where the record's score for a game differs
    from the refereed one (an inconsistent record), or a game could not be replayed, a
    fresh machine starts from the score the record gives, with the Crawford state its
    scores imply.  A claimed result that does not follow from the record's own plays
    and cube is reported as a problem of the record (with its line).
    """
    out = MatchReplay(match)
    out.problems.extend(self_consistency(match))
    machine: BoardMachine | None = None
    for i, game in enumerate(match.games):
        if machine is None or machine.match.score != tuple(game.score) or machine.phase not in (Phase.GAME_OVER, Phase.SETUP):
            machine = BoardMachine(rules, match_length=match.length, players=match.players, score=game.score)
            machine.match = match_score_at(match, i)
        over = i == len(match.games) - 1 and _ends_match(match, game)
        start = len(machine.verdicts)
        try:
            for ev in game_events(game, rules=rules, match_over_after=over):
                v = machine.feed(ev)
                if v.code is Infraction.WRONG_RESULT or v.kind is VerdictKind.CHECK:
                    # the events come from the record itself: a contradiction is the record's
                    out.problems.append(RecordProblem(f"game {game.number}: {v.director}", _line(ev, game)))
        except RecordProblem as exc:
            out.problems.append(exc)
            out.games.append(GameReplay(game.number, tuple(machine.verdicts[start:]), exc))
            machine = None
            continue
        verdicts = tuple(
            v for v in machine.verdicts[start:] if v.code is not Infraction.WRONG_RESULT and v.kind is not VerdictKind.CHECK
        )
        out.games.append(GameReplay(game.number, verdicts))
        out.final_score = machine.match.score
    return out


def _line(event: Event, game: GameRecord) -> int:
    if isinstance(event, ResultClaimed) and game.result is not None:
        return getattr(game.result, "line", 0) or game.line
    return game.line


def _ends_match(match: MatchRecord, game: GameRecord) -> bool:
    if match.length <= 0 or game.result is None:
        return False
    return game.score[game.result.winner] + game.result.points >= match.length


def match_score_at(match: MatchRecord, index: int) -> MatchScore:
    """The match score before game ``index``, with the Crawford state the record's scores imply."""
    scores = [(g.score[0], g.score[1]) for g in match.games[: index + 1]]
    flags = crawford_games(match.length, scores)
    return MatchScore(match.length, scores[-1], flags[-1], any(flags[:-1]))
