"""The laws of one board as a state machine: events in, one verdict out per event.

>>> from rules.laws.codes import builtin
>>> from rules.laws.events import GameSetUp, OpeningDieThrown, DieThrow, PositionObserved, DiceLifted
>>> m = BoardMachine(builtin("modern"), match_length=5)
>>> m.feed(GameSetUp(Position.initial())).kind.value
'ok'
>>> _ = m.feed(OpeningDieThrown(Side.WHITE, DieThrow(3)))
>>> m.feed(OpeningDieThrown(Side.BLACK, DieThrow(1))).director
'white opens with 31'
>>> after = Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK)
>>> _ = m.feed(PositionObserved(after))
>>> m.feed(DiceLifted(Side.WHITE)).director
'white played 31: 8/5 6/5'

The machine keeps the game and match record (:meth:`match_record`) and every verdict.
Perception that is unsure (``event.uncertain``) or a board that cannot be (16 checkers)
is never applied and never called an infraction: the verdict asks the players to check.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from functools import lru_cache

from rules.dice import Dice, DiceError
from rules.judge import judge
from rules.laws.codes import (
    IllegalPlay,
    IncompletePlay,
    Opening,
    PrematureDouble,
    PrematureThrow,
    RuleSet,
    SetupError,
    TurnEnd,
)
from rules.laws.cube import Cube
from rules.laws.events import (
    ClockPressed,
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
    PlayAmended,
    PositionObserved,
    ResignationAccepted,
    ResignationOffered,
    ResignationRejected,
    Rest,
    ResultClaimed,
    SetupCorrected,
)
from rules.laws.scoring import MatchScore, game_points, resignation_points
from rules.laws.verdicts import Infraction, PlayersView, Remedy, Verdict, VerdictKind
from rules.moves import LegalPlays, legal_plays
from rules.position import BAR, OFF, Position, Side, to_absolute
from rules.record import (
    Action,
    AmendmentRecord,
    Double,
    Drop,
    GameRecord,
    GameResult,
    InfractionRecord,
    MatchRecord,
    Move,
    Resign,
    ResultKind,
    Take,
    safe_note_text,
)


class Phase(Enum):
    SETUP = "set-up"  # waiting for the checkers to be set up
    OPENING = "opening"  # waiting for the two opening dice
    TURN = "turn"  # the player on roll may double or throw
    CUBE = "cube"  # a double waits for take, drop or beaver
    PLAY = "play"  # the player on roll has thrown and is playing
    GAME_OVER = "game over"
    MATCH_OVER = "match over"


@lru_cache(maxsize=512)
def cached_legal_plays(position: Position, dice: Dice, highest_first_in_bearoff: bool) -> LegalPlays:
    """Legal plays, generated once per (position, roll, option) and shared."""
    return legal_plays(position, dice, highest_first_in_bearoff=highest_first_in_bearoff)


def _board(p: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    return (p.white, p.black)


def partial_afters(plays: LegalPlays) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """Boards reached by playing only some of the dice of a legal play (not all of them)."""
    before = plays.before
    mover = before.turn
    out: set[tuple[tuple[int, ...], tuple[int, ...]]] = set()
    for play in plays:
        steps = play.steps
        n = len(steps)
        for mask in range((1 << n) - 1):  # every proper subset, the empty one included
            me = list(before.counts(mover))
            opp = list(before.counts(mover.opponent))
            ok = True
            for i in range(n):
                if mask >> i & 1:
                    s = steps[i]
                    me[s.start] -= 1
                    me[s.end] += 1
                    if s.hit:
                        opp[25 - s.end] -= 1
                        opp[BAR] += 1
            if min(me) < 0 or min(opp) < 0:
                ok = False
            if ok:
                pos = before.replace(mover, tuple(me)).replace(mover.opponent, tuple(opp))
                out.add(_board(pos))
    return out


def changed_points(a: Position, b: Position) -> tuple[int, ...]:
    """Absolute points (1-24; 0 and 25 for bar/off shown as 0/25) whose counts differ."""
    pts: set[int] = set()
    for side in Side:
        ca, cb = a.counts(side), b.counts(side)
        for i in range(26):
            if ca[i] != cb[i]:
                if i in (OFF, BAR):
                    pts.add(i)
                else:
                    pts.add(to_absolute(side, i))
    return tuple(sorted(pts))


def diff_notation(before: Position, after: Position, mover: Side) -> str:
    """A readable from/to account of an observed (possibly illegal) play, for the record."""
    cb, ca = before.counts(mover), after.counts(mover)
    sources: list[int] = []
    targets: list[int] = []
    for i in range(25, -1, -1):
        d = ca[i] - cb[i]
        if d < 0:
            sources.extend([i] * -d)
        elif d > 0:
            targets.extend([i] * d)
    parts = []
    for s, t in zip(sources, targets, strict=False):
        parts.append(f"{'bar' if s == BAR else s}/{'off' if t == OFF else t}")
    return " ".join(parts)


class _Seen(Enum):
    """What a board seen outside a throw's play is to the laws (``BoardMachine._seen_as``)."""

    SAME = "same"  # the board the laws have
    MOVING = "moving"  # checkers moving during a play
    CLEARED = "cleared"  # the board cleared after the game
    SETUP_CORRECTED = "setup corrected"  # a faulty set-up corrected
    PLAY_CORRECTED = "play corrected"  # an illegal or incomplete play corrected to a legal one
    CORRECTING = "correcting"  # a correction under way (the board before the play, or part of a legal play)
    PUT_BACK = "put back"  # checkers moved without a throw put back
    MOVED = "moved"  # checkers moved without a throw


@dataclass(slots=True)
class _Pending:
    """A play the law still lets be corrected (illegal) or completed (lifted early)."""

    offender: Side
    before: Position
    dice: Dice
    plays: LegalPlays
    code: Infraction
    move_index: int  # index of the Move in the game's actions


@dataclass(slots=True)
class _Game:
    number: int
    score: tuple[int, int]
    crawford: bool
    actions: list[Action] = field(default_factory=list)
    result: GameResult | None = None
    setup_ok: bool = False
    start: Position = field(default_factory=Position.initial)
    infractions: list[InfractionRecord] = field(default_factory=list)
    amendments: list[AmendmentRecord] = field(default_factory=list)


_DIE_FAULTS = {
    Rest.LEFT_TABLE: Infraction.DICE_WRONG_TABLE,
    Rest.BAR: Infraction.DICE_ON_BAR,
    Rest.OFF_BOARD: Infraction.DICE_OFF_BOARD,
    Rest.ON_DIE: Infraction.DICE_ON_DIE,
    Rest.ON_CHECKER: Infraction.DICE_ON_CHECKER,
}

_FAULT_WORDS = {
    Infraction.DICE_WRONG_TABLE: "a die in the wrong table",
    Infraction.DICE_ON_BAR: "a die on the bar",
    Infraction.DICE_OFF_BOARD: "a die off the board",
    Infraction.DICE_COCKED: "a cocked die",
    Infraction.DICE_ON_DIE: "one die on the other",
    Infraction.DICE_ON_CHECKER: "a die on a checker",
    Infraction.DICE_NOT_TOGETHER: "the dice did not leave the cup together",
    Infraction.DICE_TOUCHED: "a die touched before it came to rest",
}


class BoardMachine:
    """The referee's laws for one board: feed events, get verdicts; keeps the record.

    ``match_length`` 0 is money play.  ``players`` names WHITE and BLACK in messages.
    """

    def __init__(
        self,
        rules: RuleSet,
        *,
        match_length: int = 0,
        players: tuple[str, str] = ("White", "Black"),
        score: tuple[int, int] = (0, 0),
    ) -> None:
        self.rules = rules
        self.players = players
        self.match = MatchScore(match_length, score)
        self.phase = Phase.SETUP
        self.position = Position.initial()
        self.on_roll: Side | None = None
        self.cube = Cube()
        self.dice: Dice | None = None
        self.plays: LegalPlays | None = None
        self.turn_start = self.position
        self.opening: dict[Side, int] = {}
        self.premature: tuple[Side, Dice, bool] | None = None  # (thrower, dice, opponent may choose)
        self.premature_double: tuple[Side, int] | None = None  # an early double that stands: (doubler, value)
        self.premature_answer: bool | None = None  # the early double already answered: True take, False drop
        self.wrong_setup: Position | None = None  # the wrong set-up last seen before a game began
        self.setup_fault: Position | None = None  # the game in progress began from this wrong set-up
        self._pre_game: list[InfractionRecord] = []  # infractions called before the game they belong to
        self.choice_pending = False  # the throw in force may still be rethrown at the opponent's choice
        self.pending: _Pending | None = None
        self.restore_to: Position | None = None
        self.resign_offer: tuple[Side, int] | None = None
        self.offer_from: Side | None = None
        self.plays_completed = 0
        self.last_play: tuple[Side, Position, int] | None = None  # (mover, board before, Move index): amendable
        self.opening_rethrow_allowed = False
        self.verdicts: list[Verdict] = []
        self.games: list[GameRecord] = []
        self._game: _Game | None = None

    # ------------------------------------------------------------------ public
    def feed(self, event: Event) -> Verdict:
        """Judge one event, move the state on when it is applied, and return the verdict."""
        if event.uncertain:
            v = self._check(event, f"the camera is not sure of this ({_describe(event)})")
        else:
            v = self._dispatch(event)
        self.verdicts.append(v)
        return v

    def feed_all(self, events: list[Event]) -> list[Verdict]:
        return [self.feed(e) for e in events]

    @property
    def infractions(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.kind is VerdictKind.INFRACTION]

    def match_record(self) -> MatchRecord:
        """The match so far as a :class:`rules.record.MatchRecord` (the game in progress included).

        In money play the header says which of Jacoby and beavers the code in force has.
        """
        games = list(self.games)
        if self._game is not None and (self._game.actions or self._game.infractions):
            games.append(self._game_record(self._game))
        meta: tuple[tuple[str, str], ...] = ()
        if self.match.length == 0:
            meta = (("Jacoby", "On" if self.rules.jacoby else "Off"), ("Beaver", "On" if self.rules.beavers else "Off"))
        return MatchRecord(self.players, self.match.length, tuple(games), meta)

    @property
    def crawford_game(self) -> bool:
        return self._game.crawford if self._game else False

    # ------------------------------------------------------------------ helpers
    def _name(self, side: Side | None) -> str:
        return "both players" if side is None else self.players[side]

    def _ok(self, event: Event, director: str = "", ask: str = "", text: str = "") -> Verdict:
        return Verdict(VerdictKind.OK, event, ask=ask, players=PlayersView(text), director=director)

    def _check(self, event: Event, why: str) -> Verdict:
        return Verdict(
            VerdictKind.CHECK,
            event,
            remedy=Remedy.NONE,
            ask=f"Please check: {why}.",
            players=PlayersView("Please check the board"),
            director=f"not applied: {why}",
        )

    def _infraction(
        self,
        event: Event,
        code: Infraction,
        offender: Side | None,
        remedy: Remedy,
        ask: str,
        text: str,
        director: str = "",
        *,
        points: tuple[int, ...] = (),
        dice: tuple[int, ...] = (),
        cube: bool = False,
        cite: Infraction | str | None = None,
        at: int | None = None,
    ) -> Verdict:
        v = Verdict(
            VerdictKind.INFRACTION,
            event,
            code=code,
            citation=self.rules.cite(cite or code),
            offender=offender,
            remedy=remedy,
            ask=ask,
            players=PlayersView(text, points=points, dice=dice, cube=cube),
            director=director or f"{code.value} by {self._name(offender)}",
        )
        self._record(v, at)
        return v

    def _record(self, v: Verdict, at: int | None = None) -> None:
        """Keep an infraction in the game's record (``at``: the action it concerns; default the next one)."""
        assert v.code is not None and v.citation is not None
        game = self._game if self.phase is not Phase.SETUP else None
        index = at if at is not None else (len(game.actions) if game is not None else 0)
        laws = safe_note_text(v.citation.code)
        if " rule " in f" {laws} ":  # the note's text separates the code's name from its rule by " rule "
            laws = f" {laws} ".replace(" rule ", " rules ").strip()
        rec = InfractionRecord(v.code, laws, safe_note_text(v.citation.rule), v.offender, index, v.remedy)
        if game is not None:
            game.infractions.append(rec)
        else:
            self._pre_game.append(rec)

    def _dispatch(self, event: Event) -> Verdict:
        if isinstance(event, PositionObserved) and event.position.problems():
            return self._check(event, "the board reading is impossible: " + "; ".join(event.position.problems()))
        if isinstance(event, GameSetUp):
            return self._setup(event)
        if isinstance(event, SetupCorrected):
            return self._setup_corrected(event)
        if self.phase is Phase.MATCH_OVER:
            return self._check(event, "the match is over")
        if isinstance(event, OpeningDieThrown):
            return self._opening(event)
        if isinstance(event, DiceThrown):
            return self._throw(event)
        if isinstance(event, PositionObserved):
            return self._observe(event)
        if isinstance(event, DiceLifted | ClockPressed):
            return self._lift(event)
        if isinstance(event, PlayAmended):
            return self._amend(event)
        if isinstance(event, CubeOffered):
            return self._offer(event)
        if isinstance(event, CubeTaken | CubeDropped | CubeBeavered):
            return self._answer(event)
        if isinstance(event, ResignationOffered | ResignationAccepted | ResignationRejected):
            return self._resign(event)
        if isinstance(event, ResultClaimed):
            return self._result(event)
        raise TypeError(f"not a laws event: {event!r}")  # pragma: no cover

    # ------------------------------------------------------------------ set-up and opening
    def _setup(self, event: GameSetUp) -> Verdict:
        if self.phase not in (Phase.SETUP, Phase.GAME_OVER, Phase.MATCH_OVER):
            if self.setup_fault is not None:
                return self._setup_corrected(SetupCorrected(event.position, event.t))
            return self._check(event, "a new set-up while a game is in progress: is this game abandoned?")
        if self.phase is Phase.MATCH_OVER or self.match.over:
            return self._check(event, "the match is already over")
        if self.phase is Phase.GAME_OVER:
            self._close_game()
            self.phase = Phase.SETUP
        initial = Position.initial()
        if _board(event.position) != _board(initial):
            pts = changed_points(event.position, initial)
            void = self.rules.setup_error is SetupError.GAME_VOID
            self.wrong_setup = event.position.with_turn(Side.WHITE)
            return self._infraction(
                event,
                Infraction.WRONG_SETUP,
                None,
                Remedy.GAME_VOID if void else Remedy.CORRECT_SETUP,
                "Set the checkers up correctly before the opening throw"
                + (" (a game begun so is void)." if void else "."),
                "Set-up is wrong: correct the marked points",
                f"set-up differs from the standard one on points {list(pts)}: {event.position.text()}",
                points=tuple(p for p in pts if 1 <= p <= 24),
            )
        self.wrong_setup = None
        game = self._begin_game(initial)
        note = " (Crawford game: no doubling)" if game.crawford else ""
        return self._ok(event, f"game {game.number} set up at {self.match.score[0]}-{self.match.score[1]}{note}")

    def _begin_game(self, start: Position) -> _Game:
        """A new game from ``start`` (the standard set-up, or a wrong one the players went on with)."""
        self.position = start
        self.turn_start = start
        self.phase = Phase.OPENING
        self.opening = {}
        self.cube = Cube()
        self.on_roll = None
        self.pending = None
        self.premature = None
        self.premature_double = None
        self.premature_answer = None
        self.restore_to = None
        self.plays_completed = 0
        self.last_play = None
        self.setup_fault = None if _board(start) == _board(Position.initial()) else start
        crawford = self.match.crawford_next and self.rules.crawford
        self._game = _Game(len(self.games) + 1, self.match.score, crawford, start=start)
        self._game.infractions.extend(self._pre_game)
        self._pre_game = []
        return self._game

    def _setup_delta(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """Per side, the checkers each point lacks (positive) or has too many of, against the standard set-up."""
        assert self.setup_fault is not None
        initial = Position.initial()
        return (
            tuple(a - b for a, b in zip(initial.white, self.setup_fault.white, strict=True)),
            tuple(a - b for a, b in zip(initial.black, self.setup_fault.black, strict=True)),
        )

    def _corrected(self, p: Position) -> Position | None:
        """``p`` with the set-up error put right; None when the checkers it needs are no longer there."""
        dw, db = self._setup_delta()
        white = tuple(a + d for a, d in zip(p.white, dw, strict=True))
        black = tuple(a + d for a, d in zip(p.black, db, strict=True))
        if min(white) < 0 or min(black) < 0:
            return None
        return Position(white, black, p.turn)

    def _setup_corrected(self, event: SetupCorrected) -> Verdict:
        """A wrong set-up noticed late: void (1931), corrected before the second play is complete, or it stands."""
        if self.setup_fault is None or self._game is None or self.phase in (Phase.SETUP, Phase.GAME_OVER):
            if self.phase is Phase.SETUP:
                return self._setup(GameSetUp(event.position, event.t))
            return self._check(event, "a set-up correction, but this game did not begin from a wrong set-up")
        fault = self.setup_fault
        pts = tuple(p for p in changed_points(fault, Position.initial()) if 1 <= p <= 24)
        done = self.plays_completed
        if self.rules.setup_error is SetupError.GAME_VOID:
            v = self._infraction(
                event, Infraction.WRONG_SETUP, None, Remedy.GAME_VOID,
                "This game was begun from a wrong set-up: it is void. Set up again; the score stays as it was.",
                "Wrong set-up found: the game is void", f"game void: begun from {fault.text()} ({done} plays made)",
                points=pts, cite="setup-late",
            )
            self._void_game()
            if _board(event.position) == _board(Position.initial()):
                self._begin_game(Position.initial())
            return v
        if done >= 2:
            self.setup_fault = None
            if _board(event.position) != _board(self.position) and self.phase in (Phase.TURN, Phase.OPENING):
                self.restore_to = self.position
                self.position = event.position.with_turn(self.position.turn)
            return self._infraction(
                event, Infraction.WRONG_SETUP, None, Remedy.SETUP_STANDS,
                "The set-up error was noticed after the second play was complete: the position stands. "
                "Put the checkers back as they were and play on.",
                "Too late to correct the set-up: play on", f"set-up error noticed after {done} plays: it stands",
                points=pts, cite="setup-late",
            )
        fixed = self._corrected(self.position)
        if fixed is None or _board(fixed) != _board(event.position):
            want = "" if fixed is None else f" ({fixed.text()})"
            return self._check(event, f"the corrected board is not the standard set-up with this game's plays{want}")
        start_fixed = self._corrected(self.turn_start)
        self.position = fixed
        if start_fixed is not None:
            self.turn_start = start_fixed
        if self.phase is Phase.PLAY and self.dice is not None:
            self.plays = cached_legal_plays(self.turn_start, self.dice, self.rules.highest_first_in_bearoff)
        self.setup_fault = None
        return Verdict(
            VerdictKind.OK, event, code=Infraction.WRONG_SETUP, citation=self.rules.cite("setup-late"),
            remedy=Remedy.CORRECT_SETUP, ask="Set-up corrected: play on.",
            players=PlayersView("Set-up corrected", points=pts),
            director=f"set-up corrected after {done} play(s); was {fault.text()}",
        )

    def _void_game(self) -> None:
        """The game in progress is void: no result, the score stays, the next game is set up afresh."""
        assert self._game is not None
        self._game.result = None
        self.games.append(self._game_record(self._game))
        self._game = None
        self.phase = Phase.SETUP
        self.setup_fault = None
        self.pending = None
        self.premature = None
        self.premature_double = None
        self.premature_answer = None
        self.restore_to = None
        self.on_roll = None
        self.position = Position.initial()
        self.turn_start = self.position

    def _opening(self, event: OpeningDieThrown) -> Verdict:
        if self.phase is Phase.SETUP and self.wrong_setup is not None and not self.match.over:
            # the players go on from the wrong set-up: the game is begun; the code says what a late notice does
            self._begin_game(self.wrong_setup)
            self.wrong_setup = None
        if self.phase is not Phase.OPENING:
            return self._infraction(
                event, Infraction.THROW_OUT_OF_TURN, event.player, Remedy.THROW_VOID,
                f"{self._name(event.player)}: this is not the time for an opening throw.",
                "Throw out of turn: it does not count",
            )
        fault = self._die_fault(event.die)
        if fault is not None:
            return self._infraction(
                event, fault, event.player, Remedy.RETHROW_DIE,
                f"{self._name(event.player)}: throw your opening die again ({_FAULT_WORDS[fault]}).",
                "Opening die invalid: throw it again", dice=(0,),
            )
        if event.player in self.opening:
            return self._infraction(
                event, Infraction.THROW_OUT_OF_TURN, event.player, Remedy.THROW_VOID,
                f"{self._name(event.player)} has already thrown his opening die; wait for the opponent.",
                "Opening die already thrown",
            )
        self.opening[event.player] = event.die.value
        if len(self.opening) < 2:
            return self._ok(event, f"{self._name(event.player)} opening die {event.die.value}")
        w, b = self.opening[Side.WHITE], self.opening[Side.BLACK]
        self.opening = {}
        if w == b:
            limit = self.rules.automatic_double_limit
            if self.rules.automatic_doubles and self.rules.doubling and not self.crawford_game:
                before = self.cube.value
                self.cube = self.cube.automatic(limit)
                if self.cube.value != before:
                    return Verdict(
                        VerdictKind.OK, event, citation=self.rules.cite("opening-tie"),
                        ask="Equal opening dice: turn the cube (it stays in the middle) and throw again.",
                        players=PlayersView("Equal dice: automatic double, throw again", cube=True),
                        director=f"opening tie {w}-{b}: automatic double to {self.cube.value}",
                    )
            return Verdict(
                VerdictKind.OK, event, citation=self.rules.cite("opening-tie"),
                ask="Equal opening dice: each throws one die again.",
                players=PlayersView("Equal dice: throw again"),
                director=f"opening tie {w}-{b}",
            )
        first = Side.WHITE if w > b else Side.BLACK
        dice = Dice(max(w, b), min(w, b))
        self.opening_rethrow_allowed = self.rules.opening is Opening.PLAY_OR_RETHROW
        self._start_play(first, dice)
        return Verdict(
            VerdictKind.OK, event, citation=self.rules.cite("opening"),
            ask=f"{self._name(first)} plays first with both opening dice.",
            players=PlayersView(f"{self._name(first)} to play"),
            director=f"{self._name(first).lower()} opens with {dice}",
        )

    # ------------------------------------------------------------------ throws
    def _die_fault(self, die: DieThrow) -> Infraction | None:
        if die.rest is Rest.ON_CHECKER and self.rules.die_on_checker.value == "valid" and die.flat:
            return None
        if die.rest is Rest.LEFT_TABLE and not self.rules.wrong_table_rethrow:
            return None
        if die.rest is not Rest.RIGHT_TABLE:
            return _DIE_FAULTS[die.rest]
        if not die.flat:
            return Infraction.DICE_COCKED
        return None

    def _throw_fault(self, event: DiceThrown) -> tuple[Infraction, tuple[int, ...]] | None:
        if self.rules.dice_together and not event.together:
            return Infraction.DICE_NOT_TOGETHER, (0, 1)
        if event.touched:
            return Infraction.DICE_TOUCHED, (0, 1)
        for i, die in enumerate(event.dice):
            f = self._die_fault(die)
            if f is not None:
                return f, (i,)
        return None

    def _both_bearing_off(self) -> bool:
        return self.position.all_home(Side.WHITE) and self.position.all_home(Side.BLACK)

    def _throw(self, event: DiceThrown) -> Verdict:
        p = event.player
        fault = self._throw_fault(event)
        if fault is not None:
            code, dice_at_fault = fault
            return self._infraction(
                event, code, p, Remedy.RETHROW_BOTH,
                f"{self._name(p)}: throw both dice again ({_FAULT_WORDS[code]}).",
                "Invalid throw: throw both dice again", dice=dice_at_fault,
            )
        dice = Dice(*event.values)
        if self.phase is Phase.PLAY and p is self.on_roll:
            if self.opening_rethrow_allowed and _board(self.position) == _board(self.turn_start):
                self.opening_rethrow_allowed = False
                self._start_play(p, dice)
                return Verdict(
                    VerdictKind.OK, event, citation=self.rules.cite("opening"),
                    director=f"{self._name(p).lower()} rethrows his own pair instead of the opening dice: {dice}",
                )
            if self.choice_pending and _board(self.position) == _board(self.turn_start):
                self.choice_pending = False
                self._start_play(p, dice)
                return self._ok(event, f"the early throw is rethrown at the opponent's choice: {dice}")
            return self._infraction(
                event, Infraction.THROW_OUT_OF_TURN, p, Remedy.THROW_VOID,
                f"{self._name(p)}: you have already thrown; play the first throw.",
                "Second throw does not count",
            )
        if self.phase is Phase.PLAY and p is not self.on_roll:
            return self._premature(event, dice)
        if self.phase is Phase.TURN and p is self.on_roll:
            if self.restore_to is not None:
                return self._infraction(
                    event, Infraction.MOVE_WITHOUT_THROW, p, Remedy.RESTORE,
                    "Put the moved checkers back before throwing.",
                    "Checkers moved out of turn: put them back first",
                    points=changed_points(self.position, self.restore_to),
                )
            note = self._settle_pending("the opponent threw")
            self._start_play(p, dice)
            return self._ok(event, f"{self._name(p).lower()} throws {dice}{note}")
        return self._infraction(
            event, Infraction.THROW_OUT_OF_TURN, p, Remedy.THROW_VOID,
            f"{self._name(p)}: it is not your turn to throw"
            + (" (a double is waiting for an answer)." if self.phase is Phase.CUBE else "."),
            "Throw out of turn: it does not count",
        )

    def _premature(self, event: DiceThrown, dice: Dice) -> Verdict:
        p = event.player
        assert self.on_roll is not None
        if not self.rules.premature_rule_in_bearoff and self._both_bearing_off():
            self.premature = (p, dice, False)
            return self._ok(event, f"early throw {dice} by {self._name(p).lower()} while both bear off: it stands")
        policy = self.rules.premature_throw
        other = self._name(self.on_roll)
        if policy is PrematureThrow.VOID or policy is PrematureThrow.RETHROW:
            remedy = Remedy.THROW_VOID if policy is PrematureThrow.VOID else Remedy.RETHROW_BOTH
            ask = f"{self._name(p)}: your throw came before {other} finished"
            ask += "; it is void." if policy is PrematureThrow.VOID else "; throw again when your turn comes."
            return self._infraction(
                event, Infraction.PREMATURE_THROW, p, remedy, ask, "Early throw: it does not count",
                f"premature throw {dice} by {self._name(p).lower()}",
            )
        choose = policy is PrematureThrow.OPPONENT_CHOOSES
        self.premature = (p, dice, choose)
        if choose:
            return self._infraction(
                event, Infraction.PREMATURE_THROW, p, Remedy.OPPONENT_CHOOSES_THROW,
                f"{other}: finish your play, then say whether {self._name(p)}'s early throw stands or is thrown again.",
                "Early throw: the opponent chooses", f"premature throw {dice} by {self._name(p).lower()}",
            )
        return self._infraction(
            event, Infraction.PREMATURE_THROW, p, Remedy.THROW_STANDS,
            f"{other}: finish your play; {self._name(p)}'s early throw stands.",
            "Early throw: it stands", f"premature throw {dice} by {self._name(p).lower()} stands",
        )

    def _start_play(self, p: Side, dice: Dice) -> None:
        self.on_roll = p
        self.dice = dice
        self.turn_start = self.position.with_turn(p)
        self.position = self.turn_start
        self.plays = cached_legal_plays(self.turn_start, dice, self.rules.highest_first_in_bearoff)
        self.phase = Phase.PLAY
        self.resign_offer = None

    # ------------------------------------------------------------------ positions and plays
    def moved_without_throw(self, seen: Position) -> bool:
        """Would a sure observation of ``seen`` now be called checkers moved without a throw?  A query: nothing
        changes (the referee asks it before sending a board it may hold out of step; referee.session)."""
        if seen.problems() or self.phase is Phase.MATCH_OVER:
            return False
        return self._seen_as(seen) is _Seen.MOVED

    def _seen_as(self, seen: Position) -> _Seen:
        """What a board seen now is to the laws (the one decision :meth:`_observe` acts on and
        :meth:`moved_without_throw` asks about); nothing changes."""
        if _board(seen) == _board(self.position):
            return _Seen.SAME
        if self.phase is Phase.PLAY:
            return _Seen.MOVING
        if self.phase is Phase.GAME_OVER:
            return _Seen.CLEARED
        if self.phase in (Phase.TURN, Phase.OPENING) and self.setup_fault is not None:
            fixed = self._corrected(self.position)
            if fixed is not None and _board(fixed) == _board(seen):
                return _Seen.SETUP_CORRECTED
        if self.phase in (Phase.TURN, Phase.CUBE) and self.pending is not None:
            pend = self.pending
            if seen in pend.plays:
                return _Seen.PLAY_CORRECTED
            if _board(seen) == _board(pend.before) or self._reachable_partial(pend, seen):
                return _Seen.CORRECTING
        if self.restore_to is not None and _board(seen) == _board(self.restore_to):
            return _Seen.PUT_BACK
        return _Seen.MOVED

    def _observe(self, event: PositionObserved) -> Verdict:
        seen = event.position
        kind = self._seen_as(seen)
        if kind is _Seen.SAME:
            return self._ok(event)
        if kind is _Seen.MOVING:
            assert self.on_roll is not None and self.plays is not None
            self.position = seen.with_turn(self.on_roll)
            if self.position.borne_off(self.on_roll) == 15 and seen in self.plays:
                return self._complete(event, finished=True)
            return self._ok(event, "checkers moving")
        if kind is _Seen.CLEARED:
            return self._ok(event, "board cleared after the game")
        if kind is _Seen.SETUP_CORRECTED:
            return self._setup_corrected(SetupCorrected(seen, event.t))
        if kind is _Seen.PLAY_CORRECTED:
            pend = self.pending
            assert pend is not None
            play = pend.plays.find(seen)
            assert play is not None and self._game is not None
            self._game.actions[pend.move_index] = Move(pend.offender, pend.dice.as_tuple(), play.notation())
            self.position = play.after.with_turn(pend.offender.opponent)
            self.pending = None
            return self._ok(event, f"{self._name(pend.offender).lower()} corrected the play to {play.notation()}")
        if kind is _Seen.CORRECTING:
            assert self.pending is not None
            self.position = seen.with_turn(self.pending.offender.opponent)
            return self._ok(event, "correction in progress")
        if kind is _Seen.PUT_BACK:
            assert self.restore_to is not None
            self.position = self.restore_to
            self.restore_to = None
            return self._ok(event, "checkers put back")
        base = self.restore_to or self.position
        mover = _who_moved(base, seen, self.on_roll)
        pts = changed_points(base, seen)
        if self.restore_to is None:
            self.restore_to = self.position
        self.position = seen.with_turn(self.position.turn)
        return self._infraction(
            event, Infraction.MOVE_WITHOUT_THROW, mover, Remedy.RESTORE,
            f"{self._name(mover)}: checkers were moved without a throw; put them back.",
            "Checkers moved without a throw: put them back", f"board changed without a throw: {seen.text()}",
            points=tuple(p for p in pts if 1 <= p <= 24),
        )

    def _amend(self, event: PlayAmended) -> Verdict:
        """The referee re-judged the last play (see :class:`PlayAmended`): amend the record and the board."""
        last, game = self.last_play, self._game
        who = self._name(event.player)
        if last is None or game is None or last[0] is not event.player or self.pending is not None:
            return self._check(event, f"there is no play of {who} on record to amend")
        mover, before, index = last
        untouched = self.phase is Phase.PLAY and _board(self.position) == _board(self.turn_start)
        if self.on_roll is not mover.opponent or not (self.phase in (Phase.TURN, Phase.CUBE) or untouched) \
                or index != max(i for i, a in enumerate(game.actions) if isinstance(a, Move)):
            return self._check(event, f"{self._name(mover.opponent)} has played since {who}'s play")
        try:
            dice = Dice(*event.dice)
        except DiceError as exc:
            return self._check(event, f"the amended play's dice are not dice ({exc})")
        old = game.actions[index]
        assert isinstance(old, Move)
        if index == 0 and sorted(dice.as_tuple()) != sorted(old.dice):
            return self._check(event, "the opening throw is the two opening dice: it is not amended")
        play = cached_legal_plays(before.with_turn(mover), dice, self.rules.highest_first_in_bearoff).find(
            event.position.with_turn(mover))
        if play is None:
            return self._check(event, f"{diff_notation(before, event.position, mover)!r} is not a legal play of {dice} "
                                      f"from {before.gnubg_id()}")
        if play.after.winner() is not None:
            return self._check(event, "the amended play would end the game")
        game.actions[index] = Move(mover, dice.as_tuple(), play.notation())
        if not any(a.action == index for a in game.amendments):  # (the move as first recorded is kept)
            first = f"{old.dice[0]}{old.dice[1]}: {old.play or '(no play)'}"
            game.amendments.append(AmendmentRecord(mover, index, safe_note_text(first)))
        after = play.after.with_turn(mover.opponent)
        if self.phase is Phase.PLAY:
            assert self.dice is not None
            self.turn_start = after
            self.position = after
            self.plays = cached_legal_plays(after, self.dice, self.rules.highest_first_in_bearoff)
        else:
            self.position = after
            self.turn_start = after
        was = f"{Dice(*old.dice)}: {old.play or '(no play)'}"
        return self._ok(event, f"{who.lower()}'s play amended from {was} to {dice}: {play.notation() or '(no play)'}")

    def _reachable_partial(self, pend: _Pending, seen: Position) -> bool:
        return _board(seen) in partial_afters(pend.plays)

    def _lift(self, event: DiceLifted | ClockPressed) -> Verdict:
        if isinstance(event, ClockPressed) and self.rules.turn_end is not TurnEnd.LIFT_OR_CLOCK and not self.rules.clocks:
            return self._ok(event, "clock pressed (ends no turn in this code)")
        if self.phase is not Phase.PLAY:
            return self._ok(event, "dice lifted")
        if event.player is not self.on_roll:
            return self._check(event, f"{self._name(event.player)} lifted dice while {self._name(self.on_roll)} is playing")
        return self._complete(event, finished=False)

    def _complete(self, event: Event, *, finished: bool) -> Verdict:
        """The player on roll ends his turn: judge the board against the legal plays."""
        p, dice, plays = self.on_roll, self.dice, self.plays
        assert p is not None and dice is not None and plays is not None and self._game is not None
        seen = self.position
        self.opening_rethrow_allowed = False
        self.choice_pending = False
        play = plays.find(seen)
        if play is not None:
            self._game.actions.append(Move(p, dice.as_tuple(), play.notation()))
            self.last_play = (p, self.turn_start, len(self._game.actions) - 1)
            self.position = play.after
            self.plays_completed += 1
            self.phase = Phase.TURN
            self.on_roll = p.opponent
            self.turn_start = self.position
            if play.after.winner() is p:
                kind, pts = game_points(play.after, p, self.cube, self.rules, match_length=self.match.length)
                self._end_game(p, pts, kind)
                return self._ok(event, f"{self._name(p).lower()} played {dice}: {play.notation()} and wins {pts} ({kind.value})")
            note = self._take_premature_double() + self._take_premature()
            return self._ok(event, f"{self._name(p).lower()} played {dice}: {play.notation() or '(no play)'}{note}")
        partial = _board(seen) in partial_afters(plays)
        code = Infraction.INCOMPLETE_PLAY if partial else Infraction.ILLEGAL_PLAY
        j = judge(self.turn_start, dice, seen, highest_first_in_bearoff=self.rules.highest_first_in_bearoff)
        director = (
            f"{self._name(p).lower()} {dice} in {self.turn_start.gnubg_id()}: seen {diff_notation(self.turn_start, seen, p)!r}; "
            + "; ".join(str(r) for r in j.reasons)
            + (f"; nearest legal: {', '.join(x.notation() for x in j.nearest[:3])}" if j.nearest else "")
        )
        self._game.actions.append(Move(p, dice.as_tuple(), diff_notation(self.turn_start, seen, p)))
        self.last_play = None  # (an infraction: corrected under its own law, never amended)
        pend = _Pending(p, self.turn_start, dice, plays, code, len(self._game.actions) - 1)
        self.pending = pend
        self.phase = Phase.TURN
        self.on_roll = p.opponent
        self.turn_start = seen.with_turn(p.opponent)
        self.position = self.turn_start
        self.plays_completed += 1
        self._take_premature_double()
        self._take_premature()
        marked = tuple(x for x in changed_points(pend.before, seen) if 1 <= x <= 24)
        other = self._name(p.opponent)
        if code is Infraction.INCOMPLETE_PLAY and self.rules.incomplete_play is IncompletePlay.COMPEL_OR_FORGO:
            return self._infraction(
                event, code, p, Remedy.COMPEL_OR_FORGO,
                f"{other}: {self._name(p)} lifted his dice before playing all he could; "
                "you may make him finish the play, or let it stand.",
                "Dice lifted too early: not all dice were played", director, dice=(0, 1), at=pend.move_index,
            )
        if self.rules.illegal_play is IllegalPlay.MUST_CORRECT:
            remedy, ask = Remedy.MUST_CORRECT, f"{self._name(p)}: correct your play before {other} throws or doubles."
        else:
            remedy = Remedy.CORRECT_OR_STANDS
            ask = f"{other}: you may require {self._name(p)} to correct the play before you throw; after that it stands."
        text = "Play incomplete: not all dice were played" if partial else "Illegal play: check the marked points"
        return self._infraction(
            event, code, p, remedy, ask, text, director, points=marked, dice=(0, 1) if partial else (), at=pend.move_index
        )

    def _take_premature(self) -> str:
        """After a turn ends, an early throw that stands becomes the next throw."""
        if self.premature is None or self.phase is not Phase.TURN:
            return ""
        thrower, dice, choose = self.premature
        self.premature = None
        if thrower is not self.on_roll:
            return ""
        self._settle_pending("the early throw stands")
        self._start_play(thrower, dice)
        self.choice_pending = choose
        return f"; the early throw {dice} is now in play" + (" (the opponent may have it rethrown)" if choose else "")

    def _settle_pending(self, why: str) -> str:
        if self.pending is None:
            return ""
        pend = self.pending
        self.pending = None
        return f"; {self._name(pend.offender).lower()}'s {pend.code.value} stands ({why})"

    # ------------------------------------------------------------------ cube
    def _offer(self, event: CubeOffered) -> Verdict:
        p = event.player
        if self.phase is Phase.PLAY and p is self.on_roll:
            return self._infraction(
                event, Infraction.DOUBLE_AFTER_THROW, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: a double comes before the throw; put the cube back and play.",
                "Double after throwing: put the cube back", cube=True,
            )
        if self.phase is Phase.PLAY and p is not self.on_roll:
            return self._premature_double(event)
        if self.phase is not Phase.TURN or p is not self.on_roll:
            return self._infraction(
                event, Infraction.DOUBLE_NOT_ALLOWED, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: you may double only at your own turn, before throwing; put the cube back.",
                "Double not allowed now: put the cube back", cube=True,
            )
        fault = self._double_fault(event)
        if fault is not None:
            return fault
        note = self._settle_pending("the opponent doubled")
        assert self._game is not None
        self._game.actions.append(Double(p, event.value))
        self.offer_from = p
        self.phase = Phase.CUBE
        return self._ok(event, f"{self._name(p).lower()} doubles to {event.value}{note}",
                        ask=f"{self._name(p.opponent)}: take or pass?")

    def _double_fault(self, event: CubeOffered) -> Verdict | None:
        """The infraction of a double that the cube does not allow (its owner, Crawford, its value), else None."""
        p = event.player
        if not self.rules.doubling:
            return self._infraction(
                event, Infraction.DOUBLE_NOT_ALLOWED, p, Remedy.CUBE_RESTORED,
                "This code of laws has no doubling; put the cube back.", "No doubling: put the cube back", cube=True,
            )
        if self.crawford_game:
            return self._infraction(
                event, Infraction.DOUBLE_IN_CRAWFORD, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: no doubling in the Crawford game; put the cube back.",
                "Crawford game: no doubling", cube=True,
            )
        why = self.cube.may_double(p, limit=self.rules.cube_limit)
        if why is not None:
            code = Infraction.DOUBLE_CUBE_NOT_OWNED if self.cube.owner is not None and self.cube.owner is not p else Infraction.DOUBLE_NOT_ALLOWED
            return self._infraction(
                event, code, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: you may not double: {why}; put the cube back.",
                "Double not allowed: put the cube back", cube=True,
            )
        if event.value != self.cube.next_value:
            return self._infraction(
                event, Infraction.CUBE_WRONG_VALUE, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: the cube must be turned to {self.cube.next_value}, not {event.value}.",
                f"Cube turned to the wrong value: it must show {self.cube.next_value}", cube=True,
            )
        return None

    def _premature_double(self, event: CubeOffered) -> Verdict:
        """A double offered while the opponent is still playing: void, or it stands if otherwise valid (4.6)."""
        p = event.player
        other = self._name(self.on_roll)
        if self.rules.premature_double is PrematureDouble.VOID:
            return self._infraction(
                event, Infraction.PREMATURE_DOUBLE, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: you may double only at your own turn, before throwing, and {other} "
                "has not finished; put the cube back.",
                "Early double: it does not count", cube=True,
            )
        if self.premature is not None and self.premature[0] is p:
            return self._infraction(
                event, Infraction.DOUBLE_AFTER_THROW, p, Remedy.CUBE_RESTORED,
                f"{self._name(p)}: you have already thrown (early); a double comes before the throw. Put the cube back.",
                "Double after throwing: put the cube back", cube=True,
            )
        if self.premature_double is not None:
            return self._check(event, "a double is already waiting for the end of this turn")
        fault = self._double_fault(event)
        if fault is not None:
            return fault
        self.premature_double = (p, event.value)
        return self._infraction(
            event, Infraction.PREMATURE_DOUBLE, p, Remedy.DOUBLE_STANDS,
            f"{other}: finish your play knowing of {self._name(p)}'s double; then take or pass.",
            "Early double: it stands", f"premature double to {event.value} by {self._name(p).lower()} stands",
            cube=True,
        )

    def _take_premature_double(self) -> str:
        """After a turn ends, an early double that stands is offered (and answered, if it already was)."""
        if self.premature_double is None or self.phase is not Phase.TURN or self._game is None:
            return ""
        doubler, value = self.premature_double
        answer = self.premature_answer
        self.premature_double = None
        self.premature_answer = None
        if doubler is not self.on_roll:
            return ""
        self._game.actions.append(Double(doubler, value))
        self.offer_from = doubler
        self.phase = Phase.CUBE
        if answer:
            self.cube = self.cube.take(doubler.opponent)
            self._game.actions.append(Take(doubler.opponent))
            self.phase = Phase.TURN
            return f"; {self._name(doubler).lower()}'s early double to {value} is taken"
        return f"; {self._name(doubler).lower()}'s early double to {value} now waits for an answer"

    def _answer(self, event: CubeTaken | CubeDropped | CubeBeavered) -> Verdict:
        if self.phase is Phase.PLAY and self.premature_double is not None and event.player is self.on_roll:
            return self._early_answer(event)
        if self.phase is not Phase.CUBE or self.offer_from is None:
            return self._check(event, "no double is waiting for an answer")
        doubler = self.offer_from
        p = event.player
        if p is doubler:
            return self._check(event, f"{self._name(p)} answered his own double")
        assert self._game is not None
        if isinstance(event, CubeTaken):
            self.cube = self.cube.take(p)
            self._game.actions.append(Take(p))
            self.phase = Phase.TURN
            note = self._take_premature()
            return self._ok(event, f"{self._name(p).lower()} takes at {self.cube.value}{note}")
        if isinstance(event, CubeDropped):
            self._game.actions.append(Drop(p))
            self._end_game(doubler, self.cube.value, ResultKind.DROP)
            return self._ok(event, f"{self._name(p).lower()} passes: {self._name(doubler).lower()} wins {self.cube.value}")
        if not self.rules.beavers or self.match.length > 0:
            return self._infraction(
                event, Infraction.BEAVER_NOT_ALLOWED, p, Remedy.NONE,
                f"{self._name(p)}: no beavers {'in match play' if self.match.length else 'under this code'}; take or pass.",
                "No beaver here: take or pass", cube=True,
            )
        if event.value != self.cube.value * 4:
            return self._infraction(
                event, Infraction.CUBE_WRONG_VALUE, p, Remedy.NONE,
                f"{self._name(p)}: a beaver turns the cube to {self.cube.value * 4}.",
                f"Beaver: the cube must show {self.cube.value * 4}", cube=True,
            )
        self.cube = self.cube.beaver(p)
        self._game.actions.append(Take(p, beaver=True))
        self.phase = Phase.TURN
        return self._ok(event, f"{self._name(p).lower()} beavers: cube at {self.cube.value}, his")

    def _early_answer(self, event: CubeTaken | CubeDropped | CubeBeavered) -> Verdict:
        """The player still playing answers an early double that stands (4.6: with foreknowledge of it)."""
        assert self.premature_double is not None and self._game is not None and self.on_roll is not None
        doubler, value = self.premature_double
        p = event.player
        if isinstance(event, CubeTaken):
            self.premature_answer = True
            return self._ok(event, f"{self._name(p).lower()} takes the early double to {value}; it counts when his turn ends")
        if isinstance(event, CubeDropped):
            # a pass concedes the game at once: the play in progress does not matter
            self.premature_double = None
            self._game.actions.append(Double(doubler, value))
            self._game.actions.append(Drop(p))
            self._end_game(doubler, self.cube.value, ResultKind.DROP)
            return self._ok(event, f"{self._name(p).lower()} passes the early double: {self._name(doubler).lower()} wins {self.cube.value}")
        return self._check(event, "a beaver is given after the turn is over, when the double is answered")

    # ------------------------------------------------------------------ resignation and results
    def _resign(self, event: ResignationOffered | ResignationAccepted | ResignationRejected) -> Verdict:
        if self.phase in (Phase.SETUP, Phase.GAME_OVER) or self._game is None:
            return self._check(event, "no game in progress to resign")
        assert self._game is not None
        if isinstance(event, ResignationOffered):
            if event.level not in (1, 2, 3):
                return self._check(event, f"a resignation is of a single, gammon or backgammon, not {event.level}")
            self.resign_offer = (event.player, event.level)
            return self._ok(event, f"{self._name(event.player).lower()} offers to resign {event.level}x")
        if self.resign_offer is None or event.player is self.resign_offer[0]:
            return self._check(event, "no resignation is waiting for this player's answer")
        resigner, level = self.resign_offer
        self.resign_offer = None
        accepted = isinstance(event, ResignationAccepted)
        self._game.actions.append(Resign(resigner, level, accepted))
        if not accepted:
            return self._ok(event, "resignation refused: play on")
        eff = level
        if self.rules.jacoby and self.match.length == 0 and self.cube.centred and self.cube.value == 1:
            eff = 1
        pts = resignation_points(eff, self.cube)
        self._end_game(resigner.opponent, pts, ResultKind.RESIGN)
        return self._ok(event, f"{self._name(resigner).lower()} resigns: {self._name(resigner.opponent).lower()} wins {pts}")

    def _end_game(self, winner: Side, points: int, kind: ResultKind) -> None:
        assert self._game is not None
        self._game.result = GameResult(winner, points, kind)
        self.match = self.match.after(winner, points, crawford_rule=self.rules.crawford)
        self.phase = Phase.GAME_OVER
        self.pending = None
        self.premature = None
        self.premature_double = None
        self.premature_answer = None
        self.setup_fault = None

    def _close_game(self) -> None:
        if self._game is not None:
            self.games.append(self._game_record(self._game))
            self._game = None

    def _game_record(self, g: _Game) -> GameRecord:
        return GameRecord(g.number, g.score, tuple(g.actions), g.result, g.crawford, g.start,
                          infractions=tuple(g.infractions), amendments=tuple(g.amendments))

    def _result(self, event: ResultClaimed) -> Verdict:
        if self.phase is not Phase.GAME_OVER or self._game is None or self._game.result is None:
            return self._check(event, "a result was announced but the game is not over on the board")
        r = self._game.result
        # a match's last game may be written with only the points needed to win it, or
        # capped at the match length (as BackgammonGalaxy writes it)
        ok_points = {r.points}
        if self.match.over:
            ok_points |= {min(r.points, self.match.length - self._game.score[r.winner]), min(r.points, self.match.length)}
        winner_ok = r.winner is event.winner and event.points in ok_points
        match_ok = event.match_over == self.match.over
        if winner_ok and match_ok:
            if self.match.over:
                self._close_game()
                self.phase = Phase.MATCH_OVER
            return self._ok(event, f"result confirmed: {self._name(r.winner).lower()} wins {r.points} ({r.kind.value})")
        what = f"{self._name(r.winner)} wins {r.points} ({r.kind.value}, cube {self.cube.value})"
        if not match_ok:
            what += "; the match is " + ("over" if self.match.over else "not over")
        return self._infraction(
            event, Infraction.WRONG_RESULT, None, Remedy.CORRECT_RESULT,
            f"The result that follows from the board and the cube: {what}. Please correct the score.",
            "Result does not match the board and cube: correct the score",
            f"claimed {self._name(event.winner).lower()} +{event.points} (match over: {event.match_over}); board says {what}",
        )


def _who_moved(before: Position, after: Position, default: Side | None) -> Side | None:
    moved = [s for s in Side if before.counts(s)[1:25] != after.counts(s)[1:25] or before.counts(s)[BAR] != after.counts(s)[BAR]]
    # a hit moves the other side's checker too: the mover is the one whose checkers left a point it owned
    if len(moved) == 1:
        return moved[0]
    return default


def _describe(event: Event) -> str:
    return type(event).__name__


__all__ = ["BoardMachine", "Phase", "cached_legal_plays", "changed_points", "diff_notation", "partial_afters"]
