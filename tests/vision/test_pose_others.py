"""The pose model's others plane (vision/dice/pose.py): where the other dice found lie, in each patch's axes."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.pose import POSE_PATCH, POSE_PLANES, POSE_SPAN, PosePatch, others_plane, pose_inputs


def test_others_plane_marks_each_other_die_where_the_grey_planes_show_it() -> None:
    """A die half an edge to the patch's right and one toward the camera: the mark's peak is in the
    column / row the planes sample there; no other die: an empty plane; a mirrored patch's mark is the
    mirror image (the training's flip keeps the planes and the mark together)."""
    n = POSE_PATCH
    g = np.linspace(-(POSE_SPAN / 2 - POSE_SPAN / (2 * n)), POSE_SPAN / 2 - POSE_SPAN / (2 * n), n)
    p = others_plane(((0.5, 1.0),))
    r, c = np.unravel_index(int(np.argmax(p)), p.shape)
    assert abs(g[c] - 0.5) < POSE_SPAN / n and abs(g[r] - 1.0) < POSE_SPAN / n and p.max() > 0.95
    assert p[n // 2, n // 2] < 0.05 and np.all(others_plane(()) == 0)
    assert np.allclose(others_plane(((-0.5, 1.0),)), p[:, ::-1], atol=1e-6)
    two = others_plane(((0.5, 1.0), (-0.8, -0.2)))
    assert np.allclose(np.maximum(p, others_plane(((-0.8, -0.2),))), two)


def test_pose_inputs_with_others_adds_one_plane_and_keeps_the_rest() -> None:
    rng = np.random.default_rng(3)
    patches = [PosePatch(rng.integers(0, 255, (len(POSE_PLANES), POSE_PATCH, POSE_PATCH), dtype=np.uint8), 0.3, o)
               for o in ((), ((0.9, 0.1),))]
    a, b = pose_inputs(patches), pose_inputs(patches, others=True)
    assert a.shape[1] == len(POSE_PLANES) + 1 and b.shape[1] == len(POSE_PLANES) + 2
    assert np.array_equal(a, b[:, :-1])
    assert np.all(b[0, -1] == 0) and np.array_equal(b[1, -1], others_plane(((0.9, 0.1),)))


def test_pose_patches_give_each_die_the_others_in_its_own_axes() -> None:
    """Default others: every other centre given; in die edges, across (u) and toward the camera (v):
    the camera's ground point lies straight toward the camera (u 0, v > 0) from every patch."""
    from vision.dice.pose import camera_centre, pose_patch, pose_patches
    from vision.sim.config import SimConfig
    from vision.sim.render import render
    from vision.sim.scene import random_scene
    from vision.sim.truth import build_truth
    from vision.training.rendered import profile_for

    cfg = SimConfig().with_overrides(hands_p=0.0, cup_p=0.0, tilt_deg=(30.0, 40.0))
    scene = random_scene(901997, cfg, width=1280, height=720)
    _, info = render(scene)
    prof = profile_for(build_truth(scene, info))
    gray = np.zeros((720, 1280), np.uint8)
    cam = camera_centre(prof)
    edge = 16.0
    centres = [(100.0, 200.0), (116.0, 200.0), (300.0, 150.0)]
    ps = pose_patches(gray, prof, centres, edge)
    for i, p in enumerate(ps):
        assert len(p.others) == 2
        d = [np.hypot(a, b) * edge for a, b in p.others]
        want = sorted(np.hypot(centres[j][0] - centres[i][0], centres[j][1] - centres[i][1]) for j in range(3) if j != i)
        assert sorted(d) == pytest.approx(want)
    ground = pose_patch(gray, prof, centres[0], edge, others=[(float(cam[0]), float(cam[1]))]).others[0]
    assert abs(ground[0]) < 1e-6 and ground[1] > 0
    assert pose_patch(gray, prof, centres[0], edge).others == ()
    assert pose_patches(gray, prof, centres[:2], edge, others=[[], [centres[2]]])[0].others == ()


def test_others_array_round_trip_and_widened_model_unchanged() -> None:
    """Training keeps up to MAX_OTHERS others per sample, NaN-padded; a 6-plane head widened by the
    others plane (its new weights 0) gives the same logits whatever the others plane holds."""
    from vision.training.pose import MAX_OTHERS, others_array, others_of

    a = others_array([(), ((0.5, 1.0),), tuple((float(i), 0.0) for i in range(MAX_OTHERS + 2))])
    assert a.shape == (3, MAX_OTHERS, 2) and np.isnan(a[0]).all()
    assert others_of(a[0]) == () and others_of(a[1]) == ((0.5, 1.0),) and len(others_of(a[2])) == MAX_OTHERS
    torch = pytest.importorskip("torch")
    from torch import nn

    from vision.training.pose import make_pose, widen_input

    torch.manual_seed(0)
    m = make_pose(nn, len(POSE_PLANES) + 1).eval()
    x = torch.randn(4, len(POSE_PLANES) + 1, POSE_PATCH, POSE_PATCH)
    with torch.no_grad():
        before = m(x)
        w = widen_input(nn, m, len(POSE_PLANES) + 2).eval()
        after = w(torch.cat([x, torch.rand(4, 1, POSE_PATCH, POSE_PATCH)], dim=1))
    assert torch.allclose(before, after, atol=1e-5)
