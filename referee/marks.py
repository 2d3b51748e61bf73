"""What to outline on an evidence image, from the calibration profile's board -> image mapping.

:func:`marker_for` turns a judged infraction into :class:`~referee.evidence.Mark` polygons in
image pixels: the points at fault (their triangles, projected with the profile's pose and lens),
the dice of a faulty throw (their boxes as vision read them) with the thrower's right-hand table
where they should have landed, and the cube for a cube fault.  Unsure readings are drawn in
yellow, faults in red.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from referee.evidence import Mark
from rules.laws.events import DiceThrown
from rules.position import Side
from vision.observation import BoardObservation

Marker = Callable[[Any, BoardObservation | None], list[Mark]]


def _poly(a: Any) -> tuple[tuple[float, float], ...]:
    arr = np.asarray(a, dtype=np.float64).reshape(-1, 2)
    return tuple((float(x), float(y)) for x, y in arr)


def marker_for(profile: Any) -> Marker:
    """A marker for :attr:`referee.session.Session.marker` drawing with ``profile``'s geometry."""
    polygons = {k: _poly(v) for k, v in profile.region_polygons_image().items()}

    def mark(judged: Any, obs: BoardObservation | None) -> list[Mark]:
        v = judged.verdict
        unsure = bool(judged.emitted.unsure)
        out: list[Mark] = []
        points = tuple(v.players.points) or tuple(judged.emitted.points)
        for p in points:
            if 1 <= p <= 24 and f"p{p}" in polygons:
                out.append(Mark(polygons[f"p{p}"], str(p), unsure))
        if v.players.dice and obs is not None:
            for d in obs.dice:
                x, y, w, h = d.image_box
                label = f"{d.face or '?'}" + (" cocked" if d.cocked else "") + (" on die" if d.on_die else "")
                out.append(Mark.box(x, y, x + w, y + h, label, unsure))
            ev = judged.emitted.event
            if isinstance(ev, DiceThrown):
                key = "dice_w" if ev.player is Side.WHITE else "dice_b"
                if key in polygons:
                    out.append(Mark(polygons[key], "throw here", True))
        if v.players.cube and obs is not None and obs.cube is not None:
            box = getattr(obs.cube, "image_box", None)
            if box is not None:
                x, y, w, h = box
                out.append(Mark.box(x, y, x + w, y + h, "cube", unsure))
            elif "bar" in polygons:
                out.append(Mark(polygons["bar"], "cube", unsure))
        return out

    return mark


def outline_layer(profile: Any) -> list[Mark]:
    """The board's outline, bar and points (for the live window)."""
    polygons = profile.region_polygons_image()
    keep = ["outline", "bar", *[f"p{p}" for p in range(1, 25)]]
    return [Mark(_poly(polygons[k]), "", True) for k in keep if k in polygons]
