from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from rules.position import Side
from tests.vision.synth import slot_onehot
from vision.checkers import (
    HAND,
    OBJECT,
    SLOT_CLASSES,
    board_slots,
    counts_from_slot_probs,
    slot_labels,
    slot_layers,
)
from vision.geometry import BoardLayout, BoardSpec, Seating


def _onehot(labels: list[int], p: float = 0.99) -> np.ndarray:
    return slot_onehot(labels, p)


LAYOUT = BoardLayout(BoardSpec.tournament(), Seating())
SLOTS = board_slots(LAYOUT)


def test_slot_layers() -> None:
    assert [slot_layers(7, k, 5) for k in range(5)] == [2, 2, 1, 1, 1]
    assert [slot_layers(15, k, 5) for k in range(5)] == [3, 3, 3, 3, 3]
    assert slot_layers(0, 0, 5) == 0


def test_counts_round_trip_from_labels() -> None:
    points = [(0, 0)] * 24
    points[5] = (7, 0)
    points[12] = (0, 15 - 3)
    points[23] = (2, 0)
    bar = (1, 3)
    labels = slot_labels(LAYOUT, SLOTS, points, bar)
    r = counts_from_slot_probs(SLOTS, _onehot(labels))
    assert [(x.white, x.black) for x in r.points] == points
    assert (r.bar.white, r.bar.black) == bar
    assert r.trays[0].white == 15 - 7 - 2 - 1 and r.trays[1].black == 0
    assert min(x.confidence for x in r.points) > 0.9


def test_doubt_gives_zero_confidence_not_a_guess() -> None:
    points = [(0, 0)] * 24
    points[0] = (3, 0)
    labels = slot_labels(LAYOUT, SLOTS, points, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p1"]
    gap = list(labels)
    gap[first[1]] = 0  # a hole in the stack
    assert counts_from_slot_probs(SLOTS, _onehot(gap)).points[0].confidence == 0.0
    mixed = list(labels)
    mixed[first[2]] = 4  # a black checker in a white stack
    assert counts_from_slot_probs(SLOTS, _onehot(mixed)).points[0].confidence == 0.0
    hand = list(labels)
    hand[first[3]] = HAND
    assert counts_from_slot_probs(SLOTS, _onehot(hand)).points[0].confidence == 0.0
    covered = counts_from_slot_probs(SLOTS, _onehot(labels), frozenset({"p1"}))
    assert covered.points[0].confidence == 0.0 and covered.points[1].confidence > 0.9


def test_a_die_on_an_empty_point_does_not_hide_the_count() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p7"]
    probs = _onehot(labels)
    probs[first[2]] = 0.0
    probs[first[2], OBJECT] = 0.7
    probs[first[2], 0] = 0.29  # under the die: most likely empty
    probs[first[2], HAND] = 0.01
    r = counts_from_slot_probs(SLOTS, probs).points[6]
    assert (r.white, r.black) == (0, 0) and r.confidence > 0.9


def test_bar_checker_on_wrong_half_is_not_counted_confidently() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    i = next(i for i, s in enumerate(SLOTS) if s.region == "bar" and s.side is Side.WHITE)
    labels[i] = 4
    assert counts_from_slot_probs(SLOTS, _onehot(labels)).bar.confidence == 0.0


def test_stack_is_decoded_jointly() -> None:
    """A doubtful slot is settled by its neighbours: slot 1 holding two layers means slot 0 does too."""
    points = [(0, 0)] * 24
    points[0] = (7, 0)
    labels = slot_labels(LAYOUT, SLOTS, points, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p1"]
    probs = _onehot(labels)
    probs[first[0]] = 0.0
    probs[first[0], 1] = 0.6  # one layer?
    probs[first[0], 2] = 0.4  # or two
    r = counts_from_slot_probs(SLOTS, probs).points[0]
    assert (r.white, r.black) == (7, 0) and r.confidence > 0.99
    # a real tie between two counts stays unsure
    probs[first[1]] = probs[first[0]]
    probs[first[0], 1], probs[first[0], 2] = 0.5, 0.5
    probs[first[1], 1], probs[first[1], 2] = 0.5, 0.5
    assert counts_from_slot_probs(SLOTS, probs).points[0].confidence < 0.9


def test_slot_hand_probability_blocks_reading() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    first = [i for i, s in enumerate(SLOTS) if s.region == "p9"]
    probs = _onehot(labels)
    probs[first[4], HAND] = 0.35
    probs[first[4], 0] = 0.64
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.3).points[8].confidence == 0.0


def test_two_weak_hand_slots_on_a_point_block_it() -> None:
    """A fingertip over a point's tip (fresh-then 900978 p13: its two outer slots "hand" 0.33 and 0.24, each
    under slot_hand_max) leaves the point unread; one such slot alone does not."""
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    p13 = [i for i, s in enumerate(SLOTS) if s.region == "p13"]
    probs = _onehot(labels)
    probs[p13[-1], HAND], probs[p13[-1], 0] = 0.24, 0.76
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.5).points[12].confidence > 0.99
    probs[p13[-2], HAND], probs[p13[-2], 0] = 0.33, 0.65
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.5).points[12].confidence == 0.0
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.5, hand_pair_max=0.4).points[12].confidence > 0.99
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.5).points[13].confidence > 0.99  # not its neighbours


def test_a_hand_beside_a_point_blocks_the_point_too() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    p4 = [i for i, s in enumerate(SLOTS) if s.region == "p4"]
    probs = _onehot(labels)
    probs[p4[0]] = 0.0
    probs[p4[0], HAND] = 0.99
    r = counts_from_slot_probs(SLOTS, probs)
    assert r.points[3].confidence == 0.0  # the hand itself
    assert r.points[2].confidence == 0.0 and r.points[4].confidence == 0.0  # its neighbours
    # a faint hand-like slot next door blocks the neighbours only above neighbour_hand_max
    probs[p4[0]] = _onehot([0])[0]
    probs[p4[0], HAND] = 0.4
    probs[p4[0], 0] = 0.59
    lax = counts_from_slot_probs(SLOTS, probs, hand_max=0.3, neighbour_hand_max=0.5)
    assert lax.points[3].confidence == 0.0 and lax.points[2].confidence > 0.9
    assert counts_from_slot_probs(SLOTS, probs, hand_max=0.3, neighbour_hand_max=0.3).points[2].confidence == 0.0
    assert r.points[5].confidence > 0.9 and r.points[20].confidence > 0.9  # farther away / across


def test_a_hand_on_the_bar_alone_is_not_a_hand() -> None:
    """An empty bar is the slot model's typical false "hand": with no hand-like slot off the bar
    (``bar_hand_corroboration``) the bar is read from its other classes and its neighbours too;
    with one anywhere on the points, the bar and its neighbours stay unread."""
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 1))
    bar = [i for i, s in enumerate(SLOTS) if s.region == "bar"]
    probs = _onehot(labels)
    wbar = [i for i in bar if SLOTS[i].side is Side.WHITE]
    probs[wbar[1]] = 0.0
    probs[wbar[1], HAND] = 0.95
    probs[wbar[1], 0] = 0.05
    alone = counts_from_slot_probs(SLOTS, probs, bar_hand_corroboration=0.3)
    assert (alone.bar.white, alone.bar.black) == (0, 1) and alone.bar.confidence > 0.9
    assert alone.points[5].confidence > 0.9 and alone.points[6].confidence > 0.9
    # a hand-like slot on a point (here far from the bar) corroborates the bar's
    p1 = [i for i, s in enumerate(SLOTS) if s.region == "p1"]
    probs[p1[2], HAND] = 0.4
    probs[p1[2], 0] = 0.59
    seen = counts_from_slot_probs(SLOTS, probs, bar_hand_corroboration=0.3)
    assert seen.bar.confidence == 0.0 and seen.points[5].confidence == 0.0 and seen.points[0].confidence == 0.0
    # a hand-like slot weaker than the corroboration threshold does not count
    assert counts_from_slot_probs(SLOTS, probs, bar_hand_corroboration=0.5).bar.confidence > 0.9


def test_neighbours() -> None:
    from vision.checkers import neighbours

    assert neighbours("p1") == ("p2",)
    assert neighbours("p12") == ("p11",) and neighbours("p13") == ("p14",)
    assert set(neighbours("p6")) == {"p5", "p7", "bar"}
    assert set(neighbours("bar")) == {"p6", "p7", "p18", "p19"}


def test_all_points_at_once_decode_like_one_stack_at_a_time() -> None:
    from vision.checkers import _argmax_doubt, decode_stack, decode_stacks

    rng = np.random.default_rng(3)
    cap = LAYOUT.spec.row_capacity
    colours = (Side.WHITE, Side.BLACK)
    for sharp in (0.05, 0.3, 1.0):
        ps = rng.dirichlet(np.full(len(SLOT_CLASSES), sharp), size=(24, cap))
        fast = decode_stacks(ps, colours, 0.3)
        for i in range(24):
            w, b, c = decode_stack(ps[i], cap, colours, 0.3)
            if _argmax_doubt(ps[i], None):
                c = 0.0
            assert fast[i][:2] == (w, b)
            assert abs(fast[i][2] - c) < 1e-9


def test_slot_patches_are_cut_where_the_slots_are() -> None:
    """The fixed-point mosaic remap gives the same patches as a plain float remap of each slot, both
    layers, as one contiguous array (no copy before the model), also when the mosaic needs padding
    (patch side 18: the patches do not fill its last row)."""
    import cv2

    from calibration.profile import CalibrationProfile
    from vision.checkers import SLOT_SPAN, SlotSampler

    data = Path(__file__).parent / "data"
    prof = CalibrationProfile.load(data / "board_900023.profile.json")
    img = cv2.imread(str(data / "board_900023.jpg"))
    for P in (20, 18):
        sampler = SlotSampler(prof, P)
        patches = sampler.patches(img)
        assert patches.shape == (len(sampler.slots), 2, P, P, 3) and patches.flags.c_contiguous
        span = SLOT_SPAN * prof.spec.checker_diameter_mm
        g = (np.arange(P) + 0.5) / P * span - span / 2
        gx, gy = np.meshgrid(g, g)
        for i in (0, 7, len(sampler.slots) - 1):
            sl = sampler.slots[i]
            sgn = -1 if sampler._flip(sl) else 1
            for layer in (1, 2):
                z = sl.z + layer * prof.spec.checker_height_mm
                pts = np.stack([sl.x + sgn * gx.ravel(), sl.y + sgn * gy.ravel(), np.full(gx.size, z)], axis=1)
                xy = prof.board_to_image(pts).astype(np.float32)
                ref = cv2.remap(img, xy[:, 0].reshape(P, P), xy[:, 1].reshape(P, P), cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_REPLICATE)
                assert np.abs(ref.astype(int) - patches[i, layer - 1].astype(int)).mean() < 1.5
        assert patches.std() > 5  # not a blank (e.g. all-border) mosaic


def test_slot_model_input_and_temperature() -> None:
    from vision.reader import SlotClassifier

    clf = SlotClassifier()
    assert clf.patch >= 16
    assert 0.3 <= clf.temperature <= 5.0
    x = np.zeros((3, 2, clf.patch, clf.patch, 3), np.uint8)
    p = clf.probabilities(x)
    assert p.shape == (3, len(SLOT_CLASSES))
    assert np.allclose(p.sum(axis=1), 1.0, atol=1e-5)


def test_multi_position_renders_share_the_camera(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Training renders of several positions on one scene: same board and camera, other positions."""
    from vision.training.rendered import render_variants, variant_frames

    monkeypatch.setenv("BGREF_RENDER_CACHE", str(tmp_path))
    paths = render_variants(11000, 3, 320, 180)
    assert [p.name for p in paths] == ["11000_0.png", "11000_1.png", "11000_2.png"]
    frames = variant_frames(320, 180)
    assert len(frames) == 3
    assert all(f.truth["camera"] == frames[0].truth["camera"] for f in frames)
    assert len({json_key(f.truth["counts"]) for f in frames}) == 3
    with pytest.raises(ValueError, match="not a training seed"):
        from vision.training.rendered import main

        main(["variants", "900000", "1", "1", "320", "180"])


def json_key(x: object) -> str:
    import json

    return json.dumps(x, sort_keys=True)


def test_the_cube_on_the_bar_may_hide_a_checker() -> None:
    """An "object" slot (a die, the cube) is no evidence: beyond an empty slot 0 the point still
    reads empty, but on the bar the cube on slot 0 may hide a checker and the bar stays unsure."""
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (0, 0))
    bar0 = next(i for i, s in enumerate(SLOTS) if s.region == "bar" and s.side is Side.BLACK and s.index == 0)
    p3 = next(i for i, s in enumerate(SLOTS) if s.region == "p3" and s.index == 2)
    labels[bar0] = OBJECT
    labels[p3] = OBJECT
    r = counts_from_slot_probs(SLOTS, _onehot(labels))
    assert (r.points[2].white, r.points[2].black) == (0, 0) and r.points[2].confidence > 0.99
    assert r.bar.confidence < 0.9


def test_full_rows_need_more_confidence() -> None:
    """A full row (5) could be a 6 with its second layer missed: its error is weighted up."""
    labels = slot_labels(LAYOUT, SLOTS, [(5, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels, 0.999)
    plain = counts_from_slot_probs(SLOTS, probs).points[0]
    strict = counts_from_slot_probs(SLOTS, probs, layer_error_factor=10.0).points[0]
    assert (strict.white, strict.black) == (5, 0)
    assert strict.confidence < plain.confidence
    assert abs((1 - strict.confidence) - 10 * (1 - plain.confidence)) < 2e-4


def test_the_full_row_weight_is_capped() -> None:
    """The full-row error weight stops at the cap (a full row is never sure alone, but the totals
    can still confirm it), and never makes the decoder's own error smaller."""
    labels = slot_labels(LAYOUT, SLOTS, [(5, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels, 0.999)
    k1 = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 0)
    probs[k1, 2] = 0.02  # a hint of a second layer on slot 0: six checkers
    plain = counts_from_slot_probs(SLOTS, probs).points[0]
    err = 1 - plain.confidence
    assert 0.01 < err < 0.1
    capped = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, layer_error_cap=0.2).points[0]
    assert (capped.white, capped.black) == (5, 0)
    assert capped.confidence == pytest.approx(0.8, abs=1e-4)
    assert capped.alternatives[0][:2] == (6, 0)
    assert sum(p for _, _, p in capped.alternatives) == pytest.approx(0.2, abs=0.01)
    uncapped = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, layer_error_cap=1.0).points[0]
    assert uncapped.confidence == pytest.approx(max(1e-4, 1 - 30 * err), abs=2e-3)  # err is rounded
    low_cap = counts_from_slot_probs(SLOTS, probs, layer_error_factor=30.0, layer_error_cap=err / 2).points[0]
    assert low_cap.confidence == pytest.approx(plain.confidence, abs=1e-4)


def test_hand_mask_is_recomputed_from_the_scene(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand of a cached render is redrawn from its seed: the regions it covers are the truth's,
    and only slots it really hides are relabelled "hand" (the rest of a covered region keeps its class)."""
    import cv2

    import vision.training.slots as slots_training
    from vision.checkers import HAND
    from vision.sim.optics import CameraModel
    from vision.sim.truth import covered_regions
    from vision.training.rendered import hand_mask, profile_for, render_variants, variant_frames
    from vision.training.slots import IGNORE, cached_slots, hand_slot_labels

    monkeypatch.setenv("BGREF_RENDER_CACHE", str(tmp_path))
    render_variants(11000, 4, 320, 180)  # position 3 of scene 11000 has a hand
    frames = {f.image_path.stem: f for f in variant_frames(320, 180)}
    assert hand_mask(frames["11000_0"]) is None
    r = frames["11000_3"]
    m = hand_mask(r)
    assert m is not None and m.shape == (180, 320) and m.any()
    q = cv2.resize(m, (80, 45), interpolation=cv2.INTER_AREA)
    prof = profile_for(r.truth)
    assert covered_regions(prof.layout, CameraModel.from_json(r.truth["camera"]), q) == r.truth["hands"]["covered"]
    _, y = cached_slots(r)
    y2, how = hand_slot_labels(r, y)
    assert r.truth["hands"]["covered"] == ["p7", "p8", "p17", "p18", "bar"]
    assert how == "mask"
    # the old labels made all 30 slots of the 5 covered regions "hand"; the hand hides some of them,
    # grazes a few more (left out of training) and the rest keep their class
    assert int((y == HAND).sum()) == 30 and 0 < int((y2 == HAND).sum()) < 30
    assert 0 < int((y2 == IGNORE).sum()) < 15
    assert ((y2 == HAND) | (y2 == y) | (y == HAND) | (y2 == IGNORE)).all()
    # cached: the second call reads the file and does not redraw the hand
    y3, how3 = slots_training.cached_hand_labels(r)
    assert how3 == how and (y3 == y2).all()

    def redraw(*_: object) -> None:
        raise AssertionError("hand mask recomputed")

    monkeypatch.setattr(slots_training, "hand_slot_labels", redraw)
    y4, how4 = slots_training.cached_hand_labels(r)
    assert how4 == how and (y4 == y2).all()
    assert not slots_training.is_tray_render(r)


def test_a_fine_tune_keeps_the_folded_batch_norms() -> None:
    """A slot model started from exported weights keeps its batch norms in eval mode while training
    (the export folded them into the convolutions; batch statistics would change the function)."""
    torch = pytest.importorskip("torch")
    from vision.training.slots import slot_net

    net = slot_net()
    net.frozen_bn = True
    net.train()
    bns = [m for m in net.body if isinstance(m, torch.nn.BatchNorm2d)]
    assert bns and not any(m.training for m in bns)
    assert any(m.training for m in net.body if isinstance(m, torch.nn.Dropout))
    fresh = slot_net().train()
    assert all(m.training for m in fresh.body if isinstance(m, torch.nn.BatchNorm2d))


def test_alternatives_are_the_decoders_other_hypotheses() -> None:
    """An unsure stack lists the other likely counts with their posterior probabilities (summing with
    the reported one to at most 1); a sure one lists none; a hand-covered one lists none."""
    from vision.checkers import ALTERNATIVE_MIN

    labels = slot_labels(LAYOUT, SLOTS, [(3, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels, 0.999)
    third = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 2)
    probs[third] = 0.0
    probs[third, 1] = 0.6  # white1: 3 checkers
    probs[third, 0] = 0.4  # empty: 2 checkers
    r = counts_from_slot_probs(SLOTS, probs).points[0]
    assert (r.white, r.black) == (3, 0) and 0.55 < r.confidence < 0.65
    assert r.alternatives[0][:2] == (2, 0) and abs(r.alternatives[0][2] - 0.4) < 0.02
    assert all(p >= ALTERNATIVE_MIN for _, _, p in r.alternatives)
    assert (r.white, r.black) not in [a[:2] for a in r.alternatives]
    assert r.confidence + sum(p for _, _, p in r.alternatives) <= 1.0 + 1e-6
    sure = counts_from_slot_probs(SLOTS, probs).points[5]
    assert sure.confidence > 0.99 and sure.alternatives == ()
    assert counts_from_slot_probs(SLOTS, probs, frozenset({"p1"})).points[0].alternatives == ()


def test_bar_alternatives_are_joint_over_both_halves() -> None:
    labels = slot_labels(LAYOUT, SLOTS, [(0, 0)] * 24, (1, 0))
    probs = _onehot(labels, 0.999)
    w0 = next(i for i, s in enumerate(SLOTS) if s.region == "bar" and s.side is Side.WHITE and s.index == 0)
    probs[w0] = 0.0
    probs[w0, 1] = 0.7
    probs[w0, 0] = 0.3
    bar = counts_from_slot_probs(SLOTS, probs).bar
    assert (bar.white, bar.black) == (1, 0) and 0.65 < bar.confidence < 0.75
    assert bar.alternatives[0][:2] == (0, 0) and abs(bar.alternatives[0][2] - 0.3) < 0.02


def test_full_row_alternatives_carry_the_layer_error_weight() -> None:
    """A full row's error weight moves probability from the reading to its alternatives."""
    labels = slot_labels(LAYOUT, SLOTS, [(5, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels, 0.9999)
    k1 = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 0)
    probs[k1, 2] = 0.002  # a hint of a second layer on slot 0: six checkers
    strict = counts_from_slot_probs(SLOTS, probs, layer_error_factor=10.0).points[0]
    assert (strict.white, strict.black) == (5, 0)
    assert strict.alternatives and strict.alternatives[0][:2] == (6, 0)
    total = strict.confidence + sum(p for _, _, p in strict.alternatives)
    assert 0.99 < total <= 1.0 + 1e-6


def test_an_object_on_a_point_leans_to_empty() -> None:
    """The slot model labels a checker with a die on it as the checker, so an "object" slot is weak
    evidence of an empty slot (``object_weight``); at 1 it is no evidence and the count is a coin toss."""
    labels = slot_labels(LAYOUT, SLOTS, [(1, 0)] + [(0, 0)] * 23, (0, 0))
    k1 = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 1)
    labels[k1] = OBJECT
    probs = _onehot(labels, 0.999)
    blind = counts_from_slot_probs(SLOTS, probs, object_weight=1.0).points[0]
    assert blind.confidence < 0.6 and {(blind.white, blind.black), blind.alternatives[0][:2]} == {(1, 0), (2, 0)}
    lean = counts_from_slot_probs(SLOTS, probs, object_weight=0.01).points[0]
    assert (lean.white, lean.black) == (1, 0) and lean.confidence > 0.98


def test_totals_that_do_not_add_up_are_not_trusted() -> None:
    """More than 15 of a colour caps the regions holding it; borne-off checkers while the side still
    has checkers outside its home board (a missed checker's typical trace) make the tray unsure."""
    from vision.checkers import TRAY_DOUBT

    too_many = [(0, 0)] * 24
    too_many[0], too_many[1], too_many[2], too_many[3] = (5, 0), (5, 0), (5, 0), (2, 0)
    r = counts_from_slot_probs(SLOTS, _onehot(slot_labels(LAYOUT, SLOTS, too_many, (0, 0)), 0.9999))
    assert all(x.confidence <= TRAY_DOUBT for x in r.points[:4]) and r.trays[0].confidence == 0.0
    assert r.points[5].confidence > 0.99  # an empty point is not in doubt
    missed = [(0, 0)] * 24
    missed[5], missed[12], missed[23] = (5, 0), (4, 0), (0, 2)  # 9 white on the board: 6 "borne off"
    r = counts_from_slot_probs(SLOTS, _onehot(slot_labels(LAYOUT, SLOTS, missed, (0, 0)), 0.9999))
    assert r.trays[0].white == 6 and r.trays[0].confidence <= TRAY_DOUBT  # white still has p13
    assert r.trays[1].black == 13 and r.trays[1].confidence > 0.99  # black only in its home (p24)


def test_tray_alternatives_follow_the_board_alternatives() -> None:
    """A 5-stack that may be a 6 gives the derived tray the alternative "one fewer borne off"."""
    labels = slot_labels(LAYOUT, SLOTS, [(5, 0)] + [(0, 0)] * 23, (0, 0))
    probs = _onehot(labels, 0.9999)
    k1 = next(i for i, s in enumerate(SLOTS) if s.region == "p1" and s.index == 0)
    probs[k1, 2] = 0.01  # a hint of a second layer on slot 0: six checkers
    r = counts_from_slot_probs(SLOTS, probs, layer_error_factor=10.0)
    p1 = r.points[0]
    assert p1.alternatives[0][:2] == (6, 0)
    tray = r.trays[0]
    assert tray.white == 10 and tray.alternatives[0][:2] == (9, 0)
    assert abs(tray.alternatives[0][2] - p1.alternatives[0][2]) < 1e-6
    assert r.trays[1].black == 15 and r.trays[1].alternatives == ()
