"""The trays: borne-off checkers counted from the image (``TraySampler`` + ``checker_tray.onnx``),
cross-checked with the board's totals (``tray_readings``, ``totals_cross_check``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rules.position import CHECKERS, Side
from vision.checkers import (
    FULL_ROW_FLOOR,
    TRAY_CLASSES,
    TRAY_DOUBT,
    TRAY_HAND,
    TRAY_MODEL,
    TraySampler,
    counts_from_slot_probs,
    slot_labels,
    totals_cross_check,
    tray_readings,
)
from vision.observation import CountReading

from .test_checkers import LAYOUT, SLOTS, _onehot

DATA = Path(__file__).parent / "data"


def _tray_probs(white: int, black: int, p: float = 0.999, hand: float = 0.0) -> np.ndarray:
    out = np.full((2, len(TRAY_CLASSES)), (1 - p - hand) / (len(TRAY_CLASSES) - 2))
    for i, n in enumerate((white, black)):
        out[i, n] = p
        out[i, TRAY_HAND] = hand
    return out


def _board(points: list[tuple[int, int]], bar: tuple[int, int] = (0, 0)) -> tuple[CountReading, ...]:
    return (*(CountReading(w, b, 0.9999) for w, b in points), CountReading(*bar, 0.9999))


def test_a_tray_the_board_agrees_with_is_surer_than_either() -> None:
    points = [(0, 0)] * 24
    points[0], points[23] = (10, 0), (0, 15)
    w, b = tray_readings(_tray_probs(5, 0, 0.99), (10, 15), _board(points))
    assert (w.white, w.black) == (5, 0) and w.confidence > 0.9999
    assert (b.white, b.black) == (0, 0) and b.confidence > 0.9999


def test_a_tray_the_board_contradicts_is_doubted_but_read() -> None:
    """Tray 5 but 11 on the board: one of the two is wrong, or a checker is off the board."""
    points = [(0, 0)] * 24
    points[0], points[23] = (11, 0), (0, 15)
    w, _ = tray_readings(_tray_probs(5, 0, 0.999), (11, 15), _board(points), disagree_factor=10.0)
    assert w.white == 5 and w.confidence == pytest.approx(0.99, abs=1e-6)
    w, _ = tray_readings(_tray_probs(5, 0, 0.99), (11, 15), _board(points), disagree_factor=10.0)
    assert w.confidence == pytest.approx(0.9, abs=1e-6)


def test_a_tray_under_a_hand_is_not_read() -> None:
    points = [(0, 0)] * 24
    points[0], points[23] = (10, 0), (0, 15)
    w, b = tray_readings(_tray_probs(5, 0, 0.6, hand=0.35), (10, 15), _board(points))
    assert w.confidence == 0.0 and w.alternatives == ()
    _, b = tray_readings(_tray_probs(5, 0), (10, 15), _board(points), covered=frozenset({"tray_b"}))
    assert b.confidence == 0.0


def test_tray_alternatives_are_the_models_other_counts() -> None:
    probs = _tray_probs(5, 0, 0.9)
    probs[0, 4] = 0.05
    points = [(0, 0)] * 24
    points[0], points[23] = (11, 0), (0, 15)
    w, _ = tray_readings(probs, (11, 15), _board(points))
    assert w.alternatives[0] == (4, 0, 0.05)


def _tall_stack(p6: float) -> np.ndarray:
    """p1 holds 5 white (slot 0 hints a second layer: 6 checkers), p24 10 black, the rest empty."""
    points = [(0, 0)] * 24
    points[0], points[23] = (5, 0), (0, 10)
    probs = _onehot(slot_labels(LAYOUT, SLOTS, points, (0, 0)), 0.99999)
    k = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 0)
    probs[k, 2] = p6
    return probs


def test_a_tall_stack_is_confident_when_the_totals_add_up() -> None:
    """Alone, the 5-stack is unsure (full-row weight); with 10 white borne off read in the tray it
    cannot be 6 unless a second reading is wrong too."""
    probs = _tall_stack(1e-3)
    alone = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0)
    assert alone.points[0].confidence < 0.99 and alone.points[0].alternatives[0][:2] == (6, 0)
    read = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, trays=_tray_probs(10, 5, 0.9995))
    assert (read.points[0].white, read.points[0].confidence >= 0.99) == (5, True)
    assert read.trays[0].white == 10 and read.trays[0].confidence > 0.999
    # an unread region elsewhere: the totals prove nothing
    probs2 = probs.copy()
    probs2[next(i for i, s in enumerate(SLOTS) if s.region == "p12"), 8] = 0.9
    read2 = counts_from_slot_probs(SLOTS, probs2, layer_error_factor=30.0, trays=_tray_probs(10, 5, 0.9995))
    assert read2.points[0].confidence < 0.99


def test_a_board_that_does_not_add_up_doubts_the_stack_that_could_fix_it() -> None:
    """9 white borne off read in the tray, 5 + ... on the board: the 5-stack that may be a 6 is the
    likely culprit (a missed second layer): capped.  Without such an alternative the board stands
    (a checker off the board: a hit not put on the bar), and so does the tray."""
    probs = _tall_stack(1e-3)
    read = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, trays=_tray_probs(9, 5, 0.99999))
    assert read.points[0].confidence <= TRAY_DOUBT
    assert read.trays[0].white == 9 and read.trays[0].confidence >= 0.99
    points = [(0, 0)] * 24
    points[2], points[23] = (4, 0), (0, 10)
    board = _board(points)
    trays = (CountReading(10, 0, 0.9999), CountReading(0, 5, 0.9999))  # white: 14 in all
    assert totals_cross_check(board, trays) == board
    # ...unless a full row stands on the board: its typical error (a missed second layer) is
    # capped even when the decoder lists no alternative
    points[2] = (5, 0)
    board = _board(points)
    trays = (CountReading(9, 0, 0.9999), CountReading(0, 5, 0.9999))  # white: 14 in all
    out = totals_cross_check(board, trays, full_row=5)
    assert out[2].confidence <= TRAY_DOUBT and out[23] == board[23]


def test_more_than_fifteen_is_never_relieved() -> None:
    points = [(0, 0)] * 24
    points[0], points[1], points[2], points[3] = (5, 0), (5, 0), (5, 0), (2, 0)
    probs = _onehot(slot_labels(LAYOUT, SLOTS, points, (0, 0)), 0.9999)
    r = counts_from_slot_probs(SLOTS, probs, trays=_tray_probs(0, 15))
    assert all(x.confidence <= TRAY_DOUBT for x in r.points[:4])


def _profile():  # type: ignore[no-untyped-def]
    from calibration.profile import CalibrationProfile

    return CalibrationProfile.load(DATA / "board_900023.profile.json")


def test_tray_strips_start_at_the_outer_end_of_each_tray() -> None:
    """A bright square drawn where the first upright checker's top edge projects shows at the start
    of that tray's upper-plane strip, across its middle."""
    import cv2

    prof = _profile()
    sampler = TraySampler(prof)
    lay = prof.layout
    d = lay.spec.checker_diameter_mm
    for i, side in enumerate(Side):
        img = np.zeros((prof.camera.height, prof.camera.width, 3), np.uint8)
        x, y, _ = lay.tray_slot(side, 1)
        u, v = prof.board_to_image(np.array([[x, y, d]]))[0]
        cv2.circle(img, (int(u + 0.5), int(v + 0.5)), 3, (255, 255, 255), -1)
        s = sampler.strips(img)
        assert s.shape == (2, *TraySampler.SHAPE)
        bright = np.argwhere(s[i, 1, :, :, 0] > 128)
        assert len(bright), side
        rows, cols = bright[:, 0], bright[:, 1]
        assert rows.max() < s.shape[2] * 0.2 and abs(cols.mean() - s.shape[3] / 2) < s.shape[3] * 0.15
        assert not (s[1 - i] > 128).any()  # the other tray does not see it


@pytest.mark.skipif(not TRAY_MODEL.is_file(), reason="no tray model")
def test_the_tray_model_counts_rendered_trays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two rendered tray positions: every tray is read right or unsure, never confidently wrong,
    and most are read right."""
    from vision.checkers import TrayClassifier
    from vision.training.rendered import Rendered, profile_for
    from vision.training.trays import render_tray_variants

    monkeypatch.setenv("BGREF_RENDER_CACHE", str(tmp_path))
    clf = TrayClassifier()
    right = n = 0
    import json

    for png in render_tray_variants(19990, 2):
        r = Rendered(19990, png, json.loads(png.with_suffix(".json").read_text()))
        p = clf.probabilities(TraySampler(profile_for(r.truth)).strips(r.image()))
        for i, name in enumerate(("tray_w", "tray_b")):
            want = int(r.truth["counts"][name])
            got = int(p[i].argmax())
            assert 0 <= want <= CHECKERS
            if p[i, got] >= 0.99:
                assert got == want, (png.name, name, got, want)
            right += got == want
            n += 1
    assert right >= n - 1


def test_a_missing_or_broken_tray_model_is_named_with_its_training_command(tmp_path: Path) -> None:
    from vision.checkers import TrayClassifier
    from vision.preprocess import ModelError

    with pytest.raises(ModelError, match=r"tray model '.*nope\.onnx' not found .*vision\.training\.trays train"):
        TrayClassifier(tmp_path / "nope.onnx")
    bad = tmp_path / "bad.onnx"
    bad.write_bytes(b"not an onnx model")
    with pytest.raises(ModelError, match=r"tray model '.*bad\.onnx' cannot be loaded \(.+\); train it again") as err:
        TrayClassifier(bad)
    assert "\n" not in str(err.value)
    assert bad.read_bytes() == b"not an onnx model"


def test_the_relief_counts_the_other_errors_not_the_regions_own() -> None:
    """A region's alternative that would break the 15-per-side total needs a second error elsewhere,
    the other way in the same colour: its weight is how likely the OTHER readings (regions and tray)
    are wrong that way.  A lone unsure region (error 0.5) on an otherwise sure board that adds up is
    confirmed; its own error does not block it."""
    points = [(0, 0)] * 24
    points[0], points[23] = (5, 0), (0, 15)
    board = list(_board(points))
    board[0] = CountReading(5, 0, 0.5, ((6, 0, 0.5),))
    trays = (CountReading(10, 0, 0.9999), CountReading(0, 0, 0.9999))
    out = totals_cross_check(tuple(board), trays)
    assert out[0].confidence > 0.99 and out[0].alternatives[0][:2] == (6, 0)
    # a second unsure region that cannot make up for it (another colour) changes nothing...
    board[23] = CountReading(0, 15, 0.6, ((0, 14, 0.4),))
    assert totals_cross_check(tuple(board), trays)[0].confidence > 0.99
    # ...one that could (a white 3 that may be a 2: 6 + 2 = 5 + 3) makes the totals prove much less
    board[5] = CountReading(3, 0, 0.6, ((2, 0, 0.4),))
    out2 = totals_cross_check(tuple(board), (CountReading(7, 0, 0.9999), trays[1]))
    assert out2[0].confidence < 0.9
    # and error mass a reading does not list could be anything
    board[5] = CountReading(3, 0, 0.6, ())
    assert totals_cross_check(tuple(board), (CountReading(7, 0, 0.9999), trays[1]))[0].confidence < 0.9


def test_a_tall_stack_crushed_by_the_full_row_weight_can_still_be_confirmed() -> None:
    """The full-row weight may leave a tall stack at FULL_ROW_FLOOR (never 0, which means "not
    read"): the totals can still confirm it, and an unread region elsewhere still blocks that.  (No
    cap on the weight here: ``layer_error_cap`` 1.)"""
    probs = _tall_stack(0.3)
    alone = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, layer_error_cap=1.0)
    assert alone.points[0].confidence == FULL_ROW_FLOOR
    read = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, layer_error_cap=1.0, trays=_tray_probs(10, 5, 0.99999))
    assert read.points[0].white == 5 and read.points[0].confidence >= 0.99
    probs[next(i for i, s in enumerate(SLOTS) if s.region == "p12"), 8] = 0.9
    read2 = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, layer_error_cap=1.0, trays=_tray_probs(10, 5, 0.99999))
    assert read2.points[0].confidence < 0.99


def test_a_tray_is_confirmed_by_the_readings_that_could_not_make_up_for_it() -> None:
    """The board agrees with the tray (10 borne off), but a tall stack on it is unsure: its doubt is
    "one more" (5 -> 6), which cannot explain a tray that is really 11 (that needs a region one
    fewer), so the tray stays sure; a region that may be one fewer does weaken it."""
    points = [(0, 0)] * 24
    points[0], points[23] = (5, 0), (0, 15)
    board = list(_board(points))
    board[0] = CountReading(5, 0, 1e-4, ((6, 0, 0.9999),))
    probs = np.zeros((2, len(TRAY_CLASSES)))
    probs[0, 10], probs[0, 11], probs[1, 0] = 0.96, 0.04, 1.0
    w, _ = tray_readings(probs, (5, 15), tuple(board))
    assert w.white == 10 and w.confidence > 0.999
    board[0] = CountReading(5, 0, 1e-4, ((4, 0, 0.9999),))
    w2, _ = tray_readings(probs, (5, 15), tuple(board))
    assert w2.confidence < 0.99
    # and a tray that may be one FEWER is what the "one more" stack explains
    probs[0, 11], probs[0, 9] = 0.0, 0.04
    board[0] = CountReading(5, 0, 1e-4, ((6, 0, 0.9999),))
    assert tray_readings(probs, (5, 15), tuple(board))[0].confidence < 0.99


def test_two_full_rows_whose_layer_errors_would_cancel_do_not_confirm_each_other() -> None:
    """Seen on 903331: a white 5 read 6 (alternative 5) and a white 6 read 5 (alternative 6), each unsure
    alone; the totals add up either way, so each one's alternative "needs" the other's error, and both
    were read at 0.999.  Two layer errors on one frame are not independent: neither is relieved by the
    other.  A lone unsure full row, or one whose twin is of the other colour, still is."""
    points = [(0, 0)] * 24
    points[4], points[10], points[18] = (6, 0), (5, 0), (0, 12)
    board = list(_board(points))
    board[4] = CountReading(6, 0, 0.86, ((5, 0, 0.14),))
    board[10] = CountReading(5, 0, 0.95, ((6, 0, 0.05),))
    trays = (CountReading(4, 0, 0.99999), CountReading(0, 3, 0.99999))
    out = totals_cross_check(tuple(board), trays, full_row=5)
    assert out[4].confidence < 0.99 and out[10].confidence < 0.99
    # the same two points, one of them sure: the other is a lone unsure full row, relieved as before
    board[10] = CountReading(5, 0, 1.0)
    out = totals_cross_check(tuple(board), trays, full_row=5)
    assert out[4].confidence >= 0.99 and out[10].confidence == 1.0
    # a black twin does not count against a white full row
    board[10], board[18] = CountReading(5, 0, 1.0), CountReading(0, 12, 0.95, ((0, 11, 0.05),))
    out = totals_cross_check(tuple(board), trays, full_row=5)
    assert out[4].confidence >= 0.99
