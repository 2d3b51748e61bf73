"""``bgref device simulate`` prints a port a host can talk to."""

from __future__ import annotations

import subprocess
import sys

from firmware_bridge.device import Device

from .conftest import WAIT


def test_simulate_prints_a_working_port() -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee.cli", "device", "simulate", "--emulator"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        port = proc.stdout.readline().strip()
        assert port.startswith("/dev/")
        with Device(port) as dev:
            assert dev.wait_connected(WAIT).n_leds == 27
    finally:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
