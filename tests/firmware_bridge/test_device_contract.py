"""One contract, every peer: the in-process fake, the emulator on a pty, the firmware in simavr, a real port."""

from __future__ import annotations

import time

import pytest

from firmware_bridge.device import Connected, Disconnected, ResetSeen
from firmware_bridge.events import Booted, LedFrame, PinChange
from firmware_bridge.protocol import (
    N_LEDS,
    SAFE_TIMEOUT_MS,
    Blink,
    BuzzPattern,
    DeviceInfo,
    DeviceState,
    Led,
    MsgType,
    NakReason,
    Packet,
    StatusMode,
    cobs_encode,
    encode_packet,
)
from firmware_bridge.signals import BUZZ_PATTERNS, SAFE_STATE, Fault, Signal, render

from .conftest import WAIT, Peer


def rainbow() -> DeviceState:
    """Every LED a different colour, so an off-by-one or a byte-order slip shows."""
    return DeviceState(tuple(Led(10 + i, 255 - 7 * i, (37 * i) % 256) for i in range(N_LEDS)), StatusMode.ON)


def wait_frame(peer: Peer, colours: tuple, start: int = 0, timeout: float = WAIT) -> tuple[int, LedFrame]:
    return peer.events.wait_for(LedFrame, lambda e: e.colours == colours, timeout, start)


def need_events(peer: Peer) -> None:
    if not peer.observable:
        pytest.skip(f"{peer.name}: the LEDs and buzzer of a real device cannot be watched from a test")


def wait_event(dev, kind, timeout: float = WAIT):  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + timeout
    while True:
        ev = dev.events.get(timeout=max(0.01, deadline - time.monotonic()))
        if isinstance(ev, kind):
            return ev


class TestDeviceContract:
    def test_handshake_reports_versions_and_capabilities(self, peer: Peer) -> None:
        with peer.device() as dev:
            info = dev.wait_connected(WAIT)
        assert info.protocol == 1
        assert info.n_leds == N_LEDS
        assert info.has_buzzer and info.has_status_led
        assert info.reset_count >= 1
        assert not info.unsolicited

    def test_every_led_decoded_exactly(self, peer: Peer) -> None:
        need_events(peer)
        state = rainbow()
        with peer.device() as dev:
            dev.wait_connected(WAIT)
            dev.show(state)
            dev.flush(WAIT)
            wait_frame(peer, state.frame(0))
            dev.clear()
            dev.flush(WAIT)
            wait_frame(peer, ((0, 0, 0),) * N_LEDS)

    def test_blinking_runs_on_the_device(self, peer: Peer) -> None:
        need_events(peer)
        state = DeviceState().with_leds({3: Led(255, 0, 0, Blink.FAST), 20: Led(0, 0, 255, Blink.SLOW)})
        lit = state.frame(0)
        with peer.device() as dev:
            dev.wait_connected(WAIT)
            dev.show(state)
            dev.flush(WAIT)
            i, first = wait_frame(peer, lit)
            # FAST toggles every 125 ms: LED 3 goes dark, then lit again, while LED 20 stays lit.
            j, dark = peer.events.wait_for(LedFrame, lambda e: e.colours[3] == (0, 0, 0), WAIT, i + 1)
            _k, again = wait_frame(peer, lit, j + 1)
        assert dark.colours[20] == (0, 0, 255)
        assert dark.t - first.t == pytest.approx(0.125, rel=0.05)
        assert again.t - first.t == pytest.approx(0.250, rel=0.05)

    @pytest.mark.parametrize("fault", [Fault.ILLEGAL_PLAY, Fault.PREMATURE_THROW, Fault.RETHROW])
    def test_buzzer_timings_within_5_percent(self, peer: Peer, fault: Fault) -> None:
        need_events(peer)
        pattern = BUZZ_PATTERNS[fault]
        edges = pattern.edges()
        with peer.device() as dev:
            dev.wait_connected(WAIT)
            start = len(peer.events)
            dev.buzz(pattern)
            dev.flush(WAIT)
            got = []
            i = start
            for _ in edges:
                i, ev = peer.events.wait_for(PinChange, lambda e: e.pin == "buzzer", WAIT, i)
                got.append(ev)
                i += 1
        assert [e.on for e in got] == [on for _, on in edges]
        t0 = got[0].t
        for (expect_ms, _), ev in zip(edges[1:], got[1:], strict=True):
            assert (ev.t - t0) * 1000 == pytest.approx(expect_ms, rel=0.05)
        for (a, _), (b, _), ea, eb in zip(edges, edges[1:], got, got[1:], strict=False):
            assert (eb.t - ea.t) * 1000 == pytest.approx(b - a, rel=0.05)

    def test_signal_lights_only_what_is_at_fault(self, peer: Peer) -> None:
        need_events(peer)
        sig = Signal(Fault.ILLEGAL_PLAY, points=(24, 18))
        state, _ = render(sig)
        with peer.device() as dev:
            dev.wait_connected(WAIT)
            dev.signal(sig)
            dev.flush(WAIT)
            _, frame = wait_frame(peer, state.frame(0))
        assert [i for i, c in enumerate(frame.colours) if c != (0, 0, 0)] == [17, 23]

    def test_garbled_frames_are_nakked_and_the_link_recovers(self, peer: Peer) -> None:
        link = peer.raw()
        try:
            good = encode_packet(Packet(MsgType.PING, 9))
            bad_crc = bytearray(good)
            bad_crc[-1] ^= 0x40
            cases = [
                (cobs_encode(bytes(bad_crc)) + b"\0", NakReason.BAD_CRC),
                (b"\x09\x01\x02\0", NakReason.BAD_COBS),  # block runs past the end
                (cobs_encode(good[:3] + good[4:]) + b"\0", NakReason.BAD_LENGTH),  # truncated
                (cobs_encode(_raw(1, 0x7E, 10, b"")) + b"\0", NakReason.UNKNOWN_TYPE),
                (cobs_encode(_raw(2, 0x02, 11, b"")) + b"\0", NakReason.BAD_VERSION),
                (cobs_encode(_raw(1, 0x03, 12, b"\x01\x02")) + b"\0", NakReason.BAD_LENGTH),
                (cobs_encode(_raw(1, 0x02, 13, b"", declared=5)) + b"\0", NakReason.BAD_LENGTH),
                (bytes(range(1, 256)) + b"\0", NakReason.OVERFLOW),
                (cobs_encode(_raw(1, 0x04, 14, b"\x00\x00")) + b"\0", NakReason.BAD_VALUE),  # repeat 0
            ]
            for data, reason in cases:
                link.write(data)
                (reply,) = link.replies(1)
                assert reply.type is MsgType.NAK, (data.hex(), reply)
                assert NakReason(reply.body[0]) is reason, (data.hex(), reply)
            # Garbage without a delimiter is swallowed by the next delimiter; then all is well again.
            link.write(b"\x13\x37\x42" + b"\0")
            link.replies(1, timeout=0.5)
            link.send(Packet(MsgType.PING, 77))
            replies = link.replies(1)
            assert replies[-1].type is MsgType.ACK and replies[-1].seq == 77
        finally:
            link.close()

    def test_duplicates_are_not_applied_twice_but_acked_again(self, peer: Peer) -> None:
        link = peer.raw()
        try:
            link.send(Packet(MsgType.HELLO, 1))
            assert link.replies(1)[0].type is MsgType.INFO
            start = len(peer.events) if peer.observable else 0
            beep = Packet(MsgType.BUZZ, 42, BuzzPattern(((60, 40),)).body())
            link.send(beep)
            link.send(beep)  # a retransmission: the host never saw the first ACK
            first, second = link.replies(2)
            assert first == second and first.type is MsgType.ACK and first.seq == 42
            if peer.observable:
                _i, _ = peer.events.wait_for(PinChange, lambda e: e.pin == "buzzer" and not e.on, WAIT, start)
                link.send(Packet(MsgType.PING, 43))  # sync: the device has processed both copies
                assert link.replies(1)[0].seq == 43
                ons = [e for e in peer.events.snapshot(start) if isinstance(e, PinChange) and e.pin == "buzzer" and e.on]
                assert len(ons) == 1
        finally:
            link.close()

    def test_safe_state_after_host_silence_and_back(self, peer: Peer) -> None:
        need_events(peer)
        state = rainbow()
        with peer.device() as dev:
            dev.wait_connected(WAIT)
            dev.show(state)
            dev.flush(WAIT)
            i, _shown = wait_frame(peer, state.frame(0))
            t_quiet = time.monotonic()
            dev.pause_heartbeat()
            j, _safe = wait_frame(peer, SAFE_STATE.frame(0), i + 1)
            waited = time.monotonic() - t_quiet
            assert waited >= SAFE_TIMEOUT_MS / 1000 * 0.9
            # the status LED blinks fast while offline
            peer.events.wait_for(PinChange, lambda e: e.pin == "status" and not e.on, WAIT, j)
            dev.pause_heartbeat(False)
            dev.flush(WAIT)
            wait_frame(peer, state.frame(0), j + 1)

    def test_reset_is_noticed_and_state_resent(self, peer: Peer) -> None:
        state = rainbow()
        with peer.device() as dev:
            before = dev.wait_connected(WAIT)
            dev.show(state)
            dev.flush(WAIT)
            start = len(peer.events) if peer.observable else 0
            while not dev.events.empty():
                dev.events.get_nowait()
            peer.reset()
            ev = wait_event(dev, ResetSeen)
            assert isinstance(ev.info, DeviceInfo) and ev.info.unsolicited
            assert ev.info.reset_count != before.reset_count
            if peer.observable:
                b, _ = peer.events.wait_for(Booted, lambda e: True, WAIT, start)
                wait_frame(peer, state.frame(0), b)

    def test_unplug_and_reconnect(self, peer: Peer) -> None:
        if not peer.can_unplug:
            pytest.skip(f"{peer.name}: cannot unplug from a test")
        state = rainbow()
        with peer.device(backoff_max=0.5) as dev:
            dev.wait_connected(WAIT)
            dev.show(state)
            dev.flush(WAIT)
            peer.kill()
            wait_event(dev, Disconnected)
            dev.show(state.with_leds({0: Led(1, 2, 3)}))  # while unplugged: must not block
            peer.start()
            wait_event(dev, Connected)
            dev.flush(WAIT)
            wait_frame(peer, state.with_leds({0: Led(1, 2, 3)}).frame(0))

    def test_outbox_never_blocks_and_keeps_the_newest_state(self, peer: Peer) -> None:
        need_events(peer)
        with peer.device() as dev:
            dev.wait_connected(WAIT)
            t0 = time.perf_counter()
            states = [DeviceState().with_leds({k % N_LEDS: Led(255, k, 0)}) for k in range(200)]
            for s in states:
                dev.show(s)
            elapsed = time.perf_counter() - t0
            dev.flush(WAIT)
            wait_frame(peer, states[-1].frame(0))
        assert elapsed < 0.5  # 200 calls that never wait for the port
        assert dev.stats.commands < 100  # older states were replaced, not queued


def _raw(version: int, type_: int, seq: int, body: bytes, declared: int | None = None) -> bytes:
    import struct

    from firmware_bridge.protocol import crc16

    head = bytes((version, type_, seq, len(body) if declared is None else declared)) + body
    return head + struct.pack(">H", crc16(head))
