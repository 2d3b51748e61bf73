from __future__ import annotations

from pathlib import Path

import numpy as np

from firmware_bridge.signals import IDLE_STATE, Seat, lit_leds, render, right_hand_table
from referee.journal import read_journal
from referee.session import Session, SessionInfo
from rules.laws.verdicts import Infraction, VerdictKind
from rules.notation import parse_play
from rules.position import Position, Side
from tests.referee.scenes import B_SPOTS, W_SPOTS, Script, die, thrown
from vision.geometry import Area

START = Position.initial()


class FakeDevice:
    def __init__(self) -> None:
        self.signals: list = []
        self.clears = 0

    def signal(self, s: object) -> None:
        self.signals.append(s)

    def clear(self) -> None:
        self.clears += 1


def game_script() -> Script:
    """White opens 5-3 and plays 8/3 6/3; black throws 6-4 cocked, rethrows 6-4, plays 24/14 illegally as 24/13."""
    s = Script()
    s.show(START)
    od = (die(5, Area.RIGHT_TABLE, W_SPOTS[0]), die(3, Area.LEFT_TABLE, B_SPOTS[0]))
    s.show(START, od)
    p1 = parse_play("8/3 6/3", START, (5, 3)).after
    s.show(p1, od).show(p1)
    s.show(p1, (die(6, Area.LEFT_TABLE, B_SPOTS[0]), die(4, Area.LEFT_TABLE, B_SPOTS[1], cocked=True)))
    s.show(p1)
    s.show(p1, thrown(Side.BLACK, 6, 4))
    bad = parse_play("24/13", p1, (6, 5)).after  # a 6-5 play made with 6-4
    s.show(bad, thrown(Side.BLACK, 6, 4)).show(bad)
    return s


def run(session: Session, script: Script) -> list:
    out = []
    img = np.zeros((48, 64, 3), np.uint8)
    for obs in script:
        if obs.seq > session.last_seq:
            out += session.process(obs, img)
    return out


def test_a_scripted_game_is_judged_signalled_journalled(tmp_path: Path) -> None:
    dev = FakeDevice()
    journal = tmp_path / "s.jsonl"
    s = Session.start(SessionInfo(players=("Ann", "Bob"), match_length=5), journal, device=dev)
    judged = run(s, game_script())
    s.close()
    codes = [j.verdict.code for j in judged if j.verdict.kind is VerdictKind.INFRACTION]
    assert codes == [Infraction.DICE_COCKED, Infraction.ILLEGAL_PLAY]
    assert [sig.fault.value for sig in dev.signals] == ["rethrow", "illegal_play"]
    assert dev.signals[1].points and set(dev.signals[1].points) <= {1, 12, 13, 24}
    # every alert is seen on the device, not only heard: the cocked die lights the thrower's table
    assert dev.signals[0].offender is Seat.BLACK
    assert lit_leds(dev.signals[0]) == {p - 1 for p in right_hand_table(Seat.BLACK)}
    assert all(render(sig)[0] != IDLE_STATE for sig in dev.signals)
    recs = read_journal(journal).records
    assert recs[0].kind == "session" and recs[0].data["players"] == ["Ann", "Bob"]
    ev = [e for r in recs if r.kind == "observation" for e in r.data["events"]]
    assert [e["event"]["type"] for e in ev].count("DiceThrown") == 2
    ill = next(e for e in ev if e["verdict"]["code"] == "illegal-play")
    assert ill["verdict"]["rule"] and ill["verdict"]["offender"] == "B"
    shots = sorted(p.name for p in (tmp_path / "s.evidence").iterdir())
    assert "g01-m002-illegal_play-at.jpg" in shots and "g01-m002-illegal_play-before.jpg" in shots
    assert any(n.startswith("g01-m002-dice_cocked") for n in shots)


def test_resume_continues_exactly(tmp_path: Path) -> None:
    script = game_script()
    whole = Session.start(SessionInfo(), None)
    all_judged = run(whole, script)
    stream = list(script)
    for cut in (5, 12, 20, len(stream) - 2):
        path = tmp_path / f"cut{cut}.jsonl"
        a = Session.start(SessionInfo(), path, evidence=False)
        first = [j for o in stream[:cut] for j in a.process(o)]
        a.close()
        b = Session.resume(path, evidence=False)
        assert b.last_seq <= stream[cut - 1].seq
        rest = run(b, script)
        b.close()
        assert [(j.emitted.event, j.verdict.kind) for j in first + rest] == [
            (j.emitted.event, j.verdict.kind) for j in all_judged
        ]
        assert b.snapshot() == whole.snapshot()
