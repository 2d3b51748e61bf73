"""``BoardReader``: loads the models once and chains the stages on each frame.

    gate (motion, hands) -> [still?] -> checkers (slot patches + model) -> dice -> cube -> observation

Every stage is a plain function in its own module; the reader only keeps per-profile precomputed
data (slot sampling maps, the gate's region map) and times each stage inside this one pipeline
(``BoardObservation.timings_ms``).  A frame that is not still yet is not read: the last full reading
is returned with ``still=False`` and the moving regions marked covered; while the scene stays still
after a full reading, that reading is returned again for the cost of the gate alone.  At the next
full reading of the live loop, a confident cube reading is kept when no pixel the cube stage may
read has changed beyond the gate's threshold since (``vision.cube.CubeWatch``: checkers moved
elsewhere cost no new cube reading); ``read_image`` always reads everything anew.
"""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.checkers import (
    SLOT_MODEL,
    TRAY_MODEL,
    CheckerReadings,
    SlotClassifier,
    SlotSampler,
    TrayClassifier,
    TraySampler,
    counts_from_slot_probs,
)
from vision.config import VisionConfig
from vision.cube import CubeConfig, CubeSampler, CubeSnapshot, CubeWatch, default_numeral, read_cube
from vision.dice.board import DiceSearch, read_dice
from vision.dice.classify import DIE_FACE_MODEL, FaceClassifier
from vision.hands import HAND_MODEL, hand_model_or_none
from vision.motion import MotionGate, MotionReport, RegionMap
from vision.observation import REGION_NAMES, BoardObservation, CountReading, CubeReading, DieReading
from vision.stacks import STACK_MODEL, StackClassifier, StackSampler


class _ProfileState:
    def __init__(self, profile: Any, config: VisionConfig, patch: int) -> None:
        self.sampler = SlotSampler(profile, patch)
        self.trays = TraySampler(profile)
        self.stacks = StackSampler(profile)
        self.cube = CubeSampler(profile)
        self.cube_watch = CubeWatch(self.cube, profile.image_size)
        self.cube_kept: tuple[CubeSnapshot, CubeReading] | None = None
        """The pixels the cube stage read and its reading, kept while the reading is confident."""
        self.dice = DiceSearch.for_profile(profile)
        self.gate = MotionGate(RegionMap.build(profile, config), config)
        self.last: BoardObservation | None = None
        self.fresh = False
        """True while the scene has stayed still since ``last`` was read in full."""


class BoardReader:
    """Reads frames of one or more calibrated boards.  Not thread-safe: one per camera loop.

    Creating one sets OpenCV to one thread for the process (``cv2.setNumThreads(1)``), as the
    onnxruntime sessions are: the live loop shares 2 cores, and OpenCV's worker threads cost more
    CPU and wall time than they save on a reading's small images under load (session 9: one bench
    pair at load ~3, 1080p reading 17.0 -> 15.3 ms wall; CPU within the noise at load 1-2; the
    observations identical on 200 rendered frames)."""

    def __init__(self, config: VisionConfig | None = None, *, face_model: Path = DIE_FACE_MODEL,
                 slot_model: Path = SLOT_MODEL, tray_model: Path = TRAY_MODEL,
                 stack_model: Path | None = STACK_MODEL, hand_model: Path | None = HAND_MODEL) -> None:
        cv2.setNumThreads(1)
        self.config = config or VisionConfig()
        self.cube_config = CubeConfig.from_vision(self.config)
        """The cube stage's thresholds, derived once (not on every frame)."""
        self.faces = FaceClassifier(face_model)
        self.slots = SlotClassifier(slot_model)
        self.trays = TrayClassifier(tray_model)
        self.stacks = StackClassifier(stack_model) if stack_model is not None and stack_model.is_file() else None
        self.hands = hand_model_or_none(hand_model) if hand_model is not None else None
        """The whole-frame hand model (:mod:`vision.hands`), when installed: the checker stage asks it,
        at most once a frame, whether a slot, stack or tray model's "hand" may be dropped."""
        default_numeral()  # the cube model, loaded now rather than on the first frame
        self._state: dict[int, _ProfileState] = {}
        self.last_cpu_ms: tuple[tuple[str, float], ...] = ()
        """CPU milliseconds per stage of the last full reading (and "assemble": building the
        observation); wall-clock times are in the observation's ``timings_ms``."""

    def _for(self, profile: Any) -> _ProfileState:
        st = self._state.get(id(profile))
        if st is None:
            st = _ProfileState(profile, self.config, self.slots.patch)
            self._state = {id(profile): st}  # one live profile at a time
            self._profile_ref = profile  # keep it alive so its id stays unique
        return st

    # ------------------------------------------------------------------ live
    def read(self, frame: Any, profile: Any) -> BoardObservation:
        """Gate the frame; read it fully once the scene has been still long enough."""
        st = self._for(profile)
        t0 = time.perf_counter()
        report = st.gate.update(frame.image)
        t_gate = (time.perf_counter() - t0) * 1000
        if not report.still:
            base = st.last or _blank(frame.seq, frame.t)
            st.fresh = False
            return _unstill(base, report, frame.seq, frame.t, (("gate", t_gate),))
        if st.fresh and st.last is not None:
            # nothing has moved since the last full reading: it still holds
            return replace(st.last, seq=frame.seq, t=frame.t, timings_ms=(("gate", round(t_gate, 3)),))
        obs = self._full(frame.image, profile, frame.seq, frame.t, report.covered, st, live=True)
        obs = replace(obs, timings_ms=(("gate", round(t_gate, 3)), *obs.timings_ms))
        st.last = obs
        st.fresh = True
        return obs

    # ------------------------------------------------------------------ one image
    def read_image(self, image: npt.NDArray[np.uint8], profile: Any, *, seq: int = 0, t: float = 0.0,
                   covered: frozenset[str] = frozenset(), keep_cube: bool = False) -> BoardObservation:
        """Read a single still image (no motion history).

        Without a history there is no reference to tell a hand from a skin-coloured board, so hands
        are left to the slot model (which reads a slot under a hand as "other": confidence 0);
        ``covered`` names regions known to be covered.  ``keep_cube``: the caller reads the settled
        frames of one camera in order (a live loop of its own): a confident cube reading of the
        previous such call is kept while no pixel the cube stage reads has changed (as :meth:`read`
        does); by default every image is read anew.
        """
        unknown = sorted(covered - set(REGION_NAMES))
        if unknown:
            raise ValueError(f"covered names no board region: {', '.join(map(repr, unknown))} "
                             f"(regions: p1..p24, bar, tray_w, tray_b)")
        st = self._for(profile)
        return self._full(image, profile, seq, t, covered, st, live=keep_cube)

    def _full(self, image: npt.NDArray[np.uint8], profile: Any, seq: int, t: float, covered: frozenset[str],
              st: _ProfileState, *, live: bool = False) -> BoardObservation:
        cfg = self.config
        clock = _StageClock()
        patches = st.sampler.patches(image)
        probs = self.slots.probabilities(patches, cfg.slot_temperature)
        tray_probs = self.trays.probabilities(st.trays.strips(image))
        stacks = self.stacks
        stack_probs = None if stacks is None else (lambda pts: stacks.probabilities(st.stacks.strips(image, pts)))
        hands = self.hands
        hand_probability = None if hands is None else (lambda: hands.probability(image))
        checkers: CheckerReadings = counts_from_slot_probs(st.sampler.slots, probs, covered, cfg.slot_hand_max,
                                                               cfg.slot_layer_error_factor,
                                                               cfg.slot_neighbour_hand_max, cfg.slot_object_weight,
                                                               tray_probs, cfg.tray_disagree_factor,
                                                               cfg.slot_bar_hand_corroboration, cfg.slot_hand_pair_max,
                                                               cfg.slot_layer_error_cap, stack_probs, cfg,
                                                               hand_probability)
        clock.lap("checkers")
        dice: tuple[DieReading, ...] = read_dice(image, profile, self.faces, cfg, st.dice)
        if covered:
            dice = tuple(d for d in dice if not _in_regions(profile, covered, d.center_mm))
        clock.lap("dice")
        cube = self._cube(image, st, live)
        clock.lap("cube")
        readings = (*checkers.points, checkers.bar, *checkers.trays)
        confident = not covered and min(r.confidence for r in readings) >= cfg.count_min_confidence
        obs = BoardObservation(
            seq=seq, t=t, points=checkers.points, bar=checkers.bar, trays=checkers.trays, dice=dice, cube=cube,
            still=True, covered=covered, confident=confident, timings_ms=clock.wall(),
        )
        clock.lap("assemble")
        self.last_cpu_ms = clock.cpu()
        return obs


    def _cube(self, image: npt.NDArray[np.uint8], st: _ProfileState, live: bool) -> CubeReading | None:
        """The cube stage.  In the live loop a confident reading is kept while no pixel the stage
        reads has changed by more than the gate's ``motion_threshold`` since it was read
        (:class:`vision.cube.CubeWatch`): checkers moved elsewhere do not cost a new cube reading.
        A single image (``read_image``) is always read anew."""
        cfg = self.config
        kept = st.cube_kept if live else None
        if kept is not None and st.cube_watch.unchanged(image, kept[0], cfg.motion_threshold):
            return kept[1]
        cube: CubeReading | None = read_cube(image, st.cube, self.cube_config)
        sure = (cube is not None and cube.face is not None
                and cube.position_confidence >= cfg.observation_min_confidence)
        st.cube_kept = (st.cube_watch.snapshot(image), cube) if live and sure and cube is not None else None
        return cube


def _in_regions(profile: Any, names: frozenset[str], xy: tuple[float, float]) -> bool:
    """Does the board point ``xy`` (mm) lie in one of the named regions (``REGION_NAMES``; a point as its
    whole column, base to tip, as the gate covers it)?  A die lying in a covered region is not reported:
    nothing is read from under a hand."""
    x, y = xy
    layout = profile.layout
    polys = None
    for name in names:
        if name.startswith("p"):
            if layout.point_rect(int(name[1:])).contains(x, y):
                return True
            continue
        polys = polys if polys is not None else profile.region_polygons_mm()
        poly = np.asarray(polys[name], np.float32)[:, :2]
        if cv2.pointPolygonTest(poly, (float(x), float(y)), False) >= 0:
            return True
    return False


class _StageClock:
    """Wall and CPU time (``time.process_time``: what this process spent, less disturbed by other
    jobs on a shared machine) of consecutive stages of one reading."""

    def __init__(self) -> None:
        self._laps: list[tuple[str, float, float]] = []
        self._wall = time.perf_counter()
        self._cpu = time.process_time()

    def lap(self, name: str) -> None:
        w, c = time.perf_counter(), time.process_time()
        self._laps.append((name, (w - self._wall) * 1000, (c - self._cpu) * 1000))
        self._wall, self._cpu = w, c

    def wall(self) -> tuple[tuple[str, float], ...]:
        return tuple((n, round(w, 3)) for n, w, _ in self._laps)

    def cpu(self) -> tuple[tuple[str, float], ...]:
        return tuple((n, round(c, 3)) for n, _, c in self._laps)


def _blank(seq: int, t: float) -> BoardObservation:
    z = CountReading(0, 0, 0.0)
    return BoardObservation(seq=seq, t=t, points=(z,) * 24, bar=z, trays=(z, z), still=False, confident=False)


def _unstill(base: BoardObservation, report: MotionReport, seq: int, t: float,
             timings: tuple[tuple[str, float], ...]) -> BoardObservation:
    """The last reading, marked not still, with covered/moving regions at confidence 0 (the cube's
    reading as it was: ``referee.loop.unstill`` builds the same observation)."""
    cov = report.covered

    def dim(name: str, r: CountReading) -> CountReading:
        return CountReading(r.white, r.black, 0.0) if name in cov else r

    points = tuple(dim(f"p{i + 1}", r) for i, r in enumerate(base.points))
    return replace(base, seq=seq, t=t, points=points, bar=dim("bar", base.bar),
                   trays=(dim("tray_w", base.trays[0]), dim("tray_b", base.trays[1])),
                   still=False, covered=cov, confident=False, timings_ms=timings)


def observation_to_dict(obs: BoardObservation) -> dict[str, Any]:
    """A JSON-ready form of an observation."""

    def cr(r: CountReading) -> dict[str, Any]:
        return {"white": r.white, "black": r.black, "confidence": r.confidence}

    return {
        "seq": obs.seq, "t": obs.t, "still": obs.still, "confident": obs.confident,
        "covered": sorted(obs.covered),
        "points": {str(i + 1): cr(r) for i, r in enumerate(obs.points)},
        "bar": cr(obs.bar), "tray_white": cr(obs.trays[0]), "tray_black": cr(obs.trays[1]),
        "dice": [{"face": d.face, "face_confidence": d.face_confidence, "cocked": d.cocked,
                  "cocked_confidence": d.cocked_confidence, "area": d.area.value, "boundary_mm": d.boundary_mm,
                  "center_mm": list(d.center_mm), "image_box": list(d.image_box), "on_die": d.on_die,
                  "owner": None if d.owner is None else d.owner.name} for d in obs.dice],
        "cube": None if obs.cube is None else {
            "face": obs.cube.face, "face_confidence": obs.cube.face_confidence, "position": obs.cube.position.value,
            "rotation_deg": obs.cube.rotation_deg, "position_confidence": obs.cube.position_confidence},
        "timings_ms": dict(obs.timings_ms),
    }


def annotate(image: npt.NDArray[np.uint8], profile: Any, obs: BoardObservation,
             config: VisionConfig | None = None) -> npt.NDArray[np.uint8]:
    """A copy of the frame showing what was read where (counts per region, dice, cube).

    Green: read confidently; red: unsure; magenta "hand": covered, not read.
    """
    threshold = (config or VisionConfig()).count_min_confidence
    out = image.copy()
    layout = profile.layout
    for i, r in enumerate(obs.points):
        x, y, _ = layout.stack_slots(i + 1, 0)
        _label(out, profile, (x, y), r, f"p{i + 1}" in obs.covered, threshold)
    b = layout.bar_region()
    _label(out, profile, ((b.x0 + b.x1) / 2, (b.y0 + b.y1) / 2), obs.bar, "bar" in obs.covered, threshold)
    for d in obs.dice:
        x, y, w, h = d.image_box
        ok = d.face is not None and d.cocked is False
        col = (0, 200, 0) if ok else (0, 140, 255)
        cv2.rectangle(out, (x, y), (x + w, y + h), col, 2)
        txt = f"{d.face if d.face is not None else '?'}{' cocked' if d.cocked else ('' if d.cocked is False else ' ?')}"
        cv2.putText(out, txt, (x, max(12, y - 4)), cv2.FONT_HERSHEY_SIMPLEX, 0.5, col, 2)
    if obs.cube is not None:
        c = obs.cube
        cv2.putText(out, f"cube {c.face if c.face else '?'} {c.position.value}", (10, 24),
                    cv2.FONT_HERSHEY_SIMPLEX, 0.7, (255, 255, 0), 2)
    state = "CONFIDENT" if obs.confident else "UNSURE"
    cv2.putText(out, state, (10, out.shape[0] - 12), cv2.FONT_HERSHEY_SIMPLEX, 0.8,
                (0, 200, 0) if obs.confident else (0, 0, 255), 2)
    return out


def _label(img: npt.NDArray[np.uint8], profile: Any, xy: tuple[float, float], r: CountReading, covered: bool,
           threshold: float) -> None:
    p = profile.board_to_image(np.array([[xy[0], xy[1], 0.0]]))[0]
    if covered:
        txt, col = "hand", (255, 0, 255)
    else:
        txt = f"{r.white}W" if r.white else (f"{r.black}B" if r.black else "0")
        col = (0, 200, 0) if r.confidence >= threshold else (0, 0, 255)
    cv2.putText(img, txt, (int(p[0]) - 10, int(p[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 3)
    cv2.putText(img, txt, (int(p[0]) - 10, int(p[1])), cv2.FONT_HERSHEY_SIMPLEX, 0.45, col, 1)
