"""Fuzzing the frame decoders: the host's (:class:`FrameDecoder`) and the firmware's (``proto.c``).

``python -m firmware_bridge.fuzz --count 1000000`` runs

* the host decoder over ``count`` seeded inputs: random bytes, valid frames, valid frames
  with 1-3 flipped bits or one burst of at most 16 bits in the packet (CRC-16/CCITT is
  guaranteed to catch these: accepting one is a *false accept*), and valid frames with
  arbitrary damage after stuffing (accepted-but-different ones are CRC collisions, about
  2^-16 of the frames that survive the structural checks; reported, not failed);
* the firmware decoder compiled natively with ASan/UBSan over ``count`` inputs of the same kinds;
* a differential run: the same inputs through both decoders must give the same verdicts.

Exit status 1 on any crash, false accept, false reject or disagreement.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from dataclasses import dataclass

from firmware_bridge.protocol import (
    HOST_TYPES,
    MAX_BODY,
    MsgType,
    Packet,
    cobs_encode,
    encode_frame,
    encode_packet,
)
from firmware_bridge.protocol import FrameDecoder as _Decoder


@dataclass(slots=True)
class FuzzCounts:
    inputs: int = 0
    accepted: int = 0
    false_accepts: int = 0
    false_rejects: int = 0
    noncanonical: int = 0
    crc_collisions: int = 0

    @property
    def ok(self) -> bool:
        return not (self.false_accepts or self.false_rejects or self.noncanonical)


def _valid(rng: random.Random) -> Packet:
    n = rng.randrange(8) if rng.random() < 0.25 else rng.randrange(MAX_BODY + 1)
    body = bytes(0 if rng.random() < 1 / 3 else rng.randrange(256) for _ in range(n))
    return Packet(MsgType(rng.choice(sorted(HOST_TYPES))), rng.randrange(256), body)


def _bit_errors(rng: random.Random, raw: bytes) -> bytes:
    buf = bytearray(raw)
    nbits = len(buf) * 8
    if rng.random() < 0.5:
        for b in rng.sample(range(nbits), rng.randint(1, 3)):
            buf[b // 8] ^= 1 << (b % 8)
    else:
        width = rng.randint(2, 16)
        start = rng.randrange(nbits - width + 1)
        end = start + width - 1
        for b in (start, end):
            buf[b // 8] ^= 1 << (b % 8)
        for b in range(start + 1, end):
            if rng.random() < 0.5:
                buf[b // 8] ^= 1 << (b % 8)
    return bytes(buf)


def _damage(rng: random.Random, data: bytes) -> bytes:
    buf = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        if not buf:
            break
        at = rng.randrange(len(buf))
        op = rng.randrange(5)
        if op == 0:
            buf[at] = rng.randrange(1, 256)
        elif op == 1:
            buf.insert(at, rng.randrange(1, 256))
        elif op == 2:
            del buf[at]
        elif op == 3:
            del buf[at:]
        else:
            buf[at] ^= 1 << rng.randrange(8)
            buf[at] = buf[at] or 1
    return bytes(buf)


def generate(rng: random.Random) -> tuple[int, bytes, Packet | None]:
    """One input without its final delimiter: (kind, bytes, the valid packet it came from)."""
    kind = rng.randrange(4)
    if kind == 0:
        data = bytes(b if b or rng.random() < 1 / 8 else 1 for b in rng.randbytes(rng.randrange(300)))
        return kind, data, None
    packet = _valid(rng)
    raw = encode_packet(packet)
    if kind == 1:
        return kind, cobs_encode(raw), packet
    if kind == 2:
        return kind, cobs_encode(_bit_errors(rng, raw)), packet
    return kind, _damage(rng, cobs_encode(raw)), packet


def fuzz_host(count: int, seed: int = 1) -> FuzzCounts:
    rng = random.Random(seed)
    c = FuzzCounts()
    for _ in range(count):
        kind, data, orig = generate(rng)
        dec = _Decoder(known_types=HOST_TYPES)
        got = dec.feed(data + b"\0")
        c.inputs += 1
        if got:
            c.accepted += 1
            last = got[-1]
            if 0 not in data and encode_frame(last) != data + b"\0":
                c.noncanonical += 1
            if kind == 2 or (kind == 1 and last != orig):
                c.false_accepts += 1
            if kind == 3 and last != orig:
                c.crc_collisions += 1
        elif kind == 1:
            c.false_rejects += 1
    return c


def host_verdict(data: bytes) -> str:
    """What the host decoder says about one frame, in the harness's ``lines`` format."""
    dec = _Decoder(known_types=HOST_TYPES)
    got = dec.feed(data + b"\0")
    if got:
        p = got[-1]
        return f"ok {int(p.type)} {p.seq} {len(p.body)}"
    if dec.errors:
        e = dec.errors[-1]
        return f"nak {int(e.reason)} {e.seq}"
    return "none"


def differential(harness: str, count: int, seed: int = 2) -> list[tuple[str, str, str]]:
    """Inputs (without zeros) on which the firmware and host decoders disagree."""
    rng = random.Random(seed)
    inputs: list[bytes] = []
    while len(inputs) < count:
        _, data, _ = generate(rng)
        if 0 not in data:
            inputs.append(data)
    res = subprocess.run(
        [harness, "lines"], input="\n".join(d.hex() for d in inputs) + "\n", capture_output=True, text=True, check=True
    )
    fw = res.stdout.splitlines()
    if len(fw) != len(inputs):
        raise RuntimeError(f"harness answered {len(fw)} lines for {len(inputs)} inputs: {res.stderr[-500:]}")
    return [(d.hex(), f, host_verdict(d)) for d, f in zip(inputs, fw, strict=True) if f != host_verdict(d)]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m firmware_bridge.fuzz", description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1_000_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--differential", type=int, default=100_000, help="inputs for the differential run")
    args = ap.parse_args(argv)
    from firmware_bridge.simulator import build

    ok = True
    t = time.perf_counter()
    host = fuzz_host(args.count, args.seed)
    print(f"host decoder: {host} in {time.perf_counter() - t:.1f} s")
    ok &= host.ok
    harness = str(build("fuzz") / "fuzz-decoder")
    t = time.perf_counter()
    res = subprocess.run([harness, "run", str(args.count), str(args.seed)], capture_output=True, text=True, check=False)
    print(f"firmware decoder (native, ASan+UBSan) in {time.perf_counter() - t:.1f} s:\n{res.stdout}{res.stderr}", end="")
    ok &= res.returncode == 0
    t = time.perf_counter()
    diff = differential(harness, args.differential, args.seed + 1)
    print(f"differential: {len(diff)} disagreements in {args.differential} inputs ({time.perf_counter() - t:.1f} s)")
    for d in diff[:5]:
        print("  ", d)
    ok &= not diff
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
