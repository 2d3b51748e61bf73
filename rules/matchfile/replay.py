"""Replaying a match record through the rules: every play, every cube action, every result.

:func:`replay_match` plays each game from its start.  Each recorded play is resolved by
:func:`rules.notation.parse_play` (which infers unmarked hits and splits multi-die
tokens) to the one legal play it denotes; cube actions are checked against the cube's
value and owner and the Crawford game; each recorded result is checked against the
final position and cube, and each game's score against the results before it.

The report carries the *canonical* record: plays in gnubg's notation, results with
their kind (single, gammon, backgammon, drop, resignation, forfeit) and resignations
made explicit the way gnubg imports them (a "Wins" with the game still going and no
drop means the loser resigned).  Findings are :class:`~rules.matchfile.errors.Issue`
values with the file and line; nothing is skipped silently.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, field

from rules.dice import Dice, DiceError
from rules.matchfile.errors import Issue, IssueKind
from rules.moves import Play
from rules.notation import IllegalPlayError, NotationError, parse_play
from rules.position import BAR, Position, Side
from rules.record import (
    Action,
    Double,
    Drop,
    GameRecord,
    GameResult,
    MatchRecord,
    Move,
    Resign,
    ResultKind,
    Take,
)

_IssueFn = Callable[[int, IssueKind, str], None]

_MULTIPLIER = {ResultKind.SINGLE: 1, ResultKind.GAMMON: 2, ResultKind.BACKGAMMON: 3}

#: Issue kinds that are not errors of the record (an unfinished last game).
BENIGN = frozenset({IssueKind.UNFINISHED})


@dataclass(frozen=True, slots=True)
class MatchReport:
    """What replaying one match found."""

    source: str
    record: MatchRecord  # canonical
    plays_checked: int
    issues: tuple[Issue, ...]
    plays: dict[tuple[int, int], Play] = field(default_factory=dict, compare=False, repr=False)

    @property
    def games(self) -> int:
        return len(self.record.games)

    @property
    def illegal_plays(self) -> tuple[Issue, ...]:
        return tuple(i for i in self.issues if i.kind in (IssueKind.ILLEGAL_PLAY, IssueKind.NOTATION))

    @property
    def errors(self) -> tuple[Issue, ...]:
        """Every finding that says the record is wrong (all but an unfinished last game)."""
        return tuple(i for i in self.issues if i.kind not in BENIGN)

    @property
    def ok(self) -> bool:
        return not self.errors

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.source,
            "players": list(self.record.players),
            "length": self.record.length,
            "games": self.games,
            "plays_checked": self.plays_checked,
            "illegal_plays": len(self.illegal_plays),
            "ok": self.ok,
            "issues": [i.to_json() for i in self.issues],
        }


def outcome_of(position: Position, winner: Side) -> ResultKind:
    """Single, gammon or backgammon for ``winner`` who has borne off all his checkers."""
    loser = winner.opponent
    if position.borne_off(loser) > 0:
        return ResultKind.SINGLE
    counts = position.counts(loser)
    # The winner's home board is the loser's points 19-24.
    if counts[BAR] or any(counts[19:25]):
        return ResultKind.BACKGAMMON
    return ResultKind.GAMMON


@dataclass(slots=True)
class _State:
    position: Position
    cube: int = 1
    owner: Side | None = None
    pending: Double | None = None
    winner: Side | None = None
    kind: ResultKind | None = None
    points: int = 0  # full points of the finished game (before any match cap)


def replay_match(record: MatchRecord, source: str = "<record>") -> MatchReport:
    """Replay every game of ``record``; return the canonical record and every finding."""
    issues: list[Issue] = []
    games: list[GameRecord] = []
    plays: dict[tuple[int, int], Play] = {}
    checked = 0
    for gi, game in enumerate(record.games):
        canon, n = _replay_game(record, gi, game, source, issues, plays)
        checked += n
        games.append(canon)
    _check_scores(record, games, source, issues)
    canon_record = MatchRecord(record.players, record.length, tuple(games), record.meta)
    return MatchReport(source, canon_record, checked, tuple(issues), plays)


def _replay_game(
    record: MatchRecord,
    gi: int,
    game: GameRecord,
    source: str,
    issues: list[Issue],
    plays: dict[tuple[int, int], Play],
) -> tuple[GameRecord, int]:
    def issue(line: int, kind: IssueKind, message: str) -> None:
        issues.append(Issue(source, line or game.line, game.number, kind, message))

    first = next((a for a in game.actions if isinstance(a, (Move, Double))), None)
    start = game.start
    if first is not None and start == Position.initial(start.turn):
        start = start.with_turn(first.player)
    st = _State(start)
    actions: list[Action] = []
    checked = 0
    stopped = False
    for action in game.actions:
        if stopped:
            actions.append(action)
            continue
        if st.winner is not None:
            if isinstance(action, Resign) and st.kind not in (ResultKind.DROP, ResultKind.RESIGN):
                continue  # "Losses N" written after the last checker was borne off: no resignation
            issue(action.line, IssueKind.ORDER, f"{_name(record, action.player)} acts after the game ended: {_describe(action)}")
            continue
        if isinstance(action, Move):
            if st.pending is not None:
                issue(action.line, IssueKind.CUBE, f"a play while the double to {st.pending.value} is not answered")
                st.pending = None
            if action.player is not st.position.turn:
                issue(
                    action.line,
                    IssueKind.ORDER,
                    f"{_name(record, action.player)} throws {_dice_text(action)} but "
                    f"{_name(record, st.position.turn)} is on roll",
                )
                stopped = True
                actions.append(action)
                continue
            try:
                play = parse_play(action.play, st.position, Dice(*action.dice))
            except (NotationError, IllegalPlayError, DiceError) as exc:
                kind = IssueKind.NOTATION if isinstance(exc, (NotationError, DiceError)) else IssueKind.ILLEGAL_PLAY
                issue(action.line, kind, f"{_name(record, action.player)} {_dice_text(action)}: {exc}")
                stopped = True
                actions.append(action)
                continue
            checked += 1
            plays[(gi, len(actions))] = play
            actions.append(Move(action.player, action.dice, play.notation(), action.line))
            st.position = play.after
            winner = st.position.winner()
            if winner is not None:
                st.winner, st.kind = winner, outcome_of(st.position, winner)
                st.points = _MULTIPLIER[st.kind] * st.cube
            continue
        actions.append(action)
        if isinstance(action, Double):
            _check_double(record, game, st, action, issue)
            st.pending = action
        elif isinstance(action, Take):
            if st.pending is None or st.pending.player is action.player:
                issue(action.line, IssueKind.CUBE, f"{_name(record, action.player)} takes but no double was offered to him")
            else:
                st.cube = st.pending.value * (2 if action.beaver else 1)
                st.owner = action.player
            st.pending = None
        elif isinstance(action, Drop):
            if st.pending is None or st.pending.player is action.player:
                issue(action.line, IssueKind.CUBE, f"{_name(record, action.player)} drops but no double was offered to him")
            st.pending = None
            st.winner, st.kind, st.points = action.player.opponent, ResultKind.DROP, st.cube
        elif isinstance(action, Resign) and action.accepted:
            st.winner, st.kind, st.points = action.player.opponent, ResultKind.RESIGN, action.level * st.cube
    result = _settle_result(record, game, st, actions, stopped, issue)
    canon = GameRecord(
        game.number, game.score, tuple(actions), result, game.crawford, game.start, game.line, game.infractions,
        game.amendments,
    )
    return canon, checked


def _check_double(record: MatchRecord, game: GameRecord, st: _State, action: Double, issue: _IssueFn) -> None:
    who = _name(record, action.player)
    if st.pending is not None:
        issue(action.line, IssueKind.CUBE, f"{who} doubles while the double to {st.pending.value} is not answered")
    if action.player is not st.position.turn:
        issue(action.line, IssueKind.CUBE, f"{who} doubles when it is not his turn")
    if st.owner is not None and st.owner is not action.player:
        issue(action.line, IssueKind.CUBE, f"{who} doubles but {_name(record, st.owner)} owns the cube")
    if action.value != 2 * st.cube:
        issue(action.line, IssueKind.CUBE, f"{who} turns the cube to {action.value}, it is at {st.cube}")
    if game.crawford:
        issue(action.line, IssueKind.CUBE, f"{who} doubles in the Crawford game")


def _settle_result(
    record: MatchRecord,
    game: GameRecord,
    st: _State,
    actions: list[Action],
    stopped: bool,
    issue: _IssueFn,
) -> GameResult | None:
    recorded = game.result
    needed = (record.length - game.score[recorded.winner]) if (recorded and record.length) else 0
    if stopped:
        return recorded
    if st.winner is None:
        if recorded is None and game.voided:
            return None  # the referee declared the game void (a wrong set-up found late under 1931)
        if recorded is None:
            last = game.number == record.games[-1].number
            issue(
                0,
                IssueKind.UNFINISHED if last else IssueKind.RESULT,
                "the game has no result" + ("" if last else " but another game follows"),
            )
            return None
        # gnubg's reading of a "Wins" with the game still on: the loser resigned.
        level = -(-recorded.points // st.cube)
        if level <= 3:
            actions.append(Resign(recorded.winner.opponent, level, True, _line_of_last(actions, game)))
            return GameResult(recorded.winner, recorded.points, ResultKind.RESIGN)
        if record.length and recorded.points == needed:
            return GameResult(recorded.winner, recorded.points, ResultKind.FORFEIT)
        issue(0, IssueKind.RESULT, f"{_name(record, recorded.winner)} wins {recorded.points} points, more than a backgammon "
              f"with the cube at {st.cube}, and the game is not over")
        return recorded
    assert st.kind is not None
    computed = GameResult(st.winner, st.points, st.kind)
    if recorded is None:
        issue(0, IssueKind.RESULT, f"the game ended ({_name(record, st.winner)} wins {st.points}) but no result is recorded")
        return computed
    if recorded.winner is not st.winner:
        issue(0, IssueKind.RESULT, f"recorded winner {_name(record, recorded.winner)}, but {_name(record, st.winner)} won")
        return recorded
    # Galaxy caps the points at what the winner needs, and sometimes at the match length.
    allowed = {st.points}
    jacoby = record.length == 0 and (record.meta_value("Jacoby", "Off") or "").lower() in ("on", "true", "yes", "1")
    if jacoby and st.cube == 1 and st.kind in (ResultKind.GAMMON, ResultKind.BACKGAMMON):
        allowed = {1}
    if record.length:
        allowed |= {min(st.points, needed), min(st.points, record.length)}
    capped = min(allowed)
    if recorded.points not in allowed:
        issue(
            0,
            IssueKind.RESULT,
            f"{_name(record, st.winner)} wins {recorded.points} points, but the game gives {st.points} "
            f"({st.kind.value}, cube {st.cube})" + (f", {capped} needed to win the match" if capped != st.points else ""),
        )
    return GameResult(recorded.winner, recorded.points, st.kind)


def _check_scores(record: MatchRecord, games: list[GameRecord], source: str, issues: list[Issue]) -> None:
    for prev, game in itertools.pairwise(games):
        if prev.result is None:
            continue
        expected = list(prev.score)
        expected[prev.result.winner] += prev.result.points
        if record.length and max(expected) >= record.length:
            issues.append(Issue(source, game.line, game.number, IssueKind.SCORE,
                                f"game {game.number} is played after the match was won ({expected[0]}-{expected[1]})"))
            continue
        if tuple(expected) != game.score:
            issues.append(
                Issue(
                    source,
                    game.line,
                    game.number,
                    IssueKind.SCORE,
                    f"score {game.score[0]}-{game.score[1]} does not follow from game {prev.number} "
                    f"({expected[0]}-{expected[1]} expected)",
                )
            )


def _line_of_last(actions: list[Action], game: GameRecord) -> int:
    return actions[-1].line if actions else game.line


def _name(record: MatchRecord, side: Side) -> str:
    name = record.players[side]
    return f"{name} ({side.name.lower()})" if name else side.name.lower()


def _dice_text(move: Move) -> str:
    return f"{move.dice[0]}{move.dice[1]}"


def _describe(action: Action) -> str:
    if isinstance(action, Move):
        return f"{_dice_text(action)}: {action.play or '(no play)'}"
    if isinstance(action, Double):
        return f"doubles to {action.value}"
    if isinstance(action, Take):
        return "beavers" if action.beaver else "takes"
    if isinstance(action, Drop):
        return "drops"
    return f"resigns ({action.level})"
