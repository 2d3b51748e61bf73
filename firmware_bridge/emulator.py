"""A pure-Python device that speaks the same protocol as the firmware.

:class:`DeviceCore` is the firmware's logic as a pure state machine on an explicit
millisecond clock (the firmware's 1 kHz tick); :class:`Emulator` runs it in a thread
on a pseudo-terminal (``Emulator.start_pty()``, the port a host opens) or in-process
(``Emulator.in_process()``, a pyserial-like object for the fast fake transport).

>>> core = DeviceCore()
>>> out = core.boot(0)                     # says hello unasked after every reset
>>> FrameDecoder().feed(out)[0].type.name
'INFO'
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from firmware_bridge.events import Booted, EventLog, LedFrame, PinChange
from firmware_bridge.protocol import (
    HOST_TYPES,
    MAX_ENCODED,
    N_LEDS,
    PROTOCOL_VERSION,
    SAFE_TIMEOUT_MS,
    SILENCE,
    BuzzPattern,
    DeviceInfo,
    DeviceState,
    FrameError,
    MsgType,
    NakReason,
    Packet,
    blink_on,
    cobs_decode,
    crc16,
    decode_packet,
    encode_frame,
)
from firmware_bridge.signals import IDLE_STATE, SAFE_STATE

FIRMWARE_VERSION = (1, 0, 0)


@dataclass(slots=True)
class DeviceCore:
    """The device's protocol and output logic, with time passed in (ms)."""

    reset_count: int = 0
    emit: Callable[[LedFrame | PinChange | Booted], None] = lambda ev: None
    state: DeviceState = IDLE_STATE
    online: bool = False
    last_rx_ms: int = 0
    phase_start_ms: int = 0
    buzz: BuzzPattern = SILENCE
    buzz_start_ms: int = 0
    now_ms: int = 0
    _rx: bytearray = field(default_factory=bytearray)
    _rx_overflow: bool = False
    _last_seq: int = -1
    _last_crc: int = -1
    _last_reply: bytes = b""
    _shown: tuple[tuple[tuple[int, int, int], ...], bool] | None = None
    _buzzer_on: bool = False

    # -- outputs ---------------------------------------------------------------------------------
    def _visible(self) -> DeviceState:
        return self.state if self.online else SAFE_STATE

    def _render(self, ms: int) -> None:
        st = self._visible()
        phase = ms - self.phase_start_ms
        frame = st.frame(phase)
        status = blink_on(st.status, phase)
        shown = (frame, status)
        if self._shown is None or frame != self._shown[0]:
            self.emit(LedFrame(ms / 1000, frame))
        if self._shown is None or status != self._shown[1]:
            self.emit(PinChange(ms / 1000, "status", status))
        self._shown = shown
        buzz = self._buzz_level(ms)
        if buzz != self._buzzer_on:
            self._buzzer_on = buzz
            self.emit(PinChange(ms / 1000, "buzzer", buzz))

    def _buzz_level(self, ms: int) -> bool:
        t = ms - self.buzz_start_ms
        if not self.buzz.steps or t >= self.buzz.duration_ms or t < 0:
            return False
        period = sum(a + b for a, b in self.buzz.steps)
        t %= period
        for on, off in self.buzz.steps:
            if t < on:
                return True
            t -= on
            if t < off:
                return False
            t -= off
        return False

    # -- time ------------------------------------------------------------------------------------
    def boot(self, ms: int) -> bytes:
        """Power-on or reset: safe state, forget duplicates, say hello unasked."""
        self.reset_count = (self.reset_count + 1) & 0xFFFF
        self.state, self.online, self.buzz = IDLE_STATE, False, SILENCE
        self._rx.clear()
        self._rx_overflow = False
        self._last_seq, self._last_crc, self._last_reply = -1, -1, b""
        self._shown = None
        self.now_ms = self.phase_start_ms = ms
        self.emit(Booted(ms / 1000))
        self._render(ms)
        return self._info(0, unsolicited=True)

    def advance(self, ms: int) -> None:
        """Run the 1 kHz tick up to ``ms``."""
        while self.now_ms < ms:
            self.now_ms += 1
            if self.online and self.now_ms - self.last_rx_ms >= SAFE_TIMEOUT_MS:
                self.online = False
                self.buzz = SILENCE
                self.phase_start_ms = self.now_ms
            self._render(self.now_ms)

    def next_wakeup_ms(self) -> int:
        """A conservative next tick at which something may change (for sleeping)."""
        return self.now_ms + 1

    # -- input -----------------------------------------------------------------------------------
    def feed(self, data: bytes, ms: int) -> bytes:
        """Bytes from the host at time ``ms``; returns the bytes the device sends back."""
        self.advance(ms)
        out = bytearray()
        for byte in data:
            if byte != 0:
                if len(self._rx) >= MAX_ENCODED:
                    self._rx_overflow = True
                else:
                    self._rx.append(byte)
                continue
            buf, overflow = bytes(self._rx), self._rx_overflow
            self._rx.clear()
            self._rx_overflow = False
            if overflow:
                out += _nak(0, NakReason.OVERFLOW)
            elif buf:
                out += self._frame(buf)
        return bytes(out)

    def _frame(self, encoded: bytes) -> bytes:
        try:
            raw = cobs_decode(encoded)
            packet = decode_packet(raw, known_types=HOST_TYPES)
        except FrameError as exc:
            return _nak(exc.seq, exc.reason)
        crc = crc16(raw[:-2])
        self.last_rx_ms = self.now_ms
        if not self.online:
            self.online = True
            self.phase_start_ms = self.now_ms
            self._render(self.now_ms)
        if packet.type is MsgType.HELLO:
            self._last_seq, self._last_crc, self._last_reply = -1, -1, b""
            return self._info(packet.seq, unsolicited=False)
        if packet.seq == self._last_seq and crc == self._last_crc:
            return self._last_reply  # a retransmission: do not apply twice
        try:
            if packet.type is MsgType.SHOW:
                new = DeviceState.from_body(packet.body)
                if new != self.state:
                    self.state = new
                    self.phase_start_ms = self.now_ms
            elif packet.type is MsgType.BUZZ:
                self.buzz = BuzzPattern.from_body(packet.body)
                self.buzz_start_ms = self.now_ms
            elif packet.type is MsgType.PING and packet.body:
                raise FrameError(NakReason.BAD_LENGTH, "PING has no body", packet.seq)
        except FrameError as exc:
            return _nak(packet.seq, exc.reason)
        self._render(self.now_ms)
        reply = encode_frame(Packet(MsgType.ACK, packet.seq, bytes((int(packet.type),))))
        self._last_seq, self._last_crc, self._last_reply = packet.seq, crc, reply
        return reply

    def _info(self, seq: int, *, unsolicited: bool) -> bytes:
        info = DeviceInfo(
            protocol=PROTOCOL_VERSION,
            firmware=FIRMWARE_VERSION,
            n_leds=N_LEDS,
            has_buzzer=True,
            has_status_led=True,
            reset_count=self.reset_count,
            reset_cause=1,
            unsolicited=unsolicited,
        )
        return encode_frame(Packet(MsgType.INFO, seq, info.body()))


def _nak(seq: int, reason: NakReason) -> bytes:
    return encode_frame(Packet(MsgType.NAK, seq, bytes((int(reason),))))


# ------------------------------------------------------------------------------------------------
# Running the core


class ReplyBuffer:
    """The reading half of a fake serial port: bytes the device sent, waiting for the host's ``read``.

    ``read`` waits up to ``timeout`` like ``serial.Serial`` and raises ``serial.SerialException``
    once the link is gone (:meth:`_link_gone`) and nothing is left to read.
    """

    def __init__(self, timeout: float | None = 0.05) -> None:
        self._buf = bytearray()
        self._cond = threading.Condition()
        self.timeout = timeout

    def _link_gone(self) -> str | None:
        """Why the link is gone (the exception's message), or None while it is up."""
        return None

    def _deliver(self, data: bytes) -> None:
        with self._cond:
            self._buf += data
            self._cond.notify_all()

    def read(self, size: int = 1) -> bytes:
        with self._cond:
            self._cond.wait_for(lambda: bool(self._buf) or self._link_gone() is not None, self.timeout)
            gone = self._link_gone()
            if not self._buf and gone is not None:
                import serial

                raise serial.SerialException(gone)
            data = bytes(self._buf[:size])
            del self._buf[:size]
            return data

    @property
    def in_waiting(self) -> int:
        with self._cond:
            return len(self._buf)

    def reset_input_buffer(self) -> None:
        with self._cond:
            self._buf.clear()


class InProcessSerial(ReplyBuffer):
    """The host end of an in-process link: the subset of ``serial.Serial`` the driver uses."""

    def __init__(self, emulator: Emulator) -> None:
        super().__init__()
        self._emu = emulator
        self.is_open = True
        self.port = "emulator://in-process"

    def _link_gone(self) -> str | None:
        return None if self._emu.running else "in-process emulator stopped"

    def write(self, data: bytes) -> int:
        if not self.is_open or not self._emu.running:
            import serial

            raise serial.SerialException("in-process emulator is not running")
        self._emu._inbox.put(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.is_open = False


class Emulator:
    """Runs a :class:`DeviceCore` in a thread, on a pty or in-process.

    ``link`` (a path) is kept pointing at the current pty, like udev's
    ``/dev/serial/by-id`` names, so a host can find the device again after a restart.
    """

    def __init__(self, link: Path | None = None) -> None:
        self.events = EventLog()
        self.core = DeviceCore(emit=self.events.append)
        self.link = link
        self.port: str | None = None
        self.running = False
        self._master: int | None = None
        self._slave: int | None = None
        self._inbox: queue.Queue[bytes] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._reset = threading.Event()
        self._t0 = 0.0
        self._host: InProcessSerial | None = None

    # -- life cycle ------------------------------------------------------------------------------
    def start_pty(self) -> str:
        """Start on a new pseudo-terminal; returns the port path (the link if one was given)."""
        master, slave = os.openpty()
        tty.setraw(slave)
        tty.setraw(master)
        self._master, self._slave = master, slave
        self.port = os.ttyname(slave)
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.port)
            tmp.replace(self.link)
        self._start()
        return str(self.link) if self.link is not None else self.port

    def in_process(self) -> InProcessSerial:
        """Start with an in-process link and return the host end."""
        self._host = InProcessSerial(self)
        self._start()
        return self._host

    def in_process_reopen(self) -> InProcessSerial:
        """A fresh host end for a running in-process emulator (after the host closed the old one)."""
        self._host = InProcessSerial(self)
        return self._host

    def _start(self) -> None:
        self._stop.clear()
        self._t0 = time.monotonic()
        self.running = True
        self._thread = threading.Thread(target=self._run, name="bgref-emulator", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Pull the plug: the port goes away (the host sees the device vanish)."""
        self._stop.set()
        self.running = False
        if self._thread is not None:
            self._thread.join(timeout=5)
        for fd in (self._master, self._slave):
            if fd is not None:
                os.close(fd)
        self._master = self._slave = None
        if self._host is not None:
            self._host._deliver(b"")

    def reset(self) -> None:
        """Press the reset button (or toggle DTR): the device reboots and says hello."""
        self._reset.set()
        self._inbox.put(b"")

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        if self.running:
            self.stop()

    # -- the loop --------------------------------------------------------------------------------
    def now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _send(self, data: bytes) -> None:
        if not data:
            return
        if self._host is not None:
            self._host._deliver(data)
        elif self._master is not None:
            with contextlib.suppress(OSError):  # nobody listening: a real UART drops bytes too
                os.write(self._master, data)

    def _receive(self, timeout: float) -> bytes:
        if self._master is not None:
            r, _, _ = select.select([self._master], [], [], timeout)
            if not r:
                return b""
            try:
                return os.read(self._master, 4096)
            except OSError:
                return b""
        try:
            return self._inbox.get(timeout=timeout)
        except queue.Empty:
            return b""

    def _run(self) -> None:
        core = self.core
        core.now_ms = self.now_ms()
        self._send(core.boot(core.now_ms))
        while not self._stop.is_set():
            if self._reset.is_set():
                self._reset.clear()
                self._send(core.boot(self.now_ms()))
            data = self._receive(0.005)
            now = self.now_ms()
            if data:
                self._send(core.feed(data, now))
            else:
                core.advance(now)
