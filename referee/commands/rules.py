"""``bgref rules``: legal plays and judging from the command line.

    bgref rules plays --position 4HPwATDgc/ABMA --dice 31 [--json]
    bgref rules plays --batch - < cases.jsonl        # {"position": ID, "dice": "31"} per line
    bgref rules judge --before ID --dice 31 --after ID [--json]

Positions are gnubg Position IDs (relative to the side on roll); ``after`` IDs are
written and read with the opponent on roll, as gnubg does after a play.  An XGID
(``XGID=...``) or the text form (``W:... B:... turn=W``) is accepted too.
``judge`` exits 0 for a legal play, 1 for an illegal one, 2 for bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from rules.dice import Dice
from rules.ids import Xgid
from rules.judge import Judgment, judge
from rules.moves import LegalPlays, legal_plays
from rules.position import Position, PositionError, Side


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("rules", help="legal plays and judging a play (gnubg Position IDs in and out)")
    rsub = p.add_subparsers(dest="rules_command", metavar="WHAT")
    rsub.required = True

    plays = rsub.add_parser("plays", help="every legal play of a roll, with the position after each")
    src = plays.add_mutually_exclusive_group(required=True)
    src.add_argument("--position", help="gnubg Position ID (or XGID=..., or the text form)")
    src.add_argument("--batch", metavar="FILE", help="JSON lines {'position': ID, 'dice': '31'}; '-' = stdin")
    plays.add_argument("--dice", help="the roll, e.g. 31 or 3-1 (with --position)")
    plays.add_argument("--json", action="store_true", help="JSON output")
    _laws_flag(plays)
    plays.set_defaults(func=_plays)

    j = rsub.add_parser("judge", help="judge the play that turned BEFORE into AFTER")
    j.add_argument("--before", required=True, help="gnubg Position ID before the play (mover on roll)")
    j.add_argument("--dice", required=True, help="the roll, e.g. 31")
    j.add_argument("--after", required=True, help="gnubg Position ID after the play (opponent on roll)")
    j.add_argument("--json", action="store_true", help="JSON output")
    j.add_argument("--nearest", type=int, default=3, help="how many nearest legal plays to show (default 3)")
    _laws_flag(j)
    j.set_defaults(func=_judge)


def _laws_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--highest-first-in-bearoff",
        action="store_true",
        help="1931 Laws rule 12: in bearing off the higher die must be played first",
    )


def read_position(text: str, turn: Side = Side.WHITE) -> Position:
    """A gnubg Position ID, an XGID or the text form; ``turn`` for a gnubg ID."""
    t = text.strip()
    if t.upper().startswith("XGID="):
        return Xgid.parse(t).position
    if t.startswith("W:") or t.startswith("B:"):
        return Position.from_text(t)
    return Position.from_gnubg_id(t, turn)


def _after_position(text: str, before: Position) -> Position:
    t = text.strip()
    if t.upper().startswith("XGID=") or t.startswith(("W:", "B:")):
        return read_position(t)
    return Position.from_gnubg_id(t, before.turn.opponent)


def plays_json(position: Position, dice: Dice, plays: LegalPlays) -> dict[str, Any]:
    return {
        "position": position.gnubg_id(),
        "dice": str(dice),
        "plays": [{"play": p.notation(), "after": p.after.gnubg_id()} for p in plays],
    }


def _plays(args: argparse.Namespace) -> int:
    hf = bool(args.highest_first_in_bearoff)
    if args.batch is not None:
        if args.batch == "-":
            return _batch(sys.stdin, sys.stdout, hf)
        with open(args.batch, encoding="utf-8") as f:
            return _batch(f, sys.stdout, hf)
    if not args.dice:
        raise ValueError("--dice is required with --position")
    pos = read_position(args.position)
    dice = Dice.parse(args.dice)
    plays = legal_plays(pos, dice, highest_first_in_bearoff=hf)
    if args.json:
        print(json.dumps(plays_json(pos, dice, plays)))
        return 0
    print(f"{len(plays)} legal play(s) for {dice} in {pos.gnubg_id()}:")
    width = max(len(p.notation()) for p in plays) if plays else 0
    for p in plays:
        print(f"  {p.notation() or '(no legal play)':<{max(width, 15)}}  after {p.after.gnubg_id()}")
    return 0


def _batch(inp: TextIO, out: TextIO, hf: bool) -> int:
    status = 0
    for lineno, line in enumerate(inp, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
            if not isinstance(case, dict) or "position" not in case or "dice" not in case:
                raise ValueError('expected {"position": ID, "dice": "31"}')
            pos = read_position(str(case["position"]))
            dice = Dice.parse(str(case["dice"]))
            result = plays_json(pos, dice, legal_plays(pos, dice, highest_first_in_bearoff=hf))
        except (ValueError, PositionError) as exc:
            status = 1
            result = {"line": lineno, "error": str(exc)}
            if isinstance(case := _maybe(line), dict):
                result = {**{k: case[k] for k in ("position", "dice") if k in case}, **result}
        out.write(json.dumps(result) + "\n")
    out.flush()
    return status


def _maybe(line: str) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def judgment_json(j: Judgment) -> dict[str, Any]:
    return {
        "legal": j.legal,
        "play": j.play.notation() if j.play is not None else None,
        "after": j.play.after.gnubg_id() if j.play is not None else None,
        "reasons": [{"code": r.code.value, "message": r.message} for r in j.reasons],
        "nearest": [{"play": p.notation(), "after": p.after.gnubg_id()} for p in j.nearest],
    }


def _judge(args: argparse.Namespace) -> int:
    before = read_position(args.before)
    dice = Dice.parse(args.dice)
    after = _after_position(args.after, before)
    j = judge(before, dice, after, highest_first_in_bearoff=bool(args.highest_first_in_bearoff), nearest=args.nearest)
    if args.json:
        print(json.dumps(judgment_json(j)))
    else:
        print(j.summary())
    return 0 if j.legal else 1
