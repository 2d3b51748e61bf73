"""The wire protocol between bgref and the LED/buzzer device (see ``PROTOCOL.md``).

Framing is separate from I/O: this module turns messages into bytes and bytes into
messages, and never touches a port.

A frame on the wire is ``COBS(packet) + b"\\x00"`` where ``packet`` is::

    version(1) type(1) seq(1) length(1) body(length) crc16(2, big-endian)

and the CRC-16/CCITT (XMODEM: polynomial 0x1021, initial value 0) covers every byte
before it.

>>> frame = encode_frame(Packet(MsgType.PING, seq=7))
>>> frame
b'\\x05\\x01\\x02\\x07\\x03\\xdd\\xec\\x00'
>>> FrameDecoder().feed(frame)
[Packet(type=<MsgType.PING: 2>, seq=7, body=b'')]
"""

from __future__ import annotations

import binascii
import struct
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Final

PROTOCOL_VERSION: Final = 1
MAX_BODY: Final = 120
HEADER_LEN: Final = 4
CRC_LEN: Final = 2
MAX_PACKET: Final = HEADER_LEN + MAX_BODY + CRC_LEN
#: The longest COBS encoding of a packet (one overhead byte per 254), without the delimiter.
MAX_ENCODED: Final = MAX_PACKET + 1 + MAX_PACKET // 254
N_LEDS: Final = 27
BAR_LED: Final = 24
WHITE_TRAY_LED: Final = 25
BLACK_TRAY_LED: Final = 26
MAX_BUZZ_STEPS: Final = 8
SAFE_TIMEOUT_MS: Final = 3000


class MsgType(IntEnum):
    """Message types; host to device below 0x80, device to host from 0x80."""

    HELLO = 0x01
    PING = 0x02
    SHOW = 0x03
    BUZZ = 0x04
    INFO = 0x81
    ACK = 0x82
    NAK = 0x83


class NakReason(IntEnum):
    """Why the device refused a frame."""

    BAD_CRC = 1
    BAD_COBS = 2
    UNKNOWN_TYPE = 3
    BAD_LENGTH = 4
    OVERFLOW = 5
    BAD_VERSION = 6
    BAD_VALUE = 7


class Blink(IntEnum):
    """How an LED is lit; the device runs the blinking itself."""

    STEADY = 0
    SLOW = 1  # 500 ms on, 500 ms off
    FAST = 2  # 125 ms on, 125 ms off
    FLASH = 3  # 100 ms on, 900 ms off


#: (on ms, off ms) of each blink pattern; STEADY never turns off.
BLINK_TIMING: Final = {Blink.SLOW: (500, 500), Blink.FAST: (125, 125), Blink.FLASH: (100, 900)}


class StatusMode(IntEnum):
    """The single status LED beside the strip."""

    OFF = 0
    ON = 1
    SLOW = 2
    FAST = 3


class FrameError(ValueError):
    """A frame that cannot be accepted; ``reason`` is what the device would NAK with."""

    def __init__(self, reason: NakReason, message: str, seq: int = 0) -> None:
        super().__init__(message)
        self.reason = reason
        self.seq = seq


def crc16(data: bytes) -> int:
    """CRC-16/CCITT as avr-libc's ``_crc_xmodem_update`` computes it.

    >>> hex(crc16(b"123456789"))
    '0x31c3'
    """
    return binascii.crc_hqx(data, 0)


def cobs_encode(data: bytes) -> bytes:
    """Consistent-overhead byte stuffing: the result contains no zero byte.

    >>> cobs_encode(b"\\x11\\x00\\x00\\x22")
    b'\\x02\\x11\\x01\\x02"'
    """
    out = bytearray()
    code_pos = 0
    out.append(0)
    code = 1
    for byte in data:
        if byte == 0:
            out[code_pos] = code
            code_pos = len(out)
            out.append(0)
            code = 1
            continue
        out.append(byte)
        code += 1
        if code == 0xFF:
            out[code_pos] = code
            code_pos = len(out)
            out.append(0)
            code = 1
    out[code_pos] = code
    return bytes(out)


def cobs_decode(data: bytes) -> bytes:
    """Undo :func:`cobs_encode`; raise :class:`FrameError` (BAD_COBS) on malformed input."""
    out = bytearray()
    i = 0
    n = len(data)
    if n == 0:
        raise FrameError(NakReason.BAD_COBS, "empty COBS frame")
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError(NakReason.BAD_COBS, f"zero byte inside COBS frame {data.hex()}")
        end = i + code
        if end > n:
            raise FrameError(NakReason.BAD_COBS, f"COBS block runs past the end of {data.hex()}")
        block = data[i + 1 : end]
        if 0 in block:
            raise FrameError(NakReason.BAD_COBS, f"zero byte inside COBS frame {data.hex()}")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


@dataclass(frozen=True, slots=True)
class Packet:
    """One decoded message: its type, sequence number and body."""

    type: MsgType
    seq: int = 0
    body: bytes = b""

    def __post_init__(self) -> None:
        if not 0 <= self.seq <= 255:
            raise ValueError(f"sequence number {self.seq} is not a byte")
        if len(self.body) > MAX_BODY:
            raise ValueError(f"body of {len(self.body)} bytes exceeds {MAX_BODY}")


def encode_packet(packet: Packet) -> bytes:
    """The raw (unstuffed) packet with its CRC."""
    head = bytes((PROTOCOL_VERSION, int(packet.type), packet.seq, len(packet.body))) + packet.body
    return head + struct.pack(">H", crc16(head))


def encode_frame(packet: Packet) -> bytes:
    """The bytes to write: COBS-stuffed packet and the 0x00 delimiter."""
    return cobs_encode(encode_packet(packet)) + b"\x00"


def decode_packet(raw: bytes, *, known_types: frozenset[int] | None = None) -> Packet:
    """Check and parse an unstuffed packet; raise :class:`FrameError` with the NAK reason.

    The checks run in the firmware's order: length bounds, CRC, version, declared length, type.
    """
    if len(raw) < HEADER_LEN + CRC_LEN:
        raise FrameError(NakReason.BAD_LENGTH, f"packet of {len(raw)} bytes is too short: {raw.hex()}")
    if len(raw) > MAX_PACKET:
        raise FrameError(NakReason.OVERFLOW, f"packet of {len(raw)} bytes is too long")
    (crc,) = struct.unpack(">H", raw[-2:])
    seq = raw[2]
    if crc16(raw[:-2]) != crc:
        raise FrameError(NakReason.BAD_CRC, f"bad CRC in {raw.hex()}", seq=0)
    if raw[0] != PROTOCOL_VERSION:
        raise FrameError(NakReason.BAD_VERSION, f"protocol version {raw[0]} in {raw.hex()}", seq=seq)
    if raw[3] != len(raw) - HEADER_LEN - CRC_LEN:
        raise FrameError(NakReason.BAD_LENGTH, f"declared length {raw[3]} disagrees in {raw.hex()}", seq=seq)
    types = known_types if known_types is not None else _ALL_TYPES
    if raw[1] not in types:
        raise FrameError(NakReason.UNKNOWN_TYPE, f"unknown message type 0x{raw[1]:02x}", seq=seq)
    return Packet(MsgType(raw[1]), seq, bytes(raw[HEADER_LEN:-CRC_LEN]))


_ALL_TYPES: Final = frozenset(int(t) for t in MsgType)
HOST_TYPES: Final = frozenset(int(t) for t in MsgType if t < 0x80)
DEVICE_TYPES: Final = frozenset(int(t) for t in MsgType if t >= 0x80)


@dataclass(slots=True)
class FrameDecoder:
    """Streaming decoder: feed any chunk of bytes, get whole packets back.

    Bad frames are reported through ``errors`` (and counted), never raised, so a
    reader thread can keep going; an over-long frame is discarded up to the next
    delimiter.
    """

    known_types: frozenset[int] | None = None
    _buf: bytearray = field(default_factory=bytearray)
    _overflow: bool = False
    errors: list[FrameError] = field(default_factory=list)

    def feed(self, data: bytes) -> list[Packet]:
        packets: list[Packet] = []
        for byte in data:
            if byte != 0:
                if len(self._buf) >= MAX_ENCODED:
                    self._overflow = True
                else:
                    self._buf.append(byte)
                continue
            buf, overflow = bytes(self._buf), self._overflow
            self._buf.clear()
            self._overflow = False
            if overflow:
                self.errors.append(FrameError(NakReason.OVERFLOW, "frame longer than the receive buffer"))
                continue
            if not buf:
                continue  # idle delimiters are allowed between frames
            try:
                packets.append(decode_packet(cobs_decode(buf), known_types=self.known_types))
            except FrameError as exc:
                self.errors.append(exc)
        return packets


# ---------------------------------------------------------------------------------------------
# Message bodies


@dataclass(frozen=True, slots=True)
class Led:
    """One LED: colour and blink pattern."""

    r: int = 0
    g: int = 0
    b: int = 0
    blink: Blink = Blink.STEADY

    def __post_init__(self) -> None:
        for name in ("r", "g", "b"):
            v = getattr(self, name)
            if not 0 <= v <= 255:
                raise ValueError(f"LED {name}={v} is not a byte")

    @property
    def lit(self) -> bool:
        return (self.r, self.g, self.b) != (0, 0, 0)

    @property
    def rgb(self) -> tuple[int, int, int]:
        return (self.r, self.g, self.b)


OFF_LED: Final = Led()


@dataclass(frozen=True, slots=True)
class DeviceState:
    """Everything the LEDs show: 27 LEDs (points 1-24 in White's numbering, bar, trays) and status."""

    leds: tuple[Led, ...] = (OFF_LED,) * N_LEDS
    status: StatusMode = StatusMode.ON

    def __post_init__(self) -> None:
        if len(self.leds) != N_LEDS:
            raise ValueError(f"a device state needs {N_LEDS} LEDs, got {len(self.leds)}")

    def body(self) -> bytes:
        out = bytearray((int(self.status),))
        for led in self.leds:
            out += bytes((led.r, led.g, led.b, int(led.blink)))
        return bytes(out)

    @classmethod
    def from_body(cls, body: bytes) -> DeviceState:
        if len(body) != 1 + 4 * N_LEDS:
            raise FrameError(NakReason.BAD_LENGTH, f"SHOW body of {len(body)} bytes, want {1 + 4 * N_LEDS}")
        try:
            status = StatusMode(body[0])
            leds = tuple(
                Led(body[1 + 4 * i], body[2 + 4 * i], body[3 + 4 * i], Blink(body[4 + 4 * i]))
                for i in range(N_LEDS)
            )
        except ValueError as exc:
            raise FrameError(NakReason.BAD_VALUE, f"bad value in SHOW body {body.hex()}: {exc}") from exc
        return cls(leds, status)

    def with_leds(self, changes: dict[int, Led]) -> DeviceState:
        leds = list(self.leds)
        for i, led in changes.items():
            leds[i] = led
        return DeviceState(tuple(leds), self.status)

    def frame(self, phase_ms: int) -> tuple[tuple[int, int, int], ...]:
        """The colours the strip shows ``phase_ms`` after the state was applied."""
        return tuple(led.rgb if blink_on(led.blink, phase_ms) else (0, 0, 0) for led in self.leds)


def blink_on(blink: Blink | StatusMode, phase_ms: int) -> bool:
    """Whether a blink pattern is in its lit half ``phase_ms`` after it started."""
    if isinstance(blink, StatusMode):
        if blink is StatusMode.OFF:
            return False
        if blink is StatusMode.ON:
            return True
        blink = Blink.SLOW if blink is StatusMode.SLOW else Blink.FAST
    if blink is Blink.STEADY:
        return True
    on, off = BLINK_TIMING[blink]
    return phase_ms % (on + off) < on


@dataclass(frozen=True, slots=True)
class BuzzPattern:
    """A buzzer pattern: (on ms, off ms) steps played ``repeat`` times; no steps means silence."""

    steps: tuple[tuple[int, int], ...] = ()
    repeat: int = 1

    def __post_init__(self) -> None:
        if len(self.steps) > MAX_BUZZ_STEPS:
            raise ValueError(f"buzzer pattern of {len(self.steps)} steps exceeds {MAX_BUZZ_STEPS}")
        if not 1 <= self.repeat <= 255:
            raise ValueError(f"buzzer repeat {self.repeat} is not in 1..255")
        for on, off in self.steps:
            if not (0 <= on <= 65535 and 0 <= off <= 65535):
                raise ValueError(f"buzzer step ({on}, {off}) is not two 16-bit durations")

    def body(self) -> bytes:
        return bytes((self.repeat, len(self.steps))) + b"".join(struct.pack(">HH", a, b) for a, b in self.steps)

    @classmethod
    def from_body(cls, body: bytes) -> BuzzPattern:
        if len(body) < 2 or len(body) != 2 + 4 * body[1] or body[1] > MAX_BUZZ_STEPS:
            raise FrameError(NakReason.BAD_LENGTH, f"BUZZ body {body.hex()} has the wrong length")
        if body[0] == 0:
            raise FrameError(NakReason.BAD_VALUE, f"BUZZ repeat 0 in {body.hex()}")
        steps = tuple(struct.unpack(">HH", body[2 + 4 * i : 6 + 4 * i]) for i in range(body[1]))
        return cls(steps, body[0])

    def edges(self) -> list[tuple[int, bool]]:
        """(ms after start, buzzer on?) for every change of the buzzer output."""
        out: list[tuple[int, bool]] = []
        t = 0
        state = False
        for _ in range(self.repeat):
            for on, off in self.steps:
                if on:
                    if not state:
                        out.append((t, True))
                        state = True
                    t += on
                if off:
                    if state:
                        out.append((t, False))
                        state = False
                    t += off
        if state:
            out.append((t, False))
        return out

    @property
    def duration_ms(self) -> int:
        return self.repeat * sum(a + b for a, b in self.steps)


SILENCE: Final = BuzzPattern()


@dataclass(frozen=True, slots=True)
class DeviceInfo:
    """The device's answer to HELLO, also sent unasked after every reset."""

    protocol: int
    firmware: tuple[int, int, int]
    n_leds: int
    has_buzzer: bool
    has_status_led: bool
    reset_count: int
    reset_cause: int
    unsolicited: bool

    def body(self) -> bytes:
        caps = (1 if self.has_buzzer else 0) | (2 if self.has_status_led else 0)
        return bytes((self.protocol, *self.firmware, self.n_leds, caps)) + struct.pack(
            ">HBB", self.reset_count, self.reset_cause, 1 if self.unsolicited else 0
        )

    @classmethod
    def from_body(cls, body: bytes) -> DeviceInfo:
        if len(body) != 10:
            raise FrameError(NakReason.BAD_LENGTH, f"INFO body {body.hex()} is not 10 bytes")
        count, cause, unsolicited = struct.unpack(">HBB", body[6:10])
        return cls(
            protocol=body[0],
            firmware=(body[1], body[2], body[3]),
            n_leds=body[4],
            has_buzzer=bool(body[5] & 1),
            has_status_led=bool(body[5] & 2),
            reset_count=count,
            reset_cause=cause,
            unsolicited=bool(unsolicited),
        )

    @property
    def firmware_version(self) -> str:
        return ".".join(str(x) for x in self.firmware)
