"""A rendered game never puts two resting checkers in one place.

The game director used to put a checker down at the stack position given by the number of checkers on the
point.  After a hit (the hitter's checker set down beside the blot, the blot then taken to the bar) the point
held one checker in its second position, and the next checker to arrive went to that same position: two checkers
in one place, rendered as one, on 590 of game 7443's 948 still frames.  Now a checker goes to the first free
position from the rail.
"""

from __future__ import annotations

import math

from referee.recorded import PACE
from referee.rendered import schedule
from vision.sim.config import SimConfig
from vision.sim.game import GameDirector, GameScript


def test_no_two_checkers_rest_in_one_place() -> None:
    director = GameDirector(7443, script=GameScript(schedule(2, 1), max_turns=40), cfg=SimConfig(), width=1280,
                            height=720, timing=PACE, pixels=False)
    diameter = director.layout.spec.checker_diameter_mm
    stills = gaps = 0
    for _image, truth in director.frames():
        if not truth.get("still"):
            continue
        stills += 1
        on: dict[str, list[tuple[float, float, float]]] = {}
        for c in director.board.checkers:
            if c.region.startswith("p") or c.region == "bar":
                on.setdefault(c.region + (c.side.name if c.region == "bar" else ""), []).append(c.center)
        for region, centres in on.items():
            for i, a in enumerate(centres):
                for b in centres[i + 1:]:
                    assert abs(a[2] - b[2]) >= 1.0 or math.hypot(a[0] - b[0], a[1] - b[1]) >= 0.7 * diameter, \
                        (truth.get("seq"), region, a, b)
            if region.startswith("p"):
                x0, y0, _ = director.layout.stack_slots(int(region[1:]), 0)
                gaps += not any(math.hypot(x - x0, y - y0) < 0.5 * diameter for x, y, _ in centres)
    assert stills > 900
    # a hitter's checker may still rest beside the blot's empty place (a real player's hit), so gaps stay
    assert gaps > 0
