"""Framing, CRC and message bodies; the decoders under a (short) fuzz run."""

from __future__ import annotations

import binascii
import shutil

import pytest
from hypothesis import given
from hypothesis import strategies as st

from firmware_bridge import fuzz
from firmware_bridge.protocol import (
    MAX_BODY,
    BuzzPattern,
    DeviceInfo,
    DeviceState,
    FrameDecoder,
    FrameError,
    MsgType,
    NakReason,
    Packet,
    cobs_decode,
    cobs_encode,
    crc16,
    encode_frame,
)
from firmware_bridge.simulator import build


def test_crc_is_ccitt_xmodem() -> None:
    assert crc16(b"123456789") == 0x31C3
    assert crc16(b"123456789") == binascii.crc_hqx(b"123456789", 0)


@given(st.binary(max_size=600))
def test_cobs_round_trip_has_no_zeros(data: bytes) -> None:
    enc = cobs_encode(data)
    assert 0 not in enc
    assert len(enc) <= len(data) + len(data) // 254 + 1
    assert cobs_decode(enc) == data


@given(st.sampled_from(list(MsgType)), st.integers(0, 255), st.binary(max_size=MAX_BODY), st.integers(0, 5))
def test_frames_survive_arbitrary_chunking(t: MsgType, seq: int, body: bytes, split: int) -> None:
    frame = encode_frame(Packet(t, seq, body))
    stream = b"\0\0" + frame + frame
    dec = FrameDecoder()
    got = []
    for i in range(0, len(stream), split + 1):
        got += dec.feed(stream[i : i + split + 1])
    assert got == [Packet(t, seq, body)] * 2
    assert not dec.errors


def test_bad_cobs_is_reported_not_raised() -> None:
    dec = FrameDecoder()
    assert dec.feed(b"\x05\x01\0") == []
    assert dec.errors[0].reason is NakReason.BAD_COBS
    with pytest.raises(FrameError, match="runs past the end"):
        cobs_decode(b"\x05\x01")


def test_overlong_frame_is_overflow_and_the_next_frame_decodes() -> None:
    dec = FrameDecoder()
    good = encode_frame(Packet(MsgType.PING, 3))
    assert dec.feed(b"\x07" * 500 + b"\0" + good) == [Packet(MsgType.PING, 3)]
    assert [e.reason for e in dec.errors] == [NakReason.OVERFLOW]


@given(st.lists(st.tuples(st.integers(0, 65535), st.integers(0, 65535)), max_size=8), st.integers(1, 255))
def test_buzz_body_round_trip(steps: list[tuple[int, int]], repeat: int) -> None:
    p = BuzzPattern(tuple(steps), repeat)
    assert BuzzPattern.from_body(p.body()) == p


def test_buzz_edges() -> None:
    p = BuzzPattern(((100, 50), (0, 30), (20, 0)), repeat=2)
    assert p.edges() == [(0, True), (100, False), (180, True), (300, False), (380, True), (400, False)]
    assert p.duration_ms == 400


def test_show_body_round_trip_and_bad_values() -> None:
    s = DeviceState().with_leds({5: DeviceState().leds[0]})
    assert DeviceState.from_body(s.body()) == s
    bad = bytearray(s.body())
    bad[4] = 9  # blink code out of range
    with pytest.raises(FrameError) as exc:
        DeviceState.from_body(bytes(bad))
    assert exc.value.reason is NakReason.BAD_VALUE


def test_info_round_trip() -> None:
    info = DeviceInfo(1, (1, 2, 3), 27, True, False, 513, 4, True)
    assert DeviceInfo.from_body(info.body()) == info


def test_host_decoder_fuzz_no_false_accept() -> None:
    counts = fuzz.fuzz_host(20_000, seed=7)
    assert counts.inputs == 20_000 and counts.accepted > 4000
    assert counts.ok, counts


@pytest.fixture(scope="module")
def harness() -> str:
    if shutil.which("gcc") is None and shutil.which("cc") is None:
        pytest.skip("no native C compiler")
    return str(build("fuzz") / "fuzz-decoder")


def test_firmware_decoder_fuzz_no_crash_no_false_accept(harness: str) -> None:
    import subprocess

    res = subprocess.run([harness, "run", "20000", "11"], capture_output=True, text=True, check=False)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "false_accepts 0 false_rejects 0 noncanonical 0" in res.stdout


def test_firmware_and_host_decoders_agree(harness: str) -> None:
    assert fuzz.differential(harness, 5_000, seed=3) == []
