"""From a stream of :class:`BoardObservation` to the events the laws machine judges.

The tracker watches still scenes only.  A scene (checker counts, dice, cube) is *accepted*
when it has been read the same way on ``settle_frames`` still, uncovered observations in a
row; each accepted scene is compared with the previous one:

* two new dice settled -> :class:`DiceThrown` (where each rests, seen from the thrower; flat
  or cocked); during the opening, one die per player -> :class:`OpeningDieThrown`;
* new dice while the mover's dice are still down -> :class:`DiceThrown` by the opponent
  (the laws call it premature);
* the mover's dice gone -> the play is complete: the last reading is reconciled with the
  legal plays (below), then :class:`DiceLifted`;
* the checkers changed -> :class:`PositionObserved` (only for a confident reading);
* the cube turned -> :class:`CubeOffered`; moved to the taker's side -> :class:`CubeTaken`;
  turned again on the taker's side -> :class:`CubeBeavered`; back in the middle at 64 or a new
  game set up -> :class:`CubeDropped`;
* the full set of 30 checkers standing in a starting array -> :class:`GameSetUp`.

Reconciling a reading with the rules (:func:`reconcile`): a confident reading is passed on as
it is, so a position that no legal play reaches is judged illegal by the laws; an unsure
reading is resolved to the likeliest legal play that agrees with every region read with
confidence, and marked unsure (the referee asks the players to check, it never accuses); when
no legal play agrees, the event goes out with ``uncertain=True`` and the laws answer "check".

The tracker's whole state is a frozen :class:`TrackerState` that round-trips through JSON,
so the journal can restore it exactly (``bgref run --resume``).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from referee.judge import (
    ROLLS,
    Judgement,
    JudgementKind,
    LikelihoodConfig,
    board_logp,
    calibrated,
    doubt_of,
    face_off_rolls,
    fits_board,
    illegal_boards,
    judge_play,
    judge_throw,
    judge_unread,
    region_logp,
)
from rules.dice import Dice
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
    PlayAmended,
    PositionObserved,
    Rest,
)
from rules.moves import LegalPlays, Play, legal_plays
from rules.position import BAR, OFF, Position, PositionError, Side
from vision.geometry import Area
from vision.observation import BoardObservation, CountReading, CubePosition, DieReading

__all__ = [
    "Emitted",
    "Phase",
    "Reconciled",
    "Tracker",
    "TrackerConfig",
    "TrackerState",
    "reconcile",
]


@dataclass(frozen=True, slots=True)
class TrackerConfig:
    """Every threshold of the tracker in one place."""

    settle_frames: int = 2  # identical still readings before a scene is accepted
    count_confidence: float = 0.9  # a region read at least this sure counts as confident
    face_confidence: float = 0.9  # a die face read at least this sure
    cocked_confidence: float = 0.9  # flat/cocked decided at least this sure
    # real vision: a throw seen as a single die read lying on the other (the one beneath hidden), on a die
    # and cocked at least this sure, is called (dice-on-die); below it, the throw is inferred as usual.
    # Chosen on the recordings of 7216-7225 (h5, s5): 24 such frames, every one on a die; with the older
    # models (r3) a die read on a die was wrong only with both dice in sight.
    on_die_confidence: float = 0.999
    # real vision: a die read cocked (not on the other die) at least this sure, lying in its thrower's right-hand
    # table or leaning on the rail or an edge, is called (the throw is void) when whose throw it is is settled.
    # Chosen on the seen recordings 7216-7261 (h5, s5f-h): the reader read a flat die cocked off the other
    # die in 1 scene, at most 0.9924 (7218); 10 of 14 staged cocked dice so read reached 0.995 (0.9964-0.9998)
    call_cocked_confidence: float = 0.995
    # ... or at least this sure when the other die of the throw is read lying flat (at ``cocked_confidence``).
    # Session 13's pose head reads staged cocked dice 0.97-0.995 off the other die.  In the scenes the call was
    # weighed on in the seen games 7394-7405, 7430-7441, 7466-7477 and 7478-7585, 50 dice were read cocked at
    # >= 0.965 where the laws call a die cocked: 42 cocked dice (8 beside a die read flat), 8 not -- none of those
    # beside a die read flat (4 alone; 7434 s12c frame 3527, a flat die read cocked at 0.9898 beside a die whose
    # flat/cocked was unread at 0.9957, rules out counting such a die; 7513, 7520 0.9883, 0.9714 beside 0.75, 0.90;
    # 7400 a phantom at 0.9942 beside 0.81).  A bare 0.97 would have called 7520 (a wrong name)
    call_cocked_paired_confidence: float = 0.97
    # ... and only when some die of the throw shows its face read (``face_confidence``): the reader drops the face of
    # a die it reads cocked, so a call on a throw with every face unread rests on that one pose reading alone.
    # 7603 s15f frame 3277: Black's 2-2 lay flat, one die read cocked at 0.9994, the other's face and flat/cocked
    # unread (0.977): a false alarm.  In every scene the call was made on in the seven seen sets (24 calls) no die
    # read cocked had its face read; the other die's face was unread in 3: 7603 (flat), 7604 s15f frame 1460 (cocked,
    # 0.9991 beside 0.9346) and 7494 s12f frame 261 (cocked, 0.9957 beside 0.9939) -- not told apart by any bar
    cocked_call_needs_face: bool = True
    # real vision: a die at the mover's lift in his own table, showing a face none of his shows, this far from every
    # place his dice lay, is no die of his pushed aside by the hand (Tracker._pushed_aside); 0 turns it off
    pushed_aside_mm: float = 40.0
    # real vision: dice lying in the opponent's right-hand table are not called wrong-table when they land, when
    # the throws leaving the player on roll no play (on the bar, blocked) are at least this likely: his whole
    # turn (the throw missed, no checker moved) may have passed unseen and the dice be the opponent's.  They are
    # held until lifted (Tracker._held_throw): called if nothing was played with them, else asked.  Chosen on
    # 7370-7393 (s9a): the false alarm (7374) came at 16/36.  1/36 (any dance possible) was tried in session 10:
    # the throws it holds too are seldom told by the looks after the lift (fourteen seen sets: -25 on nine of them)
    unseen_pass_chance: float = 4 / 36
    boundary_margin_mm: float = 3.0  # a die nearer than this to an area boundary: unsure where it lies
    same_die_mm: float = 10.0  # a die within this distance of where it lay is the same die
    # Which long side's right-hand table each area is, for dice with no owner colour:
    # the NEAR seat's right-hand table is Area.RIGHT_TABLE (vision.geometry's convention).
    white_right_table: Area = Area.RIGHT_TABLE
    # Real vision (``referee.rendered.RealVision``; docs/referee_vision.md) reads dice faces, places
    # and flat/cocked with gaps: a die missed, a face or flat/cocked unread.  These make the tracker
    # resolve such throws instead of waiting for a perfect reading:
    unknown_cocked_is_flat: bool = False  # flat/cocked undecided (None): take it as flat, never ask
    lift_needs_all: bool = False  # the play ends when every one of the mover's dice is gone (not either)
    same_die_by_place: bool = False  # a die where a mover's die lay is that die, whatever face is read
    setup_min_sure: int = 12  # an unsure set-up needs this many of the 24 points read with confidence
    infer_missed_dice: bool = False  # a throw with a die missed or a face unread: infer the roll from the play
    cube_confidence: float = 0.0  # a cube whose place is read less sure than this is taken as unread
    # a face read at least this sure is never taken as misread (tuning r3, distinct dice: 0 wrong of 554
    # read at >= 0.995, 8 wrong of 523 below, up to 0.9943); below it, an illegal play that one misread
    # face would make legal is asked about, not called (referee.judge.LikelihoodConfig.one_face_guard)
    call_face_confidence: float = 0.995
    # Judge plays by likelihood over the legal plays and the named illegal ones (referee.judge); None:
    # the single-reading rules (a confident reading as it is, an unsure one to the nearest legal play)
    judge: LikelihoodConfig | None = None

    @classmethod
    def for_real_vision(cls, white_seat: str, count_confidence: float = 0.99, **kw: Any) -> TrackerConfig:
        """The config for the real reader: its own count threshold; one reading settles a scene (the
        reader reads only after its gate saw the scene still); dice matched by place; a play ends
        when all the mover's dice are gone (a die missed in one reading is not a lift)."""
        # the reader's gate already waits for a still scene before it reads: one reading is settled
        kw.setdefault("settle_frames", 1)
        kw.setdefault("cube_confidence", 0.9)
        kw.setdefault("judge", LikelihoodConfig())
        return cls.for_seating(white_seat, count_confidence=count_confidence, lift_needs_all=True,
                               same_die_by_place=True, infer_missed_dice=True, unknown_cocked_is_flat=True, **kw)

    @classmethod
    def for_seating(cls, white_seat: str, **kw: Any) -> TrackerConfig:
        """Config for WHITE sitting at the ``"near"`` or ``"far"`` long side (vision.geometry.Seating)."""
        if white_seat not in ("near", "far"):
            raise ValueError(f"white's seat must be 'near' or 'far', got {white_seat!r}")
        return cls(white_right_table=Area.RIGHT_TABLE if white_seat == "near" else Area.LEFT_TABLE, **kw)


class Phase(Enum):
    SETUP = "setup"  # waiting for the checkers to be set up
    OPENING = "opening"  # waiting for the opening throw
    TO_THROW = "to_throw"  # the side on turn is to throw (or double)
    PLAYING = "playing"  # the mover's dice are down: his play is in progress
    VOID_THROW = "void_throw"  # dice down that must be thrown again (cocked, misplaced)
    GAME_OVER = "game_over"


Board = tuple[tuple[int, int], ...]  # 27 (white, black): absolute points 1..24, bar, trays (W, B)


@dataclass(frozen=True, slots=True)
class SeenDie:
    face: int | None
    sure: bool
    flat: bool
    area: str
    on_die: bool
    x: float
    y: float
    owner: Side | None
    edge: bool = False  # within the boundary margin of another area
    face_sure: bool = False  # the face was read with confidence
    face_conf: float = 0.0  # how sure (the reader's face confidence; 0 when no face was read)
    cocked_conf: float = 0.0  # the reader's flat/cocked confidence when it read the die cocked (else 0)
    flat_conf: float = 0.0  # ... when it read the die flat (else 0: read cocked, or flat/cocked unread)


@dataclass(frozen=True, slots=True)
class Scene:
    """What one still observation shows, reduced to what the tracker compares."""

    board: Board
    confidences: tuple[float, ...]
    sure: bool
    dice: tuple[SeenDie, ...]
    cube: tuple[int | None, str] | None
    readings: tuple[CountReading, ...] = field(default=(), compare=False)  # the 27 regions as read

    def key(self) -> tuple[Any, ...]:
        dice = tuple(sorted((-1 if d.face is None else d.face, d.flat, d.area, d.on_die, round(d.x / 5), round(d.y / 5))
                           for d in self.dice))
        return (self.board, self.sure, dice, self.cube)


@dataclass(frozen=True, slots=True)
class TrackerState:
    phase: Phase = Phase.SETUP
    turn: Side | None = None
    board: Board | None = None  # the last accepted board
    board_sure: bool = True
    start: Board | None = None  # the board when the mover's dice landed (before his play)
    sent: Board | None = None  # the last board sent to the laws as PositionObserved
    dice: tuple[int, int] | None = None
    dice_xy: tuple[tuple[float, float], ...] = ()  # where the mover's dice lie
    other_xy: tuple[tuple[float, float], ...] = ()  # other dice on the board (void or premature)
    other_faces: tuple[int, ...] = ()  # the faces of ``other_xy`` as a premature throw went on record (0: unread)
    # ... each read beyond a misread (``TrackerConfig.call_face_confidence``) then, else 0 (Tracker._take_early_throw)
    other_firm: tuple[int, ...] = ()
    stale_xy: tuple[tuple[float, float], ...] = ()  # dice left lying after a turn (not a new throw)
    # dice read face-unread beside the mover's dice during his play (not his, not an early throw): one still lying
    # there alone, face unread, once he lifted is left lying, not the opponent's throw (Tracker._in_game)
    lying_xy: tuple[tuple[float, float], ...] = ()
    # "dice" read face-unread that still lay where a die was left lying (``stale_xy``) when a throw started, not of
    # it: marks of the board, kept for the game -- a die read face-unread there is never a new throw (Tracker._in_game)
    marks_xy: tuple[tuple[float, float], ...] = ()
    early: bool = False  # the mover's dice are an early (premature) throw, not yet played with
    # one die of an early throw seen (its pair missed) while both of the mover's dice lay in place in his table:
    # (x, y, face) -- its pair read at the lift makes it the opponent's premature throw (Tracker._in_game)
    early_die: tuple[float, float, int] | None = None
    # the opponent's early throw seen whole but a face unread, ``early_die`` read surely: its call waits for the lift
    # (both faces read there: called as ``_early_pair`` calls; still unread: asked, as it was at once before)
    early_wait: bool = False
    guess: bool = False  # the mover's throw was not read fully (``dice`` 0 = unread): inferred from the play
    early_guess: bool = False  # the early dice lying there were not put on record (faces unread)
    # a face of the mover's throw was read only after the dice landed (a die seen late, or its face read
    # during the play): the play is never called illegal on it (7215 r3: a 4 read as 5 mid-play, a wrong name)
    filled: bool = False
    weak: tuple[int, ...] = ()  # faces of the mover's throw read below ``TrackerConfig.call_face_confidence``
    start_sure: bool = True  # the board the play started from was read whole, as the laws have it
    known: bool = True  # the board the laws have (``sent``) was judged sure (likelihood judge)
    # where the board the laws have (``sent``) may be wrong: (region 0-26, white, black, log-odds), each another
    # count that region may hold, as an offset from the laws' count (it moves with the checkers played), and how
    # likely against it: left by a play judged unsure (what its likely alternatives have there, referee.judge
    # Judgement.doubt), a board put in step (what the unsure regions read), an amendment (what was on record).
    # Every scene between plays weighs in (each look at ``LikelihoodConfig.look_weight``); an alternative leaves
    # once ``LikelihoodConfig.doubt_gone`` as likely.  An illegal play is never called when an alternative in doubt
    # could make it legal or name it otherwise (Tracker._in_doubt; 7280 s6g: 43 bar/22 6/2 taken as 41 bar/24
    # 11/7, unsure; sure plays from that board made it look known, and white's legal 54 bar/20 22/18* was called a
    # wrong distance with one checker too many of his on the bar)
    doubt: tuple[tuple[int, int, int, float], ...] = ()
    fix: tuple[Board, tuple[int, int], str] | None = None  # an illegal play called: (start, dice, mover) to correct
    # a lifted play not yet judged surely: (mover, start, dice with 0 = unread); it is judged on every
    # look until the next throw, cube action or game (a correction made meanwhile is what goes on record)
    hold: tuple[str, Board, tuple[int, int]] | None = None
    hold_throw: bool = False  # the held play's throw has not gone to the laws yet (it goes with the play)
    # the last play on record, while the laws may amend it (rules.laws.events.PlayAmended): (mover, the
    # board it started from, the roll on record, the roll was inferred from the play, the board it ended on)
    last: tuple[str, Board, tuple[int, int], bool, Board] | None = None
    cube_law: tuple[int, str] = (64, "middle")  # the cube as the laws have it (face shown, where)
    opening: tuple[tuple[str, int, float, float], ...] = ()  # (side letter, face, x, y) of opening dice
    cube_face: int | None = 64
    cube_where: str = CubePosition.MIDDLE.value
    offer: tuple[str, int] | None = None  # (offerer letter, value) of a pending double
    game: int = 0
    move: int = 0
    seq: int = -1  # the last observation seen
    pending: tuple[Any, ...] | None = None  # the candidate scene's key
    pending_count: int = 0
    # whose throw it is was settled surely: the last play on record (DiceLifted) went to the laws sure and
    # nothing unsure (a throw, a lift, a board) went since; a wrong-table call needs it (7239, 7248 s5g)
    turn_sure: bool = True
    # the mover's throw landed with both dice in his own right-hand table (where his dice lie places the throws)
    landed_home: bool = False
    # the last play on record (``last``) had its throw inferred from it (a face unread) and was judged sure, moving
    # checkers: whose throw is next is settled as by a play read whole (``known`` stays false: its roll was a guess)
    inferred_sure: bool = False
    # a throw seen void whose thrower is in doubt (his turn may have passed unseen, or this may be the rethrow
    # of a dance): held until its dice are lifted, then called if no checker moved and the other side had a
    # play with it, else asked (Tracker._held_throw): ((face, rest, flat) per die, why it is in doubt)
    held: tuple[tuple[tuple[int, str, bool], ...], str] | None = None

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        return {
            "phase": self.phase.value,
            "turn": None if self.turn is None else self.turn.letter,
            "board": _board_json(self.board),
            "board_sure": self.board_sure,
            "start": _board_json(self.start),
            "sent": _board_json(self.sent),
            "dice": None if self.dice is None else list(self.dice),
            "dice_xy": [list(p) for p in self.dice_xy],
            "other_xy": [list(p) for p in self.other_xy],
            "other_faces": list(self.other_faces),
            "other_firm": list(self.other_firm),
            "stale_xy": [list(p) for p in self.stale_xy],
            "lying_xy": [list(p) for p in self.lying_xy],
            "marks_xy": [list(p) for p in self.marks_xy],
            "early": self.early,
            "early_die": None if self.early_die is None else list(self.early_die),
            "early_wait": self.early_wait,
            "guess": self.guess,
            "early_guess": self.early_guess,
            "filled": self.filled,
            "weak": list(self.weak),
            "start_sure": self.start_sure,
            "known": self.known,
            "doubt": [list(x) for x in self.doubt],
            "fix": None if self.fix is None else [_board_json(self.fix[0]), list(self.fix[1]), self.fix[2]],
            "hold": None if self.hold is None else [self.hold[0], _board_json(self.hold[1]), list(self.hold[2])],
            "hold_throw": self.hold_throw,
            "last": None if self.last is None else [self.last[0], _board_json(self.last[1]), list(self.last[2]),
                                                    self.last[3], _board_json(self.last[4])],
            "cube_law": list(self.cube_law),
            "opening": [list(o) for o in self.opening],
            "cube_face": self.cube_face,
            "cube_where": self.cube_where,
            "offer": None if self.offer is None else list(self.offer),
            "game": self.game,
            "move": self.move,
            "seq": self.seq,
            "pending": _listify(self.pending),
            "pending_count": self.pending_count,
            "turn_sure": self.turn_sure,
            "landed_home": self.landed_home,
            "inferred_sure": self.inferred_sure,
            "held": None if self.held is None else [[list(d) for d in self.held[0]], self.held[1]],
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> TrackerState:
        """The state written by :meth:`to_json`."""
        try:
            return cls(
                phase=Phase(d["phase"]),
                turn=None if d["turn"] is None else _side(d["turn"]),
                board=_board_from(d["board"]),
                board_sure=bool(d["board_sure"]),
                start=_board_from(d["start"]),
                sent=_board_from(d["sent"]),
                dice=None if d["dice"] is None else (int(d["dice"][0]), int(d["dice"][1])),
                dice_xy=tuple((float(x), float(y)) for x, y in d["dice_xy"]),
                other_xy=tuple((float(x), float(y)) for x, y in d["other_xy"]),
                other_faces=tuple(int(f) for f in d.get("other_faces", ())),
                other_firm=tuple(int(f) for f in d.get("other_firm", ())),
                stale_xy=tuple((float(x), float(y)) for x, y in d.get("stale_xy", ())),
                lying_xy=tuple((float(x), float(y)) for x, y in d.get("lying_xy", ())),
                marks_xy=tuple((float(x), float(y)) for x, y in d.get("marks_xy", ())),
                early=bool(d.get("early", False)),
                early_die=_early_die_from(d.get("early_die")),
                early_wait=bool(d.get("early_wait", False)),
                guess=bool(d.get("guess", False)),
                early_guess=bool(d.get("early_guess", False)),
                filled=bool(d.get("filled", False)),
                weak=tuple(int(f) for f in d.get("weak", ())),
                start_sure=bool(d.get("start_sure", True)),
                known=bool(d.get("known", True)),
                doubt=tuple((int(i), int(w), int(b), float(o)) for i, w, b, o in d.get("doubt", ())),
                fix=_fix_from(d.get("fix")),
                hold=_hold_from(d.get("hold")),
                hold_throw=bool(d.get("hold_throw", False)),
                last=_last_from(d.get("last")),
                cube_law=(int(d.get("cube_law", (64, "middle"))[0]), str(d.get("cube_law", (64, "middle"))[1])),
                opening=tuple((str(s), int(f), float(x), float(y)) for s, f, x, y in d["opening"]),
                cube_face=d["cube_face"],
                cube_where=str(d["cube_where"]),
                offer=None if d["offer"] is None else (str(d["offer"][0]), int(d["offer"][1])),
                game=int(d["game"]),
                move=int(d["move"]),
                seq=int(d["seq"]),
                pending=_tuplify(d.get("pending")),
                pending_count=int(d.get("pending_count", 0)),
                turn_sure=bool(d.get("turn_sure", True)),
                landed_home=bool(d.get("landed_home", False)),
                inferred_sure=bool(d.get("inferred_sure", False)),
                held=_held_from(d.get("held")),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"cannot restore the tracker state from {d!r}: {exc}") from exc


def _listify(v: Any) -> Any:
    if isinstance(v, tuple):
        return [_listify(x) for x in v]
    return v


def _tuplify(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_tuplify(x) for x in v)
    return v


def _fix_from(v: Any) -> tuple[Board, tuple[int, int], str] | None:
    if v is None:
        return None
    b = _board_from(v[0])
    assert b is not None
    return b, (int(v[1][0]), int(v[1][1])), str(v[2])


def _early_die_from(v: Any) -> tuple[float, float, int] | None:
    if v is None:
        return None
    x, y, face = v
    return float(x), float(y), int(face)


def _hold_from(v: Any) -> tuple[str, Board, tuple[int, int]] | None:
    if v is None:
        return None
    b = _board_from(v[1])
    assert b is not None
    return str(v[0]), b, (int(v[2][0]), int(v[2][1]))


def _held_from(v: Any) -> tuple[tuple[tuple[int, str, bool], ...], str] | None:
    if v is None:
        return None
    return tuple((int(f), Rest(str(r)).value, bool(fl)) for f, r, fl in v[0]), str(v[1])  # (a rest it names)


def _last_from(v: Any) -> tuple[str, Board, tuple[int, int], bool, Board] | None:
    if v is None:
        return None
    b, e = _board_from(v[1]), _board_from(v[4])
    assert b is not None and e is not None
    return str(v[0]), b, (int(v[2][0]), int(v[2][1])), bool(v[3]), e


def _side(letter: str) -> Side:
    if letter == "W":
        return Side.WHITE
    if letter == "B":
        return Side.BLACK
    raise ValueError(f"side must be 'W' or 'B', got {letter!r}")


def _board_json(b: Board | None) -> list[list[int]] | None:
    return None if b is None else [list(x) for x in b]


def _board_from(v: Any) -> Board | None:
    if v is None:
        return None
    if len(v) != 27:
        raise ValueError(f"a board needs 27 regions, got {len(v)}")
    return tuple((int(w), int(b)) for w, b in v)


# ---------------------------------------------------------------------- boards and positions
def board_of(position: Position) -> Board:
    """The 27 (white, black) region counts of a position."""
    pts = tuple((position.white[p], position.black[25 - p]) for p in range(1, 25))
    return (*pts, (position.white[BAR], position.black[BAR]), (position.white[OFF], 0), (0, position.black[OFF]))


def position_of(board: Board, turn: Side) -> Position:
    white = [0] * 26
    black = [0] * 26
    for i in range(24):
        white[i + 1] = board[i][0]
        black[24 - i] = board[i][1]
    white[BAR], black[BAR] = board[24]
    white[OFF] = board[25][0]
    black[OFF] = board[26][1]
    return Position(tuple(white), tuple(black), turn)


def _changed_points(a: Board, b: Board) -> tuple[int, ...]:
    return tuple(i + 1 for i in range(24) if a[i] != b[i])


STARTING_BOARD = board_of(Position.initial())


# ---------------------------------------------------------------------- reconciling
class Verdict(Enum):
    EXACT = "exact"  # a confident reading: passed on as it is
    RESOLVED = "resolved"  # unsure reading resolved to the likeliest legal play
    UNCLEAR = "unclear"  # unsure reading that no legal play agrees with: ask to check


@dataclass(frozen=True, slots=True)
class Reconciled:
    verdict: Verdict
    board: Board
    play: Play | None = None
    doubtful: tuple[int, ...] = ()  # absolute points read without confidence (what to check)


def fit_to_reading(board: Board, cand: Board, confidences: Sequence[float],
                   min_confidence: float) -> tuple[bool, float]:
    """How a candidate board fits a reading: (it agrees with every region read with confidence,
    the differences weighted by each region's confidence)."""
    cost = 0.0
    agrees = True
    for i, (seen, want) in enumerate(zip(board, cand, strict=True)):
        diff = abs(seen[0] - want[0]) + abs(seen[1] - want[1])
        if diff and confidences[i] >= min_confidence:
            agrees = False
        cost += diff * (0.05 + confidences[i])
    return agrees, cost


def reconcile(before: Position, dice: Dice | tuple[int, int], board: Board, confidences: Sequence[float],
              *, min_confidence: float = 0.9) -> Reconciled:
    """Match a reading of the board after a throw against the legal plays.

    ``before`` has the mover on roll.  A fully confident reading is returned as it is (EXACT,
    with the legal play it shows, or None: the laws will find it illegal).  Otherwise every
    region read with confidence must agree exactly; among the legal plays that do, the one
    nearest to the reading (differences weighted by confidence) is chosen (RESOLVED).
    """
    doubtful = tuple(i + 1 for i in range(24) if confidences[i] < min_confidence)
    sure = all(c >= min_confidence for c in confidences)
    try:
        plays = legal_plays(before, dice)
    except PositionError:
        return Reconciled(Verdict.EXACT if sure else Verdict.UNCLEAR, board, None, doubtful)
    if sure:
        found = plays.find(position_of(board, before.turn.opponent))
        return Reconciled(Verdict.EXACT, board, found, ())
    best: tuple[float, int, Play] | None = None
    nearest: tuple[float, int, Play] | None = None
    for k, play in enumerate(plays):
        agrees, cost = fit_to_reading(board, board_of(play.after), confidences, min_confidence)
        if agrees and (best is None or (cost, k) < best[:2]):
            best = (cost, k, play)
        if nearest is None or (cost, k) < nearest[:2]:
            nearest = (cost, k, play)
    if best is None:  # the board as read; the nearest legal play beside it
        return Reconciled(Verdict.UNCLEAR, board, nearest[2] if nearest else None, doubtful)
    return Reconciled(Verdict.RESOLVED, board_of(best[2].after), best[2], doubtful)


# ---------------------------------------------------------------------- the tracker
@dataclass(frozen=True, slots=True)
class Emitted:
    """An event for the laws, with what the referee needs beside it."""

    event: Event
    seq: int
    points: tuple[int, ...] = ()  # absolute points involved (what changed, or what to check)
    unsure: bool = False  # resolved from an unsure reading: ask the players to check
    note: str = ""


_RETHROW = "dice picked up to throw again"  # the lift of a void throw (unsure: it may not have been void)
# why a throw seen void is in doubt because its thrower is: held until its dice are lifted (Tracker._held_throw)
_UNSEEN_PASS = "a turn with no play may have passed unseen: whose throw this is is unsure"
_AFTER_DANCE = "right after a dance: this may be its rethrow, whose throw this is is unsure"


def _reading_sure(r: CountReading, cfg: TrackerConfig) -> bool:
    return r.confidence >= cfg.count_confidence


def scene_of(obs: BoardObservation, cfg: TrackerConfig) -> Scene:
    regions = (*obs.points, obs.bar, obs.trays[0], obs.trays[1])
    board = tuple((r.white, r.black) for r in regions)
    conf = tuple(r.confidence for r in regions)
    sure = obs.confident and all(_reading_sure(r, cfg) for r in regions)
    # (real vision: a die read in a tray or off the board with its face unread is no die -- on s12f 7478-7513 and
    # s13f 7514-7549 every one was a mark, 184 die-frames against none real; 7533 s13f frame 452: one in the tray,
    # taken for Black's throw, released White's held play unsure and a wrong double after it was only asked)
    dice = tuple(_seen_die(d, cfg) for d in obs.dice
                 if cfg.judge is None or d.area not in (Area.TRAY, Area.OFF_BOARD)
                 or (d.face is not None and d.face_confidence >= cfg.face_confidence))
    cube = None if obs.cube is None else (obs.cube.face, obs.cube.position.value)
    if cube is not None and obs.cube is not None and obs.cube.position_confidence < cfg.cube_confidence:
        cube = (None, cube[1])  # where it sits is unsure: nothing is judged on it
    return Scene(board, conf, sure, dice, cube, tuple(regions))


def _seen_die(d: DieReading, cfg: TrackerConfig) -> SeenDie:
    """A die as the tracker compares it.

    A die near an area boundary is unsure (which table? on the bar?) -- unless it is surely
    cocked: then the throw is void wherever exactly it rests (every code: rethrow both), and it is
    taken as cocked against that edge from inside the table.
    """
    edge = d.boundary_mm < cfg.boundary_margin_mm
    sure_cocked = d.cocked is True and d.cocked_confidence >= cfg.cocked_confidence
    face_sure = d.face is not None and d.face_confidence >= cfg.face_confidence
    cocked_known = d.cocked is not None and d.cocked_confidence >= cfg.cocked_confidence
    if d.cocked is None and cfg.unknown_cocked_is_flat:
        # the reader cannot tell flat from cocked at all (no cue): take it as flat, the way the
        # players see nearly every die; a cocked die is then missed, never called
        cocked_known = True
    sure = face_sure and cocked_known and (not edge or sure_cocked)
    return SeenDie(d.face, sure, not bool(d.cocked), d.area.value, d.on_die, d.center_mm[0], d.center_mm[1],
                   d.owner, edge, face_sure, d.face_confidence if d.face is not None else 0.0,
                   d.cocked_confidence if d.cocked is True else 0.0, d.cocked_confidence if d.cocked is False else 0.0)


def _roll_of(play: Play) -> tuple[int, int] | None:
    """The throw a play of both dice shows (None when it shows fewer than two different dice)."""
    used = play.dice_used
    if len(used) == 4:
        return used[0], used[0]
    if len(used) == 2:
        return max(used), min(used)
    return None


def _patched(board: Board, sc: Scene, cfg: LikelihoodConfig) -> Board | None:
    """``board`` with the regions ``sc`` reads surely (calibrated ``fit_p``) and differently put as read,
    if that makes a whole board (15 checkers a side, no point shared); None if nothing differs or it does not."""
    if not sc.readings:
        return None
    out = list(board)
    changed = False
    for i, r in enumerate(sc.readings):
        if calibrated(r, cfg) >= cfg.fit_p and (r.white, r.black) != board[i]:
            out[i] = (r.white, r.black)
            changed = True
    if not changed:
        return None
    if not _whole(out):  # the checkers the sure regions gained or lost are where the unsure ones read them
        out = [(r.white, r.black) if (r.white, r.black) != board[i] else board[i] for i, r in enumerate(sc.readings)]
        if not _whole(out):
            return None
    return tuple(out)


PATCH_OPEN_MAX = 12  # regions read otherwise, not surely, that a likeliest patch chooses between (2**12 boards)


def _patched_likeliest(board: Board, sc: Scene, cfg: LikelihoodConfig) -> Board | None:
    """When :func:`_patched` finds no whole board: ``board`` with the regions ``sc`` reads surely put as read and each
    region read otherwise, not surely, either as read or as ``board`` has it -- the whole board of these the regions
    not read surely like best, if every other is at most ``doubt_gone`` as likely (else None: no board stands out).

    7433 s10b frame 1996: the laws' board 8 regions off the game's, 5 read surely otherwise; put as read they make no
    whole board, nor do they with the 4 regions read otherwise at 0; the likeliest whole board is 2 regions off."""
    if not sc.readings:
        return None
    out = list(board)
    opened = []
    for i, r in enumerate(sc.readings):
        if (r.white, r.black) == board[i]:
            continue
        if calibrated(r, cfg) >= cfg.fit_p:
            out[i] = (r.white, r.black)
        else:
            opened.append(i)
    if out == list(board) or len(opened) > PATCH_OPEN_MAX:
        return None
    found: list[tuple[float, Board]] = []
    for pick in itertools.product((False, True), repeat=len(opened)):
        cand = list(out)
        for i, as_read in zip(opened, pick, strict=True):
            if as_read:
                cand[i] = (sc.readings[i].white, sc.readings[i].black)
        if _whole(cand):
            found.append((sum(region_logp(sc.readings[i], cand[i], cfg) for i in opened), tuple(cand)))
    if not found:
        return None
    found.sort(key=lambda x: -x[0])
    if len(found) > 1 and found[1][0] - found[0][0] > math.log(cfg.doubt_gone):
        return None
    return found[0][1]


Doubt = tuple[tuple[int, int, int, float], ...]  # TrackerState.doubt


def doubt_with(doubt: Doubt, board: Board, alternatives: Sequence[tuple[int, int, int, float]]) -> Doubt:
    """``doubt`` with ``alternatives`` ((region, white, black, odds): another count a region of ``board`` may hold,
    and how likely against ``board``'s) added as offsets from ``board``, with their log-odds."""
    out = {(i, w, b): o for i, w, b, o in doubt}
    for i, w, b, odds in alternatives:
        if (w, b) != board[i] and odds > 0:
            key = (i, w - board[i][0], b - board[i][1])
            out[key] = max(out.get(key, -math.inf), math.log(odds))
    return tuple((i, w, b, o) for (i, w, b), o in sorted(out.items()))


def _judged_doubt(doubt: Doubt, j: Judgement, sure: bool) -> Doubt:
    """``doubt`` after the laws were given ``j.board`` on a judgement: unchanged when it was sure, else with what
    the judgement leaves in doubt there (``Judgement.doubt``) added."""
    return doubt if sure else doubt_with(doubt, j.board, j.doubt)


def _weighed(doubt: Doubt, board: Board, sc: Scene, cfg: LikelihoodConfig) -> Doubt:
    """``doubt`` after a scene that shows ``board`` (between plays): each alternative's log-odds against ``board``
    moved by what the scene reads there at ``refute_confidence`` or more (weighted ``look_weight``); those fallen
    below ``doubt_gone`` leave."""
    if not doubt or not sc.readings:
        return doubt
    if any(calibrated(r, cfg) >= cfg.fit_p and (r.white, r.black) != board[i] for i, r in enumerate(sc.readings)):
        return doubt  # checkers read surely where the laws have none: a play under way (its throw unseen), not their board
    out = []
    gone = math.log(cfg.doubt_gone)
    for i, dw, db, lo in doubt:
        r = sc.readings[i]
        have = board[i]
        alt = (have[0] + dw, have[1] + db)
        if min(alt) < 0:
            continue  # (no such count any more: the checkers it was about have moved)
        if r.confidence >= cfg.refute_confidence:  # (a region read at 0 -- a die or the cube on it -- says nothing:
            # its misreads repeat scene after scene; 7274 s6g: point 22 read (0, 2) at 0 in 103 scenes, truly (0, 1))
            lo += cfg.look_weight * (region_logp(r, alt, cfg) - region_logp(r, have, cfg))
        if lo >= gone:
            out.append((i, dw, db, lo))
    return tuple(out)


def _read_otherwise(board: Board, sc: Scene, cfg: LikelihoodConfig) -> tuple[tuple[int, int, int, float], ...]:
    """What ``sc`` reads, not surely, where it differs from ``board``."""
    return tuple((i, r.white, r.black, 1.0) for i, r in enumerate(sc.readings)
                 if calibrated(r, cfg) < cfg.fit_p and (r.white, r.black) != board[i])


def _doubt_now(before: Position, roll: tuple[int, int], chosen: Board, look: Sequence[CountReading],
               cfg: LikelihoodConfig) -> tuple[tuple[int, int, int, float], ...]:
    """What one look leaves in doubt about ``chosen`` (a play of ``roll`` from ``before``): the alternatives the judge
    finds on it, and the board it likes best where that differs from ``chosen`` (at its odds on this look)."""
    j = judge_play(before, roll, [look], cfg, allow_illegal=False)
    if j.board == chosen:
        return j.doubt
    # the look likes another board better: its counts, and the judge's alternatives to it, against ``chosen``
    odds = math.exp(min(board_logp(j.board, [look], cfg) - board_logp(chosen, [look], cfg), 50.0))
    cap = cfg.doubt_max_odds  # (as Judgement.doubt: referee.judge.doubt_of)
    return (*((i, w, b, min(o * odds, cap)) for i, w, b, o in j.doubt),
            *((i, w, b, min(odds, cap)) for i, (w, b) in enumerate(j.board) if (w, b) != chosen[i]))


MAX_REJUDGED = 256  # alternative starting boards an illegal play is re-judged from (more: the region test)


def verdict_in_doubt(before: Position, roll: tuple[int, int], board: Board, label: str, doubt: Doubt) -> bool:
    """Could what is in doubt on ``before`` (the laws' board, ``TrackerState.doubt``) make the illegal play to
    ``board`` (family ``label``) legal, or name it otherwise?  Any count in doubt where the play moves checkers:
    yes.  Otherwise the play is re-judged from every alternative starting board the doubt allows (each
    combination of the counts in doubt, at most one per region, carried to ``board`` unchanged as the play did
    not touch them): the call stands only when every one of them names it the same (same family, same mover),
    so an alternative the verdict does not depend on (a point read at 0 all game, under the cube) blocks nothing
    (s5g: 17 of 20 catches the region test lost were called from a board that matched the game).  Too many
    combinations (``MAX_REJUDGED``): the region test (``_region_in_doubt``)."""
    start = board_of(before)
    by_region: dict[int, list[tuple[int, int]]] = {}
    moved: dict[tuple[int, tuple[int, int]], tuple[int, int]] = {}  # (region, alternative start) -> its end
    for i, dw, db, _ in doubt:
        u = start[i]
        v = (max(0, u[0] + dw), max(0, u[1] + db))
        if v == u:
            continue
        if board[i] != u:  # the illegal board moves checkers here: the same play from the alternative count
            end = (board[i][0] + v[0] - u[0], board[i][1] + v[1] - u[1])
            if min(end) < 0:
                return True  # (no such play from it)
            moved[(i, v)] = end
        if v not in by_region.setdefault(i, []):
            by_region[i].append(v)
    if not by_region:
        return False
    named = _verdict(before.turn, roll, start, board)
    if named is None or named[0] != label:
        return True  # (the judge's own call is named otherwise from the laws' board: not re-judged)
    if math.prod(len(v) + 1 for v in by_region.values()) > MAX_REJUDGED:
        return bool(moved) or _region_in_doubt(before, board, label, by_region)
    for pick in itertools.product(*([None, *v] for v in by_region.values())):
        chosen = [(i, v) for i, v in zip(by_region, pick, strict=True) if v is not None]
        if not chosen:
            continue
        s2, b2 = list(start), list(board)
        for i, v in chosen:
            s2[i], b2[i] = v, moved.get((i, v), v)
        if any(w > 0 and k > 0 for w, k in s2[:24]):
            continue  # both sides on one point: no board a game can reach, the plays since refute it (7257 s5h:
            # BLACK's blot on 4 doubted as two, then hit surely by WHITE)
        # a combination that leaves a side short of 15 (or over) is what is left of an alternative the looks ruled
        # out elsewhere: the checker short is made up on its side's tray (where it names no play otherwise); one
        # over comes off the tray, or when the tray has none, off each region that side holds in turn (every one
        # must name the play the same)
        fills = [(tuple(s2), tuple(b2))]
        for side, tray in ((0, 25), (1, 26)):
            short = 15 - sum(r[side] for r in s2)
            if short == 0:
                continue
            nxt = []
            for a, b in fills:
                if a[tray][side] + short >= 0 and b[tray][side] + short >= 0:
                    nxt.append((_plus(a, tray, side, short), _plus(b, tray, side, short)))
                elif short == -1:
                    nxt += [(_plus(a, r, side, -1), _plus(b, r, side, -1)) for r in range(27)
                            if a[r][side] > 0 and b[r][side] > 0]
            fills = nxt
        possible = [(a, b) for a, b in fills if not any(w > 0 and k > 0 for w, k in a[:24])]
        if fills and not possible:
            continue
        fills = possible
        if not fills or any(_verdict(before.turn, roll, a, b) != named for a, b in fills):
            if not fills and not any((i, v) in moved for i, v in chosen) and \
                    not _region_in_doubt(before, board, label, {i: [v] for i, v in chosen}):
                continue
            return True
    return False


def _taken_back(s: TrackerState) -> TrackerState:
    """``s`` after its throw was judged taken back unplayed (a void throw): the same player throws again.
    "Taken back" is itself a judgement by likelihood (never sure): the play may have been made and read unsure,
    so whose throw is next is not settled (``turn_sure`` off) -- the next throw's table is asked, never called,
    until a sure play settles it (7297 s7a: black's 21 lifted early, his play read only at confidence <= 0.5,
    taken back; white's next throw, in white's table, called wrong-table on black; 7305 s7a: white's
    wrong-colour play taken back, black's throw called wrong-table)."""
    return replace(s, dice=None, dice_xy=(), guess=False, phase=Phase.TO_THROW, move=s.move - 1, turn_sure=False)


def board_alternatives(was: Board, now: Board) -> tuple[tuple[int, int, int, float], ...]:
    """What ``was`` has where it differs from ``now``, as alternatives of odds 1 to add to the doubt about
    ``now`` (:func:`doubt_with`): a board put in step, amended or refused by the laws may be the one it was."""
    return tuple((i, w, b, 1.0) for i, (w, b) in enumerate(was) if (w, b) != now[i])


def _plus(board: Board, i: int, side: int, n: int) -> Board:
    """``board`` with ``n`` more of ``side``'s checkers (0 white, 1 black) on region ``i``."""
    w, b = board[i]
    return (*board[:i], (w + n, b) if side == 0 else (w, b + n), *board[i + 1:])


def _verdict(turn: Side, roll: tuple[int, int], start: Board, board: Board) -> tuple[str, bool] | None:
    """How the play from ``start`` (``turn`` on roll) to ``board`` is named: its illegal family (the judge's
    ``illegal_boards``) and whether the laws take it for a play left incomplete; None: legal, or no named family."""
    try:
        before = position_of(start, turn)
    except (PositionError, ValueError):
        return None
    if _play_to(before, roll, board) is not None:
        return None
    label = illegal_boards(before, Dice(*roll), _plays(before, roll)).get(board)
    if label is None:
        return None
    return label, _named_otherwise(before, roll, board, label)


def _region_in_doubt(before: Position, board: Board, label: str, alts: dict[int, list[tuple[int, int]]]) -> bool:
    """The region test (session 7, e6f989b): a count in doubt on the mover's bar; a point in doubt whether the
    mover has a checker there, or whether the opponent holds it (two or more) or has a blot there; a tray in
    doubt when a checker went off."""
    m = 0 if before.turn is Side.WHITE else 1
    start = board_of(before)
    for i, vs in alts.items():
        u = start[i]
        for v in vs:
            if i == 24 and u[m] != v[m]:
                return True
            if i >= 25 and label in ("bear_off", "hit_not_to_bar"):
                return True
            if i < 24 and ((u[m] > 0) != (v[m] > 0) or min(u[1 - m], 2) != min(v[1 - m], 2)):
                return True
    return False


def _moved(before: Sequence[CountReading], after: Sequence[CountReading], cfg: LikelihoodConfig) -> bool:
    """Checkers moved between two looks: a region read surely (calibrated ``fit_p``) in one is read otherwise, at the
    reader's ``refute_confidence`` or more, in the other."""
    return any((a.white, a.black) != (b.white, b.black)
               and min(a.confidence, b.confidence) >= cfg.refute_confidence
               and max(calibrated(a, cfg), calibrated(b, cfg)) >= cfg.fit_p
               for a, b in zip(before, after, strict=True))


def _whole(board: Sequence[tuple[int, int]]) -> bool:
    """15 checkers a side, no point shared."""
    return (sum(w for w, _ in board) == 15 and sum(b for _, b in board) == 15
            and not any(w and b for w, b in board[:25]))


def _within(xy: tuple[float, float], places: Sequence[tuple[float, float]], mm: float) -> bool:
    return any(math.hypot(xy[0] - x, xy[1] - y) <= mm for x, y in places)


def _near(d: SeenDie, places: Sequence[tuple[float, float]], mm: float) -> bool:
    return _within((d.x, d.y), places, mm)


def _nearest(d: SeenDie, places: Sequence[tuple[float, float]]) -> int:
    """The index of the place of ``places`` nearest ``d``."""
    return min(range(len(places)), key=lambda i: math.hypot(d.x - places[i][0], d.y - places[i][1]))


def _near_any(xy: tuple[float, float], dice: Sequence[SeenDie], mm: float) -> bool:
    return any(_near(d, [xy], mm) for d in dice)


class Tracker:
    """Feeds on observations, returns events.  ``state`` is a frozen value (journal it, restore it)."""

    def __init__(self, config: TrackerConfig | None = None, state: TrackerState | None = None) -> None:
        self.config = config or TrackerConfig()
        self.state = state or TrackerState()
        self._again = False
        self._turn_kept = False  # a play just released left whose turn it is settled (for the cube: Tracker._cube)
        self._looks: list[tuple[CountReading, ...]] = []  # the looks at a held play's board (not journalled)
        self._moved_on = False  # the looks are of a board the checkers reached after the lift, not the lifted one
        # where dice lay in the observation before this one (still, uncovered; else none): an opening die
        # is taken once it lies where it lay (it rests), never while it still rolls (not journalled)
        self._dice_before: tuple[tuple[float, float], ...] = ()
        self._dice_now: tuple[tuple[float, float], ...] = ()
        self._last: Scene | None = None  # the last scene accepted: a play in progress at the end is judged on it

    # ------------------------------------------------------------------ seats and tables
    def _right_table(self, side: Side) -> str:
        white = self.config.white_right_table
        other = Area.LEFT_TABLE if white is Area.RIGHT_TABLE else Area.RIGHT_TABLE
        return (white if side is Side.WHITE else other).value

    def _owner_by_place(self, d: SeenDie) -> Side | None:
        if d.owner is not None:
            return d.owner
        if d.area == self._right_table(Side.WHITE):
            return Side.WHITE
        if d.area == self._right_table(Side.BLACK):
            return Side.BLACK
        return None

    def _rest(self, d: SeenDie, thrower: Side) -> Rest:
        if d.on_die:
            return Rest.ON_DIE
        if not d.flat and (d.area == Area.RAIL.value or d.edge):
            return Rest.RIGHT_TABLE  # leaning against the rail (or an edge) from inside the table: cocked
        if d.area == self._right_table(thrower):
            return Rest.RIGHT_TABLE
        if d.area in (Area.LEFT_TABLE.value, Area.RIGHT_TABLE.value):
            return Rest.LEFT_TABLE
        if d.area == Area.BAR.value:
            return Rest.BAR
        return Rest.OFF_BOARD

    def _cocked_call(self, d: SeenDie, thrower: Side, thrown: Sequence[SeenDie] = ()) -> bool:
        """``d`` read cocked beyond doubt (``call_cocked_confidence``, or ``call_cocked_paired_confidence`` when
        another die of the throw ``thrown`` is read lying flat), not on the other die, where the laws call it a
        cocked die (in the thrower's right-hand table, or leaning on the rail or an edge): never a die in another
        area, which the laws would name otherwise."""
        cfg = self.config
        paired = any(o is not d and o.flat_conf >= cfg.cocked_confidence for o in thrown)
        bar = min(cfg.call_cocked_confidence, cfg.call_cocked_paired_confidence) if paired else cfg.call_cocked_confidence
        if cfg.cocked_call_needs_face and not any(o.face_sure for o in thrown):
            return False  # every face of the throw unread: the call would rest on one pose reading (7603 s15f)
        return (not d.flat and not d.on_die and d.cocked_conf >= bar
                and (d.area in (self._right_table(thrower), Area.RAIL.value) or d.edge))

    def _throw(self, d: SeenDie, thrower: Side) -> DieThrow:
        return DieThrow(d.face if d.face is not None else 1, self._rest(d, thrower), d.flat)

    def set_cube_law(self, face: int, where: str, *, void_offer: bool = False) -> None:
        """The cube as the laws now have it; with ``void_offer`` the pending offer was void."""
        self.state = replace(self.state, cube_law=(face, where), offer=None if void_offer else self.state.offer)

    # ------------------------------------------------------------------ feeding
    def feed(self, obs: BoardObservation) -> list[Emitted]:
        """Take one observation; return the events it completes (usually none)."""
        s = self.state
        if obs.seq <= s.seq:
            return []  # already seen (a resumed replay starts after the last journalled frame)
        self._dice_before = self._dice_now
        self._dice_now = tuple(d.center_mm for d in obs.dice) if obs.still and not obs.covered else ()
        if not obs.still or obs.covered:
            self.state = replace(s, seq=obs.seq, pending=None, pending_count=0)
            return []
        scene = scene_of(obs, self.config)
        key = scene.key()
        count = s.pending_count + 1 if key == s.pending else 1
        self.state = replace(s, seq=obs.seq, pending=key, pending_count=count)
        if count != self.config.settle_frames:
            return []
        self._again = False
        out = self._accept(scene, obs.seq, obs.t)
        self._note_turn(out)
        if self._again:  # part of this scene waits for the laws' answer: accept it again on the next frame
            self.state = replace(self.state, pending=key, pending_count=self.config.settle_frames - 1)
        return out

    def flush(self, t: float = 0.0) -> list[Emitted]:
        """The end of the stream (or of the session): a held play goes on record as it stands, and so does a play whose
        throw was never seen (checkers moved with no die in sight: it ends when the next throw lands, and none will;
        7576 s14f: Black's last play, his 5-1 taken for a void throw and picked up, was left off the record)."""
        s = self.state
        out: list[Emitted] = []
        if (self.config.judge is not None and s.phase is Phase.PLAYING and s.guess and not s.dice_xy
                and s.hold is None and s.start is not None and s.dice is not None and self._last is not None
                and self._confident_change(s.start, self._last)):
            out += self._lifted(self._last, s.seq, t)
            self._note_turn(out)
        if self.state.hold is None:
            return out
        released = self._release(self.state.seq, t)
        self._note_turn(released)
        return out + released

    def _note_turn(self, out: list[Emitted]) -> None:
        """Keep ``turn_sure``: a play on record sent sure settles whose throw is next; anything unsure
        since (a throw taken for void and asked, a play resolved unsure, a board put in step) unsettles it."""
        sure = self.state.turn_sure
        for e in out:
            if isinstance(e.event, (DiceThrown, DiceLifted, PositionObserved, OpeningDieThrown)):
                if e.unsure and e.note == _RETHROW:
                    continue  # the void throw was itself sure (called) or not (asked): that decides
                if e.unsure:
                    sure = False
                elif isinstance(e.event, DiceLifted):
                    sure = True
        if sure != self.state.turn_sure:
            self.state = replace(self.state, turn_sure=sure)

    def _accept(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        out: list[Emitted] = []
        self._turn_kept = False
        if self.state.hold is not None:
            cube = sc.cube is not None and sc.cube[0] is not None and sc.cube[0] != self.state.cube_face
            # (a die left lying, ``stale_xy``, is no throw: 7533 s13f)
            if not [d for d in sc.dice if not _near(d, self.state.stale_xy, self.config.same_die_mm)
                    and not self._marked(d)] and not cube:
                fits, called = self._look(sc, seq, t)
                if fits:
                    self.state = replace(self.state, board=sc.board, board_sure=sc.sure)
                    return out + called
            pre = self.state
            out += self._release(seq, t, sc)
            assert pre.hold is not None
            # a play held only for which legal play it was (its throw read) leaves whose turn it is as the laws have
            # it, whatever the board: a cube action that follows is judged as seen (7274, 7277, 7278 s6g: a staged
            # illegal play corrected, released unsure by the wrong double, asked).  Earlier plays judged unsure
            # (``known`` false) do not unsettle it: which legal play a throw was played as does not change whose
            # turn it is (session 8: nine seen sets +10, 0 false alarms, 0 wrong names)
            self._turn_kept = (bool(out) and cube and pre.fix is None and 0 not in pre.hold[2]
                               and self.state.turn is _side(pre.hold[0]).opponent)
        s = self.state
        if s.phase is Phase.SETUP or s.phase is Phase.GAME_OVER:
            out += self._setup(sc, seq, t)
            if self.state.phase is Phase.OPENING and sc.dice:  # set up, opening dice already down
                out += self._opening(sc, seq, t)
        elif s.phase is Phase.OPENING:
            out += self._opening(sc, seq, t)
        elif s.phase is Phase.PLAYING:  # the dice may be lifted in this scene: that comes before the cube
            out += self._in_game(sc, seq, t)
            self._note_turn(out)  # a play put on record in this scene settles whose turn the cube is in
            if self.state.phase is not Phase.PLAYING:
                out += self._cube(sc, seq, t)
        else:
            out += self._cube(sc, seq, t)
            if self.state.phase is not Phase.GAME_OVER:
                out += self._in_game(sc, seq, t)
        self.state = replace(self.state, board=sc.board, board_sure=sc.sure,
                             cube_face=sc.cube[0] if sc.cube and sc.cube[0] is not None else self.state.cube_face,
                             cube_where=sc.cube[1] if sc.cube else self.state.cube_where)
        self._last = sc
        st = self.state
        if (st.doubt and self.config.judge is not None and st.sent is not None and st.hold is None and st.fix is None
                and st.phase in (Phase.TO_THROW, Phase.VOID_THROW)):
            # between plays the board read is the one the laws have: what is read surely as they have it is so
            self.state = replace(st, doubt=_weighed(st.doubt, st.sent, sc, self.config.judge))
        return out

    # ------------------------------------------------------------------ set-up and opening
    def _setup(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        s = self.state
        out: list[Emitted] = []
        on_board = sum(w + b for w, b in sc.board[:25])
        unsure_points: tuple[int, ...] = ()
        dice_ok = not sc.dice or (self.config.infer_missed_dice and s.phase is Phase.SETUP)
        if not sc.sure and dice_ok:
            # an unsure reading that agrees with the starting array on every region read with
            # confidence (and reads enough points so) is taken as the starting array, marked unsure
            cc = self.config.count_confidence
            sure_points, wrong = setup_agreement(sc.board, sc.confidences, cc)
            if not wrong and sure_points >= self.config.setup_min_sure:
                unsure_points = tuple(i + 1 for i in range(24) if sc.confidences[i] < cc)
                sc = replace(sc, board=STARTING_BOARD)
                on_board = 30
        if not (sc.sure or sc.board == STARTING_BOARD) or on_board != 30 or not dice_ok:
            return out
        if s.offer is not None and s.turn is not None:
            out.append(Emitted(CubeDropped(s.turn.opponent if _side(s.offer[0]) is s.turn else s.turn, t=t), seq))
        pos = position_of(sc.board, Side.WHITE)
        points = _changed_points(STARTING_BOARD, sc.board)
        if unsure_points:
            out.append(Emitted(GameSetUp(pos, t=t), seq, unsure_points, unsure=True,
                               note="unsure reading taken as the starting array: please check these points"))
        else:
            out.append(Emitted(GameSetUp(pos, t=t), seq, points))
        self.state = replace(s, phase=Phase.OPENING, turn=None, start=sc.board, sent=sc.board, dice=None, known=True,
                             fix=None, doubt=(),
                             dice_xy=(), other_xy=(), opening=(), offer=None, game=s.game + 1, move=0, guess=False,
                             marks_xy=())
        return out

    def _opening(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        if self.config.infer_missed_dice:
            return self._opening_inferred(sc, seq, t)
        s = self.state
        out: list[Emitted] = []
        if not sc.dice:
            if s.opening:  # a tie, lifted for the rethrow
                self.state = replace(s, opening=())
            return out
        # an opening die no longer there was lifted (a tie, thrown again): forget it
        known = [k for k in s.opening if any(_near(d, [(k[2], k[3])], self.config.same_die_mm) for d in sc.dice)]
        for d in sc.dice:
            if _near(d, [(x, y) for _, _, x, y in known], self.config.same_die_mm):
                continue
            owner = self._owner_by_place(d)
            if owner is None or d.face is None:
                continue
            if any(side == owner.letter for side, _, _, _ in known):
                continue
            known.append((owner.letter, d.face, d.x, d.y))
            out.append(Emitted(OpeningDieThrown(owner, self._throw(d, owner), t=t, uncertain=not d.sure), seq))
        self.state = replace(s, opening=tuple(known))
        if len(known) == 2:
            faces = {_side(side): face for side, face, _, _ in known}
            w, b = faces[Side.WHITE], faces[Side.BLACK]
            if w != b:
                winner = Side.WHITE if w > b else Side.BLACK
                xy = {_side(side): (x, y) for side, _, x, y in known}
                self.state = replace(self.state, phase=Phase.PLAYING, turn=winner,
                                     dice=(faces[winner], faces[winner.opponent]),
                                     dice_xy=(xy[winner], xy[winner.opponent]), opening=(),
                                     start=self.state.board or sc.board, move=1)
        return out

    def _opening_inferred(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        """The opening throw when dice may be missed or read without a face (real vision).

        A die read with a face, in a player's right-hand table, is that player's opening die (taken
        as lying validly when its place is unsure, and marked so).  When both are read and differ,
        play starts as usual.  Otherwise the opening throw is inferred from the opening play: once
        the checkers have moved and no die is in sight, the opener, the two dice and the play that
        best fit the reading (and the faces read) go to the laws, marked unsure.
        """
        s = self.state
        cfg = self.config
        out: list[Emitted] = []
        start = s.start or STARTING_BOARD
        cc = cfg.count_confidence
        # regions read surely (at the reader's threshold) that differ from the starting array
        changed = sum(c >= cc and seen != want for seen, want, c in zip(sc.board[:25], start[:25], sc.confidences,
                                                                         strict=False))
        moved = changed > 0
        if sc.dice and moved and s.opening and cfg.judge is not None:
            read_by = {side for side, face, _, _ in s.opening if face}
            where = [(x, y) for _, _, x, y in s.opening]
            later = [d for d in sc.dice if not _near(d, where, cfg.same_die_mm)
                     and (o := self._owner_by_place(d)) is not None and o.letter in read_by]
            # every opening die known has been lifted, the checkers have surely moved (two regions changed,
            # read at the reader's threshold) and a die lies elsewhere: the opening was played and that die
            # is a later throw (7251 s5h: white's 4 read, black's opening 3 never; white played and lifted,
            # and black's next 3-1 -- its 1 unread -- was taken for black's opening die)
            if (not later and changed >= 2 and not any(_near(d, where, cfg.same_die_mm) for d in sc.dice)):
                later = list(sc.dice)
            if later:
                # a new die in the table of a player whose opening die is known is a later throw: the
                # opening was played with a die unseen and its dice lifted (7243 s5g: white's 5 never read,
                # black's next 6-4 landed, then white's next 4 was taken for his opening die, a 4-4 tie,
                # and the game never started).  The opening is inferred from the play (unsure), then the
                # throw is taken as the next one.
                out = self._opening_from_play(replace(sc, dice=()), seq, t)
                if self.state.phase is Phase.TO_THROW:
                    out += self._in_game(sc, seq, t)
                return out
        if not sc.dice:
            if moved and (s.opening or (cfg.judge is not None and changed >= 2)):
                # the opening played (with no die of it ever seen, when two regions surely changed): inferred from
                # the play now, before a later throw is taken for opening dice (7368 s8c: neither opening die read,
                # the first dice read were the fifth throw's, taken for the opening; the game ran with whose turn
                # inverted to the end, 0/24 caught)
                return self._opening_from_play(sc, seq, t)
            shown = [face for _, face, _, _ in s.opening]
            if len(shown) == 2 and shown[0] == shown[1] and not moved:  # a tie, lifted for the rethrow
                self.state = replace(s, opening=())
            return out
        # a die read once stays known (it may be missed in one reading); an unread one is forgotten.  A known die
        # not in sight gives way to a new die of the same player's (7228 s5f: a die read at 0.99 in BLACK's table
        # where the renderer had none, then WHITE's opening die in his own: the game ran mirrored as a tie).
        if s.stale_xy:  # a tie's dice, until lifted
            self.state = s = replace(s, stale_xy=tuple(xy for xy in s.stale_xy if _near_any(xy, sc.dice, cfg.same_die_mm)))
        known = [k for k in s.opening if k[1] or any(_near(d, [(k[2], k[3])], cfg.same_die_mm) for d in sc.dice)]
        for d in sc.dice:
            if _near(d, s.stale_xy, cfg.same_die_mm):
                continue
            at = [n for n, (_, _, x, y) in enumerate(known) if _near(d, [(x, y)], cfg.same_die_mm)]
            if at:
                side, face, x, y = known[at[0]]
                if not face and d.face_sure and d.face is not None:  # its face read at last
                    known[at[0]] = (side, d.face, x, y)
                continue
            owner = self._owner_by_place(d)
            if owner is None or any(side == owner.letter and _near_any((x, y), sc.dice, cfg.same_die_mm)
                                    for side, _, x, y in known):
                continue
            if not _near(d, self._dice_before, cfg.same_die_mm):
                # not yet seen lying there: it may still roll; taken when it rests
                self._again = True
                continue
            face = d.face if d.face_sure and d.face is not None else 0
            known = [k for k in known if k[0] != owner.letter] + [(owner.letter, face, d.x, d.y)]
        self.state = replace(s, opening=tuple(known))
        # the opening throw goes to the laws once both dice lie in sight together, both faces read (then a
        # die misread in flight or where none lay never becomes an opening die); a die never read is inferred
        # from the opening play (_opening_from_play)
        here = {_side(side): next(d for d in sc.dice if _near(d, [(x, y)], cfg.same_die_mm))
                for side, face, x, y in known if face and _near_any((x, y), sc.dice, cfg.same_die_mm)}
        if len(here) < 2:
            return out
        faces = {_side(side): face for side, face, _, _ in known}
        for player in (Side.WHITE, Side.BLACK):
            d = here[player]
            throw = self._throw(d, player) if d.sure else DieThrow(faces[player])
            out.append(Emitted(OpeningDieThrown(player, throw, t=t), seq, unsure=not d.sure,
                               note="" if d.sure else "where the die rests is unsure: taken as valid"))
        if faces[Side.WHITE] != faces[Side.BLACK]:
            w, b = faces[Side.WHITE], faces[Side.BLACK]
            winner = Side.WHITE if w > b else Side.BLACK
            xy = {_side(side): (x, y) for side, _, x, y in known}
            self.state = replace(self.state, phase=Phase.PLAYING, turn=winner,
                                 dice=(faces[winner], faces[winner.opponent]),
                                 dice_xy=(xy[winner], xy[winner.opponent]), opening=(), start=start, move=1)
        else:  # a tie: both on record; the dice are lifted for the rethrow (never taken again meanwhile)
            self.state = replace(self.state, opening=(), stale_xy=tuple((x, y) for _, _, x, y in known))
        return out

    def _opening_from_play(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        s = self.state
        start = s.start or STARTING_BOARD
        read = {_side(side): face for side, face, _, _ in s.opening if face}
        if self.config.judge is not None:
            return self._opening_judged(sc, seq, t, start, read)
        best: tuple[float, Side, tuple[int, int], Play] | None = None
        nearest: tuple[float, Side, tuple[int, int], Play] | None = None
        for opener, before, (a, b) in _opening_candidates(start, read):
            fit = _best_fit(before, (a, b), sc.board, sc.confidences, self.config.count_confidence)
            if fit is None:
                continue
            agrees, cost, play = fit
            if agrees and (best is None or cost < best[0]):
                best = (cost, opener, (a, b), play)
            if nearest is None or cost < nearest[0]:
                nearest = (cost, opener, (a, b), play)
        pick = best or nearest
        if pick is None:
            return []
        _, opener, (a, b), play = pick
        doubtful = tuple(i + 1 for i in range(24) if sc.confidences[i] < self.config.count_confidence)
        out: list[Emitted] = []
        for side, v in ((opener, a), (opener.opponent, b)):  # (a die read waits for the pair: _opening_inferred)
            out.append(Emitted(OpeningDieThrown(side, DieThrow(v), t=t), seq, unsure=side not in read,
                               note="" if side in read else f"opening die not read: {v}, inferred from the opening play"))
        note = "the likeliest opening play" if best else "no legal play fits what was read: the nearest is taken"
        out.append(Emitted(PositionObserved(play.after, t=t), seq, doubtful, unsure=True, note=note))
        out.append(Emitted(DiceLifted(opener, t=t), seq))
        self.state = replace(s, phase=Phase.TO_THROW, turn=opener.opponent, dice=None, dice_xy=(), opening=(),
                             start=start, sent=board_of(play.after), move=1, stale_xy=(), guess=False,
                             known=False)
        return out

    def _opening_judged(self, sc: Scene, seq: int, t: float, start: Board, read: dict[Side, int]) -> list[Emitted]:
        """The opening throw inferred from the opening play by likelihood (referee.judge): every opener and
        pair of different dice agreeing with the faces read, every legal play of each; sure when one
        (opener, dice, play) holds ``legal_margin`` of the posterior and agrees with every sure region."""
        cfg = self.config.judge
        assert cfg is not None
        cache: dict[tuple[int, tuple[int, int]], float] = {}
        scored: list[tuple[float, Side, tuple[int, int], Play]] = []
        for opener, before, (a, b) in _opening_candidates(start, read):
            seen: set[Board] = set()
            for play in legal_plays(before, Dice(a, b)):
                board = board_of(play.after)
                if board not in seen:
                    seen.add(board)
                    scored.append((board_logp(board, [sc.readings], cfg, cache), opener, (a, b), play))
        if not scored:
            return []
        top = max(x[0] for x in scored)
        z = sum(math.exp(x[0] - top) for x in scored)
        lp, opener, (a, b), play = max(scored, key=lambda x: x[0])
        post = math.exp(lp - top) / z
        board = board_of(play.after)
        sure = post >= cfg.legal_margin and fits_board(board, [sc.readings], cfg)
        doubt = () if sure else doubt_of(board, [(math.exp(x[0] - top) / z, board_of(x[3].after)) for x in scored],
                                         [sc.readings], cfg)
        doubtful = () if sure else tuple(i + 1 for i in range(24) if sc.board[i] != board[i]
                                         or calibrated(sc.readings[i], cfg) < cfg.fit_p)
        out: list[Emitted] = []
        for side, v in ((opener, a), (opener.opponent, b)):  # (a die read waits for the pair: _opening_inferred)
            out.append(Emitted(OpeningDieThrown(side, DieThrow(v), t=t), seq, unsure=side not in read and not sure,
                               note="" if side in read else
                               f"opening die not read: {v}, inferred from the opening play (p={post:.3f})"))
        out.append(Emitted(PositionObserved(play.after, t=t), seq, doubtful, unsure=not sure,
                           note="" if sure else f"the likeliest opening play (p={post:.3f}): please check"))
        out.append(Emitted(DiceLifted(opener, t=t), seq, unsure=not sure))
        self.state = replace(self.state, phase=Phase.TO_THROW, turn=opener.opponent, dice=None, dice_xy=(),
                             opening=(), start=start, sent=board, move=1, stale_xy=(), guess=False, known=sure,
                             doubt=doubt_with(self.state.doubt, board, doubt))
        return out

    # ------------------------------------------------------------------ the cube
    def _cube(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        held: list[Emitted] = []
        if (self.state.hold is not None and sc.cube is not None and sc.cube[0] is not None
                and sc.cube[0] != self.state.cube_face):
            held = self._release(seq, t, sc)  # the play goes on record before the cube action that follows it
        before = self.state
        out = held + self._cube_events(sc, seq, t)
        st = self.state
        if (self.config.judge is not None and (st.known or self._turn_kept or self._offer_placed(out, before, sc))
                and st.hold is None and st.fix is None and before.cube_law == (before.cube_face, before.cube_where)):
            # every play so far judged sure, and the cube was read where the laws have it: whose turn it
            # is and what the cube shows are as the laws have them -- the action is judged as seen
            return out
        if self.config.infer_missed_dice:
            # real vision: whose turn it is rests on throws that may have been inferred, and a face can
            # be misread: cube actions are applied (the cube's value stays on record) but never called
            out = [replace(e, unsure=True, note=e.note or "cube action read by real vision: not called")
                   for e in out]
        return out

    def _offer_placed(self, out: Sequence[Emitted], before: TrackerState, sc: Scene) -> bool:
        """The one cube action of ``out`` is an offer of a cube the laws have in the middle or on the offerer's side,
        read lying on the taker's side, the offerer being the side whose turn the tracker has: the cube crossed to the
        taker as only that side's offer moves it, so its place bears out whose turn it is,
        so the offer is judged as seen even after plays judged unsure (s13f 7539, 7547; s12f: a wrong value staged
        after an inferred throw, read right on every still frame).  An offer lying on the offerer's own side (whose
        turn it is in doubt) stays unsure."""
        offers = [e for e in out if isinstance(e.event, (CubeOffered, CubeTaken, CubeDropped, CubeBeavered))]
        if len(offers) != 1 or not isinstance(offers[0].event, CubeOffered) or offers[0].unsure:
            return False
        offerer = offers[0].event.player
        owner_ok = before.cube_law[1] in (CubePosition.MIDDLE.value, offerer.name.lower())
        return (before.offer is None and owner_ok and offerer is before.turn and sc.cube is not None
                and sc.cube[1] == offerer.opponent.name.lower()
                and self.state.cube_law == before.cube_law)

    def _cube_events(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        s = self.state
        if sc.cube is None or s.turn is None:
            return []
        face, where = sc.cube
        if face is None:
            return []
        out: list[Emitted] = []
        if s.offer is not None:
            offerer = _side(s.offer[0])
            taker = offerer.opponent
            if face == 64 and where == CubePosition.MIDDLE.value:
                out.append(Emitted(CubeDropped(taker, t=t), seq, note="cube back in the middle"))
                self.state = replace(s, offer=None, phase=Phase.GAME_OVER)
            elif face != s.offer[1] and where == taker.name.lower():
                out.append(Emitted(CubeBeavered(taker, face, t=t), seq))
                self.state = replace(s, offer=None, cube_law=(face, where))
            elif where == taker.name.lower():
                out.append(Emitted(CubeTaken(taker, t=t), seq))
                self.state = replace(s, offer=None, cube_law=(face, where))
            return out
        if (face, where) == s.cube_law:
            return out  # where the laws have it (put back after a void offer, or unchanged)
        if face != s.cube_face and s.cube_face is not None:
            offerer = s.turn
            # an offer puts the cube before the taker: turned and lying on the mover's own side, it was offered to
            # him, so whose turn the tracker has is in doubt -- applied, never called (8: 7366 s8c, black's
            # redouble to 4 pushed to white, read while the tracker had white to move: called not-owned on white)
            toward = offerer.name.lower() == where
            out.append(Emitted(CubeOffered(offerer, face, t=t), seq, unsure=toward,
                               note="the cube offered lies on the offerer's own side: please check" if toward else ""))
            self.state = replace(s, offer=(offerer.letter, face))
        return out

    # ------------------------------------------------------------------ throws and plays
    def _in_game(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        s = self.state
        assert s.turn is not None
        turn = s.turn
        cfg = self.config
        out: list[Emitted] = []
        mover_dice = [d for d in sc.dice if self._is_mover_die(d)] if s.dice_xy else []
        others = [d for d in sc.dice if d not in mover_dice]
        fresh = [d for d in others if not _near(d, s.other_xy, cfg.same_die_mm)
                 and not _near(d, s.stale_xy, cfg.same_die_mm) and not self._marked(d)]
        if cfg.judge is not None and len(fresh) > 2:  # more dice than thrown: the surest two are the dice
            fresh.sort(key=lambda d: -d.face_conf)

        if s.phase is Phase.PLAYING:
            if s.guess and len(s.dice_xy) < 2 and (mover_dice or not s.dice_xy):
                # the mover's own dice seen late (missed when they landed): new dice in his right-hand
                # table are his, never the opponent's throw -- while a die of his seen is still there
                # (7259 s5h: white's 2-4 read as 4 alone, white played and lifted; black's 1-3 thrown into
                # white's table read as 1 alone, and taken for white's second die: a 4-1, and the record
                # left the game at move 3)
                late = [d for d in fresh if self._owner_by_place(d) is turn][:2 - len(s.dice_xy)]
                if late:
                    assert s.dice is not None
                    faces = list(s.dice[:len(s.dice_xy)])  # (an unread face stays 0, in its place)
                    faces += [d.face if d.face_sure and d.face is not None else 0 for d in late]
                    got = (*faces, 0, 0)[:2]
                    self.state = s = replace(s, dice=(got[0], got[1]), filled=True,
                                             dice_xy=s.dice_xy + tuple((d.x, d.y) for d in late))
                    mover_dice += late
                    fresh = [d for d in fresh if d not in late]
            landed = fresh
            if cfg.infer_missed_dice:  # an early throw lands in the thrower's own right-hand table
                fresh = [d for d in fresh if self._owner_by_place(d) is not turn]
            if s.guess and s.dice is not None and len(s.dice_xy) == 2 and 0 in s.dice:
                # a face unread when the dice landed, read now (the same die, where it lay)
                now, weak = self._faces_now(s.dice, s.dice_xy, mover_dice)
                self.state = s = replace(s, dice=now, filled=s.filled or now != s.dice, weak=s.weak + weak)
            if s.weak and s.dice is not None and len(s.dice_xy) == 2:
                firm = self._firmed(s.weak, s.dice, s.dice_xy, mover_dice)
                if firm != s.weak:
                    self.state = s = replace(s, weak=firm)
            if not s.guess:  # a guessed throw goes to the laws with its play, at the end
                out += self._checkers(sc, seq, t)
            lifted = len(mover_dice) < len(s.dice_xy)  # a turn ends when either die is lifted
            if cfg.lift_needs_all:  # ... but a die missed in one reading is not a lift
                lifted = not mover_dice
            if not s.dice_xy:  # a throw not seen at all: its play ends when the next throw lands
                lifted = bool(fresh)
            lying: list[SeenDie] = []
            if cfg.judge is not None and s.dice_xy and not lifted:
                unread = tuple((d.x, d.y) for d in landed if not d.face_sure and not _near(d, s.lying_xy, cfg.same_die_mm))
                if unread:  # (a die beside his, face unread: a throw needs dice that appear, not dice that lay there)
                    self.state = s = replace(s, lying_xy=s.lying_xy + unread)
            elif (cfg.judge is not None and lifted and s.dice_xy and landed
                  and all(not d.face_sure and _near(d, s.lying_xy, cfg.same_die_mm) for d in landed)):
                # the mover lifted and every die in sight, face unread, lay there beside his dice before: left lying,
                # not the opponent's throw (7533 s13f frame 3052: a gap between Black's home checkers read as a die at
                # 3038; taken for White's throw on Black's lift, it closed Black's time to correct his called illegal
                # play, and a later White play was judged against the stale board: a false alarm.  7400 s12r frame
                # 983: two such marks, one read cocked at 0.994, taken together for Black's throw)
                lying = list(landed)
                fresh = [d for d in fresh if d not in lying]
                landed = []
            if not lifted and len(fresh) == 1 and s.early_die is None and self._early_one(fresh[0], mover_dice):
                # one die of the opponent's throw landed while the mover's dice lie in place, its pair missed
                d = fresh[0]
                self.state = s = replace(s, early_die=(d.x, d.y, int(d.face or 0)))
            # ... and its pair read with it once the mover's dice are lifted: that throw came before the lift (7478 s12f
            # frame 183: black's 6-4 in place, white's early 6 read, his 3 missed until black lifted at frame 204)
            wait = (not lifted and len(fresh) >= 2 and cfg.infer_missed_dice and not all(d.face_sure for d in fresh[:2])
                    and (s.early_wait or (s.early_die is None and any(self._early_one(d, mover_dice) for d in fresh[:2]))))
            if wait and not s.early_wait:
                # the opponent's early throw, a face unread, one die read surely: called at the lift if both faces are
                # read there (7559 s14f frame 172: Black's 2-4 while White's 6-2 lay, the 2 unread; both read at 193)
                d = next(d for d in fresh[:2] if self._early_one(d, mover_dice))
                self.state = s = replace(s, early_die=(d.x, d.y, int(d.face or 0)), early_wait=True)
            pair = lifted and self._early_pair(fresh)
            waited = lifted and s.early_wait and len(fresh) >= 2
            if len(fresh) >= 2 and not wait and (not lifted or pair or waited):  # thrown before this play was complete
                if s.guess:  # the mover's throw goes on record first (inferred from the board as it stands)
                    out += self._inferred_play(sc, seq, t)
                    if self.state.dice is None:  # taken back unplayed: these dice are his throw again
                        return out + self._in_game(sc, seq, t)
                    self.state = replace(self.state, guess=False)
                if cfg.infer_missed_dice and not all(d.face_sure for d in fresh[:2]):
                    # faces unread: the early throw cannot be put on record; the players check, and
                    # the early dice are played as an inferred throw (never judged on a guess)
                    ev = DiceThrown(turn.opponent, (DieThrow(fresh[0].face or 1), DieThrow(fresh[1].face or 1)),
                                    t=t, uncertain=True)
                    out.append(Emitted(ev, seq, unsure=True, note="dice thrown early, faces unread: please check"))
                    self.state = replace(self.state, early_guess=True)
                else:
                    early = self._throw_event(turn.opponent, fresh[:2], seq, t)
                    st = self.state
                    # (the mover's dice still there each read, now or where it landed, or his throw landed whole in
                    # his own table: an unread "die" that never leaves may be none -- 7291 s7a: a mark in WHITE's
                    # table read as a die, face never read, taken with a die in BLACK's table for WHITE's throw; his
                    # dice lifted, it stayed, and BLACK's throw was called premature)
                    placed = pair or (all(self._owner_by_place(d) is turn.opponent for d in fresh[:2])
                                      and bool(mover_dice)
                                      and self._in_place(mover_dice, s, turn))
                    if cfg.judge is not None and not placed and not (st.known and st.fix is None):
                        # whose play is in progress rests on plays not judged surely, and the dice do not
                        # show it either (each pair in its thrower's right-hand table): asked, not called
                        early = [replace(e, unsure=True, note="dice thrown early? please check") for e in early]
                    out += early
                self.state = replace(self.state, other_xy=tuple((d.x, d.y) for d in fresh[:2]), early_die=None,
                                     early_wait=False, other_faces=tuple(int(d.face) if d.face_sure and d.face else 0 for d in fresh[:2]),
                                     other_firm=tuple(int(d.face) if d.face_sure and d.face
                                                      and d.face_conf >= cfg.call_face_confidence else 0
                                                      for d in fresh[:2]))
            if lifted and s.early and sc.board == s.start:
                # an early throw lifted untouched: either it stood and could not be played (the turn
                # ends), or the laws voided it (it is thrown again).  The laws know which: the
                # session brings the turn in line with them (Session._sync_tracker).
                out.append(Emitted(DiceLifted(turn, t=t), seq, note="early dice lifted untouched"))
                self.state = replace(self.state, phase=Phase.TO_THROW, dice=None, dice_xy=(), early=False,
                                     stale_xy=tuple((d.x, d.y) for d in mover_dice))
                if fresh:  # the next throw already down: judge it once the turn is known (next still frame)
                    self._again = True
                return out
            if lifted:
                out += self._lifted(sc, seq, t, lying=bool(lying))
                # dice still lying there (the other opening die, the second die, a die left lying) are not a new throw
                self.state = replace(self.state, stale_xy=tuple((d.x, d.y) for d in mover_dice + lying), lying_xy=())
                st = self.state
                his = s.dice
                if st.inferred_sure and st.last is not None and st.last[0] == turn.letter and self._settled(st):
                    his = st.last[2]  # (a face was unread: the roll his play showed surely)
                if len(landed) > len(fresh) and not self._pushed_aside(landed, his, s.dice_xy):
                    # the mover's dice lifted and new dice in his own right-hand table: not his (they lie elsewhere
                    # than his dice lay), so the opponent's throw, in the wrong table (outside table: 7274, 7276,
                    # 7278, 7280-7285 s6g, lost until now: the scene was accepted once and the dice never judged)
                    fresh = landed
                if self.state.phase is Phase.TO_THROW and len(fresh) >= (1 if cfg.infer_missed_dice else 2) \
                        and not self.state.other_xy:
                    self._note_turn(out)  # (the play just put on record settles whose throw this is)
                    out += self._in_game(sc, seq, t)  # lifted and the next throw already down
                elif (cfg.judge is not None and landed and self.state.phase is Phase.TO_THROW and self.state.turn is turn
                      and not self.state.other_xy and any(d.face_sure for d in landed)
                      and not any(_near(d, s.dice_xy, cfg.same_die_mm) for d in landed)):
                    # his throw taken back unplayed, and dice lie in his own table now, elsewhere than his dice lay, a
                    # face read: his throw again, judged now (the scene is accepted once: 7482 s12f frame 139 -- a die
                    # read off the board where none lay, face unread, taken for White's throw; gone, taken back; his 4-3
                    # read right on 139-151 never went on record, and his play was "the board changed with no play on
                    # record")
                    out += self._in_game(sc, seq, t)
            return out

        if s.phase is Phase.VOID_THROW:
            if not mover_dice:  # picked up for the rethrow
                told = self._held_throw(sc, seq, t, final=any(not _near(d, s.other_xy, cfg.same_die_mm) for d in sc.dice))
                if told is None:  # whose throw it was is not told yet: the next look may tell
                    return out
                out += told
                # (real vision: the void throw may not have been one -- never an accusation on its lift)
                out.append(Emitted(DiceLifted(turn, t=t), seq, unsure=cfg.judge is not None,
                                   note=_RETHROW))
                self.state = replace(self.state, phase=Phase.TO_THROW, dice=None, dice_xy=())
                s = self.state
                fresh = [d for d in sc.dice if not _near(d, s.other_xy, cfg.same_die_mm) and not self._marked(d)]
            else:
                return out

        # TO_THROW
        if s.stale_xy:
            still_there = tuple((d.x, d.y) for d in sc.dice if _near(d, s.stale_xy, cfg.same_die_mm))
            if still_there != s.stale_xy:
                self.state = s = replace(s, stale_xy=still_there)
        if cfg.judge is not None and s.fix is not None:
            # an illegal play was called: the board changing now is its correction, judged against the
            # legal plays of that throw; the next throw ends the time for a correction
            out += self._correction(sc, seq, t)
            s = self.state
            if s.fix is not None and not fresh:
                return out
            self.state = s = replace(s, fix=None)
        if cfg.infer_missed_dice and s.sent is not None and not sc.dice and self._confident_change(s.sent, sc):
            # checkers moved and no die in sight: first, is it the last play (re-judged: a correction, or a
            # better look at a board put on record unsure)?
            amended = self._amend(sc.board, seq, t, sc)
            if amended:
                return out + amended
            # else a throw missed altogether (real vision misses dice);
            # its play is inferred when the next throw lands.  Never "moved without a throw" on that.
            self._start_play([], sc, seq, guess=True, start=s.sent)
            return out
        changed = self._confident_change(s.sent, sc) if cfg.infer_missed_dice and s.sent is not None \
            else sc.board != s.sent
        if changed and ((sc.board != s.board and not sc.dice) or len(fresh) >= 2):
            # checkers moved without a throw, or a correction seen only with the next throw down
            out += self._checkers(sc, seq, t)
        thrown = fresh[:2] if len(fresh) >= 2 else (fresh if cfg.infer_missed_dice else [])
        if thrown:
            if s.offer is not None:
                out.append(Emitted(CubeTaken(_side(s.offer[0]).opponent, t=t), seq, note="taken by playing on"))
                self.state = replace(self.state, offer=None, cube_law=(s.offer[1], _side(s.offer[0]).opponent.name.lower()))
            if (cfg.judge is not None and len(sc.dice) == 1 and len(thrown) == 1 and thrown[0].on_die
                    and not thrown[0].flat and thrown[0].cocked_conf >= cfg.on_die_confidence and thrown[0].face_sure
                    and not thrown[0].edge and s.known and s.hold is None and s.fix is None and s.offer is None):
                # one die read surely lying on the other (hidden beneath it): a void throw, called
                d = thrown[0]
                face = d.face or 1
                on = DieThrow(face, Rest.ON_DIE, False)
                out.append(Emitted(DiceThrown(turn, (on, on), t=t), seq,
                                   note="one die read lying on the other (the die beneath unread)"))
                self.state = replace(self.state, phase=Phase.VOID_THROW, dice_xy=((d.x, d.y),), held=None)
                return out
            cocked = [d for d in thrown if self._cocked_call(d, turn, thrown)]
            flat = [d for d in thrown if not cocked or d is not cocked[0]]
            # whose throw it is: settled by the turns on record, or shown by the other die lying flat in the
            # right-hand table of the player on roll (the cocked die in it too, or leaning on the rail or an edge)
            placed = (len(flat) == 1 and flat[0].flat and not flat[0].edge and not flat[0].on_die
                      and flat[0].area == self._right_table(turn))
            lone = thrown[0] if len(thrown) == 1 and len(sc.dice) == 1 else None
            if (cfg.judge is not None and lone is not None and not lone.flat
                    and lone.cocked_conf >= cfg.cocked_confidence and not lone.on_die):
                # a die read cocked alone (no other die in sight): neither called nor taken for a throw, left lying --
                # a mark of the board read as a die (7527 s13f frame 2355: a speckle beside the bar read as a die,
                # cocked at 0.998, where no die lay: called, a false alarm; 7533 frame 640, at 0.974, taken for Black's
                # throw).  On s12f, s13f and s12r no die read cocked alone on a still frame was a cocked die (169 die-
                # frames: marks, or flat dice); a real one is thrown again, and a die missed with it is no play to infer
                self.state = replace(self.state, stale_xy=(*self.state.stale_xy, (lone.x, lone.y)))
                return out
            if (cfg.judge is not None and cocked and (s.turn_sure or placed) and s.fix is None
                    and s.offer is None):
                # a die read cocked beyond doubt, where the laws name it cocked, in a throw whose thrower is
                # settled: the throw is void (both dice thrown again); the other die's face does not matter
                other = (DieThrow(flat[0].face or 1, self._rest(flat[0], turn), flat[0].flat) if flat
                         else DieThrow(cocked[0].face or 1))
                out.append(Emitted(DiceThrown(turn, (other, DieThrow(cocked[0].face or 1, Rest.RIGHT_TABLE, False)),
                                              t=t), seq,
                                   note=f"a die read cocked (confidence {cocked[0].cocked_conf:.4f})"))
                self.state = replace(self.state, phase=Phase.VOID_THROW, held=None,
                                     dice_xy=tuple((d.x, d.y) for d in thrown))
                return out
            if len(thrown) < 2 or not all(d.face_sure for d in thrown):
                wrong = self._unread_wrong_table(s, sc, thrown, turn, seq, t)
                if wrong is not None:  # (in the wrong table whatever the faces: called, or held until lifted)
                    return out + wrong
                # a die missed or a face unread: the throw is inferred from the play when the dice
                # are lifted (never judged on a guess); seen as lying validly until then
                self._start_play(thrown, sc, seq, guess=True)
                return out
            throw = self._throw_event(turn, thrown, seq, t)
            if all((cfg.infer_missed_dice and not d.sure)
                   or (d.flat and self._rest(d, turn) is Rest.RIGHT_TABLE and not d.on_die) for d in thrown):
                if cfg.judge is not None:
                    # the throw goes to the laws with its play, when the dice are lifted: a throw taken
                    # back unplayed (a void throw the camera could not tell) then never reaches them
                    self._start_play(thrown, sc, seq, guess=True)
                else:
                    out += throw
                    self._start_play(thrown, sc, seq)
            else:
                doubt = self._void_throw_doubt(s, sc, thrown, turn)
                held = None
                if doubt in (_UNSEEN_PASS, _AFTER_DANCE):
                    # whose throw this is is in doubt: what follows tells (Tracker._held_throw)
                    void = throw[0].event
                    assert isinstance(void, DiceThrown)
                    held = (tuple((d.value, d.rest.value, d.flat) for d in void.dice), doubt)
                else:
                    if doubt is not None:
                        throw = [replace(e, unsure=True, note=doubt) for e in throw]
                    out += throw
                self.state = replace(self.state, phase=Phase.VOID_THROW, held=held,
                                     dice_xy=tuple((d.x, d.y) for d in thrown))
        return out

    def _held_throw(self, sc: Scene, seq: int, t: float, *, final: bool) -> list[Emitted] | None:
        """The held void throw (``TrackerState.held``), its dice lifted, in scene ``sc``: called when the other
        side, whose throw it may have been, had a legal play with it (his, he would have played it) and the board
        shows none of them played: nothing read with confidence differs from the board the laws have, and that
        board is at least ``LikelihoodConfig.illegal_margin`` likely against every board he could have left with
        it, legal or not (the likeliest of them, at even odds; 7287 s7a: Black's one-die play, two regions read
        unsure, was likelier than none of his legal plays and made a wrong name).  Asked when a region read with confidence moved, when he had no
        play, or (``final``: new dice are down) when the board does not tell yet; else None: the next look decides
        (the hand lifting the dice may hide points)."""
        s = self.state
        judge = self.config.judge
        if s.held is None or s.turn is None or s.sent is None or judge is None:
            return []
        # (a face unread, 0: every face it may show -- ``_unread_wrong_table``)
        dice = tuple(DieThrow(f or 1, Rest(r), fl) for f, r, fl in s.held[0])
        faces = [(f,) if f else tuple(range(1, 7)) for f, _, _ in s.held[0]]
        sent = s.sent
        before = position_of(sent, s.turn.opponent)
        rolls = {(a, b) for a in faces[0] for b in faces[1]}
        every = {r: _plays(before, r) for r in rolls}
        moved = any(_no_play(p) for p in every.values()) or self._confident_change(sent, sc)
        called = False
        if not moved:
            # what he may have played with it, legally or not (a play left incomplete moves little)
            boards = set()
            for r, plays in every.items():
                boards |= {board_of(p.after) for p in plays} | set(illegal_boards(before, Dice(*r), plays))
            boards.discard(sent)
            cache: dict[tuple[int, tuple[int, int]], float] = {}
            still = board_logp(sent, [sc.readings], judge, cache)
            likeliest = max(board_logp(b, [sc.readings], judge, cache) for b in boards)
            called = 1.0 / (1.0 + math.exp(likeliest - still)) >= judge.illegal_margin
        if not (called or moved or final):
            return None
        self.state = replace(s, held=None)
        return [Emitted(DiceThrown(s.turn, (dice[0], dice[1]), t=t), seq, unsure=not called,
                        note=f"{s.held[1]}: the dice were lifted with no checker moved" if called else s.held[1])]

    def _void_throw_doubt(self, s: TrackerState, sc: Scene, thrown: Sequence[SeenDie], turn: Side, *,
                          faces_read: bool = True) -> str | None:
        """Why a throw real vision sees as void (``thrown``, by ``turn`` as the tracker has it, in state ``s``) is
        not called when it lands, or None: it is called.  ``_UNSEEN_PASS`` and ``_AFTER_DANCE`` (whose throw it
        is in doubt) are held until lifted (``_held_throw``); the rest are asked.  Only with
        ``TrackerConfig.infer_missed_dice``."""
        cfg = self.config
        if not cfg.infer_missed_dice:
            return None
        if s.sent is not None and self._confident_change(s.sent, sc):
            # checkers stand where no play on record put them: a turn may have been missed,
            # so whose throw this is (and so which table is his) is unsure: ask, never accuse
            return "the board changed since the last play on record: whose throw this is is unsure"
        in_opponents_table = all(self._owner_by_place(d) is turn.opponent for d in thrown)
        if in_opponents_table and s.sent is not None \
                and pass_chance(position_of(s.sent, turn)) >= cfg.unseen_pass_chance:
            # the dice lie where the opponent throws, and a throw of the player on roll can have no
            # play: his turn (the throw missed, no checker moved) may have passed unseen, so this may
            # be the opponent's throw in his own table: never accused as it lands (7374 s9a: black on the bar
            # danced with a 1-4 never read; white's 3-2 in white's table called wrong-table on black)
            return _UNSEEN_PASS
        if in_opponents_table and s.last is not None and s.last[0] == turn.opponent.letter and s.last[1] == s.last[4]:
            # right after the opponent's dance on record, dice lying wholly in his table may be his
            # rethrow of a void throw the camera could not tell (a die cocked, read flat): never accused as
            # it lands (7396 s9b: black's 3-3 with a die cocked on the rail went on record as a dance; his
            # rethrow in his own table was called wrong-table on white)
            return _AFTER_DANCE
        if not (cfg.judge is not None and self._settled(s) and s.hold is None and s.fix is None and s.turn_sure
                and all(d.sure or not faces_read for d in thrown)
                and all(self._rest(d, turn) in (Rest.RIGHT_TABLE, Rest.LEFT_TABLE) for d in thrown)):
            # (a die read on the bar, the rail or off the board may be a cocked die leaning there:
            # only a throw read lying flat in the wrong table is called)
            # real vision places dice and follows turns too loosely to call a void throw (measured:
            # a wrong-table call during a cocked-die throw in 297 turns): the players check
            return "the throw looks void (where the dice rest): please check"
        return None

    @staticmethod
    def _settled(s: TrackerState) -> bool:
        """The board the laws have was judged sure (``known``), or it is the end of a sure play whose throw was
        inferred from it (``inferred_sure``: checkers moved as only that play explains, so the turn passed), and
        nothing went to the laws since."""
        return s.known or (s.inferred_sure and s.last is not None and s.last[4] == s.sent)

    def _unread_wrong_table(self, s: TrackerState, sc: Scene, thrown: Sequence[SeenDie], turn: Side, seq: int,
                            t: float) -> list[Emitted] | None:
        """A throw with a die missed or a face unread, every die seen lying flat and clear of every boundary in the
        opponent's right-hand table: void whatever its faces (dice-wrong-table), called when a throw read whole so
        would be (``_void_throw_doubt``: whose throw it is settled), at least one face read and none of them a face
        of the opponent's play on record (his own dice left lying are no throw); one die seen alone, its face read at
        ``call_face_confidence`` (a die of his never seen, misread, is no throw either).  Else nothing (the throw is
        inferred from its play as before: None).  7483 s12f frame 381: White's 4-3 in Black's table, the 4 unread.  Two
        dice whose thrower is in doubt (``_UNSEEN_PASS``, ``_AFTER_DANCE``) are held (``TrackerState.held``, the unread
        face 0) until lifted, as a throw read whole is: nothing is emitted now."""
        cfg = self.config
        if cfg.judge is None or not cfg.infer_missed_dice or not thrown or s.last is None:
            return None
        if not all(d.flat and not d.edge and not d.on_die and self._owner_by_place(d) is turn.opponent for d in thrown):
            return None
        faces = [int(d.face) for d in thrown if d.face_sure and d.face]
        if not faces or s.last[0] != turn.opponent.letter or any(f in s.last[2] for f in faces):
            return None
        if len(thrown) == 1 and thrown[0].face_conf < cfg.call_face_confidence:
            return None  # (one die alone: its face read beyond a misread, never the opponent's missed die misread)
        doubt = self._void_throw_doubt(s, sc, thrown, turn, faces_read=False)
        if doubt is not None and not (doubt in (_UNSEEN_PASS, _AFTER_DANCE) and len(thrown) == 2):
            return None
        dice = [DieThrow(int(d.face) if d.face_sure and d.face else 1, Rest.LEFT_TABLE, True) for d in thrown[:2]]
        if len(dice) == 1:
            dice.append(DieThrow(1))  # (the die missed: where it lies is unknown; the one seen makes the throw void)
        if doubt is not None:
            # whose throw this is is in doubt (his turn may have passed unseen, or this is the rethrow of a dance): held
            # until lifted, as a throw read whole is, the unread face taken as every face (Tracker._held_throw; 7522
            # s13f frame 381: Black's 4-1 in White's table, the 4 unread, Black possibly dancing)
            held = (tuple((int(d.face) if d.face_sure and d.face else 0, Rest.LEFT_TABLE.value, True)
                          for d in thrown[:2]), doubt)
            self.state = replace(self.state, phase=Phase.VOID_THROW, held=held,
                                 dice_xy=tuple((d.x, d.y) for d in thrown))
            return []
        self.state = replace(self.state, phase=Phase.VOID_THROW, held=None, dice_xy=tuple((d.x, d.y) for d in thrown))
        seen = "+".join(str(d.face) if d.face_sure and d.face else "?" for d in thrown)
        return [Emitted(DiceThrown(turn, (dice[0], dice[1]), t=t), seq,
                        note=f"dice read {seen} in the opponent's right-hand table: void whatever the faces")]

    def _pushed_aside(self, dice: Sequence[SeenDie], faces: tuple[int, int] | None,
                      lay: tuple[tuple[float, float], ...] = ()) -> bool:
        """``dice`` may be the mover's own dice moved by the hand rather than lifted: his faces are not known,
        a face is unread, or they show his faces (one die: one of them) -- then they are no new throw.  A die read
        beyond a misread (``call_face_confidence``) showing a face none of his shows is not his, whatever the other
        die shows (7522 s13f frame 381: Black's 4-1 in White's table at White's lift, the 1 read at 1.0 after White's
        2-2, the 4 unread: taken for White's dice pushed aside, the wrong table never judged).  Nor is a die read
        (``face_confidence``) showing a face none of his shows that lies ``pushed_aside_mm`` or more from every place
        his dice ``lay`` (7599, 7602, 7603, 7621 s15f: the next throw landed in his table as he lifted, a face read
        0.90-0.96, not one of his, 46-148 mm from where his dice lay; the other face unread)."""
        if faces is None or 0 in faces:
            return True
        cfg = self.config
        if any(d.face_sure and d.face and d.face not in faces
               and (d.face_conf >= cfg.call_face_confidence
                    or (cfg.pushed_aside_mm > 0 and bool(lay) and not _near(d, lay, cfg.pushed_aside_mm))) for d in dice[:2]):
            return False
        if any(not d.face_sure or d.face is None for d in dice):
            return True
        shown = sorted(int(d.face or 0) for d in dice[:2])
        return shown == sorted(faces) if len(shown) == 2 else shown[0] in faces

    def _early_one(self, d: SeenDie, mover_dice: Sequence[SeenDie]) -> bool:
        """``d``, a die new while the mover plays, is one die of the opponent's early throw: read surely (face, flat,
        clear of every boundary, not on a die) in the opponent's right-hand table, while both of the mover's dice lie
        where they landed in his own table, each read (now or where it landed) or landed there with its pair."""
        s = self.state
        cfg = self.config
        if cfg.judge is None or not cfg.infer_missed_dice or s.turn is None or s.other_xy or s.early:
            return False
        turn = s.turn
        return (d.face_sure and bool(d.face) and d.flat and not d.edge and not d.on_die
                and self._owner_by_place(d) is turn.opponent
                and len(s.dice_xy) == 2 and len(mover_dice) == 2 and self._in_place(mover_dice, s, turn))

    def _in_place(self, mover_dice: Sequence[SeenDie], s: TrackerState, turn: Side) -> bool:
        """Each of the mover's dice (``turn``'s, in state ``s``) lies in his own right-hand table, read now or where
        it landed (:meth:`_read_where`), or his throw landed whole there (``landed_home``)."""
        return all(self._owner_by_place(d) is turn and (d.face_sure or self._read_where(d, s) or s.landed_home)
                   for d in mover_dice)

    def _early_pair(self, fresh: Sequence[SeenDie]) -> bool:
        """The mover's dice just lifted, and ``fresh`` (the new dice) are the early throw one die of which was seen
        before the lift (``TrackerState.early_die``): two dice, both faces read, in the opponent's right-hand table,
        one where that die lay showing its face."""
        s = self.state
        if s.early_die is None or s.turn is None or len(fresh) < 2:
            return False
        x, y, face = s.early_die
        two = fresh[:2]
        return (all(d.face_sure and d.face and self._owner_by_place(d) is s.turn.opponent for d in two)
                and any(d.face == face and _near(d, [(x, y)], self.config.same_die_mm) for d in two))

    def _in_doubt(self, before: Position, roll: tuple[int, int], board: Board, label: str) -> bool:
        """An illegal play judged from ``before`` (the laws' board) that what is in doubt there
        (``TrackerState.doubt``) could make legal, or name otherwise (``verdict_in_doubt``).  Then it is asked,
        never called (7280 s6g: the laws had two of white's checkers on the bar, the game one)."""
        return bool(self.state.doubt) and verdict_in_doubt(before, roll, board, label, self.state.doubt)

    def _read_where(self, d: SeenDie, s: TrackerState) -> bool:
        """A face of the mover's dice in ``s`` was read (not 0) at the place where ``d`` lies."""
        faces = s.dice if s.dice is not None and len(s.dice) == len(s.dice_xy) else (0,) * len(s.dice_xy)
        return any(f and math.hypot(d.x - x, d.y - y) <= self.config.same_die_mm
                   for (x, y), f in zip(s.dice_xy, faces, strict=True))

    def _is_mover_die(self, d: SeenDie) -> bool:
        """``d`` lies where one of the mover's dice lay, showing the same face (another die can land there)."""
        s = self.state
        faces: tuple[int | None, ...] = s.dice if s.dice is not None and len(s.dice) == len(s.dice_xy) else \
            (None,) * len(s.dice_xy)
        if self.config.same_die_by_place:
            faces = (None,) * len(s.dice_xy)
        return any(math.hypot(d.x - x, d.y - y) <= self.config.same_die_mm and (not f or d.face in (f, None))
                   for (x, y), f in zip(s.dice_xy, faces, strict=True))

    def _read_at(self, k: int, places: tuple[tuple[float, float], ...], seen: Sequence[SeenDie]) -> SeenDie | None:
        """The die of ``seen`` read now, face read, where the mover's die ``k`` lies (nearer it than the other)."""
        x, y = places[k]
        near = [d for d in seen if d.face_sure and d.face and math.hypot(d.x - x, d.y - y) <= self.config.same_die_mm
                and all(math.hypot(d.x - x, d.y - y) < math.hypot(d.x - ox, d.y - oy)
                        for j, (ox, oy) in enumerate(places) if j != k)]  # (the other die is not it)
        return near[0] if near else None

    def _faces_now(self, faces: tuple[int, int], places: tuple[tuple[float, float], ...],
                   seen: Sequence[SeenDie]) -> tuple[tuple[int, int], tuple[int, ...]]:
        """``faces`` with the unread ones (0) filled from dice read now at their places, and the faces so
        filled that were read below ``call_face_confidence`` (weak: they may be misread)."""
        out = list(faces)
        weak: list[int] = []
        for k in range(len(places)):
            if out[k]:
                continue
            d = self._read_at(k, places, seen)
            if d is not None:
                out[k] = int(d.face or 0)
                if d.face_conf < self.config.call_face_confidence:
                    weak.append(out[k])
        return (out[0], out[1]), tuple(weak)

    def _firmed(self, weak: tuple[int, ...], faces: tuple[int, int], places: tuple[tuple[float, float], ...],
                seen: Sequence[SeenDie]) -> tuple[int, ...]:
        """``weak`` (faces of the mover's throw read below ``call_face_confidence``) less those read again now, where
        their die lies, at least that sure: a face so read in a still scene of the throw is not misread.  (Which
        die of a double was weak is not kept: a double's faces are firmed only with both read so.)"""
        firm = [d is not None and d.face == f and d.face_conf >= self.config.call_face_confidence
                for d, f in zip((self._read_at(k, places, seen) for k in range(2)), faces, strict=True)]
        if faces[0] == faces[1]:
            return () if all(firm) else weak
        out = list(weak)
        for f, sure in zip(faces, firm, strict=True):
            if sure and f in out:
                out.remove(f)
        return tuple(out)

    def _confident_change(self, board: Board, sc: Scene) -> bool:
        """A region read with confidence differs from ``board``."""
        cc = self.config.count_confidence
        return any(c >= cc and seen != want for seen, want, c in zip(sc.board, board, sc.confidences, strict=True))

    def _marked(self, d: SeenDie) -> bool:
        """``d`` read face-unread where a mark of the board lies (``TrackerState.marks_xy``)."""
        return not d.face_sure and _near(d, self.state.marks_xy, self.config.same_die_mm)

    def _start_play(self, dice: Sequence[SeenDie], sc: Scene, seq: int, *, guess: bool = False,
                    start: Board | None = None) -> None:
        s = self.state
        if guess:
            read = [d.face if d.face_sure and d.face is not None else 0 for d in dice]
            faces = (*read, 0, 0)[:2]
        else:
            faces = (dice[0].face or 1, dice[1].face or 1)
        given = start
        # the play starts from the board the laws have when this reading is unsure
        if start is None:
            start = sc.board if sc.sure or s.sent is None else s.sent
        start_sure = not guess and sc.sure and (s.sent is None or sc.board == s.sent)
        known = s.known
        doubt = s.doubt
        if self.config.judge is not None and s.sent is not None:
            # the likelihood judge plays from the board the laws have -- unless regions read surely now
            # contradict it (the laws lost step with the game): then from that board, patched by what is
            # read surely (the play then resynchronises the laws, asking the players to check)
            patched = _patched(s.sent, sc, self.config.judge) if given is None else None
            likeliest = None
            if given is None and patched is None:
                likeliest = patched = _patched_likeliest(s.sent, sc, self.config.judge)
            start = s.sent if given is None else given
            if given is None:  # the scene of dice just landed shows the board before the play
                doubt = _weighed(doubt, s.sent, sc, self.config.judge)
            if patched is not None:  # (only a scene of dice just landed shows the board before the play)
                start, known = patched, False
                # every region not read surely now may be as wrong as the ones read
                doubt = doubt_with(doubt, patched, _read_otherwise(patched, sc, self.config.judge))
                if likeliest is not None:  # ... and so may the laws' counts the unsure regions were put in step from
                    unsure = {i for i, r in enumerate(sc.readings) if calibrated(r, self.config.judge) < self.config.judge.fit_p}
                    doubt = doubt_with(doubt, patched, tuple(a for a in board_alternatives(s.sent, patched) if a[0] in unsure))
            start_sure = not guess and known and s.fix is None
        weak = tuple(int(d.face or 0) for d in dice if d.face_conf < self.config.call_face_confidence)
        # a "die" left lying, face unread, that still lies there as this throw lands is a mark of the board: kept, so
        # that it never comes back as a throw (7400 s12r (327, 363): lying beside Black's dice at frame 838, left
        # lying at 879, forgotten when White's throw landed at 942, read alone after White's lift at 1238 and taken
        # for Black's throw)
        mm = self.config.same_die_mm
        unread = [d for d in sc.dice if not d.face_sure]
        marks = s.marks_xy + tuple(xy for xy in s.stale_xy if not _near_any(xy, dice, mm) and _near_any(xy, unread, mm)
                                   and not _within(xy, s.marks_xy, mm))
        self.state = replace(s, known=known, marks_xy=marks, doubt=doubt, phase=Phase.PLAYING, dice=(faces[0], faces[1]),
                             filled=False,
                             weak=weak, landed_home=len(dice) >= 2 and all(self._owner_by_place(d) is s.turn
                                                                          for d in dice[:2]),
                             dice_xy=tuple((d.x, d.y) for d in dice), other_xy=(), other_faces=(), other_firm=(),
                             stale_xy=(), lying_xy=(),
                             early=False, early_die=None, early_wait=False,
                             start=start, move=s.move + 1, guess=guess, start_sure=start_sure)

    def _early_faces(self, early: Sequence[SeenDie], s: TrackerState) -> None:
        """The premature throw (``early``, its dice now the mover's, started from state ``s``) keeps the faces it went on
        record with where a face is unread now: 7528 s13f frame 1839, Black's early 6-1 called premature at 1817 (read
        0.991 / 0.993); at White's lift the 6 read unread, taken as a 1, and Black's play was judged as a 1-1 (the
        record then left the game).  Such a face is weak (never called on)."""
        st = self.state
        if (st.early and st.dice is not None and len(s.other_faces) == len(s.other_xy) == 2 and 0 not in s.other_faces
                and any(not d.face_sure for d in early)):
            faces, weak = [], list(st.weak)
            for d in early:
                k = _nearest(d, s.other_xy)
                faces.append(s.other_faces[k] if not d.face_sure else int(d.face or 1))
                if not d.face_sure:
                    weak.append(s.other_faces[k])
            self.state = replace(st, dice=(faces[0], faces[1]), weak=tuple(f for f in weak if f))

    def _take_early_throw(self, sc: Scene, seq: int, s: TrackerState) -> None:
        """At the mover's lift (``s``: the state before it), the opponent's premature throw lying where
        ``s.other_xy`` has it is his throw: his play starts with it, keeping the faces it went on record with."""
        early = [d for d in sc.dice if _near(d, s.other_xy, self.config.same_die_mm)]
        if len(early) >= 2:
            self._start_play(early[:2], sc, seq, guess=s.early_guess)
            self.state = replace(self.state, early=not s.early_guess, early_guess=False)
            self._early_faces(early[:2], s)
            self._early_firm(early[:2], s)

    def _early_firm(self, early: Sequence[SeenDie], s: TrackerState) -> None:
        """The premature throw (``early``, its dice now the mover's, started from state ``s``): a face read weak now but
        read beyond a misread where that die lay when the throw went on record (``TrackerState.other_firm``), the same
        face, is not weak (as :meth:`_firmed` firms a face read so during the play; a double only with both so).  7552
        s14f frame 1636: Black's early 4 read at 0.999 when called premature (1615), at 0.985 at White's lift; his play
        lifted with the 1 unplayed was asked, not called, for a 3-1 the 4 misread would have made legal."""
        st = self.state
        if not (st.early and st.weak and st.dice is not None and len(s.other_firm) == len(s.other_xy) == 2):
            return
        firm = []
        for d in early:
            k = _nearest(d, s.other_xy)
            if s.other_firm[k] and d.face_sure and d.face == s.other_firm[k]:
                firm.append(s.other_firm[k])
        if st.dice[0] == st.dice[1] and len(firm) < 2:
            return
        weak = list(st.weak)
        for f in firm:
            if f in weak:
                weak.remove(f)
        self.state = replace(st, weak=tuple(weak))

    def _throw_event(self, thrower: Side, dice: Sequence[SeenDie], seq: int, t: float) -> list[Emitted]:
        """The throw as seen; a die whose face is read but whose place or flatness is unsure is taken
        as lying validly (the likeliest reading), and the throw is marked unsure: never accused."""
        if not self.config.infer_missed_dice:
            unsure = not all(d.sure for d in dice)
            ev = DiceThrown(thrower, (self._throw(dice[0], thrower), self._throw(dice[1], thrower)), t=t,
                            uncertain=unsure)
            return [Emitted(ev, seq, unsure=unsure)]
        throws = tuple(self._throw(d, thrower) if d.sure else DieThrow(d.face or 1) for d in dice)
        unsure = not all(d.sure for d in dice)
        ev = DiceThrown(thrower, (throws[0], throws[1]), t=t)
        return [Emitted(ev, seq, unsure=unsure,
                        note="where a die rests or whether it is flat is unsure: taken as valid" if unsure else "")]

    def _checkers(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        s = self.state
        if sc.board == s.sent:
            return []
        if self.config.judge is not None and s.phase is not Phase.PLAYING and s.sent is not None:
            # real vision: a board read whole that no play on record explains is asked about, never
            # sent as moved without a throw (a full reading can be wrong, and the laws would then hold
            # every later throw against it); the next play is judged from the board read (resync)
            amended = self._amend(sc.board, seq, t, sc)
            if amended:
                return amended
            self.state = replace(s, known=False, doubt=doubt_with(s.doubt, s.sent, board_alternatives(sc.board, s.sent)))
            return [Emitted(PositionObserved(position_of(sc.board, s.turn or Side.WHITE), t=t, uncertain=True),
                            seq, _changed_points(s.sent, sc.board), unsure=True,
                            note="the board changed with no play on record: please check")]
        if self.config.judge is not None and s.phase is Phase.PLAYING:
            # real vision: the play is judged when the dice are lifted, from the board the laws had when
            # they landed (``start``); a board sent mid-play would make that start look out of step with
            # the laws and put a sure play on record as "put in step, please check" (the demo, seed 1:
            # a frame read whole as the dice went, white's opening play unsure, so black's throw in the
            # wrong table two turns later was asked, not called)
            return []
        if not sc.sure:
            if s.phase is not Phase.PLAYING and s.sent is not None:
                # a change seen without a throw, but not clearly: ask, never accuse
                pts = _changed_points(s.sent, sc.board)
                return [Emitted(PositionObserved(position_of(sc.board, s.turn or Side.WHITE), t=t, uncertain=True),
                                seq, pts, unsure=True)]
            return []  # an unsure reading mid-play waits for the end of the play
        pts = _changed_points(s.sent, sc.board) if s.sent is not None else ()
        self.state = replace(s, sent=sc.board)
        return [Emitted(PositionObserved(position_of(sc.board, s.turn or Side.WHITE), t=t), seq, pts)]

    def _lifted(self, sc: Scene, seq: int, t: float, *, lying: bool = False) -> list[Emitted]:
        """The mover's dice lifted in ``sc``: his play goes on record (or is held); ``lying``: the one die in sight
        is one left lying (``TrackerState.lying_xy``), as if none were."""
        s = self.state
        assert s.turn is not None and s.dice is not None
        turn = s.turn
        out: list[Emitted] = []
        final = s.board if s.board is not None else sc.board
        conf_board = sc.board
        if self.config.judge is not None and s.start is not None:
            out = self._lifted_judged(sc, seq, t, hold=(lying or not sc.dice) and not s.early)
            if self.state.turn is turn or self.state.phase is not Phase.TO_THROW:
                return out  # taken back unplayed (the same player throws again), or the game is over
            self._take_early_throw(sc, seq, s)
            return out
        if (s.guess and self.config.judge is not None and s.start is not None and len(s.dice_xy) == 2
                and 0 not in s.dice):
            # both faces read (when they landed or while the play went on): the throw and its play
            a, b = s.dice
            self.state = replace(s, guess=False)
            judged = self._judged_play(sc, seq, t)
            if self.state.dice is None:  # taken back unplayed: the same player throws again
                return out
            out.append(Emitted(DiceThrown(turn, (DieThrow(a), DieThrow(b)), t=t), seq,
                               note="where the dice rest taken as valid"))
            out += judged
            final = self.state.sent or final
        elif s.guess and s.start is not None:
            out += self._inferred_play(sc, seq, t)
            if self.state.dice is None:  # taken back unplayed (referee.judge.judge_throw): the same player throws
                return out
            final = self.state.sent or final
        elif self.config.judge is not None and s.start is not None:
            out += self._judged_play(sc, seq, t)
            final = self.state.sent or final
        elif not sc.sure and s.start is not None:
            rec = reconcile(position_of(s.start, s.turn), s.dice, conf_board, _confidences(sc),
                            min_confidence=self.config.count_confidence)
            before = position_of(s.start, s.turn)
            if rec.verdict is Verdict.RESOLVED:
                pos = rec.play.after if rec.play is not None else before
                out.append(Emitted(PositionObserved(pos, t=t), seq, rec.doubtful, unsure=True,
                                   note="unsure reading resolved to the likeliest legal play"))
                final = rec.board
                self.state = replace(s, sent=rec.board)
            elif self.config.infer_missed_dice and rec.play is not None:
                # no legal play agrees with what was read confidently, but the reading is unsure:
                # the nearest legal play keeps the laws in step with the game; the players check
                out.append(Emitted(PositionObserved(rec.play.after, t=t), seq, rec.doubtful, unsure=True,
                                   note="unsure reading that no legal play fits: please check the position"))
                final = board_of(rec.play.after)
                self.state = replace(s, sent=final)
            else:
                out.append(Emitted(PositionObserved(position_of(conf_board, s.turn), t=t, uncertain=True), seq,
                                   rec.doubtful, unsure=True, note="unsure reading: please check the position"))
                final = s.sent or final
        s = self.state
        doubt = False
        if (self.config.infer_missed_dice and self.config.judge is None and sc.sure and not s.guess
                and not s.start_sure and s.start is not None and s.dice is not None):
            # read whole now, but the board the play started from was not: a play that looks illegal
            # may be a misread start; the laws judge it, the players are asked, nobody is accused
            doubt = reconcile(position_of(s.start, turn), s.dice, sc.board, sc.confidences,
                              min_confidence=self.config.count_confidence).play is None
        out.append(Emitted(DiceLifted(turn, t=t), seq, unsure=doubt,
                           note="the play's starting board was not read whole: please check" if doubt else ""))
        over = final[25][0] == 15 or final[26][1] == 15
        self.state = replace(s, phase=Phase.GAME_OVER if over else Phase.TO_THROW, turn=turn.opponent,
                             dice=None, dice_xy=(), guess=False)
        if not over:
            self._take_early_throw(sc, seq, s)
        return out

    def _inferred_play(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        """The dice were not read fully: the throw is the one whose legal play best fits the board.

        Every roll that agrees with the faces read is tried; the play nearest to the reading (every
        region read with confidence agreeing, if any such play exists) decides the roll.  The throw
        and the play go to the laws as the likeliest reading, marked unsure: never an accusation.
        """
        s = self.state
        assert s.turn is not None and s.dice is not None and s.start is not None
        before = position_of(s.start, s.turn)
        if self.config.judge is not None:
            return self._judged_throw(sc, seq, t)
        rolled, rec = infer_throw(before, s.dice, sc.board, sc.confidences, min_confidence=self.config.count_confidence)
        a, b = rolled
        pos = rec.play.after if rec.play is not None else before
        fits = rec.verdict is not Verdict.UNCLEAR
        self.state = replace(s, sent=board_of(pos), dice=rolled)
        seen = "+".join(str(f) if f else "?" for f in s.dice)
        return [
            Emitted(DiceThrown(s.turn, (DieThrow(a), DieThrow(b)), t=t), seq, unsure=True,
                    note=f"dice read {seen}: the throw {a}{b} inferred from the play"),
            Emitted(PositionObserved(pos, t=t), seq, rec.doubtful, unsure=True,
                    note="the likeliest legal play of the inferred throw" if fits else
                    "no legal play fits what was read: the nearest one is taken; please check the position"),
        ]


    def _judged_play(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        """The play judged by likelihood (referee.judge): sure, illegal (called), or unsure (asked)."""
        s = self.state
        assert s.turn is not None and s.dice is not None and s.start is not None
        cfg = self.config
        assert cfg.judge is not None
        before = position_of(s.start, s.turn)
        # (a board the laws have from an unsure play, ``known`` false, no longer bars a call: what that play left in
        # doubt is re-judged, ``_in_doubt``; session 8, all nine seen sets +38 caught, 0 false alarms, 0 wrong names)
        allow = s.fix is None and not s.guess and s.dice[0] > 0 and s.dice[1] > 0
        j = judge_play(before, s.dice, [sc.readings], cfg.judge, allow_illegal=allow, weak=s.weak)
        if j.kind is JudgementKind.ILLEGAL and self._in_doubt(before, s.dice, j.board, j.label):
            j = judge_play(before, s.dice, [sc.readings], cfg.judge, allow_illegal=False, weak=s.weak)
        if j.unplayed:
            self.state = _taken_back(s)
            return []
        if j.kind is JudgementKind.ILLEGAL:
            self.state = replace(s, sent=j.board, known=True, fix=(s.start, s.dice, s.turn.letter))
            return [Emitted(PositionObserved(position_of(j.board, s.turn.opponent), t=t), seq,
                            _changed_points(s.start, j.board),
                            note=f"only an illegal play ({j.label}) explains the board (p={j.posterior:.4f})")]
        assert j.play is not None
        sure = j.kind is JudgementKind.LEGAL
        self.state = replace(s, sent=j.board, known=sure and j.fits,
                             doubt=_judged_doubt(s.doubt, j, sure))
        return [Emitted(PositionObserved(j.play.after, t=t), seq, j.doubtful, unsure=not sure,
                        note="" if sure else f"unsure reading resolved to the likeliest legal play (p={j.posterior:.3f})")]

    def _lifted_judged(self, sc: Scene, seq: int, t: float, *, hold: bool = True) -> list[Emitted]:
        """The dice are lifted (nothing else on the board): judge the play by likelihood.  Sure, or
        illegal: on record now.  Unsure: held (``TrackerState.hold``) and judged again on every look until
        the next throw, so a correction or a better look decides what goes on record."""
        s = self.state
        cfg = self.config
        assert s.turn is not None and s.dice is not None and s.start is not None and cfg.judge is not None
        turn = s.turn
        before = position_of(s.start, turn)
        known = 0 not in s.dice and (not s.guess or len(s.dice_xy) == 2)
        if known:
            allow = s.fix is None and s.start == s.sent and not s.filled  # (``known`` false: as in _judged_play)
            roll, j = self._roll_judged(before, s.dice, [sc.readings], open_roll=s.guess, allow_illegal=allow)
            if j.kind is JudgementKind.ILLEGAL and self._in_doubt(before, roll, j.board, j.label):
                roll, j = self._roll_judged(before, s.dice, [sc.readings], open_roll=s.guess, allow_illegal=False)
            known = roll == s.dice
        else:
            roll, j = judge_throw(before, s.dice, [sc.readings], cfg.judge, weak=s.weak)
            if j.unplayed and hold and self._unread_called(before, [sc.readings]) is not None:
                # the board as it stood is likelier than any legal play, but an illegal play whatever the unread
                # face was is likelier still: not a throw taken back -- held, so that its correction tells the roll
                # and the lifted board is called from it (``_corrected_illegal``); 7421 s12v frame 2174
                j = replace(j, unplayed=False)
        if j.unplayed:  # taken back unplayed (a void throw): it never reaches the laws; he throws again
            self.state = _taken_back(s)
            return []
        if hold and (j.kind is JudgementKind.UNSURE or not known):
            # (a throw not read whole is held too: with a die unread, an illegal play of one roll is a legal
            # play of another, and only a correction before the next throw tells them apart)
            self.state = replace(s, phase=Phase.TO_THROW, turn=turn.opponent, dice=None, dice_xy=(), guess=False,
                                 hold=(turn.letter, s.start, s.dice), hold_throw=s.guess, stale_xy=())
            self._looks, self._moved_on = [sc.readings], False
            return []
        out = self._on_record(turn, s.start, roll, j, seq, t, dice_read=known, throw=s.guess)
        self._moved_surely(s.start, sc)
        return out

    def _unread_called(self, before: Position, looks: Sequence[Any]) -> tuple[tuple[int, int], Judgement] | None:
        """The mover's throw, a face unread, lifted on a board that is an illegal play whatever that face was
        (``referee.judge.judge_unread``), named alike under every roll tried (a play left incomplete or not), from
        the board the laws have and no other in doubt: (the likeliest roll, the illegal judgement); else None.
        Only with a die of the throw seen landing and a face of it read (a throw never seen may be the other side's
        turn passed unseen).  7421 s12v frame 2174: Black moved a white checker with a 6 and a die unread."""
        s = self.state
        assert s.dice is not None
        if s.fix is not None or s.start != s.sent or s.filled or not s.dice_xy or not any(s.dice):
            return None
        found = self._illegal_named_alike(before, s.dice, looks)
        return None if found is None else found[:2]

    def _illegal_named_alike(self, before: Position, dice: tuple[int, int], looks: Sequence[Any]
                             ) -> tuple[tuple[int, int], Judgement, tuple[tuple[int, int], ...]] | None:
        """``referee.judge.judge_unread`` on ``looks`` (a face of ``dice`` unread), kept only when the illegal play is
        named alike under every roll tried (a play left incomplete or not) and not in doubt."""
        cfg = self.config.judge
        assert cfg is not None
        found = judge_unread(before, dice, looks, cfg, weak=self.state.weak)
        if found is None:
            return None
        roll, j, tried = found
        named = {_left_incomplete(before, r, j.board) for r in tried}
        if len(named) != 1 or None in named or self._in_doubt(before, roll, j.board, j.label):
            return None
        return found

    def _on_record(self, turn: Side, start: Board, roll: tuple[int, int], j: Any, seq: int, t: float, *,
                   dice_read: bool, throw: bool) -> list[Emitted]:
        """A judged play to the laws: the throw (unless the laws have it: opening, early throw), the board,
        the lift."""
        amended = self._amend(start, seq, t) if self.state.sent is not None and start != self.state.sent else []
        s = self.state
        a, b = roll
        sure = j.kind is not JudgementKind.UNSURE
        resync = s.sent is not None and start != s.sent  # the laws have another board: they are put in step
        note = "where the dice rest taken as valid" if dice_read else \
            f"the throw {a}{b} inferred from the play (p={j.posterior:.3f})"
        out = [*amended, *([Emitted(DiceThrown(turn, (DieThrow(a), DieThrow(b)), t=t), seq,
                                    unsure=(not sure and not dice_read) or not s.known or resync or bool(amended),
                                    note=note)] if throw else [])]
        other_name = False
        if j.kind is JudgementKind.ILLEGAL:
            other_name = _named_otherwise(position_of(start, turn), roll, j.board, j.label)
            out.append(Emitted(PositionObserved(position_of(j.board, turn.opponent), t=t), seq,
                               _changed_points(start, j.board), unsure=other_name,
                               note=f"only an illegal play ({j.label}) explains the board (p={j.posterior:.4f})"))
            self.state = replace(s, sent=j.board, known=True, fix=(start, roll, turn.letter), last=None,
                                 inferred_sure=False)
        else:
            assert j.play is not None
            out.append(Emitted(PositionObserved(j.play.after, t=t), seq,
                               _changed_points(s.sent or start, j.board) if resync else j.doubtful,
                               unsure=not sure or resync,
                               note="the board the laws had was not the game's: put in step, please check" if resync
                               else "" if sure else f"the likeliest legal play (p={j.posterior:.3f}): please check"))
            # a throw inferred from the play (a face unread) leaves whose turn and which dice open to doubt:
            # what follows is not called on it (7103 r3: a cocked throw taken back, inferred as a play, then
            # the rethrow called as the opponent's throw in the wrong table)
            self.state = replace(s, sent=j.board, known=sure and j.fits and dice_read and not amended,
                                 doubt=_judged_doubt(s.doubt, j, sure),
                                 last=(turn.letter, start, roll, not dice_read, j.board),
                                 inferred_sure=(not dice_read and sure and j.fits and not amended and not resync
                                                and j.board != start))
        # the laws judge the play when the dice are lifted: never an accusation on an unsure board
        out.append(Emitted(DiceLifted(turn, t=t), seq, unsure=resync or not sure or other_name))
        final = self.state.sent or j.board
        over = final[25][0] == 15 or final[26][1] == 15
        self.state = replace(self.state, phase=Phase.GAME_OVER if over else Phase.TO_THROW, turn=turn.opponent,
                             dice=None, dice_xy=(), guess=False, hold=None)
        return out

    def _moved_surely(self, start: Board, sc: Scene | None) -> None:
        """A play just put on record with its throw inferred settles whose throw is next (``inferred_sure``) only if
        the scene it was judged on reads checkers moved with confidence: a throw taken back moves none (7103 r3: a
        throw inferred as a play at p = 0.991, then thrown again by the same player, called the wrong table)."""
        if self.state.inferred_sure and (sc is None or not self._confident_change(start, sc)):
            self.state = replace(self.state, inferred_sure=False)

    def _amend(self, board: Board, seq: int, t: float, sc: Scene | None = None) -> list[Emitted]:
        """The board the laws have (``sent``) is not the game's: if the last play on record, re-judged, is
        another legal play, the laws amend it (``PlayAmended``) and the record follows the game.

        With a scene (a board read after the play, no throw since): the play the judge is sure of
        (``JudgementKind.LEGAL``, agreeing with every region read with confidence) on that look, of the
        roll on record (of any roll when that was inferred).  Without: the legal play that ends exactly
        at ``board`` (the board a new throw found, read surely where it differs), of the roll on record
        (of any roll, when inferred, if only one fits).  Marked unsure (the players are asked to check);
        nothing is ever called on it, and the next play is not called illegal on the amended board."""
        s = self.state
        cfg = self.config.judge
        if (s.last is None or s.sent is None or s.hold is not None or s.fix is not None or s.last[4] != s.sent
                or cfg is None):
            return []  # (the laws have had another board since that play: it is no longer the last word)
        letter, start, roll, inferred, _ = s.last
        mover = _side(letter)
        if mover is s.turn:
            return []  # (his next play is under way: his last one is not amended)
        before = position_of(start, mover)
        found: list[tuple[tuple[int, int], Play]] = []
        if sc is not None:
            if inferred:
                r, j = judge_throw(before, (0, 0), [sc.readings], cfg)
            else:
                r, j = roll, judge_play(before, roll, [sc.readings], cfg, allow_illegal=False)
            if j.kind is JudgementKind.LEGAL and j.fits and j.play is not None and not j.unplayed:
                found.append((r, j.play))
        else:
            target = position_of(board, mover.opponent)
            if target.problems():
                return []
            rolls = [roll] + ([r for r in ROLLS if r != _hi_lo(roll)]
                              if inferred else [])
            for r in rolls:
                play = _plays(before, r).find(target)
                if play is not None:
                    found.append((r, play))
                    if r == roll:
                        break
            if found and found[0][0] != roll and len(found) > 1:
                return []  # several inferred throws would explain it
        if not found:
            return []
        r, play = found[0]
        after = board_of(play.after)
        if after == s.sent:
            return []  # the laws have that play: the difference lies elsewhere
        self.state = replace(s, sent=after, known=False, last=(letter, start, r, inferred, after), inferred_sure=False,
                             doubt=doubt_with(s.doubt, after, board_alternatives(s.sent, after)))
        return [Emitted(PlayAmended(mover, r, play.after, t=t), seq, _changed_points(s.sent, after), unsure=True,
                        note=f"{mover.name.lower()}'s play re-judged from the board now read: "
                             f"{r[0]}{r[1]} {play.notation() or '(no play)'}; please check")]

    def _look(self, sc: Scene, seq: int, t: float) -> tuple[bool, list[Emitted]]:
        """Another look at a held play's board: (it can be one -- else release the play first, the
        events of an illegal play shown by its correction)."""
        s = self.state
        cfg = self.config.judge
        assert s.hold is not None and cfg is not None
        prev = self._looks[-1] if self._looks else None
        if prev is not None and any(calibrated(prev[i], cfg) >= cfg.fit_p and calibrated(r, cfg) >= cfg.fit_p
                                    and (r.white, r.black) != (prev[i].white, prev[i].black)
                                    for i, r in enumerate(sc.readings)):
            # the board changed since the last look (a correction, or something else): a new board
            # to judge if a legal play of the held throw explains it, else the held play is released
            before, dice, j = self._held_judged_alone(sc)
            if not j.fits or j.unplayed:
                return False, []
            called = self._corrected_illegal(before, dice, j, sc, seq, t)
            self._looks = [sc.readings]
            return True, called
        if prev is not None and _moved(prev, sc.readings, cfg):
            # checkers moved, though no region is read surely in both looks (a play completed after the dice were
            # lifted, its checkers read at 0.5): the earlier looks are of another board; this one is judged alone
            # (7436 s10b, frame 491: 8/7 read at 0.5 where the look at the lift read the 7 surely empty; judged on
            # both, the lifted 2-1 bar/22* went on record for the 3-1 bar/22* 8/7, and the laws' board stayed out of
            # step with the game for the 35 moves left).  Nothing is called on it: only a change read surely is a
            # correction (``_corrected_illegal``)
            _, _, j = self._held_judged_alone(sc)
            if j.fits and not j.unplayed and j.play is not None:
                self._looks = [sc.readings]
                self._moved_on = True
                return True, []
        self._looks = [*self._looks[-5:], sc.readings]
        return True, []

    def _held_judged_alone(self, sc: Scene) -> tuple[Position, tuple[int, int], Judgement]:
        """The held play's start position, its dice, and the judgement of ``sc``'s board alone (one look) as a
        play of them (the dice read, or the roll the play implies where a face is unread)."""
        s = self.state
        cfg = self.config.judge
        assert s.hold is not None and cfg is not None
        mover, start, dice = s.hold
        before = position_of(start, _side(mover))
        if 0 not in dice:
            _, j = self._roll_judged(before, dice, [sc.readings], open_roll=s.hold_throw)
        else:
            _, j = judge_throw(before, dice, [sc.readings], cfg, weak=s.weak)
        return before, dice, j

    def _corrected_illegal(self, before: Position, dice: tuple[int, int], now: Any, sc: Scene, seq: int,
                           t: float) -> list[Emitted]:
        """The held board was changed, with no throw, into a legal play read surely: the board the dice were
        lifted on was not that play.  If it was an illegal one (referee.judge, the corrected board ruled
        out), the play is called now and the correction follows it; otherwise nothing (still held)."""
        s = self.state
        cfg = self.config.judge
        assert s.hold is not None and cfg is not None
        if (now.play is None or now.unplayed or s.fix is not None or s.hold[1] != s.sent or self._moved_on):
            return []  # (a play from a board the laws do not have, or looks not of the lifted board: never called)
        roll = dice if 0 not in dice else _roll_of(now.play)
        if roll is None:
            # (a play of one die with a face unread: the roll the judge is sure of, or the likeliest -- 7617 s15f
            # frame 2036)
            roll = judge_throw(before, dice, [sc.readings], cfg, weak=s.weak)[0]
        rolls_too: tuple[tuple[int, int], ...] = ()
        if now.kind is not JudgementKind.LEGAL:
            # a face unread: the board corrected to read surely, but a legal play of several rolls with the faces read
            # (which one unsure): the lifted board is called only when under each of them it is illegal, named alike
            if 0 not in dice:
                return []
            rolls_too = self._rolls_to(before, dice, roll, now)
            if not rolls_too:
                # the board corrected to tells neither the roll nor (a legal play of some rolls with the faces read,
                # a named illegal play of others) that it is a play: the lifted board is called only as at the lift
                # (``_unread_called``: an illegal play whatever the unread face was, named alike under every roll),
                # the board corrected to a legal play of the roll called (7605 s15f frame 2659: Black on the bar, his
                # 6 read, the 2 unread, moved a checker 6 and lifted, then took it back: a dance of 6-2, 6-6, ...)
                unread = self._unread_illegal(before, dice, roll, now.board)
                if unread is None:
                    return []
                roll, old = unread
                return self._called_corrected(before, roll, old, now, seq, t,
                                              throw_note=f"the throw {roll[0]}{roll[1]} inferred from the corrected "
                                                         "play (a face unread: of several rolls)")
        # (a face inferred from the correction is the one the players corrected to; only the faces read
        # below call_face_confidence may be misread -- unless the correction shows them: the board corrected to
        # is a play of the roll read and of no roll with a weak face misread, so the roll read is the one played;
        # a misread face would have left a legal play standing, and nobody corrects a legal play)
        others = face_off_rolls(before, roll, now.board, s.weak) if 0 not in dice else ()
        weak = () if 0 not in dice and not others else s.weak
        if 0 in dice and any(f and f in s.weak for f in dice) and not _unread_off(before, dice, now.board):
            # a face unread, the other read weak: the roll filled from the correction; the weak face is confirmed as
            # above when the board corrected to is a legal play of no roll without it (7501 s12f frame 673: Black's
            # 6 read at 0.99, the 3 unread, a checker moved 5 for the 6 and corrected to 13/7* 5/2, a play of no roll
            # but a 6's -- asked for the 6 that, misread, would have made the lifted board a legal 5-3)
            weak = ()
        old = judge_play(before, roll, self._looks, cfg, exclude=frozenset({now.board}), weak=weak,
                         corrected_to=now.play)
        if old.kind is not JudgementKind.ILLEGAL and others:
            # the board corrected to is also a play of a roll with a weak face misread: the roll played is one of
            # those the correction allows (the roll read, ``others``).  The lifted board is called when each of them,
            # judged with its own play corrected to, calls that same board, named alike (7446 s12 frame 1656: 3-1,
            # the 3 at 0.972, the 3 alone played, corrected to 4/1 6/5 -- also a 1-1 play, from which 4/1 is a play
            # left incomplete too)
            alt = judge_play(before, roll, self._looks, cfg, exclude=frozenset({now.board}), weak=(),
                             corrected_to=now.play)
            if alt.kind is JudgementKind.ILLEGAL and all(
                    self._corrected_alike(before, roll, r, now.board, alt.board) for r in others):
                old = alt
        if old.kind is not JudgementKind.ILLEGAL and rolls_too:
            # the likeliest roll of the correction (a tie: the face unread is the one the correction does not show)
            # may be one of which the lifted board is no named play; under another roll reaching the correction it
            # may be: that roll is the one the lifted board was played with, and the rest are weighed against it
            # (7616 s15f frame 802: White on the bar, his 4 read, the 2 unread, played a 4 and a 2 elsewhere and
            # corrected to bar/21, a play of 6-4 and of 4-2; called under 4-2, not under 6-4 -- never called)
            for r in rolls_too:
                play = _play_to(before, r, now.board)
                assert play is not None  # (every roll of ``_rolls_to`` reaches the correction)
                alt = judge_play(before, r, self._looks, cfg, exclude=frozenset({now.board}), weak=weak,
                                 corrected_to=play)
                if alt.kind is JudgementKind.ILLEGAL:
                    roll, old, rolls_too = r, alt, tuple(x for x in (roll, *rolls_too) if x != r)
                    break
        if old.kind is not JudgementKind.ILLEGAL or self._in_doubt(before, roll, old.board, old.label):
            return []
        if not all(self._illegal_alike(before, roll, r, now.board, old.board)
                   and not self._in_doubt(before, r, old.board, old.label) for r in rolls_too):
            return []
        return self._called_corrected(before, roll, old, now, seq, t)

    def _unread_illegal(self, before: Position, dice: tuple[int, int], likeliest: tuple[int, int],
                        corrected: Board) -> tuple[tuple[int, int], Judgement] | None:
        """The held play's looks (its throw a face unread, a face read) show an illegal play whatever the unread face
        was (``referee.judge.judge_unread``), named alike under every roll tried and not in doubt, and ``corrected``
        is a legal play of a roll tried: (the roll on record -- ``likeliest``, the correction's, if it is one of
        them, else the one called --, the illegal judgement); else None."""
        if 0 not in dice or not any(dice) or self.state.filled:
            return None
        found = self._illegal_named_alike(before, dice, self._looks)
        if found is None:
            return None
        roll, j, tried = found
        for r in (likeliest, roll):
            if r in tried and _play_to(before, r, corrected) is not None:
                return r, j
        return None

    def _called_corrected(self, before: Position, roll: tuple[int, int], old: Judgement, now: Any, seq: int,
                          t: float, *, throw_note: str = "the throw read from the corrected play") -> list[Emitted]:
        """The held play called illegal (``old``, under ``roll``) and its correction ``now`` put on record."""
        s = self.state
        assert s.hold is not None
        mover = _side(s.hold[0])
        other_name = _named_otherwise(before, roll, old.board, old.label)
        out = [Emitted(DiceThrown(mover, (DieThrow(roll[0]), DieThrow(roll[1])), t=t), seq,
                       note=throw_note)] if s.hold_throw else []
        out += [Emitted(PositionObserved(position_of(old.board, mover.opponent), t=t), seq,
                        _changed_points(board_of(before), old.board), unsure=other_name,
                        note=f"the dice were lifted on an illegal play ({old.label}; corrected since)"),
                Emitted(DiceLifted(mover, t=t), seq, unsure=other_name),
                Emitted(PositionObserved(now.play.after, t=t), seq, note="the illegal play corrected")]
        self.state = replace(s, hold=None, hold_throw=False, sent=now.board, known=True, fix=None)
        return out

    def _rolls_to(self, before: Position, dice: tuple[int, int], roll: tuple[int, int], now: Judgement) -> tuple[
            tuple[int, int], ...]:
        """A correction judged with a face unread (``dice``, 0 unread) unsure only in its roll: the board corrected to
        holds ``legal_margin`` of the posterior over every roll with the faces read, fits every region read surely, and
        ``roll`` (the likeliest) shows the faces read.  The other rolls with those faces of which it is a legal play
        (7581 s14f frame 2497: Black's 4 read, the 6 never, a White checker moved, corrected to a play of 6-4, 5-4 or
        4-3); () when it is not so."""
        cfg = self.config.judge
        assert cfg is not None
        faces = sorted(f for f in dice if f)
        if (not now.fits or now.legal_mass < cfg.legal_margin or now.play is None
                or any(faces.count(f) > roll.count(f) for f in faces)):
            return ()
        out = []
        for r in ROLLS:
            if _hi_lo(r) == _hi_lo(roll) or any(faces.count(f) > r.count(f) for f in faces):
                continue
            try:
                if _play_to(before, r, now.board) is not None:
                    out.append(r)
            except PositionError:
                continue
        return tuple(out)

    def _illegal_alike(self, before: Position, roll: tuple[int, int], other: tuple[int, int], corrected: Board,
                       lifted: Board) -> bool:
        """Had the throw been ``other`` (the face unread another), ``lifted`` (called illegal under ``roll`` on the held
        play's looks) is no legal play of it, the legal plays of it but ``corrected`` hold less than
        ``illegal_max_legal`` of the posterior on those looks, and the laws name it alike (a play left incomplete or
        not) under both rolls.  (The judge need not call it under ``other``: a hit checker put off the board in a 6-2
        play is no family of 2-2's -- 7567 s14f frame 1241.)"""
        cfg = self.config.judge
        assert cfg is not None
        play = _play_to(before, other, corrected)
        if play is None or _left_incomplete(before, other, lifted) is None:
            return False
        j = judge_play(before, other, self._looks, cfg, exclude=frozenset({corrected}), weak=(), corrected_to=play)
        if j.legal_mass >= cfg.illegal_max_legal and not (j.kind is JudgementKind.ILLEGAL and j.board == lifted):
            return False
        return _left_incomplete(before, roll, lifted) == _left_incomplete(before, other, lifted)

    def _corrected_alike(self, before: Position, roll: tuple[int, int], other: tuple[int, int], corrected: Board,
                         lifted: Board) -> bool:
        """Had the throw been ``other`` (a weak face of ``roll`` misread), the held play's looks, judged as a play of
        it corrected to ``corrected`` (a legal play of it), call ``lifted`` illegal too, and the laws name it alike
        (a play left incomplete or not) under both rolls."""
        cfg = self.config.judge
        assert cfg is not None
        play = _play_to(before, other, corrected)
        if play is None:
            return False
        j = judge_play(before, other, self._looks, cfg, exclude=frozenset({corrected}), weak=(), corrected_to=play)
        if j.kind is not JudgementKind.ILLEGAL or j.board != lifted:
            return False
        return _left_incomplete(before, roll, lifted) == _left_incomplete(before, other, lifted)

    def _release(self, seq: int, t: float, sc: Scene | None = None) -> list[Emitted]:
        """The held play goes on record, judged on every look at it."""
        s = self.state
        cfg = self.config.judge
        assert s.hold is not None and cfg is not None
        mover, start, dice = s.hold
        turn = _side(mover)
        before = position_of(start, turn)
        # (no look kept -- the session was resumed since -- the scene at hand is the look)
        looks = self._looks or ([sc.readings] if sc is not None and sc.readings else [])
        self._looks, self._moved_on = [], False
        # a throw with a face unread, released by dice every one of which lies in the mover's own right-hand table:
        # his rethrow, so a board left as it stood is the throw taken back, not a dance (7298 s7a); released by the
        # opponent's throw or a board changed with no dice, the dance (or the play) stands (7317 s7b)
        again = sc is not None and bool(sc.dice) and all(self._owner_by_place(d) is turn for d in sc.dice)
        if 0 not in dice:
            roll, j = self._roll_judged(before, dice, looks, open_roll=s.hold_throw)
        else:
            roll, j = judge_throw(before, dice, looks, cfg, weak=s.weak, rethrown=again)
        if sc is not None and sc.readings and looks != [sc.readings]:
            # the look at hand is the latest word: a board corrected since the earlier looks (7225 h5: 13/11
            # 13/10 read surely at the next throw, 13/11 8/5 put on record from the looks before the correction)
            if 0 not in dice:
                now_roll, now = self._roll_judged(before, dice, [sc.readings], open_roll=s.hold_throw)
            else:
                now_roll, now = judge_throw(before, dice, [sc.readings], cfg, weak=s.weak, rethrown=again)
            if (now.kind is JudgementKind.LEGAL and now.fits and not now.unplayed and now.play is not None
                    and (now.board != j.board or now_roll != roll)):
                # (one look against the earlier ones: on record as the likeliest, never the ground for
                # calling the next play -- 7101 r3: a look misread 6/5 6/3* as 6/5* 6/3*, and white's next
                # play from that board would have been called illegal)
                roll, j = now_roll, replace(now, kind=JudgementKind.UNSURE)
        if j.unplayed or j.play is None:
            # the play taken back (or none judged): the mover throws again, whose throw is next not settled
            # (_taken_back; 8: 7359 s8c, white's one-die play held, judged no play at black's throw, and black's
            # throw in his own table was called wrong-table on white)
            self.state = replace(_taken_back(s), hold=None, turn=turn)
            return []
        latest = sc.readings if sc is not None and sc.readings else (looks[-1] if looks else None)
        if latest is not None and j.kind is not JudgementKind.LEGAL:
            # what is in doubt is judged on the latest look alone: the earlier ones may show the board before a
            # correction (the illegal board then corrected is no alternative to the board now)
            j = replace(j, doubt=_doubt_now(before, roll, j.board, latest, cfg))
        keep = self.state
        self.state = replace(s, turn=turn)
        out = self._on_record(turn, start, roll, j, seq, t, dice_read=roll == dice, throw=s.hold_throw)
        self._moved_surely(start, sc)
        # the phase and whose turn it is were already past the play
        self.state = replace(self.state, phase=Phase.GAME_OVER if self.state.phase is Phase.GAME_OVER else keep.phase,
                             turn=keep.turn, dice=keep.dice, dice_xy=keep.dice_xy, guess=keep.guess)
        return out

    def _correction(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        """After an illegal play was called: has the board been corrected to a legal play of that throw?"""
        s = self.state
        assert s.fix is not None and self.config.judge is not None
        start, dice, mover = s.fix
        if sc.board == s.sent or not any(seen != want for seen, want in zip(sc.board, s.sent or sc.board,
                                                                              strict=True)):
            return []
        j = judge_play(position_of(start, _side(mover)), dice, [sc.readings], self.config.judge, allow_illegal=False)
        if j.play is None or j.board == s.sent:
            return []
        sure = j.kind is JudgementKind.LEGAL
        if not sure and (j.legal_mass < 0.5 or not self._confident_change(s.sent or sc.board, sc)):
            return []  # not clearly corrected (yet)
        self.state = replace(s, sent=j.board, fix=None, known=sure and j.fits,
                             doubt=_judged_doubt(s.doubt, j, sure))
        return [Emitted(PositionObserved(j.play.after.with_turn(_side(mover).opponent), t=t), seq, j.doubtful,
                        unsure=not sure, note="the illegal play corrected" + ("" if sure else ": please check"))]

    def _roll_judged(self, before: Position, dice: tuple[int, int], looks: Sequence[Any], *, open_roll: bool,
                     allow_illegal: bool = False) -> tuple[tuple[int, int], Judgement]:
        """A play of a throw read whole (referee.judge.judge_play); when no play of it is sure and a face was
        read below ``call_face_confidence`` (``TrackerState.weak``), the throw is judged again from its play
        with that face open to doubt, and a roll that explains the play surely replaces the one read
        (unsure: the players check).  7256 s5h: a 5-1 read 5-5 (the 1 at 0.993); its play 24/23 8/3 fits no
        5-5 play, the likeliest was sent and the record left the game at move 1).  ``open_roll``: the throw
        has not gone to the laws yet (it goes with its play); otherwise it stands as read."""
        cfg = self.config.judge
        assert cfg is not None
        j = judge_play(before, dice, looks, cfg, allow_illegal=allow_illegal, weak=self.state.weak)
        if (not open_roll or cfg.face_doubt <= 0 or j.kind is not JudgementKind.UNSURE
                or not any(f in dice for f in self.state.weak if f)):
            return dice, j
        roll, other = judge_throw(before, dice, looks, cfg, weak=self.state.weak)
        if (_hi_lo(roll) == _hi_lo(dice) or other.unplayed or other.play is None
                or other.posterior < cfg.legal_margin or not other.fits):
            return dice, j
        return roll, other

    def _judged_throw(self, sc: Scene, seq: int, t: float) -> list[Emitted]:
        """A throw not read fully: the (roll, play) pair likeliest by the board (referee.judge.judge_throw)."""
        s = self.state
        assert s.turn is not None and s.dice is not None and s.start is not None and self.config.judge is not None
        before = position_of(s.start, s.turn)
        (a, b), j = judge_throw(before, s.dice, [sc.readings], self.config.judge, weak=s.weak)
        if j.unplayed:
            # nothing was played and no roll explains that: the dice were taken back (a void throw the
            # camera could not tell); the throw never went to the laws, and the same player throws again
            self.state = _taken_back(s)
            return []
        sure = j.kind is JudgementKind.LEGAL
        pos = j.play.after if j.play is not None else before
        self.state = replace(s, sent=board_of(pos), dice=(a, b), known=False,  # (inferred: see _on_record)
                             doubt=_judged_doubt(s.doubt, j, sure))
        seen = "+".join(str(f) if f else "?" for f in s.dice)
        return [
            Emitted(DiceThrown(s.turn, (DieThrow(a), DieThrow(b)), t=t), seq, unsure=not sure,
                    note=f"dice read {seen}: the throw {a}{b} inferred from the play (p={j.posterior:.3f})"),
            Emitted(PositionObserved(pos, t=t), seq, j.doubtful, unsure=not sure,
                    note="" if sure else "the likeliest legal play of the inferred throw: please check"),
        ]


def _unread_off(before: Position, dice: tuple[int, int], board: Board) -> bool:
    """``board`` is a legal play of a roll without the face read of ``dice`` (the other unread, 0): had that face
    been misread, the board could still be the player's own legal play."""
    read = next(f for f in dice if f)
    for a, b in ROLLS:
        if read in (a, b):
            continue
        try:
            if _play_to(before, (a, b), board) is not None:
                return True
        except PositionError:
            continue
    return False


def _hi_lo(roll: tuple[int, int]) -> tuple[int, int]:
    return (max(roll), min(roll))


def _plays(before: Position, roll: tuple[int, int]) -> LegalPlays:
    from rules.laws.machine import cached_legal_plays

    return cached_legal_plays(before, Dice(*roll), False)  # (the tracker's own legal plays use the default)


def _play_to(before: Position, roll: tuple[int, int], board: Board) -> Play | None:
    """The legal play of ``roll`` from ``before`` that reaches ``board``, or None (found by the position, not by
    building every play)."""
    try:
        after = position_of(board, before.turn.opponent)
    except (PositionError, ValueError):
        return None  # (no position at all: no play reaches it)
    if board_of(after) != board:
        return None  # (a board no position gives, e.g. a checker in the wrong tray)
    return _plays(before, roll).find(after)


def pass_chance(before: Position) -> float:
    """The chance that a throw leaves the side on roll in ``before`` no legal play (on the bar against a made
    board, or blocked): how likely a whole turn of his -- the throw missed, no checker moved -- passes unseen.
    An impossible position may hide anything: 1."""
    try:
        return sum(1 if a == b else 2 for a in range(1, 7) for b in range(1, a + 1)
                   if _no_play(_plays(before, (a, b)))) / 36
    except PositionError:
        return 1.0


def _no_play(plays: LegalPlays) -> bool:
    return len(plays) == 1 and next(iter(plays)).is_empty


def _left_incomplete(before: Position, roll: tuple[int, int], board: Board) -> bool | None:
    """How the laws name ``board`` after ``roll`` from ``before``: a play left incomplete (True), another illegal play
    (False); None when it is a legal play."""
    if _play_to(before, roll, board) is not None:
        return None
    return _partial(before, roll, board)


def _partial(before: Position, roll: tuple[int, int], board: Board) -> bool:
    """``board`` is a part of a legal play of ``roll`` from ``before`` (the laws' "play left incomplete")."""
    from rules.laws.machine import partial_afters

    pos = position_of(board, before.turn)
    return (pos.white, pos.black) in partial_afters(_plays(before, roll))


def _named_otherwise(before: Position, roll: tuple[int, int], board: Board, label: str) -> bool:
    """The laws would name this illegal board otherwise than the judge's family (a play left incomplete
    vs any other illegal play): the reading is not consistent enough to accuse on (7101 s5: a 'bar'
    board the laws found to be an incomplete play, a wrong name)."""
    return _partial(before, roll, board) != (label == "incomplete")


def _opening_candidates(start: Board, read: dict[Side, int]) -> Iterator[tuple[Side, Position, tuple[int, int]]]:
    """Every (opener, position with the opener on roll, (opener's die, other's die)) of an opening throw
    (the opener's die the higher) that agrees with the faces read."""
    for opener in (Side.WHITE, Side.BLACK):
        before = position_of(start, opener)
        for a in range(2, 7):
            for b in range(1, a):
                if read.get(opener, a) == a and read.get(opener.opponent, b) == b:
                    yield opener, before, (a, b)


def infer_throw(before: Position, known: tuple[int, ...], board: Board, confidences: Sequence[float], *,
                min_confidence: float = 0.9) -> tuple[tuple[int, int], Reconciled]:
    """The throw (and its play) that best explains a reading of the board after an unread throw.

    ``known`` holds the faces read (0: unread).  Among the rolls that agree with them, the legal
    play agreeing with every region read with confidence and nearest to the reading wins (on a tie,
    the higher roll: the order is 66, 65, ... 11); if none agrees, the nearest play overall, UNCLEAR.

    >>> from rules.position import Position
    >>> start = Position.initial()
    >>> after = Position.from_gnubg_id('sGfwATDgc/ABMA', Side.BLACK)   # 8/5 6/5 (3-1)
    >>> infer_throw(start, (3, 0), board_of(after), [1.0] * 27)[0]
    (3, 1)
    """
    faces = [f for f in known if f]
    rolls = [r for r in ROLLS if all(faces.count(f) <= r.count(f) for f in faces)]
    best: tuple[float, int, tuple[int, int], Play] | None = None
    nearest: tuple[float, int, tuple[int, int], Play] | None = None
    for k, roll in enumerate(rolls):
        fit = _best_fit(before, roll, board, confidences, min_confidence)
        if fit is None:
            continue
        agrees, cost, play = fit
        if agrees and (best is None or cost < best[0]):
            best = (cost, k, roll, play)
        if nearest is None or cost < nearest[0]:
            nearest = (cost, k, roll, play)
    doubtful = tuple(i + 1 for i in range(24) if confidences[i] < min_confidence)
    if best is not None:
        return best[2], Reconciled(Verdict.RESOLVED, board_of(best[3].after), best[3], doubtful)
    if nearest is not None:
        return nearest[2], Reconciled(Verdict.UNCLEAR, board_of(nearest[3].after), nearest[3], doubtful)
    return (max(faces or [1]), min(faces or [1]) if len(faces) > 1 else 1), Reconciled(Verdict.UNCLEAR, board)


def setup_agreement(board: Board, confidences: Sequence[float], min_confidence: float) -> tuple[int, tuple[int, ...]]:
    """How a reading compares with the starting array: (points read with confidence, regions read with
    confidence that differ from it: absolute points 1..24, 25 bar, 26/27 the trays).

    >>> setup_agreement(STARTING_BOARD, [1.0] * 27, 0.99)
    (24, ())
    """
    sure = sum(c >= min_confidence for c in confidences[:24])
    wrong = tuple(i + 1 for i, (seen, want, c) in enumerate(zip(board, STARTING_BOARD, confidences, strict=True))
                  if c >= min_confidence and seen != want)
    return sure, wrong


def _best_fit(before: Position, roll: tuple[int, int], board: Board, confidences: Sequence[float],
              min_confidence: float) -> tuple[bool, float, Play] | None:
    """The legal play of ``roll`` nearest to the reading: (agrees with every confident region, cost, play).

    A play agreeing with the confident regions beats any that does not; the cost weighs each
    region's difference by its confidence.
    """
    try:
        plays = legal_plays(before, Dice(*roll))
    except PositionError:
        return None
    best: tuple[bool, float, Play] | None = None
    for play in plays:
        agrees, cost = fit_to_reading(board, board_of(play.after), confidences, min_confidence)
        if best is None or (agrees, -cost) > (best[0], -best[1]):
            best = (agrees, cost, play)
    return best


def _confidences(sc: Scene) -> tuple[float, ...]:
    return sc.confidences


__all__ += ["STARTING_BOARD", "board_alternatives", "board_of", "doubt_with", "infer_throw", "position_of", "scene_of", "setup_agreement",
            "verdict_in_doubt"]
