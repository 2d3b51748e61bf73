"""The die detector: the committed net's output contract, and the lighter nets' training code (torch)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.dice.detect import DIE_DETECT_MODEL, STRIDE, DieDetector, net_input


def test_the_committed_detector_scores_every_cell_and_finds_a_drawn_die() -> None:
    """A white 16 mm square (8 px at 0.5 px/mm) with dark pips on green felt: one peak on it, nothing
    on the plain felt elsewhere."""
    top = np.zeros((96, 128, 3), np.uint8)
    top[:] = (40, 110, 30)  # green felt (BGR)
    top[44:52, 60:68] = 235
    for dv, du in ((1, 1), (1, 6), (6, 1), (6, 6)):
        top[44 + dv, 60 + du] = 20
    det = DieDetector(DIE_DETECT_MODEL)
    heat = det.heat(top)
    assert heat.shape == (3, 96 // STRIDE, 128 // STRIDE) and 0.0 <= float(heat[0].min()) <= float(heat[0].max()) <= 1.0
    peaks = det.peaks(top, 0.2, 8, centroid=True)
    assert len(peaks) == 1 and abs(peaks[0].u - 63.5) < 4 and abs(peaks[0].v - 47.5) < 4


def test_light_nets_keep_the_detector_contract() -> None:
    """Each lighter net maps the detector's input (1, 3, H, W) to (1, 3, H/4, W/4) like the committed
    one, and trains on the committed recipe's loss (one step lowers nothing to NaN)."""
    torch = pytest.importorskip("torch")
    from vision.training.detector_light import ARCHS, make_light_detector
    from vision.training.faces import detector_loss

    torch.manual_seed(0)
    x = torch.from_numpy(net_input(np.random.default_rng(0).integers(0, 255, (64, 96, 3), np.uint8)))
    for arch in ARCHS:
        net = make_light_detector(arch)
        y = net(x)
        assert tuple(y.shape) == (1, 3, 64 // STRIDE, 96 // STRIDE)
        t = torch.zeros(1, 4, 64 // STRIDE, 96 // STRIDE)
        t[0, 1, 5, 7] = t[0, 0, 5, 7] = 1.0
        loss = detector_loss(y, t)
        loss.backward()
        assert torch.isfinite(loss)
    with pytest.raises(ValueError, match="'big'"):
        make_light_detector("big")
