"""Recordings of real-vision games (referee.recorded): a bad file is refused in one line, left as it was."""

from __future__ import annotations

import gzip
import json
import pickle
from pathlib import Path

import pytest

from referee.recorded import (
    PACE,
    RecordedFrame,
    RecordedGame,
    SeedsError,
    _main,
    cache_path,
    figures,
    load_game,
    parse_seeds,
    replay_game,
    save_game,
)


@pytest.mark.parametrize("content", [b"", b"not gzip at all", gzip.compress(b"\x80\x05garbled", mtime=0),
                                     gzip.compress(pickle.dumps({"seed": 7101}), mtime=0)[:20]],
                         ids=["empty", "not-gzip", "gzip-of-garbage", "truncated"])
def test_a_garbled_recording_is_refused_by_name_and_left_untouched(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "7101_r3.pkl.gz"
    p.write_bytes(content)
    with pytest.raises(ValueError, match=r"7101_r3\.pkl\.gz: not a") as err:
        load_game(p)
    assert "\n" not in str(err.value)
    assert p.read_bytes() == content


def test_a_recording_of_something_else_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "other.pkl.gz"
    p.write_bytes(gzip.compress(pickle.dumps({"seed": 7101})))
    with pytest.raises(ValueError, match=r"not a recorded game \(got dict\)"):
        load_game(p)


def test_a_missing_recording_is_named(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"nope\.pkl\.gz: not a readable recording"):
        load_game(tmp_path / "nope.pkl.gz")


# --- the measurement command: python -m referee.recorded record|score SEEDS --tag T ---------------------------

def _oracle_recording(seed: int, turns: int) -> RecordedGame:
    """A short rendered game 'recorded' with the oracle as the reader (no pixels: fast)."""
    from referee.rendered import oracle_reader, schedule, sim_frames
    from vision.sim.config import SimConfig
    from vision.sim.game import GameDirector, GameScript

    d = GameDirector(seed, script=GameScript(schedule(1, 1, kinds=("premature_throw", "illegal_wrong_distance")),
                                             max_turns=turns), cfg=SimConfig.clean(), width=320, height=180,
                     timing=PACE, pixels=False)
    frames = []
    for f in sim_frames(d):
        obs = oracle_reader(f)
        still = bool(f.truth.get("still"))
        frames.append(RecordedFrame(f.seq, f.t, still, obs, (), obs if still else None))
    return RecordedGame(seed, 320, 180, d.seating, 0.99, tuple(frames), tuple(d.seeded), tuple(d.record),
                        d.winner, d.turn_no, d.seq, {}, "oracle")


def test_seed_lists_take_ranges_and_commas_and_refuse_junk() -> None:
    assert parse_seeds(["7216-7218", "7220,7222", "7217"]) == [7216, 7217, 7218, 7220, 7222]
    with pytest.raises(SeedsError, match="'72x'"):
        parse_seeds(["72x"])
    with pytest.raises(SeedsError, match="before the start"):
        parse_seeds(["7300-7226"])


def test_the_default_cache_is_the_users_cache_not_a_session_dir(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    monkeypatch.delenv("BGREF_OBS_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert cache_path(7226, "x") == tmp_path / "bgref" / "obs" / "7226_x.pkl.gz"
    monkeypatch.setenv("BGREF_OBS_CACHE", str(tmp_path / "c"))
    assert cache_path(7226) == tmp_path / "c" / "7226.pkl.gz"


def test_score_prints_per_game_and_total_figures_and_writes_json(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("BGREF_OBS_CACHE", str(tmp_path / "cache"))
    rec = _oracle_recording(7101, 6)
    save_game(rec, cache_path(7101, "t"))
    out_json = tmp_path / "f.json"
    assert _main(["score", "7101", "--tag", "t", "--no-record", "--json", str(out_json)]) == 0
    text = capsys.readouterr().out
    data = json.loads(out_json.read_text())
    g, tot = data["games"][0], data["total"]
    assert g["seed"] == 7101 and g["seeded"] == len(rec.seeded) >= 2
    direct = replay_game(rec)
    assert tot["caught"] == g["caught"] == direct.caught >= 1 and tot["seeded"] == direct.seeded
    assert g["by_kind"]["premature_throw"] == [1, 1] and tot["checks"] == len(direct.checks)
    assert tot["false_alarms"] == 0 and tot["wrong_names"] == 0
    # the staged wrong distance, read whole, is called and then corrected: the exports equal the game (until
    # session 6 a board sent mid-play put it on record as another legal play, amended when corrected)
    assert g["exports_equal"] is True and g["first_diff"] is None
    assert tot["latency_ms_median"] == round(tot["latency_frames_median"] * 1000 / 30)
    assert f"game 7101: turns {rec.turn_no}, caught {g['caught']}/{g['seeded']}" in text
    assert "exports equal 1/1" in text and "premature_throw=1/1" in text
    assert "false alarms 0" in text


def test_score_names_the_first_differing_move() -> None:
    from dataclasses import replace

    from vision.sim.game import PlayedMove

    rec = _oracle_recording(7102, 4)
    bad = replace(rec, record=(PlayedMove(rec.record[0].side, (6, 5), "24/13"), *rec.record[1:]))
    fig = figures(bad, replay_game(bad))
    assert not fig.exports_equal and fig.first_diff == 0
    assert fig.first_diff_played.endswith("65 24/13") and fig.first_diff_recorded != fig.first_diff_played


def test_score_refuses_a_missing_game_with_no_record(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("BGREF_OBS_CACHE", str(tmp_path))
    assert _main(["score", "7226-7227", "--tag", "t", "--no-record"]) == 2
    err = capsys.readouterr().err
    assert "7226_t.pkl.gz" in err and "7227_t.pkl.gz" in err


def test_a_wrong_distance_read_whole_mid_play_is_called_and_its_correction_recorded() -> None:
    """7101 (oracle readings): WHITE's wrong distance was read whole while the dice still lay there.  That
    board went to the laws mid-play, so at the lift the play looked out of step with them: it went on
    record as another legal play, "put in step", and was amended when corrected (session 5 to 6, a wrong
    record and a missed catch).  Real vision judges the play at the lift: called, then the correction."""
    from rules.laws.events import PlayAmended
    from rules.position import Side

    rec = _oracle_recording(7101, 6)
    from referee.rendered import session_info_for
    from referee.session import Session
    from referee.tracker import TrackerConfig

    info = session_info_for(rec.seating, laws="modern", source="sim:7101")
    session = Session.start(info, None, evidence=False,
                            tracker_config=TrackerConfig.for_real_vision(info.white_seat, rec.count_confidence))
    judged = [j for f in rec.frames for j in session.process(f.obs, None)]
    assert not any(isinstance(j.emitted.event, PlayAmended) for j in judged)
    assert [(j.verdict.code.value, j.verdict.offender) for j in session.infractions if j.verdict.code] == [
        ("premature-throw", Side.WHITE), ("illegal-play", Side.WHITE)]
    assert any(j.verdict.director.endswith("corrected the play to 11/9 8/2*") for j in judged)
    state = session.tracker.state
    assert type(state).from_json(state.to_json()) == state


def test_a_called_and_corrected_play_is_journalled_and_replayed_on_resume(tmp_path: Path) -> None:
    from dataclasses import replace as dc_replace

    from referee.rendered import session_info_for
    from referee.session import Session
    from referee.tracker import TrackerConfig

    rec = _oracle_recording(7101, 6)
    info = session_info_for(rec.seating, laws="modern", source="sim:7101")
    cfg = TrackerConfig.for_real_vision(info.white_seat, rec.count_confidence)
    journal = tmp_path / "j.jsonl"
    ses = Session.start(info, journal, evidence=False, tracker_config=cfg)
    for f in rec.frames:
        ses.process(f.obs, None)
    assert '"illegal-play"' in journal.read_text()
    moves = [(a.player, a.dice, a.play) for g in ses.machine.match_record().games for a in g.actions]
    snap, state = ses.snapshot(), ses.tracker.state
    ses.close()
    back = Session.resume(journal, tracker_config=cfg, evidence=False)
    assert [(a.player, a.dice, a.play) for g in back.machine.match_record().games for a in g.actions] == moves
    assert back.snapshot() == snap
    assert dc_replace(back.tracker.state, seq=state.seq, pending=state.pending,
                      pending_count=state.pending_count) == state
    back.close()


def test_misreads_counts_sure_wrong_regions_and_faces_on_still_frames(monkeypatch: pytest.MonkeyPatch,
                                                                      tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """``misreads`` (vision's own figure on game frames): the oracle recording has none; a blot read surely as
    two on every still frame and a die face read surely wrong are counted, a wrong reading below the threshold
    and any reading of a frame that is not still are not."""
    import dataclasses

    from referee.recorded import misreads
    from vision.observation import CountReading

    monkeypatch.setenv("BGREF_OBS_CACHE", str(tmp_path / "cache"))
    rec = _oracle_recording(7101, 4)
    clean = misreads(rec)
    assert clean.frames > 0 and clean.regions_wrong == 0 and clean.faces_wrong == 0 and clean.regions_sure > 0
    frames = []
    for f in rec.frames:
        obs = f.obs
        if f.still:
            pts = list(obs.points)
            pts[23] = CountReading(pts[23].white, pts[23].black + 1, 1.0)  # point 24 read surely with one black too many
            pts[0] = CountReading(pts[0].white + 5, 0, 0.5)  # wrong but unsure: not counted
            dice = tuple(dataclasses.replace(d, face=d.face % 6 + 1) for d in obs.dice)
            obs = dataclasses.replace(obs, points=tuple(pts), dice=dice)
        frames.append(dataclasses.replace(f, obs=obs))
    bad = dataclasses.replace(rec, frames=tuple(frames))
    m = misreads(bad)
    assert m.frames == clean.frames and m.regions_wrong == m.frames  # p24, once a still frame
    assert {w[0] for w in m.worst} == {"p24"} and sum(w[3] for w in m.worst) == m.frames
    assert m.faces_sure == clean.faces_sure > 0 and m.faces_wrong == m.faces_sure
    save_game(bad, cache_path(7101, "m"))
    assert _main(["misreads", "7101", "--tag", "m"]) == 0
    out = capsys.readouterr().out
    assert f"regions wrong {m.regions_wrong}/{m.regions_sure} sure" in out and "total: 1 games" in out
    assert _main(["misreads", "7102", "--tag", "m"]) == 2  # not recorded: named, refused
    capsys.readouterr()
    assert _main(["misreads", "7101", "--tag", "m", "--threshold", "99"]) == 2  # a percentage, not a confidence
    assert capsys.readouterr().err == "--threshold 99.0: a confidence, expected above 0 and at most 1\n"


def test_misreads_pairs_a_die_resting_on_the_other_with_itself_and_a_side_face_read_off_its_die() -> None:
    """A die resting on the other die is the one seen: its face read rightly is scored against it, not against the
    hidden die under it (which came first in the truth); a face read 18 mm from its die's centre (a side face of a
    cocked die) is still paired with it (as ``vision.dice.evaluate.match`` pairs), and read wrongly, counted."""
    import dataclasses

    from referee.recorded import misreads

    rec = _oracle_recording(7101, 4)
    frames, n = [], 0
    for f in rec.frames:
        if f.still and f.truth is not None and f.obs.still and not f.obs.covered and len(f.truth.dice) == 2:
            under, top = f.truth.dice
            x, y = under.center_mm
            top = dataclasses.replace(top, face=under.face % 6 + 1, center_mm=(x + 3.0, y), on_die=True)
            seen = dataclasses.replace(top, face_confidence=1.0, on_die=False)  # read rightly (on_die unread)
            off = dataclasses.replace(top, face=top.face % 6 + 1, face_confidence=1.0, center_mm=(x + 3.0, y + 40.0),
                                      on_die=False)
            off_truth = dataclasses.replace(off, face=off.face % 6 + 1, center_mm=(x + 3.0, y + 58.0))
            truth = dataclasses.replace(f.truth, dice=(under, top, off_truth))
            f = dataclasses.replace(f, truth=truth, obs=dataclasses.replace(f.obs, dice=(seen, off)))
            n += 1
        frames.append(f)
    clean = misreads(rec)
    assert n > 0 and clean.faces_wrong == 0
    m = misreads(dataclasses.replace(rec, frames=tuple(frames)))
    # two dice read on each such frame as before: the die on the die right, the face read 18 mm off wrong
    assert m.faces_sure == clean.faces_sure and m.faces_wrong == n


def test_bins_counts_per_confidence_what_the_regions_held_and_fits_the_judge_bins(monkeypatch: pytest.MonkeyPatch,
                                                                                   tmp_path: Path,
                                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """``bins`` (the calibration, referee.judge.DEFAULT_BINS, refitted per reader): on every still frame point 1 read at
    0.5 with one white checker too many, point 2 at 0.95 wrong with the truth its alternative, point 3 at 0.2 right;
    each lands in its confidence bin, counted right / an alternative / otherwise (with the slip), and the fit and
    the command say so."""
    import dataclasses

    from referee.recorded import bin_counts, fit_bins
    from vision.observation import CountReading

    monkeypatch.setenv("BGREF_OBS_CACHE", str(tmp_path / "cache"))
    rec = _oracle_recording(7101, 4)
    frames = []
    for f in rec.frames:
        obs = f.obs
        if f.still:
            p = list(obs.points)
            p[0] = CountReading(p[0].white + 1, p[0].black, 0.5)
            p[1] = CountReading(p[1].white, p[1].black + 1, 0.95, ((p[1].white, p[1].black, 0.04),))
            p[2] = CountReading(p[2].white, p[2].black, 0.2, ((p[2].white + 1, p[2].black, 0.3),))
            obs = dataclasses.replace(obs, points=tuple(p))
        frames.append(dataclasses.replace(f, obs=obs))
    rec = dataclasses.replace(rec, frames=tuple(frames))
    n = sum(1 for f in rec.frames if f.still and f.truth is not None and f.obs.still and not f.obs.covered)
    assert n > 0
    c = bin_counts([rec])
    assert [(b.lo, b.regions, b.right, b.alternative) for b in c] == [
        (0.0, n, n, 0), (0.3, n, 0, 0), (0.9, n, 0, n), (0.99, 0, 0, 0), (0.999, 24 * n, 24 * n, 0)]
    assert c[1].deltas == ((-1, 0, n),)  # the truth: one white checker fewer than read
    fit = fit_bins([rec])
    assert fit[1].p_read == round(1 / (n + 2), 4) and fit[1].deltas == ((-1, 0, round(n / (n + 2), 4)),)
    assert fit[2].p_alts == round(n / (n + 2), 4)
    save_game(rec, cache_path(7101, "b"))
    assert _main(["bins", "7101", "--tag", "b"]) == 0
    out = capsys.readouterr().out
    assert f"confidence >= 0.3: {n} region-frames, right 0 (0.00 %), an alternative 0 (0.00 %), otherwise {n}" in out
    assert f"    ConfidenceBin(0.9, {fit[2].p_read}, {fit[2].p_alts}, ())," in out
    assert _main(["bins", "7102", "--tag", "b"]) == 2  # not recorded: named, refused
    assert "7102_b.pkl.gz" in capsys.readouterr().err
    with pytest.raises(ValueError, match=r"confidence bin edges \(0\.3, 0\.0\)"):
        bin_counts([rec], (0.3, 0.0))
