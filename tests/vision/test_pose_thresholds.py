"""The pose thresholds in :class:`vision.dice.config.DiceConfig` are the ones the committed model's record
says were tuned for it, and the training's seed selection (``--pose-seeds``) is checked."""

from __future__ import annotations

import json

import pytest

from vision.dice.config import DiceConfig
from vision.dice.pose import DIE_POSE_MODEL


def test_config_thresholds_are_the_recorded_tuning() -> None:
    """die_pose.train.json records the thresholds tuned for the committed deciding head (seen pose renders,
    ``python -m vision.training.pose calls``): a model swapped without its thresholds fails here."""
    rec = json.loads(DIE_POSE_MODEL.with_suffix(".train.json").read_text())
    th = rec["thresholds"]
    d = DiceConfig()
    assert th["model_sha256_prefix"]
    for k in ("flat_min_probability", "leaning_min_probability", "on_die_call_min_probability", "on_die_min_probability"):
        assert getattr(d, k) == pytest.approx(th[k], abs=1e-9), k


def test_model_file_is_the_recorded_one() -> None:
    import hashlib

    rec = json.loads(DIE_POSE_MODEL.with_suffix(".train.json").read_text())
    digest = hashlib.sha256(DIE_POSE_MODEL.read_bytes()).hexdigest()
    assert digest.startswith(rec["thresholds"]["model_sha256_prefix"])


def test_pose_seed_range() -> None:
    from vision.training.pose import POSE_TRAIN_SEEDS, _seed_range, training_sources

    assert _seed_range(None) == POSE_TRAIN_SEEDS
    assert _seed_range("30000-30284") == range(30000, 30285)
    assert training_sources(range(30000, 30285))[0][1] == range(30000, 30285)
    for bad in ("30000", "a-b", "29999-30010", "30010-30000", "901800-901849"):
        with pytest.raises(ValueError, match=bad):
            _seed_range(bad)


def test_held_out_pose_seeds_include_session_11s_fresh_set_and_no_training_seed() -> None:
    """Session 11's fresh seeds 904080-904159, session 12's 904160-904239 and session 13's 904240-904319, session 14's 904320-904399, session 15's
    904400-904479 and session 16's 904480-904559 render and evaluate as held out; a seed past them, or a training seed, does not (``render`` refuses it before tracing anything)."""
    from vision.training.pose import POSE_TRAIN_SEEDS, held_out, render_pose

    assert held_out(904080) and held_out(904159) and held_out(904000)
    assert held_out(904239) and held_out(904240) and held_out(904319)
    assert held_out(904320) and held_out(904399) and held_out(904400) and held_out(904479)
    assert held_out(904480) and held_out(904559)
    assert not held_out(904560) and not any(held_out(s) for s in (POSE_TRAIN_SEEDS.start, POSE_TRAIN_SEEDS.stop - 1))
    with pytest.raises(ValueError, match="904560"):
        render_pose(904560, 1)
