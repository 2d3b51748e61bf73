"""The real firmware, built with avr-gcc and run in simavr by the small host program ``bgref-sim``.

:func:`build` runs ``make`` in ``firmware/`` when a source is newer than its product
(outputs go to ``build/firmware/`` at the top of the checkout, git-ignored, or to
``$BGREF_BUILD_DIR``); :class:`SimulatedDevice` starts ``bgref-sim``, reads the port it
opened and turns its report lines into :mod:`firmware_bridge.events` with simulated
time (CPU cycles / 16 MHz).

>>> missing_tools() in ([], ['avr-gcc'], ['simavr'], ['avr-gcc', 'simavr'])
True
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
from pathlib import Path

from firmware_bridge.events import Booted, EventLog, LedFrame, PinChange

FIRMWARE_DIR = Path(__file__).resolve().parent / "firmware"
CPU_HZ = 16_000_000


class BuildError(RuntimeError):
    """``make`` failed; the message carries its output."""


def build_dir() -> Path:
    env = os.environ.get("BGREF_BUILD_DIR")
    if env:
        return Path(env) / "firmware"
    return FIRMWARE_DIR.parent.parent / "build" / "firmware"


def missing_tools() -> list[str]:
    """What is needed to build and simulate the firmware but absent."""
    missing = []
    if shutil.which("avr-gcc") is None:
        missing.append("avr-gcc")
    if not Path("/usr/include/simavr/sim_avr.h").exists() and subprocess.run(
        ["pkg-config", "--exists", "simavr"], capture_output=True, check=False
    ).returncode:
        missing.append("simavr")
    return missing


_build_lock = threading.Lock()


def _sources() -> list[Path]:
    return [p for p in FIRMWARE_DIR.rglob("*") if p.suffix in (".c", ".h") or p.name == "Makefile"]


def build(target: str = "all") -> Path:
    """Build ``target`` (all, firmware, sim, fuzz) if any source is newer; return the build directory."""
    out = build_dir()
    products = {
        "firmware": [out / "bgref.elf"],
        "sim": [out / "bgref-sim"],
        "fuzz": [out / "fuzz-decoder"],
    }
    wanted = [p for k, v in products.items() if target in (k, "all") for p in v]
    with _build_lock:
        newest = max(p.stat().st_mtime for p in _sources())
        if all(p.exists() and p.stat().st_mtime >= newest for p in wanted):
            return out
        out.mkdir(parents=True, exist_ok=True)
        # A per-process lock file keeps two pytest workers from building at once.
        lock = out / ".build.lock"
        import fcntl

        with open(lock, "w") as fh:
            fcntl.flock(fh, fcntl.LOCK_EX)
            res = subprocess.run(
                ["make", "-C", str(FIRMWARE_DIR), f"BUILD={out}", target],
                capture_output=True,
                text=True,
                check=False,
            )
        if res.returncode:
            raise BuildError(f"make {target} failed:\n{res.stdout}\n{res.stderr}")
    return out


class SimulatedDevice:
    """``bgref-sim`` running the firmware; ``port`` is the pty (or the stable ``link`` to it)."""

    def __init__(self, link: Path | None = None) -> None:
        self.link = link
        self.events = EventLog()
        self.port: str | None = None
        self.proc: subprocess.Popen[str] | None = None
        self._reader: threading.Thread | None = None
        self._pty_ready = threading.Event()
        self.lines: list[str] = []

    def start(self, timeout: float = 20.0) -> str:
        build("firmware")
        out = build("sim")
        self._pty_ready.clear()
        self.proc = subprocess.Popen(
            [str(out / "bgref-sim"), str(out / "bgref.elf")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            cwd=str(out),
        )
        self._reader = threading.Thread(target=self._read, args=(self.proc,), name="bgref-sim-reader", daemon=True)
        self._reader.start()
        if not self._pty_ready.wait(timeout):
            self.stop()
            raise RuntimeError(f"bgref-sim did not report its pty within {timeout} s: {self.lines[-5:]}")
        assert self.port is not None
        if self.link is not None:
            tmp = self.link.with_name(self.link.name + ".new")
            tmp.unlink(missing_ok=True)
            tmp.symlink_to(self.port)
            tmp.replace(self.link)
            return str(self.link)
        return self.port

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            parts = line.split()
            if len(parts) < 2 or parts[0] != "BGREF":
                continue
            self.lines.append(line.rstrip())
            kind = parts[1]
            if kind == "PTY":
                self.port = parts[2]
                self.events.append(Booted(0.0))
                self._pty_ready.set()
            elif kind == "LED":
                raw = bytes.fromhex(parts[3])
                colours = tuple((raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3))
                self.events.append(LedFrame(int(parts[2]) / CPU_HZ, colours))
            elif kind == "PIN":
                self.events.append(PinChange(int(parts[2]) / CPU_HZ, parts[3], parts[4] == "1"))
            elif kind == "RESET":
                self.events.append(Booted(int(parts[2]) / CPU_HZ))

    def reset(self) -> None:
        """Reset the MCU (what a DTR pulse does to an Arduino)."""
        assert self.proc is not None and self.proc.stdin is not None
        self.proc.stdin.write("reset\n")
        self.proc.stdin.flush()

    def stop(self) -> None:
        """Kill the simulator: the pty disappears like an unplugged USB cable."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=5)
        if self._reader is not None:
            self._reader.join(timeout=5)

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def __enter__(self) -> SimulatedDevice:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
