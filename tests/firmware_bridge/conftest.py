"""Peers for the device contract tests: the same tests run against each of them.

* ``fake``     the Python device core in-process (no pty, no threads of the OS's tty layer)
* ``emulator`` the Python emulator on a pseudo-terminal
* ``simavr``   the real AVR firmware in simavr (skipped when gcc-avr/simavr are absent)
* ``real``     a real device on the port named by ``BGREF_DEVICE_PORT`` (skipped otherwise)
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
import serial

from firmware_bridge.device import Device, DeviceConfig, Opener
from firmware_bridge.emulator import Emulator
from firmware_bridge.events import EventLog
from firmware_bridge.protocol import FrameDecoder, MsgType, Packet, encode_frame
from firmware_bridge.simulator import SimulatedDevice, missing_tools

#: Generous per-wait timeouts: simavr on a loaded 2-core machine can run slower than real time.
WAIT = 15.0


class Peer:
    """One device under test: how to reach it, what it did, and how to reset or unplug it."""

    name = "peer"
    observable = True  # LED frames and pin changes can be watched
    can_unplug = True

    def __init__(self, tmp: Path) -> None:
        self.link = tmp / "ttyBGREF"

    @property
    def events(self) -> EventLog:
        raise NotImplementedError

    def target(self) -> str | Opener:
        return str(self.link)

    def start(self) -> None:
        raise NotImplementedError

    def kill(self) -> None:
        raise NotImplementedError

    def reset(self) -> None:
        raise NotImplementedError

    def raw(self) -> RawLink:
        return RawLink(serial.serial_for_url(str(self.link), baudrate=115200, timeout=0.05))

    def device(self, **config: float) -> Device:
        return Device(self.target(), DeviceConfig(**config)).open()  # type: ignore[arg-type]


class EmulatorPeer(Peer):
    name = "emulator"

    def start(self) -> None:
        old = getattr(self, "emu", None)
        self.emu = Emulator(link=self.link)
        if old is not None:
            self.emu.core.reset_count = old.core.reset_count  # like EEPROM
        self.emu.start_pty()

    @property
    def events(self) -> EventLog:
        return self.emu.events

    def kill(self) -> None:
        self.emu.stop()

    def reset(self) -> None:
        self.emu.reset()


class FakePeer(EmulatorPeer):
    name = "fake"

    def start(self) -> None:
        old = getattr(self, "emu", None)
        self.emu = Emulator()
        if old is not None:
            self.emu.core.reset_count = old.core.reset_count
        self.serial = self.emu.in_process()

    def target(self) -> str | Opener:
        def open_fake():  # type: ignore[no-untyped-def]
            if not self.emu.running:
                raise serial.SerialException("fake device unplugged")
            if not self.serial.is_open:
                self.serial = self.emu.in_process_reopen()
            return self.serial

        return open_fake

    def raw(self) -> RawLink:
        return RawLink(self.serial)  # type: ignore[arg-type]


class SimavrPeer(Peer):
    name = "simavr"

    def start(self) -> None:
        self.sim = SimulatedDevice(link=self.link)
        self.sim.start()

    @property
    def events(self) -> EventLog:
        return self.sim.events

    def kill(self) -> None:
        self.sim.stop()

    def reset(self) -> None:
        self.sim.reset()


class RealPeer(Peer):
    name = "real"
    observable = False
    can_unplug = False

    def __init__(self, tmp: Path) -> None:
        super().__init__(tmp)
        self.url = os.environ["BGREF_DEVICE_PORT"]

    def target(self) -> str | Opener:
        return self.url

    def start(self) -> None:
        pass

    def kill(self) -> None:
        pytest.skip("cannot unplug a real device from a test")

    def reset(self) -> None:
        port = serial.serial_for_url(self.url, baudrate=115200)  # opening pulses DTR: an Arduino resets
        port.close()

    def raw(self) -> RawLink:
        return RawLink(serial.serial_for_url(self.url, baudrate=115200, timeout=0.05))


class RawLink:
    """Bytes in, packets out, without the driver: for garbled-frame tests."""

    def __init__(self, port: serial.Serial) -> None:
        self.port = port
        self.decoder = FrameDecoder()

    def send(self, packet: Packet) -> None:
        self.port.write(encode_frame(packet))

    def write(self, data: bytes) -> None:
        self.port.write(data)

    def replies(self, n: int, timeout: float = WAIT) -> list[Packet]:
        import time

        got: list[Packet] = []
        deadline = time.monotonic() + timeout
        while len(got) < n and time.monotonic() < deadline:
            for packet in self.decoder.feed(self.port.read(max(1, self.port.in_waiting))):
                if packet.type is MsgType.INFO and packet.body[-1:] == b"\x01":
                    continue  # the hello a device says unasked after booting
                got.append(packet)
        return got

    def close(self) -> None:
        if isinstance(self.port, serial.Serial):
            self.port.close()


PEERS = ["fake", "emulator", "simavr", "real"]


@pytest.fixture(params=PEERS)
def peer(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Peer]:
    kind = request.param
    p: Peer
    if kind == "fake":
        p = FakePeer(tmp_path)
    elif kind == "emulator":
        p = EmulatorPeer(tmp_path)
    elif kind == "simavr":
        missing = missing_tools()
        if missing:
            pytest.skip(f"needs {', '.join(missing)} (apt-get install gcc-avr avr-libc libsimavr-dev libelf-dev)")
        p = SimavrPeer(tmp_path)
    else:
        if not os.environ.get("BGREF_DEVICE_PORT"):
            pytest.skip("no real device: set BGREF_DEVICE_PORT=/dev/ttyACM0 (or hwgrep://VID:PID) to run")
        p = RealPeer(tmp_path)
    p.start()
    try:
        yield p
    finally:
        with contextlib.suppress(BaseException):
            p.kill()
