"""The board candidates do not depend on OpenCV's global RNG (``calibration.board.border_colours``).

k-means++ draws its seeds from ``cv2.theRNG()``; the table colours of the blob candidates were clustered
unseeded, so the candidates, and with them the whole calibration, changed with whatever the process had
run before (held-out scenes 3163 and 3171 were placed wrong inside the benchmark's long run and abstained
when calibrated alone).
"""

from __future__ import annotations

import cv2
import numpy as np

from calibration.board import border_colours


def _disturb(seed: int) -> None:
    cv2.setRNGSeed(seed)
    cv2.kmeans(np.random.default_rng(seed).random((200, 3), dtype=np.float32), 4, None,
               (cv2.TERM_CRITERIA_MAX_ITER, 3, 1.0), 1, cv2.KMEANS_PP_CENTERS)


def test_table_colours_are_the_same_whatever_ran_before() -> None:
    # a border of many colour patches: three clusters of it depend on where k-means starts
    rng = np.random.default_rng(5)
    lab = np.repeat(np.repeat(rng.integers(0, 256, (12, 16, 3)), 40, axis=0), 40, axis=1).astype(np.uint8)
    runs = []
    for seed in (1, 12345, 987654, 42):
        _disturb(seed)
        runs.append(border_colours(lab))
    assert runs[0].shape == (3, 3)
    for other in runs[1:]:
        np.testing.assert_array_equal(other, runs[0])
