"""Rendered games read once by the real reader, kept, and refereed again in seconds.

Reading a rendered game with the real models takes minutes on the shared machine; the tracker and the
laws take seconds.  :func:`record_game` plays a :class:`vision.sim.game.GameDirector` game through a
:class:`referee.rendered.RealVision` reader and keeps, for every frame, the observation the reader
gave (what the live loop sees) and, for still frames, *extra looks*: independent full readings of
the same still scene (:meth:`BoardReader.read_image` on that frame: the same board under another
frame's sensor noise), plus the renderer's ground truth for still frames (for diagnostics and the
scoring only: the referee never sees it).  :func:`replay_game` referees a recording with any tracker
config and scores it exactly as :func:`referee.rendered.referee_game` would have.

Recordings are pickles in a local cache (``$BGREF_OBS_CACHE``; by default ``$XDG_CACHE_HOME/bgref/obs``, that is
``~/.cache/bgref/obs``); they are made by this process and read back by it, never taken from elsewhere.  Re-record
when the models change (each recording names the commit of ``vision/models`` that read it).

The measurement command (docs/referee_vision.md, "Measuring")::

    python -m referee.recorded record 7216-7225 --tag s5        # read the games once (~70 s CPU each)
    python -m referee.recorded score 7216-7225 --tag s5 [--json F]   # referee and score them (seconds)
    python -m referee.recorded bins 7216-7225 --tag s5              # the reader's confidence calibrated (judge bins)

``score`` records any game missing from the cache first, so it also works on a clean cache.

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

__all__ = ["BinCount", "GameFigures", "Misreads", "RecordedFrame", "RecordedGame", "bin_counts", "cache_dir", "figures",
           "fit_bins", "load_game", "misreads", "parse_seeds", "record_game", "replay_game", "save_game"]

FPS = 30.0  # the frame rate the latencies are quoted at (rendered games are paced in frames)
DIE_MM = 16.0  # a die's edge for pairing read dice with true ones (rendered dice are 14-19 mm: vision.geometry)


def cache_dir() -> Path:
    """Where recordings live: ``$BGREF_OBS_CACHE``, else ``$XDG_CACHE_HOME/bgref/obs`` (``~/.cache/bgref/obs``)."""
    env = os.environ.get("BGREF_OBS_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "bgref" / "obs"


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


@dataclass(frozen=True, slots=True)
class BinCount:
    """What the regions read at a confidence of at least ``lo`` (below the next bin) held on still frames."""

    lo: float
    regions: int  # region-frames read in the bin
    right: int  # ... holding what was read
    alternative: int  # ... holding one of the reading's alternatives
    deltas: tuple[tuple[int, int, int], ...]  # (dw, db, region-frames): the truth was the reading + (dw, db), most first

    def line(self) -> str:
        def pct(n: int) -> str:
            return f"{100.0 * n / self.regions:.2f} %" if self.regions else "-"

        other = ", ".join(f"{dw:+d}w{db:+d}b {n}" for dw, db, n in self.deltas[:3]) or "-"
        return (f"confidence >= {self.lo:g}: {self.regions} region-frames, right {self.right} ({pct(self.right)}), "
                f"an alternative {self.alternative} ({pct(self.alternative)}), otherwise "
                f"{self.regions - self.right - self.alternative} (most: {other})")


def bin_counts(recs: list[RecordedGame], edges: tuple[float, ...] = (0.0, 0.3, 0.9, 0.99, 0.999)) -> list[BinCount]:
    """Per confidence bin, what the reader's region readings held against the truth of still, uncovered frames
    (a scene counts once per frame it stands)."""
    from collections import Counter

    if not edges or list(edges) != sorted(set(edges)) or edges[0] > 0.0:
        raise ValueError(f"confidence bin edges {edges!r}: expected increasing, the first at most 0")
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
    return [BinCount(lo, n[k], read[k], alts[k], tuple((dw, db, c) for (dw, db), c in deltas[k].most_common()))
            for k, lo in enumerate(edges)]


def fit_bins(recs: list[RecordedGame], edges: tuple[float, ...] = (0.0, 0.3, 0.9, 0.99, 0.999),
             *, min_delta: float = 0.005) -> tuple[ConfidenceBin, ...]:
    """The reader's confidence calibrated against the truth of still frames (referee.judge.ConfidenceBin), from
    :func:`bin_counts` (add-one smoothed; a slip ``(dw, db)`` kept when it holds ``min_delta`` of its bin)."""
    out = []
    for c in bin_counts(recs, edges):
        tot = c.regions + 2
        ds = tuple((dw, db, round(m / tot, 4)) for dw, db, m in c.deltas if m / tot >= min_delta)
        out.append(ConfidenceBin(c.lo, round((c.right + 1) / tot, 4), round(c.alternative / tot, 4), ds))
    return tuple(out)


def cache_path(seed: int, tag: str = "") -> Path:
    return cache_dir() / f"{seed}{'_' + tag if tag else ''}.pkl.gz"


class SeedsError(ValueError):
    """A seed list that is not ``N``, ``N-M`` or a comma list of those."""


def parse_seeds(items: list[str]) -> list[int]:
    """``["7216-7218", "7220,7222"]`` -> ``[7216, 7217, 7218, 7220, 7222]`` (order kept, repeats dropped)."""
    out: list[int] = []
    for item in items:
        for part in item.split(","):
            part = part.strip()
            if not part:
                continue
            lo, sep, hi = part.partition("-")
            try:
                a = int(lo)
                b = int(hi) if sep else a
            except ValueError:
                raise SeedsError(f"seed {part!r}: expected N or N-M") from None
            if b < a:
                raise SeedsError(f"seed range {part!r}: the end is before the start")
            out += [n for n in range(a, b + 1) if n not in out]
    if not out:
        raise SeedsError(f"no seeds in {items!r}")
    return out


@dataclass(frozen=True, slots=True)
class GameFigures:
    """What one refereed recording scored (one line of ``score``)."""

    seed: int
    models: str
    turns: int
    seeded: int
    caught: int
    by_kind: dict[str, tuple[int, int]]  # kind -> (seeded, caught)
    false_alarms: tuple[str, ...]  # the summaries of the calls no staged infraction explains
    wrong_names: tuple[str, ...]  # a staged infraction called, but by another code or offender
    checks: int
    missed_asked: int  # staged infractions missed, but the players were asked to check in their window
    exports_equal: bool
    first_diff: int | None  # the index of the first move where the laws' record differs from the game
    first_diff_played: str
    first_diff_recorded: str
    latencies: tuple[int, ...]  # frames from the first still frame showing it to the call, per catch
    # the first move the laws' record gives to the other player than the game did (whose turn lost), or None
    first_side_diff: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "models": self.models, "turns": self.turns, "seeded": self.seeded,
                "caught": self.caught, "by_kind": {k: list(v) for k, v in sorted(self.by_kind.items())},
                "false_alarms": list(self.false_alarms), "wrong_names": list(self.wrong_names),
                "checks": self.checks, "missed_asked": self.missed_asked, "exports_equal": self.exports_equal,
                "first_diff": self.first_diff, "first_diff_played": self.first_diff_played,
                "first_diff_recorded": self.first_diff_recorded, "latency_frames": list(self.latencies),
                "first_side_diff": self.first_side_diff}


def _move_text(m: tuple[Side, tuple[int, int], str]) -> str:
    side, (a, b), play = m
    return f"{side.name.lower()} {a}{b} {play or '(no move)'}"


def figures(rec: RecordedGame, score: GameScore) -> GameFigures:
    """The figures of one refereed recording (see :class:`GameFigures`)."""
    played = [(m.side, (max(m.dice), min(m.dice)), m.notation) for m in score.played]
    got = score.recorded
    first = next((i for i, (a, b) in enumerate(zip(played, got, strict=False)) if a != b), None)
    if first is None and len(played) != len(got):
        first = min(len(played), len(got))
    side = next((i for i, (a, b) in enumerate(zip(played, got, strict=False)) if a[0] is not b[0]), None)
    wrong = tuple(f"{c.seeded.kind} by {c.seeded.side.name.lower()} (frame {c.seeded.seq}) called {c.code} "
                  f"on {c.offender.name.lower() if c.offender else '-'}"
                  for c in score.catches if c.code and not c.caught)
    lat = tuple(c.latency_frames for c in score.catches if c.caught and c.latency_frames is not None)
    return GameFigures(
        rec.seed, rec.models, score.turns, score.seeded, score.caught, score.by_kind(),
        tuple(j.verdict.summary() for j in score.false_alarms), wrong, len(score.checks),
        sum(1 for c in score.catches if not c.caught and not c.code and c.asked), first is None, first,
        _move_text(played[first]) if first is not None and first < len(played) else "-",
        _move_text(got[first]) if first is not None and first < len(got) else "-", lat, side)


def total_json(games: list[GameFigures]) -> dict[str, Any]:
    """The sums over games, with the latency median in frames and in ms at :data:`FPS`."""
    import statistics

    kinds: dict[str, list[int]] = {}
    for g in games:
        for k, (n, c) in g.by_kind.items():
            kinds.setdefault(k, [0, 0])
            kinds[k][0] += n
            kinds[k][1] += c
    lat = [x for g in games for x in g.latencies]
    med = float(statistics.median(lat)) if lat else None
    return {"games": len(games), "turns": sum(g.turns for g in games), "seeded": sum(g.seeded for g in games),
            "caught": sum(g.caught for g in games), "by_kind": {k: v for k, v in sorted(kinds.items())},
            "false_alarms": sum(len(g.false_alarms) for g in games),
            "wrong_names": sum(len(g.wrong_names) for g in games), "checks": sum(g.checks for g in games),
            "missed_asked": sum(g.missed_asked for g in games),
            "exports_equal": sum(g.exports_equal for g in games),
            # games whose record leaves the game before move 10, and games whose record loses whose turn it is
            "left_before_10": sum(g.first_diff is not None and g.first_diff < 10 for g in games),
            "turn_lost": sum(g.first_side_diff is not None for g in games),
            "latency_frames_median": med, "latency_ms_median": None if med is None else round(med * 1000 / FPS)}


def _print_game(g: GameFigures, out: Any) -> None:
    diff = "equal" if g.exports_equal else (
        f"differ at move {g.first_diff}: played {g.first_diff_played} | recorded {g.first_diff_recorded}"
        + ("" if g.first_side_diff is None else f"; the other player's from move {g.first_side_diff}"))
    print(f"game {g.seed}: turns {g.turns}, caught {g.caught}/{g.seeded}, false alarms {len(g.false_alarms)}, "
          f"wrong names {len(g.wrong_names)}, checks {g.checks}, missed but asked {g.missed_asked}, exports {diff}",
          file=out)
    print("    " + " ".join(f"{k}={c}/{n}" for k, (n, c) in sorted(g.by_kind.items())), file=out)
    for fa in g.false_alarms:
        print(f"    FALSE ALARM {fa}", file=out)
    for w in g.wrong_names:
        print(f"    WRONG NAME {w}", file=out)


def _print_total(t: dict[str, Any], out: Any) -> None:
    print(f"total: {t['games']} games, {t['turns']} turns, caught {t['caught']}/{t['seeded']}, false alarms "
          f"{t['false_alarms']}, wrong names {t['wrong_names']}, checks {t['checks']}, missed but asked "
          f"{t['missed_asked']}, exports equal {t['exports_equal']}/{t['games']} (left before move 10: "
          f"{t['left_before_10']}, whose turn lost: {t['turn_lost']}), latency median "
          f"{t['latency_frames_median']} frames ({t['latency_ms_median']} ms at {FPS:g} fps)", file=out)
    print("    " + " ".join(f"{k}={c}/{n}" for k, (n, c) in t["by_kind"].items()), file=out)


@dataclass(frozen=True, slots=True)
class Misreads:
    """What the reader read surely and wrongly on a recorded game's still frames (vision's own figure on game
    frames: a played checker does not sit where a random scene places one, so an evaluation on random scenes
    can miss what a game shows).  Regions and dice seen on still frames with nothing covered, against the truth."""

    seed: int
    frames: int  # still frames looked at
    regions_sure: int  # region readings at or above the confidence threshold
    regions_wrong: int  # ... that differ from the truth
    worst: tuple[tuple[str, tuple[int, int], tuple[int, int], int], ...]  # (region, truth, read, frames), most first
    faces_sure: int  # dice paired with a true die (as vision.dice.evaluate.match pairs) with a face read at the threshold
    faces_wrong: int
    flat_called_cocked: int  # dice called cocked that lie flat

    def line(self) -> str:
        worst = ", ".join(f"{r} {t}->{x} x{n}" for r, t, x, n in self.worst[:3]) or "-"
        return (f"{self.seed}: {self.frames} still frames; regions wrong {self.regions_wrong}/{self.regions_sure} sure; "
                f"faces wrong {self.faces_wrong}/{self.faces_sure} sure; flat called cocked {self.flat_called_cocked}; "
                f"worst: {worst}")


def misreads(rec: RecordedGame, threshold: float = 0.9) -> Misreads:
    """Count ``rec``'s sure-but-wrong readings (regions and die faces at ``threshold`` or above) on its still frames."""
    from collections import Counter

    from vision.dice.evaluate import match

    wrong: Counter[tuple[str, tuple[int, int], tuple[int, int]]] = Counter()
    frames = sure = faces = faces_wrong = flat_cocked = 0
    for f in rec.frames:
        if not f.still or f.truth is None or not f.obs.still or f.obs.covered:
            continue
        frames += 1
        truth, read = f.truth.readings(), f.obs.readings()
        for k, tc in truth.items():
            r = read[k]
            if r.confidence >= threshold:
                sure += 1
                if (r.white, r.black) != (tc.white, tc.black):
                    wrong[(k, (tc.white, tc.black), (r.white, r.black))] += 1
        # paired as vision's dice evaluation pairs them: nearest first within 1.5 die sizes, a die resting on the
        # other die first (it is the one seen; the die under it is hidden), each reading used once
        pairs = match([{"center_mm": t.center_mm, "size_mm": DIE_MM, "on_die": t.on_die} for t in f.truth.dice],
                      f.obs.dice)
        for ti, j in enumerate(pairs):
            if j is None:
                continue
            d, td = f.obs.dice[j], f.truth.dice[ti]
            if d.face is not None and d.face_confidence >= threshold:
                faces += 1
                faces_wrong += d.face != td.face
            flat_cocked += bool(d.cocked) and td.cocked is False
    worst = tuple((k, tv, rv, n) for (k, tv, rv), n in wrong.most_common())
    return Misreads(rec.seed, frames, sure, sum(wrong.values()), worst, faces, faces_wrong, flat_cocked)


PACE = Timing(reach=3, carry=3, place=2, retreat=3, throw=8, settle=8, lift=3, think=8, cube=6, illegal_hold=10)


def _models_commit() -> str:
    import subprocess

    root = Path(__file__).resolve().parent.parent
    try:
        return subprocess.run(["git", "log", "-1", "--format=%h %cI", "--", "vision/models"], capture_output=True,
                              text=True, check=False, cwd=root).stdout.strip()
    except OSError:
        return ""


def _record(seeds: list[int], tag: str, turns: int, looks: bool, out: Any) -> None:
    import json

    from referee.rendered import schedule

    models = _models_commit()
    for seed in seeds:
        rec = record_game(seed, script=GameScript(schedule(2, 1), max_turns=turns), timing=PACE, looks=looks,
                          models=models)
        p = save_game(rec, cache_path(seed, tag))
        print(json.dumps({"seed": seed, "path": str(p), "frames": len(rec.frames), "turns": rec.turn_no,
                          "elapsed_s": round(rec.elapsed_s, 1), "models": models, "stats": rec.reader_stats}),
              file=out, flush=True)


def _main(argv: list[str] | None = None) -> int:
    """``python -m referee.recorded record|score SEEDS [--tag T] ...`` (see the module doc)."""
    import argparse
    import json
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] not in ("record", "score", "misreads", "bins", "-h", "--help"):
        args.insert(0, "record")  # the earlier form: python -m referee.recorded SEED... [--tag T]
    ap = argparse.ArgumentParser(prog="python -m referee.recorded",
                                 description=f"Record rendered games read by the real models (cache: {cache_dir()}), "
                                             "and referee and score them.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    rec_p = sub.add_parser("record", help="render and read games into the cache (~70 s CPU a game)")
    score_p = sub.add_parser("score", help="referee recordings and print the figures (records missing ones first)")
    mis_p = sub.add_parser("misreads", help="vision's sure-but-wrong readings on the recordings' still frames")
    bins_p = sub.add_parser("bins", help="the reader's confidence calibrated on the recordings' still frames "
                                         "(per bin: right, an alternative, otherwise; the fitted judge bins)")
    bins_p.add_argument("seeds", nargs="+", help="seeds: N, N-M or comma lists")
    bins_p.add_argument("--tag", default="", help="the recordings' tag (file SEED_TAG.pkl.gz)")
    mis_p.add_argument("seeds", nargs="+", help="seeds: N, N-M or comma lists")
    mis_p.add_argument("--tag", default="", help="the recordings' tag (file SEED_TAG.pkl.gz)")
    mis_p.add_argument("--threshold", type=float, default=0.9, help="a reading at or above this counts as sure")
    for p in (rec_p, score_p):
        p.add_argument("seeds", nargs="+", help="seeds: N, N-M or comma lists")
        p.add_argument("--tag", default="", help="the recordings' tag (file SEED_TAG.pkl.gz)")
        p.add_argument("--turns", type=int, default=40, help="turns per game when recording")
        p.add_argument("--no-looks", action="store_true", help="record without the extra looks at still frames")
    score_p.add_argument("--json", dest="json_out", default=None, help="also write the figures as JSON here")
    score_p.add_argument("--laws", default="modern")
    score_p.add_argument("--no-record", action="store_true", help="refuse, rather than record, a missing game")
    a = ap.parse_args(args)
    try:
        seeds = parse_seeds(a.seeds)
    except SeedsError as exc:
        ap.error(str(exc))
    if a.cmd == "record":
        _record(seeds, a.tag, a.turns, not a.no_looks, sys.stdout)
        return 0
    if a.cmd == "bins":
        absent = [str(cache_path(s, a.tag)) for s in seeds if not cache_path(s, a.tag).exists()]
        if absent:
            print(f"not recorded: {', '.join(absent)}", file=sys.stderr)
            return 2
        recs = [load_game(cache_path(s, a.tag)) for s in seeds]
        for c in bin_counts(recs):
            print(c.line())
        print("fitted (referee.judge.DEFAULT_BINS form):")
        for b in fit_bins(recs):
            print(f"    ConfidenceBin({b.lo}, {b.p_read}, {b.p_alts}, {b.deltas!r}),")
        return 0
    if a.cmd == "misreads":
        if not 0.0 < a.threshold <= 1.0:
            print(f"--threshold {a.threshold}: a confidence, expected above 0 and at most 1", file=sys.stderr)
            return 2
        absent = [str(cache_path(s, a.tag)) for s in seeds if not cache_path(s, a.tag).exists()]
        if absent:
            print(f"not recorded: {', '.join(absent)}", file=sys.stderr)
            return 2
        found = [misreads(load_game(cache_path(s, a.tag)), a.threshold) for s in seeds]
        for m in found:
            print(m.line())
        print(f"total: {len(found)} games, {sum(m.frames for m in found)} still frames; regions wrong "
              f"{sum(m.regions_wrong for m in found)}/{sum(m.regions_sure for m in found)} sure; faces wrong "
              f"{sum(m.faces_wrong for m in found)}/{sum(m.faces_sure for m in found)} sure; flat called cocked "
              f"{sum(m.flat_called_cocked for m in found)}")
        return 0
    missing = [s for s in seeds if not cache_path(s, a.tag).exists()]
    if missing and a.no_record:
        print(f"not recorded: {', '.join(str(cache_path(s, a.tag)) for s in missing)}", file=sys.stderr)
        return 2
    if missing:
        print(f"recording {len(missing)} game(s) first into {cache_dir()} (~70 s CPU each)", file=sys.stderr)
        _record(missing, a.tag, a.turns, not a.no_looks, sys.stderr)
    now = _models_commit()
    games: list[GameFigures] = []
    for seed in seeds:
        rec = load_game(cache_path(seed, a.tag))
        if now and rec.models and rec.models != now:
            print(f"note: game {seed} was read by the models of {rec.models}; vision/models is now {now} "
                  "(re-record it to measure today's models)", file=sys.stderr)
        g = figures(rec, replay_game(rec, laws=a.laws))
        games.append(g)
        _print_game(g, sys.stdout)
    tot = total_json(games)
    _print_total(tot, sys.stdout)
    if a.json_out:
        Path(a.json_out).write_text(json.dumps({"tag": a.tag, "games": [g.as_json() for g in games],
                                                "total": tot}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(_main())
