"""Laws events and verdicts as JSON values, for the journal (and back, for ``--resume``).

>>> from rules.laws.events import DiceThrown
>>> from rules.position import Side
>>> ev = DiceThrown.flat(Side.BLACK, 6, 4, t=1.5)
>>> decode_event(encode_event(ev)) == ev
True
"""

from __future__ import annotations

import dataclasses
import typing
from enum import Enum
from typing import Any

import rules.laws.events as events_module
from rules.laws.events import DieThrow, Event, Rest
from rules.laws.verdicts import Verdict
from rules.position import Position, Side
from vision.geometry import Area
from vision.observation import BoardObservation, CountReading, CubePosition, CubeReading, DieReading

_EVENT_TYPES: dict[str, type] = {
    name: obj for name, obj in vars(events_module).items()
    if isinstance(obj, type) and dataclasses.is_dataclass(obj) and obj is not DieThrow
}


class CodecError(ValueError):
    """A journal value that is not a known event."""


def encode_position(p: Position) -> dict[str, Any]:
    return {"w": list(p.white), "b": list(p.black), "turn": p.turn.letter}


def decode_position(d: dict[str, Any]) -> Position:
    return Position(tuple(d["w"]), tuple(d["b"]), Side.WHITE if d["turn"] == "W" else Side.BLACK)


def _enc(v: Any) -> Any:
    if isinstance(v, Side):
        return v.letter
    if isinstance(v, Position):
        return encode_position(v)
    if isinstance(v, DieThrow):
        return {"value": v.value, "rest": v.rest.value, "flat": v.flat}
    if isinstance(v, Enum):
        return v.value
    if isinstance(v, tuple | list):
        return [_enc(x) for x in v]
    return v


def encode_event(event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type(event).__name__}
    for f in dataclasses.fields(event):
        out[f.name] = _enc(getattr(event, f.name))
    return out


def _dec(hint: Any, v: Any) -> Any:
    if v is None:
        return None
    if hint is Side:
        return Side.WHITE if v == "W" else Side.BLACK
    if hint is Position:
        return decode_position(v)
    if hint is DieThrow:
        return DieThrow(int(v["value"]), Rest(v["rest"]), bool(v["flat"]))
    origin = typing.get_origin(hint)
    if origin is tuple:
        args = typing.get_args(hint)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(_dec(args[0], x) for x in v)
        return tuple(_dec(a, x) for a, x in zip(args, v, strict=True))
    if origin is typing.Union or origin is getattr(__import__("types"), "UnionType", None):
        for a in typing.get_args(hint):
            if a is type(None):
                continue
            try:
                return _dec(a, v)
            except (TypeError, ValueError, KeyError):
                continue
    return v


def decode_event(d: dict[str, Any]) -> Event:
    cls = _EVENT_TYPES.get(str(d.get("type")))
    if cls is None:
        raise CodecError(f"unknown event type in the journal: {d.get('type')!r}")
    hints = typing.get_type_hints(cls)
    kwargs = {f.name: _dec(hints[f.name], d[f.name]) for f in dataclasses.fields(cls) if f.name in d}
    try:
        return typing.cast(Event, cls(**kwargs))
    except (TypeError, ValueError) as exc:
        raise CodecError(f"cannot rebuild {cls.__name__} from {d!r}: {exc}") from exc


def encode_verdict(v: Verdict) -> dict[str, Any]:
    """The verdict as the director reads it later (not decoded: verdicts are recomputed on resume)."""
    return {
        "kind": v.kind.value,
        "code": None if v.code is None else v.code.value,
        "offender": None if v.offender is None else v.offender.letter,
        "remedy": v.remedy.value,
        "rule": None if v.citation is None else f"{v.citation.code} {v.citation.rule}",
        "cites": None if v.citation is None else str(v.citation),
        "ask": v.ask,
        "players": v.players.text,
        "points": list(v.players.points),
        "director": v.director,
    }


# ---------------------------------------------------------------------- observations
def encode_observation(o: BoardObservation) -> dict[str, Any]:
    """An observation as JSON (a recorded stream replays without the camera or vision)."""

    def cr(r: CountReading) -> list[Any]:
        return [r.white, r.black, round(r.confidence, 4)]

    return {
        "seq": o.seq,
        "t": o.t,
        "points": [cr(r) for r in o.points],
        "bar": cr(o.bar),
        "trays": [cr(o.trays[0]), cr(o.trays[1])],
        "dice": [
            {"face": d.face, "fc": d.face_confidence, "cocked": d.cocked, "cc": d.cocked_confidence,
             "area": d.area.value, "bmm": d.boundary_mm, "xy": list(d.center_mm), "box": list(d.image_box),
             "on_die": d.on_die, "owner": None if d.owner is None else d.owner.letter}
            for d in o.dice
        ],
        "cube": None if o.cube is None else {
            "face": o.cube.face, "fc": o.cube.face_confidence, "pos": o.cube.position.value,
            "rot": o.cube.rotation_deg, "pc": o.cube.position_confidence},
        "still": o.still,
        "covered": sorted(o.covered),
        "confident": o.confident,
    }


def decode_observation(d: dict[str, Any]) -> BoardObservation:
    try:
        def cr(v: list[Any]) -> CountReading:
            return CountReading(int(v[0]), int(v[1]), float(v[2]))

        dice = tuple(
            DieReading(x["face"], float(x["fc"]), x["cocked"], float(x["cc"]), Area(x["area"]), float(x["bmm"]),
                       (float(x["xy"][0]), float(x["xy"][1])),
                       (int(x["box"][0]), int(x["box"][1]), int(x["box"][2]), int(x["box"][3])), bool(x["on_die"]),
                       None if x["owner"] is None else (Side.WHITE if x["owner"] == "W" else Side.BLACK))
            for x in d["dice"]
        )
        c = d["cube"]
        cube = None if c is None else CubeReading(c["face"], float(c["fc"]), CubePosition(c["pos"]), float(c["rot"]),
                                                   float(c["pc"]))
        return BoardObservation(
            seq=int(d["seq"]), t=float(d["t"]), points=tuple(cr(v) for v in d["points"]), bar=cr(d["bar"]),
            trays=(cr(d["trays"][0]), cr(d["trays"][1])), dice=dice, cube=cube, still=bool(d["still"]),
            covered=frozenset(d["covered"]), confident=bool(d["confident"]),
        )
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CodecError(f"not a recorded observation: {str(d)[:120]!r} ({exc})") from exc
