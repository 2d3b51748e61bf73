"""The host driver: a :class:`Device` that never blocks the caller.

The URL picks the transport as in pyserial's ``serial_for_url``: a real port
(``/dev/ttyACM0``), a USB device found by VID:PID or serial number
(``hwgrep://2341:0043``; found again after an unplug), a pty (``/dev/pts/7`` or a
stable link to it), or an in-process emulator (pass an opener callable instead).

A reader thread owns reading the port; a worker thread owns writing: it says hello,
sends commands one at a time and waits for their ACK, retransmits on timeout or on a
NAK for a damaged frame, pings every second, re-sends the whole state when the device
reports a reset, and reconnects with backoff when the port goes away.  The caller
only ever touches a bounded outbox where a newer whole state replaces an older one::

    with Device("/dev/ttyACM0") as dev:
        dev.signal(Signal(Fault.ILLEGAL_PLAY, points=(13, 7)))
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import serial

from firmware_bridge.errors import DeviceConnectionError, DeviceError, DeviceProtocolError, DeviceTimeout
from firmware_bridge.protocol import (
    DEVICE_TYPES,
    PROTOCOL_VERSION,
    SILENCE,
    BuzzPattern,
    DeviceInfo,
    DeviceState,
    FrameDecoder,
    FrameError,
    MsgType,
    NakReason,
    Packet,
    encode_frame,
)
from firmware_bridge.signals import IDLE_STATE, Signal, render

RETRYABLE_NAKS = frozenset({NakReason.BAD_CRC, NakReason.BAD_COBS, NakReason.OVERFLOW})


class SerialLike(Protocol):
    timeout: float | None

    def write(self, data: bytes) -> int | None: ...
    def read(self, size: int = 1) -> bytes: ...
    def close(self) -> None: ...
    def reset_input_buffer(self) -> None: ...

    @property
    def in_waiting(self) -> int: ...


Opener = Callable[[], SerialLike]


@dataclass(frozen=True, slots=True)
class DeviceConfig:
    """Every timing of the driver in one place."""

    baudrate: int = 115200
    reply_timeout: float = 0.3  # per attempt
    retries: int = 5  # retransmissions after the first attempt
    handshake_timeout: float = 6.0  # covers an Arduino's bootloader after a DTR reset
    ping_interval: float = 1.0
    backoff_min: float = 0.05
    backoff_max: float = 2.0
    read_timeout: float = 0.05
    buzz_queue: int = 4


@dataclass(frozen=True, slots=True)
class Connected:
    info: DeviceInfo
    t: float


@dataclass(frozen=True, slots=True)
class Disconnected:
    reason: str
    t: float


@dataclass(frozen=True, slots=True)
class ResetSeen:
    info: DeviceInfo
    t: float


DeviceEvent = Connected | Disconnected | ResetSeen


@dataclass(slots=True)
class Stats:
    commands: int = 0
    retransmits: int = 0
    pings_yielded: int = 0  # heartbeat PINGs given up for a queued command (whose ACK proves the link as well)
    naks: int = 0
    bad_frames: int = 0
    resets_seen: int = 0
    connects: int = 0
    round_trips: list[float] = field(default_factory=list)


def url_opener(url: str, config: DeviceConfig) -> Opener:
    """Open ``url`` with pyserial (``serial_for_url``) each time the returned callable is called."""

    def open_port() -> SerialLike:
        try:
            port = serial.serial_for_url(url, baudrate=config.baudrate, timeout=config.read_timeout)
        except (serial.SerialException, OSError) as exc:
            raise DeviceConnectionError(f"cannot open {url!r}: {exc}") from exc
        return port  # type: ignore[no-any-return]

    return open_port


class _LinkLost(Exception):
    pass


class _Wake:
    """Put on the reply queue when the caller queues something: a heartbeat PING stops waiting."""


_WAKE = _Wake()


class Device:
    """A connection to the LED/buzzer device that survives resets and unplugs."""

    def __init__(self, port: str | Opener, config: DeviceConfig | None = None) -> None:
        self.config = config or DeviceConfig()
        self.url = port if isinstance(port, str) else getattr(port, "__name__", "opener")
        self._open = url_opener(port, self.config) if isinstance(port, str) else port
        self.events: queue.Queue[DeviceEvent] = queue.Queue()
        self.stats = Stats()
        self.info: DeviceInfo | None = None
        self._replies: queue.Queue[Packet | _Wake | None] = queue.Queue()
        self._cond = threading.Condition()
        self._desired: DeviceState = IDLE_STATE
        self._pending_state: DeviceState | None = IDLE_STATE
        self._pending_buzz: collections.deque[BuzzPattern] = collections.deque(maxlen=self.config.buzz_queue)
        self._busy = False
        self._connected = False
        self._resync = False
        self._closing = threading.Event()
        self._paused = threading.Event()
        self._ping_now = threading.Event()
        self._seq = itertools.cycle(range(1, 256))
        self._port: SerialLike | None = None
        self._worker: threading.Thread | None = None
        self._reader: threading.Thread | None = None
        self._last_ok = 0.0
        self.last_error: BaseException | None = None

    # -- public API: none of these block ---------------------------------------------------------
    def open(self) -> Device:
        if self._worker is None:
            self._worker = threading.Thread(target=self._work, name="bgref-device-writer", daemon=True)
            self._worker.start()
        return self

    def close(self) -> None:
        self._closing.set()
        with self._cond:
            self._cond.notify_all()
        self._replies.put(_WAKE)  # a command waiting for its ACK stops at once
        if self._worker is not None:
            self._worker.join(timeout=5)
            self._worker = None
        self._drop_port()

    def __enter__(self) -> Device:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def show(self, state: DeviceState) -> None:
        """Show a whole state; replaces any state not yet sent."""
        with self._cond:
            self._desired = state
            self._pending_state = state
            self._cond.notify_all()
        self._replies.put(_WAKE)  # never queued behind a heartbeat's wait

    def buzz(self, pattern: BuzzPattern) -> None:
        """Play a buzzer pattern (the oldest waiting pattern is dropped if the queue is full)."""
        with self._cond:
            self._pending_buzz.append(pattern)
            self._cond.notify_all()
        self._replies.put(_WAKE)  # never queued behind a heartbeat's wait

    def signal(self, signal: Signal) -> None:
        """Show an infraction: its LEDs and its buzzer pattern."""
        state, pattern = render(signal)
        with self._cond:
            self._desired = state
            self._pending_state = state
            self._pending_buzz.append(pattern)
            self._cond.notify_all()
        self._replies.put(_WAKE)  # never queued behind a heartbeat's wait

    def clear(self) -> None:
        """All LEDs dark (status on) and the buzzer silent."""
        with self._cond:
            self._desired = IDLE_STATE
            self._pending_state = IDLE_STATE
            self._pending_buzz.clear()
            self._pending_buzz.append(SILENCE)
            self._cond.notify_all()
        self._replies.put(_WAKE)  # never queued behind a heartbeat's wait

    @property
    def connected(self) -> bool:
        return self._connected

    def wait_connected(self, timeout: float) -> DeviceInfo:
        """Block until the handshake succeeded; raise :class:`DeviceTimeout` otherwise."""
        with self._cond:
            if not self._cond.wait_for(lambda: self._connected, timeout):
                raise DeviceTimeout(f"no handshake with {self.url} within {timeout} s (last error: {self.last_error})")
            assert self.info is not None
            return self.info

    def flush(self, timeout: float) -> None:
        """Block until everything queued has been acknowledged."""

        def done() -> bool:
            return (
                self._connected
                and not self._busy
                and self._pending_state is None
                and not self._pending_buzz
                and not self._resync
            )

        with self._cond:
            if not self._cond.wait_for(done, timeout):
                raise DeviceTimeout(f"commands to {self.url} not acknowledged within {timeout} s")

    def pause_heartbeat(self, paused: bool = True) -> None:
        """Stop talking to the device (tests of the device's safe state use this)."""
        if paused:
            self._paused.set()
        else:
            self._paused.clear()
            with self._cond:
                self._pending_state = self._desired
                self._cond.notify_all()

    def ping(self, timeout: float = 2.0) -> float:
        """One synchronous round trip (for benchmarks); returns seconds."""
        t0 = time.perf_counter()
        self._ping_now.set()
        with self._cond:
            self._cond.notify_all()
            if not self._cond.wait_for(lambda: not self._ping_now.is_set() and not self._busy, timeout):
                raise DeviceTimeout(f"ping to {self.url} not answered within {timeout} s")
        return time.perf_counter() - t0

    # -- the worker ------------------------------------------------------------------------------
    def _work(self) -> None:
        backoff = self.config.backoff_min
        while not self._closing.is_set():
            if self._port is None:
                try:
                    self._connect()
                    backoff = self.config.backoff_min
                except (DeviceError, _LinkLost, OSError, serial.SerialException) as exc:
                    self.last_error = exc
                    self._drop_port()
                    self._closing.wait(backoff)
                    backoff = min(backoff * 2, self.config.backoff_max)
                continue
            try:
                self._serve_once()
            except (DeviceTimeout, _LinkLost, OSError, serial.SerialException) as exc:
                self.last_error = exc
                self._lost(str(exc))
            except DeviceProtocolError as exc:
                self.last_error = exc  # a refused command is dropped; keep serving

    def _connect(self) -> None:
        port = self._open()
        self._port = port
        port.reset_input_buffer()
        self._replies = queue.Queue()
        self._reader = threading.Thread(target=self._read, args=(port,), name="bgref-device-reader", daemon=True)
        self._reader.start()
        deadline = time.monotonic() + self.config.handshake_timeout
        info: DeviceInfo | None = None
        while info is None:
            try:
                reply = self._transact(Packet(MsgType.HELLO, next(self._seq)), attempts=1)
                assert reply is not None
                info = DeviceInfo.from_body(reply.body)
            except DeviceTimeout:
                if time.monotonic() > deadline or self._closing.is_set():
                    raise
        if info.protocol != PROTOCOL_VERSION:
            raise DeviceProtocolError(f"device speaks protocol {info.protocol}, this host speaks {PROTOCOL_VERSION}")
        self._note_info(info)
        with self._cond:
            self._connected = True
            self._resync = True
            self.stats.connects += 1
            self._cond.notify_all()
        self.events.put(Connected(info, time.monotonic()))

    def _note_info(self, info: DeviceInfo) -> None:
        if self.info is not None and info.reset_count != self.info.reset_count:
            self.stats.resets_seen += 1
        self.info = info

    def _lost(self, reason: str) -> None:
        was = self._connected
        self._drop_port()
        with self._cond:
            self._connected = False
            self._busy = False
            self._cond.notify_all()
        if was:
            self.events.put(Disconnected(reason, time.monotonic()))

    def _drop_port(self) -> None:
        port, self._port = self._port, None
        if port is not None:
            with contextlib.suppress(Exception):
                port.close()
        if self._reader is not None and self._reader is not threading.current_thread():
            self._reader.join(timeout=2)
        self._reader = None

    def _serve_once(self) -> None:
        cfg = self.config
        with self._cond:
            if self._resync:
                self._resync = False
                self._pending_state = self._desired
            due = self._last_ok + cfg.ping_interval
            self._cond.wait_for(
                lambda: self._closing.is_set()
                or self._resync
                or self._ping_now.is_set()
                or (not self._paused.is_set() and (self._pending_state is not None or bool(self._pending_buzz))),
                max(0.0, min(due - time.monotonic(), 0.1)),
            )
            if self._closing.is_set() or self._resync:
                return
            packet: Packet | None = None
            heartbeat = False
            pending_state = self._pending_state
            if self._ping_now.is_set():
                packet = Packet(MsgType.PING, next(self._seq))
            elif self._paused.is_set():
                return
            elif pending_state is not None:
                packet = Packet(MsgType.SHOW, next(self._seq), pending_state.body())
                self._pending_state = None
            elif self._pending_buzz:
                packet = Packet(MsgType.BUZZ, next(self._seq), self._pending_buzz.popleft().body())
            elif time.monotonic() >= due:
                packet = Packet(MsgType.PING, next(self._seq))
                heartbeat = True
            if packet is None:
                return
            self._busy = True
        try:
            t0 = time.perf_counter()
            if self._transact(packet, yield_to_commands=heartbeat) is not None:
                self.stats.round_trips.append(time.perf_counter() - t0)
            if len(self.stats.round_trips) > 10000:
                del self.stats.round_trips[:5000]
        except DeviceError:
            with self._cond:
                if packet.type is MsgType.SHOW and self._pending_state is None:
                    self._pending_state = self._desired
            raise
        finally:
            with self._cond:
                self._busy = False
                if packet.type is MsgType.PING:
                    self._ping_now.clear()
                self._cond.notify_all()

    def _transact(self, packet: Packet, attempts: int | None = None, *, yield_to_commands: bool = False) -> Packet | None:
        """Send and wait for the matching ACK/INFO; retransmit on timeout or a damaged-frame NAK.

        A heartbeat (``yield_to_commands``) stops waiting, returning None, as soon as the caller
        queues a command: stop and wait would otherwise hold a new state behind the PING's
        timeouts and retransmissions, and the command's own ACK proves the link just as well.
        """
        port = self._port
        if port is None:
            raise _LinkLost("no port")
        frame = encode_frame(packet)
        tries = attempts if attempts is not None else self.config.retries + 1
        self.stats.commands += 1
        for attempt in range(tries):
            if attempt:
                self.stats.retransmits += 1
            port.write(frame)
            deadline = time.monotonic() + self.config.reply_timeout
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                try:
                    reply = self._replies.get(timeout=remaining)
                except queue.Empty:
                    break
                if reply is None:
                    raise _LinkLost("the port went away")
                if isinstance(reply, _Wake):
                    if self._closing.is_set():
                        raise _LinkLost("closing")
                    if yield_to_commands and self._has_commands():
                        self.stats.pings_yielded += 1
                        return None
                    continue
                if reply.type is MsgType.NAK:
                    self.stats.naks += 1
                    reason = NakReason(reply.body[0]) if reply.body and reply.body[0] in NakReason._value2member_map_ else None
                    if reason in RETRYABLE_NAKS or reason is None:
                        break  # damaged on the way: send again now
                    if reply.seq == packet.seq:
                        raise DeviceProtocolError(f"device refused {packet.type.name} #{packet.seq}: {reason.name}")
                    continue
                if reply.seq != packet.seq:
                    continue  # a late answer to an earlier attempt
                if packet.type is MsgType.HELLO and reply.type is MsgType.INFO:
                    self._last_ok = time.monotonic()
                    return reply
                if reply.type is MsgType.ACK and packet.type is not MsgType.HELLO:
                    self._last_ok = time.monotonic()
                    return reply
        raise DeviceTimeout(f"no answer to {packet.type.name} #{packet.seq} from {self.url} after {tries} attempts")

    def _has_commands(self) -> bool:
        with self._cond:
            return not self._paused.is_set() and (self._pending_state is not None or bool(self._pending_buzz))

    # -- the reader ------------------------------------------------------------------------------
    def _read(self, port: SerialLike) -> None:
        decoder = FrameDecoder(known_types=DEVICE_TYPES)
        try:
            while self._port is port and not self._closing.is_set():
                data = port.read(max(1, port.in_waiting))
                if not data:
                    continue
                for packet in decoder.feed(data):
                    self._dispatch(packet)
                if decoder.errors:
                    self.stats.bad_frames += len(decoder.errors)
                    decoder.errors.clear()
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            self.last_error = exc
        finally:
            self._replies.put(None)

    def _dispatch(self, packet: Packet) -> None:
        if packet.type is MsgType.INFO:
            try:
                info = DeviceInfo.from_body(packet.body)
            except FrameError:
                self.stats.bad_frames += 1
                return
            if info.unsolicited:
                self.stats.resets_seen += 1
                self.info = info
                self.events.put(ResetSeen(info, time.monotonic()))
                with self._cond:
                    self._resync = True
                    self._cond.notify_all()
                return
        self._replies.put(packet)


def open_device(port: str | Opener, config: DeviceConfig | None = None, **kw: Any) -> Device:
    """Create and start a :class:`Device`."""
    return Device(port, config, **kw).open()
