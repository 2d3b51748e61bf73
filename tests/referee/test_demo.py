"""``bgref demo``: the end-to-end demo finishes and its summary (last line, JSON) says what happened."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path


def _demo(tmp_path: Path, *extra: str) -> dict:
    cmd = [sys.executable, "-m", "referee", "demo", "--json", "--out", str(tmp_path / "demo"), "--size", "192x108",
           "--turns", "12", "--kinds", "cocked_die,illegal_wrong_distance,premature_throw,lifted_early",
           "--device", "emulator", *extra]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_demo_json_summary(tmp_path: Path) -> None:
    # (the oracle: at 192x108 the session-8 checker models read 12/24 set-up points surely, so ``--vision auto`` takes
    # the real reader, which cannot referee at that size; this test is about the summary, not vision)
    s = _demo(tmp_path, "--vision", "oracle")
    for key in ("seeded", "caught", "false_alarms", "latency_ms_median", "vision", "device"):
        assert key in s, key
    assert s["seeded"] >= 3 and s["caught"] == s["seeded"] and s["false_alarms"] == 0, s
    assert s["vision"] in ("real", "oracle") and s["vision_note"]
    assert s["device"] == "emulator" and s["device_alerts"] >= s["caught"]
    assert 0 < s["latency_ms_median"] <= 200
    assert s["record_matches_game"]
    assert sorted(Path(p).suffix for p in s["exports"]) == [".mat", ".sgf"]
    assert all(Path(p).exists() for p in s["exports"])
    assert len(s["evidence"]) == 2 * s["caught"] and all(Path(p).stat().st_size > 0 for p in s["evidence"])


def test_demo_rules_is_still_there(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "demo", "--rules", "--plies", "8"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0 and "illegal attempt(s) caught" in done.stdout


def test_demo_bad_size_is_a_clear_error(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "referee", "demo", "--size", "big"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "--size" in done.stderr
