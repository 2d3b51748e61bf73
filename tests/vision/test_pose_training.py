"""The pose training's sample cache (vision/training/pose.py)."""

from __future__ import annotations

from pathlib import Path


def test_the_sample_cache_counts_only_the_training_seeds_frames(tmp_path: Path) -> None:
    """Held-out renders written into the same folder later (seeds outside the range) do not make the
    cached training samples stale; a new training frame does."""
    from vision.training.pose import _frames_counted

    pose, shared = tmp_path / "pose", tmp_path / "shared"
    pose.mkdir()
    shared.mkdir()
    for name in ("30000_0", "30000_1", "30001_0"):
        (pose / f"{name}.json").write_text("{}")
    (shared / "10000.json").write_text("{}")
    sources = [(pose, range(30_000, 40_000)), (shared, range(10_000, 20_000))]
    assert _frames_counted(sources) == 4
    for name in ("901650_0", "901650_1"):
        (pose / f"{name}.json").write_text("{}")
    (shared / "900040.json").write_text("{}")
    assert _frames_counted(sources) == 4
    (pose / "30002_0.json").write_text("{}")
    assert _frames_counted(sources) == 5
