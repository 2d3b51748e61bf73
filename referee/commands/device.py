"""``bgref device``: run the simulated device, or exercise a device on a port.

``bgref device simulate`` builds the firmware, runs it in simavr (or ``--emulator``:
the Python emulator) and prints the port to open, until Ctrl-C.
``bgref device test --port URL`` lights every LED in turn and plays every pattern.
"""

from __future__ import annotations

import argparse
import signal as _signal
import threading
import time

from referee.cli import CommandError


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = sub.add_parser("device", help="the LED/buzzer device: simulate it or test one")
    dsub = p.add_subparsers(dest="device_command", metavar="ACTION")
    dsub.required = True
    sim = dsub.add_parser("simulate", help="run the firmware in simavr on a pty and print the port")
    sim.add_argument("--emulator", action="store_true", help="use the pure-Python emulator instead of simavr")
    sim.add_argument("--link", help="also keep this path pointing at the pty (a stable name)")
    sim.set_defaults(func=_simulate)
    test = dsub.add_parser("test", help="light every LED and play every buzzer pattern")
    test.add_argument("--port", required=True, help="serial URL: /dev/ttyACM0, hwgrep://2341:0043, a pty")
    test.add_argument("--step", type=float, default=0.15, help="seconds per LED")
    test.set_defaults(func=_test)


def _simulate(args: argparse.Namespace) -> int:
    from pathlib import Path

    link = Path(args.link) if args.link else None
    if args.emulator:
        from firmware_bridge.emulator import Emulator

        emu = Emulator(link=link)
        port, stop = emu.start_pty(), emu.stop
        what = "Python emulator"
    else:
        from firmware_bridge.simulator import SimulatedDevice, missing_tools

        missing = missing_tools()
        if missing:
            raise CommandError(f"needs {', '.join(missing)} (or use --emulator)")
        sim = SimulatedDevice(link=link)
        port, stop = sim.start(), sim.stop
        what = "firmware in simavr"
    print(port, flush=True)
    print(f"({what}; Ctrl-C to stop)", flush=True)
    done = threading.Event()
    _signal.signal(_signal.SIGTERM, lambda *_: done.set())
    try:
        while not done.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        stop()
    return 0


def _test(args: argparse.Namespace) -> int:
    from firmware_bridge.device import Device
    from firmware_bridge.errors import DeviceError
    from firmware_bridge.protocol import N_LEDS, Blink, DeviceState, Led, StatusMode
    from firmware_bridge.signals import BUZZ_PATTERNS

    try:
        with Device(args.port) as dev:
            info = dev.wait_connected(8)
            print(
                f"device: protocol {info.protocol}, firmware {info.firmware_version}, {info.n_leds} LEDs, "
                f"buzzer {'yes' if info.has_buzzer else 'no'}, resets {info.reset_count}"
            )
            for i in range(N_LEDS):
                dev.show(DeviceState().with_leds({i: Led(255, 255, 255)}))
                dev.flush(5)
                time.sleep(args.step)
            for colour in ((255, 0, 0), (0, 255, 0), (0, 0, 255)):
                dev.show(DeviceState((Led(*colour),) * N_LEDS))
                dev.flush(5)
                time.sleep(args.step * 3)
            for blink in Blink:
                dev.show(DeviceState((Led(255, 96, 0, blink),) * N_LEDS, StatusMode.FAST))
                dev.flush(5)
                time.sleep(1.0)
            for fault, pattern in BUZZ_PATTERNS.items():
                print(f"pattern {fault.value}: {pattern.steps}")
                dev.buzz(pattern)
                dev.flush(5)
                time.sleep(pattern.duration_ms / 1000 + 0.4)
            dev.clear()
            dev.flush(5)
            print(f"ok: {dev.stats.commands} commands, {dev.stats.retransmits} retransmissions, {dev.stats.naks} NAKs")
    except DeviceError as exc:
        raise CommandError(str(exc)) from exc
    return 0
