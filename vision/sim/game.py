"""Whole games as camera video: random legal games from the rules core, with scripted infractions.

A :class:`GameDirector` plays a game (opening throw, throws landing and settling, a hand moving
checkers one at a time, dice lifted, cube offers) and yields ``(image, truth)`` per frame at the
video rate.  Resting checkers are composited once per change (the cached checker layer), so a
frame costs only the moving parts and the sensor.

Scripted infractions (``KIND@TURN``; applied at the first turn >= TURN where they are possible):

=====================  ===============================================================
premature_throw        the player on roll throws before the opponent has lifted his dice
cocked_die             a die comes to rest cocked (against a checker, the rail, the bar, the other die)
outside_table          a die comes to rest outside the thrower's right-hand table
lifted_early           the dice are lifted before the play is complete
wrong_double           the cube is offered at the wrong value (or by a player who does not own it)
illegal_wrong_distance a checker moves a distance that is not on the dice
illegal_blocked        a checker jumps a blocked point: both dice in one move with both landing points held
illegal_bar            a checker moves while its side still has a checker on the bar
illegal_one_die        only one die is played when both can be
illegal_bear_off       a checker is borne off before all are home
illegal_wrong_colour   the player moves one of the opponent's checkers
illegal_hit_not_to_bar a hit checker is taken off the board instead of put on the bar
=====================  ===============================================================

Every scripted infraction is a real one under the laws (docs/laws.md): a play is complete when
the dice are lifted, so an illegal or incomplete play is *lifted* first; the scene then stands
still for ``Timing.illegal_hold`` frames (the opponent notices) and the player corrects it to a
legal play, as the modern "Legal Moves" rule requires before the opponent throws.  An invalid
throw (cocked, wrong table) stands still, then is picked up and thrown again; a wrong double is
put back.  A premature throw follows ``GameScript.premature``: ``"stands"`` (modern 4.6, the
default) leaves the early dice down, the mover lifts his, and the early dice are played;
``"void"`` (1931 rule 14, IBA rule 7, or the opponent choosing a rethrow) has them picked up and
thrown again at his turn.

Each seeded infraction is announced in the truth's ``events`` as ``"infraction KIND SIDE"``
(plus a detail for cocked dice: what the die leans on) on the frame where it happens, and
:attr:`GameDirector.seeded` lists them; :attr:`GameDirector.record` is the game as it was played
(each completed play in gnubg notation, after any correction), for checking exports.

``pixels=False`` builds the same truth without rasterising anything (for fast referee tests
through the oracle): the random course of the game is identical, the image is a 1x1 black
placeholder, and ``hands.covered`` is empty (a frame with a hand is never still, so the referee
ignores it either way).
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.dice import Dice
from rules.laws.machine import partial_afters
from rules.moves import LegalPlays, Play, legal_plays
from rules.position import BAR, OFF, Position, Side
from vision.geometry import Area, BoardLayout, LongSide, Seating
from vision.sim.config import SimConfig
from vision.sim.render import RenderInfo, Sensor, apply_gains, checker_layer, motion_blur, render_pieces
from vision.sim.scene import (
    DIE_AXES,
    CheckerPose,
    CubePose,
    DiePose,
    DieStyle,
    HandPose,
    Scene,
    face_up,
    mat,
    place_checkers,
    place_cube,
    place_dice,
    random_scene,
    rot_axis,
    rot_z,
    sample_hand,
    to_mat3,
)
from vision.sim.truth import build_truth

INFRACTIONS: tuple[str, ...] = (
    "premature_throw", "cocked_die", "outside_table", "lifted_early", "wrong_double",
    "illegal_wrong_distance", "illegal_blocked", "illegal_bar", "illegal_one_die", "illegal_bear_off",
    "illegal_wrong_colour", "illegal_hit_not_to_bar",
)


# illegal plays, the ones a position seldom allows first (a due kind that is possible now goes first)
_RARITY: tuple[str, ...] = (
    "illegal_blocked", "illegal_bar", "illegal_hit_not_to_bar", "illegal_bear_off", "illegal_one_die",
    "illegal_wrong_colour", "illegal_wrong_distance",
)


class GameScriptError(ValueError):
    """A scripted infraction that cannot be read."""


@dataclass(frozen=True, slots=True)
class GameScript:
    """Which infractions to stage at which turns (turn 1 = the first play after the opening throw)."""

    infractions: tuple[tuple[str, int], ...] = ()
    max_turns: int = 400
    double_p: float = 0.05  # chance a player offers the cube before a throw when he may
    take_p: float = 0.85
    premature: str = "stands"  # "stands" (modern 4.6: the early dice are played) or "void" (thrown again)

    def __post_init__(self) -> None:
        if self.premature not in ("stands", "void"):
            raise GameScriptError(f"premature must be 'stands' or 'void', got {self.premature!r}")

    @classmethod
    def parse(cls, items: list[str] | tuple[str, ...], *, max_turns: int = 400) -> GameScript:
        """Read ``["cocked_die@4", "illegal_blocked@9"]``."""
        out: list[tuple[str, int]] = []
        for item in items:
            kind, _, turn = item.partition("@")
            if kind not in INFRACTIONS:
                raise GameScriptError(f"unknown infraction {item!r}; expected one of {', '.join(INFRACTIONS)}")
            try:
                t = int(turn) if turn else 1
            except ValueError as exc:
                raise GameScriptError(f"infraction {item!r}: turn {turn!r} is not a number") from exc
            if t < 1:
                raise GameScriptError(f"infraction {item!r}: turns count from 1")
            out.append((kind, t))
        return cls(tuple(out), max_turns)


@dataclass(frozen=True, slots=True)
class Timing:
    """Frames for each motion at the video rate (30 fps by default)."""

    reach: int = 7
    carry: int = 9
    place: int = 3
    retreat: int = 7
    throw: int = 16
    settle: int = 10
    lift: int = 8
    think: int = 8
    cube: int = 14
    illegal_hold: int = 20


@dataclass(slots=True)
class _Board:
    """The mutable picture during a game: resting checkers, dice, cube, hands."""

    scene: Scene
    checkers: list[CheckerPose]
    dice: list[DiePose] = field(default_factory=list)
    cube: CubePose | None = None
    hands: list[HandPose] = field(default_factory=list)
    held: list[CheckerPose] = field(default_factory=list)
    layer_key: tuple[CheckerPose, ...] | None = None
    layer: np.ndarray | None = None


@dataclass(frozen=True, slots=True)
class Seeded:
    """One scripted infraction as it was staged: what, by whom, and the law code it breaks."""

    kind: str
    side: Side
    turn: int
    seq: int  # the frame on which it happened (the throw, the lift, the cube turned)
    code: str  # rules.laws.verdicts.Infraction value (see expected_code)
    detail: str = ""


@dataclass(frozen=True, slots=True)
class PlayedMove:
    """One completed play of the rendered game (after any correction)."""

    side: Side
    dice: tuple[int, int]
    notation: str


@dataclass(frozen=True, slots=True)
class GameResult:
    video: Path
    truth: Path
    frames: int
    turns: int
    winner: Side | None


def _region(side: Side, own_point: int) -> str:
    if own_point == BAR:
        return "bar"
    if own_point == OFF:
        return "tray_w" if side is Side.WHITE else "tray_b"
    return f"p{own_point if side is Side.WHITE else 25 - own_point}"


def _region_counts(pos: Position) -> dict[tuple[Side, str], int]:
    out: dict[tuple[Side, str], int] = {}
    for side in Side:
        c = pos.counts(side)
        for p in range(26):
            if c[p]:
                out[(side, _region(side, p))] = c[p]
    return out


def diff_moves(a: Position, b: Position) -> list[tuple[Side, str, str]]:
    """Single-checker moves turning the board of ``a`` into that of ``b`` (None-region = off the board)."""
    ca, cb = _region_counts(a), _region_counts(b)
    moves: list[tuple[Side, str, str]] = []
    for side in Side:
        src: list[str] = []
        dst: list[str] = []
        for key in set(ca) | set(cb):
            if key[0] is not side:
                continue
            d = cb.get(key, 0) - ca.get(key, 0)
            src += [key[1]] * max(0, -d)
            dst += [key[1]] * max(0, d)
        src.sort()
        dst.sort()
        while src and dst:
            moves.append((side, src.pop(), dst.pop(0)))
        moves += [(side, s, "gone") for s in src]
        moves += [(side, "nowhere", d) for d in dst]
    return moves


# ---------------------------------------------------------------------- illegal plays
def _move(pos: Position, side: Side, start: int, end: int) -> Position | None:
    """``pos`` with one of ``side``'s checkers moved (own numbering; 0 = off, 25 = bar), no hit; None if none is there."""
    c = list(pos.counts(side))
    c[start] -= 1
    c[end] += 1
    if c[start] < 0:
        return None
    return pos.replace(side, tuple(c))


def _hit_move(pos: Position, side: Side, start: int, end: int) -> Position | None:
    """:func:`_move`, sending an opponent's blot on ``end`` to the bar."""
    after = _move(pos, side, start, end)
    opp = list(pos.counts(side.opponent))
    if after is None or opp[25 - end] != 1:
        return after
    opp[25 - end] = 0
    opp[BAR] += 1
    return after.replace(side.opponent, tuple(opp))


def make_illegal(kind: str, before: Position, dice: Dice, plays: LegalPlays, rng: random.Random) -> Position | None:
    """A board after an illegal play of ``kind`` from ``before`` (side on roll = before.turn), or None."""
    side = before.turn
    me = before.counts(side)
    opp = before.counts(side.opponent)
    legal = [p for p in plays if not p.is_empty]

    def opp_at(p: int) -> int:  # opponent's checkers on my point p
        return opp[25 - p] if 1 <= p <= 24 else 0

    cands: list[Position | None] = []
    if kind == "illegal_wrong_distance":
        for play in legal:
            for st in play.steps:
                if st.end == OFF or st.hit:
                    continue
                for delta in (1, -1, 2):
                    e = st.end - delta
                    if 1 <= e <= 24 and opp_at(e) == 0 and e != st.start:
                        after = _move(play.after.with_turn(side), side, st.end, e)
                        cands.append(after)
    elif kind == "illegal_blocked":
        # one checker moved with several dice through a blocked landing point: both dice past two
        # held points, or a double past any held point; it lands on an open point or hits a blot
        if not me[BAR]:
            for s in range(1, 25):
                if me[s] == 0:
                    continue
                if dice.is_double:
                    d = dice.d1
                    routes = [(s - k * d, [s - j * d for j in range(1, k)]) for k in (2, 3, 4)]
                    routes = [(e, mids) for e, mids in routes if any(opp_at(m) >= 2 for m in mids)]
                else:
                    e = s - dice.d1 - dice.d2
                    routes = [(e, [s - dice.d1])] if opp_at(s - dice.d1) >= 2 and opp_at(s - dice.d2) >= 2 else []
                for e, _ in routes:
                    if 1 <= e <= 24 and opp_at(e) <= 1:
                        cands.append(_hit_move(before, side, s, e))
    elif kind == "illegal_bar":
        if me[BAR]:
            for s in range(1, 25):
                if me[s]:
                    for d in {dice.d1, dice.d2}:
                        e = s - d
                        if 1 <= e <= 24 and opp_at(e) == 0:
                            cands.append(_move(before, side, s, e))
    elif kind == "illegal_one_die":
        if plays.max_dice >= 2:
            for play in legal:
                st = play.steps[0]
                if not st.hit:
                    cands.append(_move(before, side, st.start, st.end))
    elif kind == "illegal_bear_off":
        if not before.all_home(side) and not me[BAR]:
            for s in range(1, 7):
                if me[s] and s <= max(dice.d1, dice.d2):
                    cands.append(_move(before, side, s, OFF))
    elif kind == "illegal_wrong_colour":
        o = side.opponent
        for s in range(1, 25):
            if opp[s]:
                for d in {dice.d1, dice.d2}:
                    e = s - d
                    if 1 <= e <= 24 and me[25 - e] == 0:
                        cands.append(_move(before, o, s, e))
    elif kind == "illegal_hit_not_to_bar":
        for play in legal:
            if play.hits:
                a = play.after
                oc = list(a.counts(side.opponent))
                oc[BAR] -= 1
                oc[OFF] += 1  # put aside, off the board (shown in the opponent's tray)
                cands.append(a.replace(side.opponent, tuple(oc)).with_turn(side))
    partial = partial_afters(plays)
    want_partial = kind == "illegal_one_die"  # the laws call a die left unplayed an incomplete play

    def fits(c: Position | None) -> bool:
        if c is None or c == before or not c.is_valid() or plays.find(c.with_turn(side.opponent)) is not None:
            return False
        if c.counts(Side.WHITE)[OFF] >= 15 or c.counts(Side.BLACK)[OFF] >= 15:
            return False
        return ((c.white, c.black) in partial) is want_partial

    good = [c for c in cands if c is not None and fits(c)]
    if not good:
        return None
    return rng.choice(good)


def expected_code(kind: str, detail: str = "", *, cube_owned_by_other: bool = False) -> str:
    """The infraction code (rules.laws.verdicts.Infraction value) the laws give a scripted ``kind``."""
    if kind == "premature_throw":
        return "premature-throw"
    if kind == "cocked_die":
        return "dice-on-die" if detail == "die_top" else "dice-cocked"
    if kind == "outside_table":
        return "dice-wrong-table"
    if kind in ("lifted_early", "illegal_one_die"):
        return "incomplete-play"
    if kind == "wrong_double":
        return "double-cube-not-owned" if cube_owned_by_other else "cube-wrong-value"
    if kind.startswith("illegal_"):
        return "illegal-play"
    raise GameScriptError(f"unknown infraction {kind!r}")


# ---------------------------------------------------------------------- the director
class GameDirector:
    """Plays and films one game.  Iterate :meth:`frames` for ``(image, truth)`` pairs."""

    def __init__(
        self, seed: int, *, script: GameScript | None = None, cfg: SimConfig | None = None,
        width: int = 1280, height: int = 720, fps: float = 30.0, timing: Timing | None = None,
        jpeg: bool = False, pixels: bool = True,
    ) -> None:
        self.seed = seed
        self.script = script or GameScript()
        self.cfg = (cfg or SimConfig()).with_overrides(hands_p=0.0, cup_p=0.0)
        self.fps = fps
        self.timing = timing or Timing()
        self.rng = random.Random(seed * 7 + 1)
        base = random_scene(seed, self.cfg, width=width, height=height, position=Position.initial())
        self.board = _Board(replace(base, dice=(), hands=(), cup=None), list(base.checkers))
        self.layout = base.layout
        self.board.cube = place_cube(self.layout, 64, "middle", self.rng)
        self.sensor = Sensor(seed)
        self.position = Position.initial()
        style = base.dice[0].style if base.dice else DieStyle.WHITE_BLACK_PIPS
        # each player has his own pair; half the time the pairs differ in colour
        other = self.rng.choice([s for s in DieStyle if s is not style]) if self.rng.random() < 0.5 else style
        self.die_styles = {Side.WHITE: style, Side.BLACK: other}
        self.die_size = base.dice[0].size if base.dice else 16.0
        self.jitter = self.cfg.checker_jitter_mm.sample(self.rng)
        self.seq = 0
        self.turn_no = 0
        self.cube_value = 1
        self.cube_owner: Side | None = None
        self.pending = list(self.script.infractions)
        self.events: list[str] = []
        self.still_frames = 0
        self.winner: Side | None = None
        self.drift_phase = self.rng.uniform(0, 2 * math.pi)
        self.exposure_amp = self.cfg.exposure_drift.sample(self.rng)
        self.wb_amp = self.cfg.wb_drift.sample(self.rng)
        self.current_dice: Dice | None = None
        self.jpeg = jpeg
        self.pixels = pixels
        self.seeded: list[Seeded] = []
        self.record: list[PlayedMove] = []
        self.early_dice: Dice | None = None  # a premature throw that stands: the next turn's dice
        self._blank = np.zeros((1, 1, 3), np.uint8)

    @property
    def seating(self) -> Seating:
        """Where WHITE sits and where his home is (what a calibration profile would say)."""
        return self.layout.seating

    def _seed(self, kind: str, side: Side, detail: str = "", *, cube_owned_by_other: bool = False,
              code: str | None = None, seq: int | None = None) -> None:
        code = code or expected_code(kind, detail, cube_owned_by_other=cube_owned_by_other)
        self.seeded.append(Seeded(kind, side, self.turn_no, self.seq if seq is None else seq, code, detail))
        if seq is None:
            self.events.append(f"infraction {kind} {side.name}" + (f" {detail}" if detail else ""))

    def _cocked_code(self, side: Side, detail: str) -> str:
        """What the laws call the cocked die as it came to rest: where its centre lies decides."""
        if detail == "die_top":
            return "dice-on-die"
        d = next(d for d in self.board.dice if d.cocked)
        x, y = d.center[0], d.center[1]
        area = self.layout.area_of(x, y)
        if self.layout.distance_to_boundary_mm(x, y) < 3.0 or area in (self.layout.right_hand_table(side), Area.RAIL):
            return "dice-cocked"  # in the table, or leaning on its edge from inside
        if area is Area.BAR:
            return "dice-on-bar"
        if area in (Area.LEFT_TABLE, Area.RIGHT_TABLE):
            return "dice-wrong-table"
        return "dice-off-board"

    # ------------------------------------------------------------------ frame output
    def _frame(self, *, moving: bool, blur: list[tuple[tuple[int, int, int, int], tuple[float, float], float]]
               | None = None) -> tuple[np.ndarray, dict[str, Any]]:
        b = self.board
        key = tuple(b.checkers)
        scene = replace(b.scene, checkers=key + tuple(b.held), dice=tuple(b.dice), cube=b.cube,
                        hands=tuple(b.hands), turn=self.position.turn)
        t = self.seq / self.fps
        if not self.pixels:
            self.still_frames = 0 if moving else self.still_frames + 1
            return self._blank, self._truth(scene, RenderInfo((), None, None), t, moving)
        if b.layer_key != key or b.layer is None:
            b.layer = checker_layer(replace(scene, checkers=key))
            b.layer_key = key
        hand_boost = 0.04 if b.hands else 0.0  # auto-exposure reacting to a bright/dark arm
        exposure = 1.0 + self.exposure_amp * math.sin(2 * math.pi * t / 7.0 + self.drift_phase) - hand_boost
        wb = (1.0 + self.wb_amp * math.sin(2 * math.pi * t / 11.0), 1.0,
              1.0 - self.wb_amp * math.sin(2 * math.pi * t / 13.0 + 1.0))
        img, gains = apply_gains(b.layer, replace(scene.post, exposure=exposure, wb=wb))
        info: RenderInfo = render_pieces(scene, img, gains=gains)
        for box, d, length in blur or ():
            motion_blur(img, box, d, length)
        out = self.sensor.apply(img, replace(scene.post, exposure=1.0, wb=(1.0, 1.0, 1.0)), jpeg=self.jpeg)
        self.still_frames = 0 if moving else self.still_frames + 1
        return out, self._truth(scene, info, t, moving)

    def _truth(self, scene: Scene, info: RenderInfo, t: float, moving: bool) -> dict[str, Any]:
        truth = build_truth(scene, info, seq=self.seq, t=t, still=not moving and self.still_frames >= 3,
                            events=tuple(self.events))
        truth["game"] = {
            "turn_no": self.turn_no,
            "on_roll": self.position.turn.name,
            "dice": None if self.current_dice is None else [self.current_dice.d1, self.current_dice.d2],
            "cube_value": self.cube_value,
            "cube_owner": None if self.cube_owner is None else self.cube_owner.name,
            "position_id": self.position.gnubg_id(),
        }
        self.events = []
        self.seq += 1
        return truth

    def _hold(self, n: int) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        for _ in range(n):
            yield self._frame(moving=False)

    # ------------------------------------------------------------------ checkers
    def _top(self, side: Side, region: str) -> int | None:
        """The checker a player takes from ``region``: the top layer, and on a point the one farthest from the rail."""
        idx = [i for i, c in enumerate(self.board.checkers) if c.side is side and c.region == region]
        if not idx:
            return None
        if region.startswith("p"):
            x0, y0, _ = self.layout.stack_slots(int(region[1:]), 0)
            return max(idx, key=lambda i: (round(self.board.checkers[i].center[2], 1),
                                           math.hypot(self.board.checkers[i].center[0] - x0,
                                                      self.board.checkers[i].center[1] - y0), i))
        return max(idx, key=lambda i: (self.board.checkers[i].center[2], i))

    def _free_index(self, side: Side, region: str) -> int:
        """The first stack position of ``region`` that no resting checker takes.

        A player puts a checker down in the first gap from the rail, never on top of another at the same height:
        after a hit the hitter's checker can rest beside the blot's empty place, and the next checker fills that
        place.  (Counting the checkers instead put two in one place, rendered as one.)"""
        on_point = region.startswith("p")
        resting = [c for c in self.board.checkers if c.region == region and (on_point or c.side is side)]
        taken = {stack_position(self.layout, region, side, c.center, len(resting) + 1) for c in resting}
        return next(n for n in range(len(resting) + 1) if n not in taken)  # (n checkers leave one of n + 1 free)

    def _slot(self, side: Side, region: str) -> CheckerPose:
        n = self._free_index(side, region) if region.startswith("p") or region == "bar" else \
            sum(1 for c in self.board.checkers if c.region == region)
        lay, s = self.layout, self.layout.spec
        half = s.checker_height_mm / 2
        j = self.jitter
        yaw = to_mat3(rot_z(self.rng.uniform(0, 360)))
        if region.startswith("p"):
            x, y, z = lay.stack_slots(int(region[1:]), n)
            return CheckerPose(side, region, (x + self.rng.gauss(0, j * 0.6), y + self.rng.gauss(0, j * 0.4),
                                              z + half), yaw)
        if region == "bar":
            x, y, z = lay.bar_slot(side, n)
            return CheckerPose(side, region, (x + self.rng.gauss(0, j * 0.4), y, z + half), yaw)
        tray_side = Side.WHITE if region == "tray_w" else Side.BLACK
        pos = place_checkers(lay, Position.from_points({}, {}) if False else self.position, self.rng, 0.0)
        del pos
        x, y, z = lay.tray_slot(tray_side, n, lying=True)
        return CheckerPose(side, region, (x + self.rng.gauss(0, j * 0.3), y, z + half), yaw)

    def _hand_to(self, side: Side, target: tuple[float, float, float], holding: Side | None) -> HandPose:
        return sample_hand(self.layout, self.rng, side, target=(target[0], target[1]), lift_mm=target[2],
                           holding=holding)

    def _move_checker(self, mover: Side, side: Side, src: str, dst: str
                      ) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        """The hand of ``mover`` carries one of ``side``'s checkers from ``src`` to ``dst``."""
        tm = self.timing
        b = self.board
        i = self._top(side, src) if src != "nowhere" else None
        if src != "nowhere" and i is None:
            return
        start = b.checkers[i].center if i is not None else self._off_board_point(mover)
        if dst == "gone":
            end = self._off_board_point(mover)
            new = None
        else:
            new = self._slot(side, dst)
            end = new.center
        base_hand = self._hand_to(mover, (start[0], start[1], 12.0), None)
        # reach
        entry = base_hand.entry
        for k in range(tm.reach):
            s = (k + 1) / tm.reach
            tip = _lerp3(entry, (start[0], start[1], 12.0), _ease(s))
            b.hands = [replace(base_hand, tip=tip)]
            yield self._frame(moving=True)
        # lift
        if i is not None:
            lifted = b.checkers.pop(i)
            self.events.append(f"checker_lifted {side.name} {src}")
        else:
            lifted = CheckerPose(side, "hand", start)
        for k in range(tm.carry):
            s = _ease((k + 1) / tm.carry)
            x = start[0] + (end[0] - start[0]) * s
            y = start[1] + (end[1] - start[1]) * s
            z = max(start[2], end[2]) + 40.0 * math.sin(math.pi * s) + 2.0
            tilt = rot_axis(np.array([1.0, 0.3, 0.0]), 12 * math.sin(math.pi * s))
            b.held = [CheckerPose(side, "hand", (x, y, z), to_mat3(tilt @ mat(lifted.rot)))]
            b.hands = [replace(base_hand, tip=(x, y, z + 6.0), holding=side)]
            yield self._frame(moving=True)
        b.held = []
        if new is not None:
            b.checkers.append(new)
            self.events.append(f"checker_placed {side.name} {dst}")
        else:
            self.events.append(f"checker_removed {side.name}")
        for k in range(tm.place):
            b.hands = [replace(base_hand, tip=(end[0], end[1], 14.0 + 3 * k), holding=None)]
            yield self._frame(moving=True)
        for k in range(tm.retreat):
            s = _ease((k + 1) / tm.retreat)
            b.hands = [replace(base_hand, tip=_lerp3((end[0], end[1], 20.0), base_hand.entry, s))]
            yield self._frame(moving=True)
        b.hands = []

    def _off_board_point(self, side: Side) -> tuple[float, float, float]:
        o = self.layout.outline()
        near = self.layout.seating.side_of(side) is LongSide.NEAR
        return (o.center[0], o.y1 + 80 if near else o.y0 - 80, 40.0)

    def _transition(self, mover: Side, a: Position, b: Position, play: Play | None
                    ) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        """Animate the board from ``a`` to ``b``: a legal play step by step, anything else by difference."""
        if play is not None:
            side = a.turn
            for st in play.steps:
                src, dst = _region(side, st.start), _region(side, st.end)
                yield from self._move_checker(mover, side, src, dst)
                if st.hit:
                    yield from self._move_checker(mover, side.opponent, _region(side.opponent, 25 - st.end), "bar")
            return
        for side, src, dst in diff_moves(a, b):
            yield from self._move_checker(mover, side, src, dst)

    # ------------------------------------------------------------------ dice
    def _throw(self, side: Side, values: tuple[int, ...], *, cocked: str | None = None,
               area: Area | None = None, keep: bool = False) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        tm = self.timing
        b = self.board
        area = area or self.layout.right_hand_table(side)
        final = place_dice(self.layout, values, self.rng, area=area, style=self.die_styles[side], size=self.die_size,
                           checkers=tuple(b.checkers), cocked=cocked, owner=side, others=tuple(b.dice))
        kept = list(b.dice) if keep else []
        start = self._off_board_point(side)
        start = (start[0] * 0.5 + final[0].center[0] * 0.5, start[1], 70.0)
        spins = [(np.array([self.rng.gauss(0, 1) for _ in range(3)]), self.rng.uniform(540, 1100)) for _ in final]
        # the cup comes in and tips
        hand = self._hand_to(side, (start[0], start[1] + 0.0, 80.0), None)
        for k in range(4):
            b.hands = [replace(hand, tip=_lerp3(hand.entry, hand.tip, (k + 1) / 4))]
            yield self._frame(moving=True)
        self.events.append(f"dice_thrown {side.name}")
        for k in range(tm.throw):
            s = (k + 1) / tm.throw
            cur = []
            blur = []
            for d, (axis, spin) in zip(final, spins, strict=True):
                rot = rot_axis(axis, spin * (1 - s) ** 2) @ mat(d.rot)
                x = start[0] + (d.center[0] - start[0]) * _ease(s)
                y = start[1] + (d.center[1] - start[1]) * _ease(s)
                bounce = abs(math.sin(3 * math.pi * s)) * 45 * (1 - s) ** 1.5
                z = d.center[2] + bounce + (start[2] - d.center[2]) * (1 - s) ** 3
                a = d.size / 2
                low = min(float((rot @ np.array([p, q, r]))[2]) for p in (-a, a) for q in (-a, a) for r in (-a, a))
                z = max(z, -low)
                cur.append(replace(d, center=(x, y, z), rot=_m3(rot), value=face_up(DIE_AXES, rot),
                                   tilt_deg=0.0 if s < 1 else d.tilt_deg))
                if s < 0.9:
                    p0 = self.board.scene.camera.project([d.center, (x, y, z)])
                    v = p0[0] - p0[1]
                    c = p0[1]
                    r = 30
                    blur.append(((int(c[0]) - r, int(c[1]) - r, int(c[0]) + r, int(c[1]) + r),
                                 (float(v[0]), float(v[1])), min(12.0, 2 + 10 * (1 - s))))
            b.dice = kept + (cur if s < 1 else list(final))
            if k < 4:
                b.hands = [replace(hand, tip=_lerp3(hand.tip, hand.entry, (k + 1) / 4))]
            else:
                b.hands = []
            yield self._frame(moving=True, blur=blur)
        b.dice = kept + list(final)
        self.events.append("dice_settled " + " ".join(str(d.value) for d in final) +
                           (" cocked" if any(d.cocked for d in final) else ""))
        yield from self._hold(tm.settle)

    def _lift_dice(self, side: Side) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        b = self.board
        if not b.dice:
            return
        mine = [d for d in b.dice if d.owner is side] or list(b.dice)
        cx = float(np.mean([d.center[0] for d in mine]))
        cy = float(np.mean([d.center[1] for d in mine]))
        hand = self._hand_to(side, (cx, cy, 15.0), None)
        for k in range(self.timing.lift):
            s = _ease((k + 1) / self.timing.lift)
            b.hands = [replace(hand, tip=_lerp3(hand.entry, hand.tip, s))]
            yield self._frame(moving=True)
        b.dice = [d for d in b.dice if d not in mine]
        self.events.append(f"dice_lifted {side.name}")
        for k in range(self.timing.retreat):
            s = _ease((k + 1) / self.timing.retreat)
            b.hands = [replace(hand, tip=_lerp3(hand.tip, hand.entry, s))]
            yield self._frame(moving=True)
        b.hands = []

    # ------------------------------------------------------------------ cube
    def _cube_to(self, side: Side, value: int, position: str, event: str
                 ) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        b = self.board
        assert b.cube is not None
        start = b.cube.center
        target = place_cube(self.layout, value, position, self.rng)
        hand = self._hand_to(side, (start[0], start[1], 30.0), None)
        n = self.timing.cube
        for k in range(n):
            s = _ease((k + 1) / n)
            tip = _lerp3(hand.entry, start, s) if k < n // 2 else _lerp3(start, target.center, s)
            if k >= n // 2:
                b.cube = replace(target, center=(tip[0], tip[1], target.center[2] + 30 * math.sin(math.pi * s)))
            b.hands = [replace(hand, tip=(tip[0], tip[1], tip[2] + 20))]
            yield self._frame(moving=True)
        b.cube = target
        self.events.append(event)
        for k in range(self.timing.retreat):
            b.hands = [replace(hand, tip=_lerp3(target.center, hand.entry, (k + 1) / self.timing.retreat))]
            yield self._frame(moving=True)
        b.hands = []

    # ------------------------------------------------------------------ the game
    def _take_infraction(self, kinds: tuple[str, ...]) -> str | None:
        for kind, turn in self.pending:
            if kind in kinds and self.turn_no >= turn:
                return kind
        return None

    def _done(self, kind: str) -> None:
        for i, (k, _) in enumerate(self.pending):
            if k == kind:
                del self.pending[i]
                return

    def frames(self) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        tm = self.timing
        yield from self._hold(tm.settle)
        # opening throw: one die each, in each player's right-hand table; ties are thrown again
        while True:
            w, bl = self.rng.randint(1, 6), self.rng.randint(1, 6)
            yield from self._throw(Side.WHITE, (w,))
            yield from self._throw(Side.BLACK, (bl,), keep=True)
            self.events.append(f"opening {w} {bl}")
            yield from self._hold(tm.think)
            if w != bl:
                break
            yield from self._lift_dice(Side.WHITE)
            yield from self._lift_dice(Side.BLACK)
            yield from self._hold(tm.think)
        first = Side.WHITE if w > bl else Side.BLACK
        self.position = self.position.with_turn(first)
        dice = Dice(w, bl) if first is Side.WHITE else Dice(bl, w)
        opening = True
        while self.turn_no < self.script.max_turns:
            self.turn_no += 1
            side = self.position.turn
            if self.early_dice is not None:  # a premature throw that stands: already on the board
                dice, self.early_dice = self.early_dice, None
            elif not opening:
                yield from self._maybe_double(side)
                if self.winner is not None:
                    break
                dice = Dice(self.rng.randint(1, 6), self.rng.randint(1, 6))
                yield from self._throw_turn(side, dice)
            self.current_dice = dice
            first_turn, opening = opening, False
            lifted = False
            plays = legal_plays(self.position, dice)
            play = self.rng.choice(list(plays))
            before = self.position
            kind, bad = self._illegal_play(before, dice, plays)
            early = self._take_infraction(("lifted_early",))
            yield from self._hold(tm.think)
            if kind and bad is not None:
                # the illegal play is made and completed (dice lifted); the opponent notices; it is corrected
                self._done(kind)
                yield from self._transition(side, before, bad, None)
                self.position = bad.with_turn(side)
                yield from self._hold(tm.settle)
                self._seed(kind, side)
                yield from self._lift_dice(side)
                lifted = True
                yield from self._hold(tm.illegal_hold)
                self.events.append("correction")
                yield from self._transition(side, bad.with_turn(side), play.after, None)
                yield from self._hold(tm.settle)
            elif early and len(play.steps) >= 2:
                # the dice are lifted after the first step: an incomplete play, then completed
                self._done("lifted_early")
                first_step = Play(play.steps[:1], play.after)
                yield from self._transition(side, before, play.after, first_step)
                yield from self._hold(tm.settle)
                self._seed("lifted_early", side)
                yield from self._lift_dice(side)
                lifted = True
                yield from self._hold(tm.illegal_hold)
                self.events.append("correction")
                rest = Play(play.steps[1:], play.after)
                yield from self._transition(side, before, play.after, rest)
                yield from self._hold(tm.settle)
            else:
                yield from self._transition(side, before, play.after, play)
            self.position = play.after
            self.record.append(PlayedMove(side, (dice.d1, dice.d2), play.notation()))
            self.events.append(f"play {side.name} {play.notation() or 'none'}")
            winner = self.position.winner()
            if winner is not None:
                self.winner = winner
                yield from self._hold(tm.think)
                if not lifted:
                    yield from self._lift_dice(side)
                self.events.append(f"game_over {winner.name}")
                yield from self._hold(tm.settle * 2)
                break
            if not lifted and not first_turn and self._take_infraction(("premature_throw",)):
                self._done("premature_throw")
                nxt = self.position.turn
                early_dice = Dice(self.rng.randint(1, 6), self.rng.randint(1, 6))
                yield from self._hold(tm.think)
                self._seed("premature_throw", nxt)
                yield from self._throw(nxt, (early_dice.d1, early_dice.d2), keep=True)
                yield from self._hold(tm.think)
                yield from self._lift_dice(side)
                yield from self._hold(tm.think)
                if self.script.premature == "stands":
                    self.early_dice = early_dice
                else:  # void: picked up, thrown again when his turn comes
                    yield from self._lift_dice(nxt)
            else:
                if not lifted:
                    yield from self._lift_dice(side)
                if first_turn:  # the other opening die goes back to its owner
                    yield from self._lift_dice(side.opponent)
            self.current_dice = None
        else:  # the turns ran out: the scene stands still a moment (the last play is seen complete)
            yield from self._hold(tm.settle)

    def _illegal_play(self, before: Position, dice: Dice, plays: LegalPlays) -> tuple[str | None, Position | None]:
        """The first due illegal play this throw allows (a kind that is impossible now waits)."""
        tried: set[str] = set()
        due = sorted((k for k, turn in self.pending if k.startswith("illegal_") and self.turn_no >= turn),
                     key=lambda k: _RARITY.index(k))  # the kinds that are seldom possible first
        for kind in due:
            if kind not in tried:
                tried.add(kind)
                bad = make_illegal(kind, before, dice, plays, self.rng)
                if bad is not None:
                    return kind, bad
        return None, None

    def _throw_turn(self, side: Side, dice: Dice) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        """A turn's throw, with a scripted invalid throw (cocked, wrong table) picked up and thrown again."""
        tm = self.timing
        kind = self._take_infraction(("cocked_die", "outside_table"))
        cocked = None
        area = None
        if kind == "cocked_die":
            cocked = self.rng.choice(("checker", "rail", "bar", "die", "die_top"))
        elif kind == "outside_table":
            area = self.layout.right_hand_table(side.opponent)
        seq = self.seq
        if kind:
            self._done(kind)
            self.events.append(f"infraction {kind} {side.name}" + (f" {cocked}" if cocked else ""))
        yield from self._throw(side, (dice.d1, dice.d2), cocked=cocked, area=area)
        if kind:
            code = self._cocked_code(side, cocked) if cocked else None
            self._seed(kind, side, cocked or "", code=code, seq=seq)
            # the throw is void: it stands a moment, is picked up and thrown again
            yield from self._hold(tm.think)
            yield from self._lift_dice(side)
            yield from self._hold(tm.think)
            yield from self._throw(side, (dice.d1, dice.d2))

    def _maybe_double(self, side: Side) -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        wrong = self._take_infraction(("wrong_double",))
        may = self.cube_owner in (None, side) and self.cube_value < 64
        if not wrong and not (may and self.rng.random() < self.script.double_p):
            return
        pos = "white" if side.opponent is Side.WHITE else "black"
        if wrong:
            self._done("wrong_double")
            value = min(64, self.cube_value * 4) if self.cube_value < 16 else 2
            yield from self._cube_to(side, value, pos, f"cube_offered {value}")
            self._seed("wrong_double", side, cube_owned_by_other=self.cube_owner is side.opponent)
            yield from self._hold(self.timing.illegal_hold)
            back = "middle" if self.cube_owner is None else ("white" if self.cube_owner is Side.WHITE else "black")
            yield from self._cube_to(side, 64 if self.cube_owner is None else self.cube_value, back, "correction")
            return
        value = self.cube_value * 2
        yield from self._cube_to(side, value, pos, f"cube_offered {value}")
        yield from self._hold(self.timing.think)
        if self.rng.random() < self.script.take_p:
            self.cube_value = value
            self.cube_owner = side.opponent
            self.events.append("cube_taken")
            yield from self._hold(self.timing.think)
        else:
            self.events.append("cube_dropped")
            self.winner = side
            self.events.append(f"game_over {side.name}")
            yield from self._hold(self.timing.settle * 2)


def stack_position(layout: BoardLayout, region: str, side: Side, centre: tuple[float, float, float], limit: int) -> int:
    """The stack position a checker resting at ``centre`` on ``region`` takes, of the first ``limit``
    (``layout.stack_slots`` on a point, ``layout.bar_slot`` of ``side`` on the bar): the nearest within half a
    diameter at its height (positions lie a diameter and a checker's height apart, so at most one is); -1: none."""
    s = layout.spec
    half = s.checker_height_mm / 2
    best, where = 0.5 * s.checker_diameter_mm, -1
    for n in range(limit):
        x, y, z = layout.stack_slots(int(region[1:]), n) if region.startswith("p") else layout.bar_slot(side, n)
        if abs(centre[2] - (z + half)) < half and (d := math.hypot(centre[0] - x, centre[1] - y)) < best:
            best, where = d, n
    return where


def _ease(s: float) -> float:
    return 0.5 - 0.5 * math.cos(math.pi * min(1.0, max(0.0, s)))


def _lerp3(a: tuple[float, float, float], b: tuple[float, float, float], s: float) -> tuple[float, float, float]:
    return (a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s, a[2] + (b[2] - a[2]) * s)


def _m3(r: np.ndarray) -> tuple[float, float, float, float, float, float, float, float, float]:
    return to_mat3(r)


def render_game(
    seed: int, out: Path, *, script: GameScript | None = None, cfg: SimConfig | None = None,
    width: int = 1280, height: int = 720, fps: float = 30.0, codec: str = "mp4v", max_frames: int | None = None,
) -> GameResult:
    """Render a whole game to ``out/game_SEED.(mp4|avi)`` and ``out/game_SEED.jsonl`` (one truth per frame)."""
    import json

    out.mkdir(parents=True, exist_ok=True)
    ext = "mp4" if codec == "mp4v" else "avi"
    video = out / f"game_{seed:06d}.{ext}"
    truth_path = out / f"game_{seed:06d}.jsonl"
    director = GameDirector(seed, script=script, cfg=cfg, width=width, height=height, fps=fps)
    writer = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*codec), fps, (width, height))
    if not writer.isOpened():
        raise OSError(f"cannot open a video writer for {video} with codec {codec}")
    n = 0
    try:
        with truth_path.open("w", encoding="utf-8") as tf:
            for img, truth in director.frames():
                writer.write(img)
                tf.write(json.dumps(truth, separators=(",", ":")) + "\n")
                n += 1
                if max_frames is not None and n >= max_frames:
                    break
    finally:
        writer.release()
    return GameResult(video, truth_path, n, director.turn_no, director.winner)
