"""Rendered games read once by the real reader, kept, and refereed again in seconds.

Reading a rendered game with the real models takes minutes on the shared machine; the tracker and the
laws take seconds.  :func:`record_game` plays a :class:`vision.sim.game.GameDirector` game through a
:class:`referee.rendered.RealVision` reader and keeps, for every frame, the observation the reader
gave (what the live loop sees) and, for still frames, *extra looks*: independent full readings of
the same still scene (:meth:`BoardReader.read_image` on that frame: the same board under another
frame's sensor noise), plus the renderer's ground truth for still frames (for diagnostics and the
scoring only: the referee never sees it).  :func:`replay_game` referees a recording with any tracker
config and scores it exactly as :func:`referee.rendered.referee_game` would have.

Recordings are pickles in a local cache (``$BGREF_OBS_CACHE``, ``/tmp/s4/ref/obs`` by default); they are made by this
process and read back by it, never taken from elsewhere.  Re-record when the models change.

>>> from referee.recorded import RecordedGame
>>> RecordedGame.__dataclass_fields__.keys() >= {"seed", "frames", "seeded", "record"}
True
"""

from __future__ import annotations

import gzip
import os
import pickle
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from referee.judge import ConfidenceBin
from referee.rendered import GameScore, RealVision, score_game, session_info_for, sim_frames
from referee.session import Judged, Session
from referee.tracker import TrackerConfig
from rules.position import Side
from vision.geometry import Seating
from vision.observation import BoardObservation
from vision.sim.game import GameDirector, GameScript, PlayedMove, Seeded, Timing

__all__ = ["RecordedFrame", "RecordedGame", "fit_bins", "load_game", "record_game", "replay_game", "save_game"]

CACHE = Path(os.environ.get("BGREF_OBS_CACHE", "/tmp/s4/ref/obs"))


@dataclass(frozen=True, slots=True)
class RecordedFrame:
    """One frame as the reader saw it: its observation, extra looks when still, and the truth."""

    seq: int
    t: float
    still: bool  # the renderer's still flag (the scoring's "visible" frame; the referee never sees it)
    obs: BoardObservation
    looks: tuple[BoardObservation, ...] = ()  # independent full readings of this frame (still scenes)
    truth: BoardObservation | None = None  # the oracle's observation (still frames only)


@dataclass(frozen=True, slots=True)
class RecordedGame:
    """A rendered game as read by the real reader, with what the director staged and played."""

    seed: int
    width: int
    height: int
    seating: Seating
    count_confidence: float
    frames: tuple[RecordedFrame, ...]
    seeded: tuple[Seeded, ...]
    record: tuple[PlayedMove, ...]
    winner: Side | None
    turn_no: int
    seq: int
    reader_stats: dict[str, float] = field(default_factory=dict)
    models: str = ""  # which models read it (git commit of vision/models when recorded)
    elapsed_s: float = 0.0


def record_game(seed: int, *, script: GameScript, width: int = 1280, height: int = 720,
                timing: Timing | None = None, clean: bool = False, looks: bool = True,
                reader: RealVision | None = None, models: str = "") -> RecordedGame:
    """Render one game and read every frame with the real reader (see the module doc)."""
    from referee.rendered import oracle_reader
    from vision.sim.config import SimConfig

    t0 = time.perf_counter()
    rv = reader or RealVision()
    director = GameDirector(seed, script=script, cfg=SimConfig.clean() if clean else SimConfig(), width=width,
                            height=height, timing=timing, pixels=True)
    frames: list[RecordedFrame] = []
    for frame in sim_frames(director):
        obs = rv(frame)
        extra: tuple[BoardObservation, ...] = ()
        if looks and obs.still and not obs.covered:
            extra = (rv.reader.read_image(frame.image, rv.profile, seq=frame.seq, t=frame.t),)
        still = bool(frame.truth.get("still"))
        truth = oracle_reader(frame) if still or obs.still else None
        frames.append(RecordedFrame(frame.seq, frame.t, still, obs, extra, truth))
    return RecordedGame(seed, width, height, director.seating, rv.count_confidence, tuple(frames),
                        tuple(director.seeded), tuple(director.record), director.winner, director.turn_no,
                        director.seq, dict(rv.stats), models, time.perf_counter() - t0)


def save_game(rec: RecordedGame, path: str | Path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_suffix(p.suffix + ".tmp")
    with gzip.open(tmp, "wb", compresslevel=3) as f:
        pickle.dump(rec, f, protocol=pickle.HIGHEST_PROTOCOL)
    tmp.replace(p)
    return p


def load_game(path: str | Path) -> RecordedGame:
    """A recording written by :func:`save_game` (a local cache this program wrote itself)."""
    try:
        with gzip.open(Path(path), "rb") as f:
            rec = _Unpickler(f).load()  # our own cache file, never data from elsewhere
    except (OSError, EOFError, pickle.UnpicklingError, AttributeError, ImportError) as exc:
        raise ValueError(f"{path}: not a readable recording ({type(exc).__name__}: {exc})") from exc
    if not isinstance(rec, RecordedGame):
        raise ValueError(f"{path}: not a recorded game (got {type(rec).__name__})")
    return rec


def replay_game(rec: RecordedGame, *, tracker_config: TrackerConfig | None = None, laws: str = "modern",
                reader: Callable[[RecordedFrame], BoardObservation] | None = None,
                session: Session | None = None) -> GameScore:
    """Referee a recording as :func:`referee.rendered.referee_game` would have; score it the same way.

    ``reader`` picks the observation of each frame (default: what the live reader gave, ``obs``).
    """
    if session is None:
        info = session_info_for(rec.seating, laws=laws, source=f"sim:{rec.seed}")
        tcfg = tracker_config or TrackerConfig.for_real_vision(info.white_seat, rec.count_confidence)
        session = Session.start(info, None, evidence=False, tracker_config=tcfg)
    pick = reader or (lambda f: f.obs)
    judged: list[tuple[int, Judged, float]] = []
    still: list[int] = []
    for f in rec.frames:
        if f.still:
            still.append(f.seq)
        out = session.process(pick(f), None)
        judged += [(f.seq, j, float(f.seq)) for j in out]
    judged += [(rec.seq, j, float(rec.seq)) for j in session.flush()]
    return score_game(rec.seed, _Staged(rec), judged, still, session)


class _Unpickler(pickle.Unpickler):
    """Reads recordings written by ``python -m referee.recorded`` (its classes pickled as ``__main__``)."""

    def find_class(self, module: str, name: str) -> Any:
        if module == "__main__":
            module = __name__
        return super().find_class(module, name)


class _Staged:
    """What :func:`score_game` reads of a director, from a recording."""

    def __init__(self, rec: RecordedGame) -> None:
        self.turn_no = rec.turn_no
        self.seq = rec.seq
        self.record = list(rec.record)
        self.winner = rec.winner
        self.seeded = list(rec.seeded)


def fit_bins(recs: list[RecordedGame], edges: tuple[float, ...] = (0.0, 0.3, 0.9, 0.99, 0.999),
             *, min_delta: float = 0.005) -> tuple[ConfidenceBin, ...]:
    """The reader's confidence calibrated against the truth of still frames (referee.judge.ConfidenceBin).

    Counted over every still, uncovered frame of the recordings (a scene counts once per frame it stands).
    """
    from collections import Counter

    n = [0] * len(edges)
    read = [0] * len(edges)
    alts = [0] * len(edges)
    deltas: list[Counter[tuple[int, int]]] = [Counter() for _ in edges]
    for rec in recs:
        for f in rec.frames:
            if f.truth is None or not f.still or not f.obs.still or f.obs.covered:
                continue
            truth = f.truth.readings()
            for name, r in f.obs.readings().items():
                k = max(i for i, lo in enumerate(edges) if r.confidence >= lo)
                t = truth[name]
                n[k] += 1
                if (r.white, r.black) == (t.white, t.black):
                    read[k] += 1
                elif any((w, b) == (t.white, t.black) for w, b, _ in r.alternatives):
                    alts[k] += 1
                else:
                    deltas[k][(t.white - r.white, t.black - r.black)] += 1
    out = []
    for k, lo in enumerate(edges):
        tot = n[k] + 2
        ds = tuple((dw, db, round(c / tot, 4)) for (dw, db), c in deltas[k].most_common() if c / tot >= min_delta)
        out.append(ConfidenceBin(lo, round((read[k] + 1) / tot, 4), round(alts[k] / tot, 4), ds))
    return tuple(out)


def cache_path(seed: int, tag: str = "") -> Path:
    return CACHE / f"{seed}{'_' + tag if tag else ''}.pkl.gz"


def _main(argv: list[str] | None = None) -> int:
    """``python -m referee.recorded SEED... [--tag T] [--turns N]``: record games to the cache."""
    import argparse
    import json
    import subprocess

    from referee.rendered import schedule

    ap = argparse.ArgumentParser(prog="python -m referee.recorded")
    ap.add_argument("seeds", nargs="+", type=int)
    ap.add_argument("--tag", default="")
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--no-looks", action="store_true")
    a = ap.parse_args(argv)
    pace = Timing(reach=3, carry=3, place=2, retreat=3, throw=8, settle=8, lift=3, think=8, cube=6, illegal_hold=10)
    models = subprocess.run(["git", "log", "-1", "--format=%h %cI", "--", "vision/models"], capture_output=True,
                            text=True, check=False).stdout.strip()
    for seed in a.seeds:
        rec = record_game(seed, script=GameScript(schedule(2, 1), max_turns=a.turns), timing=pace,
                          looks=not a.no_looks, models=models)
        p = save_game(rec, cache_path(seed, a.tag))
        print(json.dumps({"seed": seed, "path": str(p), "frames": len(rec.frames), "turns": rec.turn_no,
                          "elapsed_s": round(rec.elapsed_s, 1), "stats": rec.reader_stats}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
