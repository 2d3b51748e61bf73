"""Blots on a rendered game frame are never read as two checkers with confidence.

Session 11's ``stack_contradiction_min`` 0.99 (the stack model reading a point whose slots contradict every
stack) read 5 more of the 249 seen random boards, and on rendered games read blots as two at 0.997-1.0:
game 7409 frame 496 (the recorded games' script and pace) has three black blots, p4, p18 and p22, all read
(0, 2) surely with it on.  A played checker does not sit where a placed one does, so the random scenes did not
show it.  It is off by default; this frame keeps it honest.  (Session 12: the game director no longer puts two
checkers in one place, which changed this frame; the look on no longer misreads it, so the frame no longer shows
why the look is off.)
"""

from __future__ import annotations

from typing import Any

import pytest

pytest.importorskip("onnxruntime")


@pytest.fixture(scope="module")
def frame_496() -> Any:
    from referee.recorded import PACE
    from referee.rendered import schedule, sim_frames
    from vision.sim.config import SimConfig
    from vision.sim.game import GameDirector, GameScript

    director = GameDirector(7409, script=GameScript(schedule(2, 1), max_turns=40), cfg=SimConfig(), width=1280,
                            height=720, timing=PACE, pixels=True)
    return next(f for f in sim_frames(director) if f.seq == 496)


def _read(frame: Any, **cfg: Any) -> Any:
    from vision.config import VisionConfig
    from vision.reader import BoardReader
    from vision.training.rendered import profile_for

    reader = BoardReader(config=VisionConfig(**cfg))
    return reader.read_image(frame.image, profile_for(frame.truth), seq=frame.seq, t=frame.t).readings()


def test_blots_of_a_played_game_are_not_read_as_two(frame_496: Any) -> None:
    from referee.rendered import oracle_reader

    truth = oracle_reader(frame_496).readings()
    readings = _read(frame_496)
    for point in ("p4", "p18", "p22"):
        assert (truth[point].white, truth[point].black) == (0, 1)
        r = readings[point]
        assert (r.white, r.black) == (0, 1) or r.confidence < 0.9, (point, r)
