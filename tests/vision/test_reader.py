"""The whole pipeline on golden rendered frames (JPEG + truth + profile in tests/vision/data)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from calibration.profile import CalibrationProfile
from rules.position import Side
from vision.camera import Frame
from vision.config import VisionConfig
from vision.observation import REGION_NAMES, BoardObservation
from vision.reader import BoardReader, observation_to_dict

DATA = Path(__file__).parent / "data"
SEEDS = (900023, 900006)


@pytest.fixture(scope="module")
def reader() -> BoardReader:
    return BoardReader(VisionConfig(still_frames=2))


def _load(seed: int) -> tuple[np.ndarray, dict, CalibrationProfile]:
    img = cv2.imread(str(DATA / f"board_{seed}.jpg"))
    truth = json.loads((DATA / f"board_{seed}.truth.json").read_text())
    return img, truth, CalibrationProfile.load(DATA / f"board_{seed}.profile.json")


def _truth_counts(truth: dict) -> dict[str, tuple[int, int]]:
    c = truth["counts"]
    out = {f"p{i + 1}": (w, b) for i, (w, b) in enumerate(c["points"])}
    out["bar"] = tuple(c["bar"])
    out["tray_w"] = (c["tray_w"], 0)
    out["tray_b"] = (0, c["tray_b"])
    return out


@pytest.mark.parametrize("seed", SEEDS)
def test_never_confidently_wrong(reader: BoardReader, seed: int) -> None:
    img, truth, prof = _load(seed)
    obs = reader.read_image(img, prof)
    want = _truth_counts(truth)
    sure = 0
    threshold = VisionConfig().count_min_confidence
    for name in REGION_NAMES:
        r = obs.reading(name)
        if r.confidence >= threshold:
            sure += 1
            assert (r.white, r.black) == want[name], (name, r, want[name])
    # the strict count threshold (zero confident-wrong on the validation seeds) and the safety rules
    # (an "object" slot is no evidence, full rows weighted) leave a few regions of these JPEG golden
    # frames unsure (22 and 19 of 27 read confidently with the committed model)
    assert sure >= 15, f"only {sure} regions read confidently"
    if obs.confident:
        assert obs.position(Side.WHITE) is not None
    # dice: right or unsure, never wrong; both found
    faces = sorted(d["face"] for d in truth["dice"])
    assert len(obs.dice) <= 2
    for d in obs.dice:
        assert d.face is None or d.face in faces
        assert d.cocked is not True  # both dice in these frames are flat
    # cube: right place or an unsure place
    assert obs.cube is not None
    assert obs.cube.position.value == truth["cube"]["position"] or obs.cube.position_confidence < 0.8
    timings = dict(obs.timings_ms)
    assert set(timings) == {"checkers", "dice", "cube"}


def test_gate_holds_reading_until_still(reader: BoardReader) -> None:
    img, _, prof = _load(SEEDS[0])
    first = reader.read(Frame(img, 0.0, 0), prof)
    assert not first.still and not first.confident and first.position(Side.WHITE) is None
    obs = [reader.read(Frame(img, 0.033 * i, i), prof) for i in range(1, 5)]
    full = [o for o in obs if o.still]
    assert len(full) >= 2 and not obs[0].still  # still_frames=2: the first frames are not read
    assert set(dict(full[0].timings_ms)) == {"gate", "checkers", "dice", "cube"}
    # still since that full reading: the same reading again, for the cost of the gate alone
    assert full[1] == replace(full[0], seq=full[1].seq, t=full[1].t)
    assert set(dict(full[1].timings_ms)) == {"gate"}
    moved = img.copy()
    moved[300:420, 500:700] = 255 - moved[300:420, 500:700]
    after = reader.read(Frame(moved, 0.2, 5), prof)
    assert not after.still and not after.confident and after.covered
    for name in after.covered:
        assert after.reading(name).confidence == 0.0


def test_cli_read_json_and_annotate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    out = tmp_path / "ann.png"
    seed = SEEDS[0]
    rc = main(["vision", "read", str(DATA / f"board_{seed}.jpg"), "--profile",
               str(DATA / f"board_{seed}.profile.json"), "--json", "--annotate", str(out)])
    assert rc == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data["points"]) == {str(i) for i in range(1, 25)}
    assert out.is_file() and cv2.imread(str(out)).shape == cv2.imread(str(DATA / f"board_{seed}.jpg")).shape
    img, _, prof = _load(seed)
    d = observation_to_dict(BoardReader().read_image(img, prof))
    assert json.loads(json.dumps(d)) == d and len(d["points"]) == 24


def test_cli_read_missing_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from referee.cli import main

    rc = main(["vision", "read", str(DATA / "board_900023.jpg"), "--profile", str(tmp_path / "none.json")])
    assert rc == 2
    assert "none.json" in capsys.readouterr().err


def test_hand_resting_on_the_board_is_never_read() -> None:
    """A hand comes in over a point after a full reading and rests there without moving: no full
    reading runs while it is there, the point under it reads with confidence 0, nothing is confident;
    once it is gone the board is read in full again."""
    img, _, prof = _load(SEEDS[0])
    rd = BoardReader(VisionConfig(still_frames=2))
    before = [rd.read(Frame(img, i / 30, i), prof) for i in range(4)]
    assert before[-1].still and any("checkers" in dict(o.timings_ms) for o in before)
    x, y = (int(v) for v in prof.board_to_image(np.array([prof.layout.stack_slots(13, 2)]))[0])
    hand = img.copy()
    hand[y - 70:y + 70, x - 45:x + 45] = (120, 150, 210)  # a skin tone (BGR)
    for i in range(4, 12):
        obs = rd.read(Frame(hand, i / 30, i), prof)
        assert not obs.still and not obs.confident and obs.position(Side.WHITE) is None
        assert "p13" in obs.covered and obs.reading("p13").confidence == 0.0
        assert set(dict(obs.timings_ms)) == {"gate"}  # the gate only: no reading of the covered frame
    after = [rd.read(Frame(img, i / 30, i), prof) for i in range(12, 16)]
    assert after[-1].still and "p13" not in after[-1].covered
    assert any("checkers" in dict(o.timings_ms) for o in after)


def test_stage_cpu_times_are_recorded(reader: BoardReader) -> None:
    img, _, prof = _load(SEEDS[1])
    obs = reader.read_image(img, prof)
    cpu = dict(reader.last_cpu_ms)
    assert set(cpu) == {"checkers", "dice", "cube", "assemble"} and min(cpu.values()) >= 0.0
    assert set(dict(obs.timings_ms)) == {"checkers", "dice", "cube"}


def test_reader_runs_opencv_on_one_thread(reader: BoardReader) -> None:
    """A reader sets OpenCV to one thread (as its onnxruntime sessions): the reading does not
    depend on it (same observation on 2 threads), only its CPU cost does."""
    img, _, prof = _load(SEEDS[0])
    assert cv2.getNumThreads() == 1
    one = replace(reader.read_image(img, prof), timings_ms=())
    cv2.setNumThreads(2)
    try:
        two = replace(reader.read_image(img, prof), timings_ms=())
    finally:
        cv2.setNumThreads(1)
    assert one == two


def _outside_cube_watch(rd: BoardReader, img: np.ndarray, prof: CalibrationProfile) -> tuple[int, int]:
    """The image position of a point's checkers far from every pixel the cube stage reads."""
    st = rd._for(prof)
    for p in (1, 12, 13, 24, 2, 11, 14, 23):
        x, y = (int(v) for v in prof.board_to_image(np.array([prof.layout.stack_slots(p, 1)]))[0])
        if not any(x0 - 60 <= x < x1 + 60 and y0 - 60 <= y < y1 + 60 for x0, y0, x1, y1 in st.cube_watch.boxes):
            return x, y
    raise AssertionError("no point far from the cube's places")


def test_cube_reading_is_kept_only_while_its_pixels_are_unchanged(cube_reads: list[int]) -> None:
    """Live loop: checkers moved far from the cube keep the cube's confident reading (no new cube
    reading); the cube covered, or one pixel the cube stage reads changed beyond the gate's
    threshold, make a new one; a change of exactly the threshold does not."""
    img, truth, prof = _load(900023)
    rd = BoardReader(VisionConfig(still_frames=2))
    calls = cube_reads
    seq = iter(range(1000))

    def settle(frame: np.ndarray) -> BoardObservation:
        obs = [rd.read(Frame(frame, i / 30, i), prof) for i in (next(seq) for _ in range(4))]
        full = [o for o in obs if "checkers" in dict(o.timings_ms)]
        assert len(full) == 1 and obs[-1].still, [(o.still, sorted(o.covered), dict(o.timings_ms)) for o in obs]
        return full[0]

    first = settle(img)
    assert first.cube is not None and first.cube.face == truth["cube"]["face"] and len(calls) == 1
    x, y = _outside_cube_watch(rd, img, prof)
    moved = img.copy()
    moved[y - 25:y + 25, x - 25:x + 25] = 255 - moved[y - 25:y + 25, x - 25:x + 25]  # checkers changed there
    kept = settle(moved)
    assert len(calls) == 1 and kept.cube is first.cube
    # one pixel the cube stage reads, changed by the threshold: kept; by one more: read anew
    (x0, y0, _, _), mask = rd._for(prof).cube_watch.boxes[0], rd._for(prof).cube_watch.masks[0]
    py, px = (int(v[0]) for v in np.nonzero(mask))
    threshold = rd.config.motion_threshold
    for base, delta, reads in ((img, threshold, 1), (moved, threshold + 1, 2)):
        frame = base.copy()  # the checkers moved back or again: motion, then still
        v = int(frame[y0 + py, x0 + px, 0])
        frame[y0 + py, x0 + px, 0] = v + delta if v < 128 else v - delta
        settle(frame)
        assert len(calls) == reads, (delta, len(calls))
    # the cube covered by something else: read anew
    bx, by, bw, bh = truth["cube"]["image_box"]
    hidden = img.copy()
    hidden[by:by + bh, bx:bx + bw] = hidden[by + bh:by + 2 * bh, bx:bx + bw]
    after = settle(hidden)
    assert len(calls) == 3 and after.cube != first.cube
    # a single image is always read anew, unless the caller asks to keep the cube
    rd.read_image(img, prof)
    assert len(calls) == 4
    rd.read_image(img, prof, keep_cube=True)
    assert len(calls) == 5  # nothing kept yet: read_image without keep_cube keeps nothing
    again = rd.read_image(moved, prof, keep_cube=True)
    assert len(calls) == 5 and again.cube == first.cube
    rd.read_image(hidden, prof, keep_cube=True)
    assert len(calls) == 6


def test_hand_over_the_cubes_place_is_never_read() -> None:
    """A hand resting over the tray column where a cube rests (no named region): no full reading
    while it is there (the observations are not still)."""
    from vision.cube import cube_places

    img, _, prof = _load(SEEDS[0])
    rd = BoardReader(VisionConfig(still_frames=2))
    before = [rd.read(Frame(img, i / 30, i), prof) for i in range(4)]
    assert before[-1].still and before[-1].cube is not None and before[-1].cube.position_confidence > 0
    rect, z = cube_places(prof)[1]
    x, y = (int(v) for v in prof.board_to_image(np.array([[(rect.x0 + rect.x1) / 2, (rect.y0 + rect.y1) / 2, z]]))[0])
    hand = img.copy()
    hand[y - 60:y + 60, x - 40:x + 40] = (120, 150, 210)  # a skin tone (BGR)
    for i in range(4, 10):
        obs = rd.read(Frame(hand, i / 30, i), prof)
        assert not obs.still and not obs.confident and set(dict(obs.timings_ms)) == {"gate"}
    after = [rd.read(Frame(img, i / 30, i), prof) for i in range(10, 14)]
    assert after[-1].still and after[-1].cube is not None and after[-1].cube.position_confidence > 0


def test_a_cube_turned_or_moved_between_still_frames_is_read_anew(cube_reads: list[int]) -> None:
    """Live loop, the kept cube reading (``CubeWatch``) is never stale: after a still reading, the
    cube turned a quarter, turned to another face, or nudged 4 mm, then a still scene, is read anew
    and the new reading is the new cube's (face, turn).  Two ways the gate sees the change happen:
    a hand over the cube, or only checkers moved elsewhere (the cube's own change below the gate's
    motion fraction: the reader then reads in full, and only the watch can tell the cube changed)."""
    from tests.vision.test_cube import _paint

    img, truth, prof = _load(900023)
    gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    tc = truth["cube"]
    size = prof.spec.cube_size_mm
    cx, cy, cz = tc["center_mm"]
    bx, by, bw, bh = tc["image_box"]
    rd = BoardReader(VisionConfig(still_frames=2))
    seq = iter(range(1000))
    ex, ey = _outside_cube_watch(rd, img, prof)
    flips = iter(range(1000))

    def settle(face: int, turn: float, dx: float, *, hand: bool) -> BoardObservation:
        frame = cv2.cvtColor(_paint(gray, prof, (cx + dx, cy), cz + size / 2, face,
                                    (tc["rotation_deg"] + turn) % 360.0, size * 0.86), cv2.COLOR_GRAY2BGR)
        if next(flips) % 2:  # checkers moved far from the cube (and back, the next time)
            frame[ey - 25:ey + 25, ex - 25:ex + 25] = 255 - frame[ey - 25:ey + 25, ex - 25:ex + 25]
        before = []
        if hand:
            over = frame.copy()
            over[by - 30:by + bh + 30, bx - 30:bx + bw + 30] = (120, 150, 210)  # a skin tone (BGR)
            before = [over, over]
        obs = [rd.read(Frame(f, i / 30, i), prof) for f in before + [frame] * 4 for i in (next(seq),)]
        assert obs[-1].still and sum("checkers" in dict(o.timings_ms) for o in obs) == 1
        return obs[-1]

    first = settle(16, 0.0, 0.0, hand=False)
    assert first.cube is not None and first.cube.face == 16 and len(cube_reads) == 1
    assert settle(16, 0.0, 0.0, hand=False).cube is first.cube and len(cube_reads) == 1  # unchanged: kept
    changes = ((16, 90.0, 0.0), (4, 90.0, 0.0), (4, 90.0, 4.0), (16, 0.0, 0.0))
    for hand in (True, False):
        for face, turn, dx in changes:
            reads = len(cube_reads)
            obs = settle(face, turn, dx, hand=hand)
            assert len(cube_reads) == reads + 1, (hand, face, turn, dx)
            assert obs.cube is not None and obs.cube.face == face, (hand, face, turn, dx, obs.cube)
            got = (obs.cube.rotation_deg - tc["rotation_deg"] - turn + 180.0) % 360.0 - 180.0
            assert abs(got) < 10.0, (hand, face, turn, dx, obs.cube)
