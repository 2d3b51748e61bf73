"""Device unplugged and back during a game: a clear message, the game state kept, the alerts shown again.

The device is the Python emulator behind a real pseudo-terminal (the driver opens it by path, as a
serial port); "unplugging" it closes the pty, "plugging it back" starts a new emulator on the same
path, as a USB device coming back under the same name.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.app import DeviceWatch
from referee.journal import read_journal
from referee.loop import run_loop
from referee.session import Session, SessionInfo
from referee.synthetic import fault_plan, random_game
from vision.camera import Frame

pytest.importorskip("serial")

from firmware_bridge.device import Device, DeviceConfig
from firmware_bridge.emulator import Emulator
from firmware_bridge.signals import IDLE_STATE, render


class Recorder:
    """The device as the session sees it, remembering what it was last asked to show."""

    def __init__(self, device: Device) -> None:
        self.device = device
        self.events = device.events
        self.expected = IDLE_STATE
        self.signals = 0

    def signal(self, signal: Any) -> None:
        self.signals += 1
        self.expected = render(signal)[0]
        self.device.signal(signal)

    def clear(self) -> None:
        self.expected = IDLE_STATE
        self.device.clear()


def _frames(obs: list[Any]) -> list[Frame]:
    import numpy as np

    img = np.zeros((4, 4, 3), np.uint8)
    return [Frame(img, o.t, o.seq) for o in obs]


def test_device_unplugged_and_back_keeps_the_game_and_shows_the_alert_again(tmp_path: Path) -> None:
    obs = list(random_game(21, turns=40, faults=fault_plan(21, 40, every=3)))
    by_seq = {o.seq: o for o in obs}
    whole = Session.start(SessionInfo(), None)
    for o in obs:
        whole.process(o)
    assert whole.stats.infractions >= 6

    link = tmp_path / "ttyBGREF"
    emu = Emulator(link=link)
    emu.start_pty()
    dev = Device(str(link), DeviceConfig(backoff_max=0.2)).open()
    emu2: Emulator | None = None
    try:
        dev.wait_connected(10.0)
        rec = Recorder(dev)
        s = Session.start(SessionInfo(), tmp_path / "j.jsonl", device=rec, evidence=False)
        watch = DeviceWatch(rec, s)
        assert watch.poll(wait=5.0) == "connected"
        frames = _frames(obs)
        third = len(frames) // 3

        run_loop(frames[:third], lambda f: by_seq[f.seq], s)
        dev.flush(10.0)
        assert emu.core.state == rec.expected  # the device shows what the session signalled

        emu.stop()  # unplugged
        text = watch.poll(wait=10.0)
        assert text.startswith("device lost") and "the game goes on" in text
        before = (s.stats.infractions, rec.signals)
        stats = run_loop(frames[third:2 * third], lambda f: by_seq[f.seq], s)  # play goes on without it
        assert stats.processed == 2 * third - third
        assert s.stats.infractions > before[0] and rec.signals > before[1]  # alerts kept for when it is back

        emu2 = Emulator(link=link)  # plugged back, under the same name
        emu2.start_pty()
        dev.wait_connected(10.0)
        assert watch.poll(wait=5.0) == "connected"
        dev.flush(10.0)
        assert emu2.core.state == rec.expected  # the last alert is shown again at once

        run_loop(frames[2 * third:], lambda f: by_seq[f.seq], s)
        dev.flush(10.0)
        assert emu2.core.state == rec.expected
        assert s.snapshot() == whole.snapshot()
        assert s.stats.infractions == whole.stats.infractions
        s.close()
    finally:
        dev.close()
        if emu2 is not None:
            emu2.stop()
    faults = [r.data for r in read_journal(tmp_path / "j.jsonl").records if r.kind == "fault"]
    # one unplug and one return (a "device reset" may be noted beside them when the link is slow on a
    # loaded machine): the journal holds lost/back pairs in order, each loss with its reason
    assert faults and all(f["part"] == "device" for f in faults), faults
    pairs = [f["message"] for f in faults if f["message"] != "device reset"]
    assert len(pairs) >= 2 and len(pairs) % 2 == 0, faults
    assert all(m == "device back" for m in pairs[1::2]), faults
    assert all(m and m != "device back" for m in pairs[::2]), faults


def test_no_device_means_no_device_line() -> None:
    s = Session.start(SessionInfo(), None)
    assert DeviceWatch(None, s).poll() == ""
