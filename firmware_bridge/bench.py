"""``bgref bench device``: command round trip over the pty, firmware in simavr (or the emulator).

Prints the median and 99th percentile of PING round trips (host write -> device ACK
decoded) and of SHOW (whole 27-LED state, 116-byte frame) round trips.
"""

from __future__ import annotations

import argparse
import statistics
import time

from firmware_bridge.device import Device, DeviceConfig
from firmware_bridge.protocol import N_LEDS, DeviceState, Led


def _percentile(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, round(q * (len(xs) - 1)))]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bgref bench device", description=__doc__.splitlines()[0])
    ap.add_argument("--peer", choices=("simavr", "emulator"), default="simavr")
    ap.add_argument("-n", type=int, default=500, help="round trips per command")
    args = ap.parse_args(argv)
    if args.peer == "simavr":
        from firmware_bridge.simulator import SimulatedDevice, missing_tools

        if missing_tools():
            print(f"bench device: missing {missing_tools()}; use --peer emulator")
            return 2
        peer = SimulatedDevice()
        port = peer.start()
        stop = peer.stop
    else:
        from firmware_bridge.emulator import Emulator

        emu = Emulator()
        port = emu.start_pty()
        stop = emu.stop
    try:
        with Device(port, DeviceConfig(ping_interval=3600)) as dev:
            dev.wait_connected(15)
            dev.flush(15)
            ping = [dev.ping() for _ in range(args.n)]
            show = []
            for k in range(args.n):
                dev.show(DeviceState().with_leds({k % N_LEDS: Led(200, k % 256, 7)}))
                t0 = time.perf_counter()
                dev.flush(15)
                show.append(time.perf_counter() - t0)
            retrans = dev.stats.retransmits
    finally:
        stop()
    for name, xs in (("PING", ping), ("SHOW", show)):
        print(
            f"{args.peer} {name}: n={len(xs)} median {statistics.median(xs) * 1000:.2f} ms  "
            f"p99 {_percentile(xs, 0.99) * 1000:.2f} ms  max {max(xs) * 1000:.2f} ms"
        )
    print(f"retransmissions: {retrans}")
    return 0
