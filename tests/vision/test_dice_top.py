"""The rectified up face (vision.dice.topface) and its reading on a board (vision.dice.faceread)."""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np
import pytest

from vision.dice.classify import FaceGuess
from vision.dice.config import DiceConfig
from vision.dice.faceread import read_top_faces
from vision.dice.topface import normalise_fast, patch_corners_mm, top_face_patches
from vision.preprocess import CONTEXT, PATCH, normalise_patches

# a tilted camera: board mm (x, y) -> image px through a homography (z ignored: the plane is fixed)
H = np.array([[3.0, 0.9, 40.0], [0.2, 2.0, 30.0], [0.0008, 0.0015, 1.0]])


class _Plane:
    def board_to_image(self, pts: Any) -> np.ndarray:
        p = np.asarray(pts, float)
        q = np.column_stack([p[:, 0], p[:, 1], np.ones(len(p))]) @ H.T
        return q[:, :2] / q[:, 2:3]


def _view(top: np.ndarray, size: tuple[int, int] = (640, 480)) -> np.ndarray:
    """The camera's image of a top view drawn at 1 px/mm."""
    return cv2.warpPerspective(top, H, size, flags=cv2.INTER_LINEAR)


def test_the_rectified_face_is_a_square_of_the_die_size_whatever_the_view() -> None:
    top = np.full((200, 200), 210, np.uint8)
    cv2.rectangle(top, (52, 62), (67, 77), 30, -1)  # a 16 mm dark square centred on (60, 70) mm
    img = _view(top)
    p = top_face_patches(img, _Plane(), np.array([[60.0, 70.0]]), z=16.0, edge=16.0)[0]
    dark = p < 120
    ys, xs = np.nonzero(dark)
    inside = PATCH / CONTEXT  # the die's edge in patch pixels
    assert abs((xs.max() - xs.min() + 1) - inside) <= 2.5 and abs((ys.max() - ys.min() + 1) - inside) <= 2.5
    assert abs(xs.mean() - (PATCH - 1) / 2) < 1.0 and abs(ys.mean() - (PATCH - 1) / 2) < 1.0


def test_turned_and_scaled_squares() -> None:
    c = patch_corners_mm(np.array([[10.0, 20.0]]), 16.0, np.array([2.0]), np.array([90.0]))[0]
    side = 16.0 * CONTEXT * 2.0
    assert np.allclose(c.mean(axis=0), [10.0, 20.0])
    assert np.allclose(np.linalg.norm(c[1] - c[0]), side)
    assert np.allclose(c[1] - c[0], [0.0, side], atol=1e-9)  # turned a quarter: the first edge points along +y
    assert top_face_patches(np.zeros((10, 10), np.uint8), _Plane(), np.zeros((0, 2)), 16.0, 16.0) == []


def test_a_fine_image_is_smoothed_before_resampling() -> None:
    """A near camera (many image pixels per patch pixel): a fine checkerboard must average to grey,
    not alias into a pattern of false pips."""
    yy, xx = np.mgrid[0:480, 0:640]
    img = np.where((xx // 2 + yy // 2) % 2 == 0, 40, 220).astype(np.uint8)

    class _Near:
        def board_to_image(self, pts: Any) -> np.ndarray:
            p = np.asarray(pts, float)
            return np.column_stack([100 + 6 * p[:, 0], 100 + 6 * p[:, 1]])

    p = top_face_patches(img, _Near(), np.array([[20.0, 20.0]]), 16.0, 16.0)[0]
    assert p.std() < 15, p.std()


class _Stub:
    """A model whose reading depends on how far the rectified square's centre is from the die
    (found from the patch: the die is the dark square drawn at (60, 70) mm)."""

    def __init__(self, near_notdie: float) -> None:
        self.near_notdie = near_notdie

    def classify_patches(self, patches: list[np.ndarray], *, tta: bool = True, views: tuple[int, ...] = ()) -> list[FaceGuess]:
        out = []
        for p in patches:
            ys, xs = np.nonzero(p < 120)
            off = np.hypot(xs.mean() - 15.5, ys.mean() - 15.5) if len(xs) else 99.0
            out.append(FaceGuess(5, 0.99, self.near_notdie) if off < 1.5 else FaceGuess(3, 0.6, 0.3))
        return out


@pytest.mark.parametrize(("near_notdie", "moved"), [(0.001, True), (0.2, False)])
def test_refinement_moves_only_to_a_clearly_die_like_square(near_notdie: float, moved: bool) -> None:
    top = np.full((200, 200), 210, np.uint8)
    cv2.rectangle(top, (52, 62), (67, 77), 30, -1)
    img = _view(top)
    shift = DiceConfig().top_refine_shift_px
    start = np.array([[60.0 - shift * 16 * CONTEXT / PATCH, 70.0]])  # one refinement shift off
    mm, g = read_top_faces(img, _Plane(), start, 16.0, _Stub(near_notdie), DiceConfig(top_vote_share=0.0))  # type: ignore[arg-type]
    if moved:
        assert np.allclose(mm[0], [60.0, 70.0]) and (g[0].face, g[0].probability) == (5, 0.99)
    else:
        assert np.allclose(mm[0], start[0]) and g[0].face == 3 and g[0].probability <= 0.5


class _Slope(_Stub):
    """A model less sure it sees a die the farther the square is from the die's centre (a face
    5 within 6 patch px, else 3): a hill to climb."""

    def classify_patches(self, patches: list[np.ndarray], *, tta: bool = True, views: tuple[int, ...] = ()) -> list[FaceGuess]:
        out = []
        for p in patches:
            ys, xs = np.nonzero(p < 120)
            off = np.hypot(xs.mean() - 15.5, ys.mean() - 15.5) if len(xs) else 99.0
            out.append(FaceGuess(5 if off < 6 else 3, 0.95 if off < 6 else 0.6, min(0.9, 0.001 + 0.006 * off)))
        return out


@pytest.mark.parametrize(("steps", "shifts_left"), [(1, 1), (2, 0)])
def test_the_grid_climbs_toward_the_die(steps: int, shifts_left: int) -> None:
    """A centre two shifts off the die: one grid moves it one shift, a second grid reaches the die."""
    top = np.full((200, 200), 210, np.uint8)
    cv2.rectangle(top, (52, 62), (67, 77), 30, -1)
    img = _view(top)
    shift = DiceConfig().top_refine_shift_px
    mm_px = 16 * CONTEXT / PATCH
    start = np.array([[60.0 - 2 * shift * mm_px, 70.0]])
    model = _Slope(0.0)
    reads: list[int] = []
    read = model.classify_patches

    def counting(patches: list[np.ndarray], *, tta: bool = True, views: tuple[int, ...] = ()) -> list[FaceGuess]:
        reads.append(len(patches))
        return read(patches, tta=tta, views=views)

    model.classify_patches = counting  # type: ignore[method-assign]
    mm, g = read_top_faces(img, _Plane(), start, 16.0, model,  # type: ignore[arg-type]
                           DiceConfig(top_recentre_steps=steps, top_vote_share=0.0))
    assert np.allclose(mm[0], [60.0 - shifts_left * shift * mm_px, 70.0])
    assert (g[0].face, g[0].probability) == (5, 0.95)
    # first reading, the grid's 8 other squares, (the second grid's 3 new squares,) the 8-turn check
    assert reads == ([1, 8, 1] if steps == 1 else [1, 8, 3, 1])


def test_a_window_holds_the_shifted_patches() -> None:
    """The refinement reads shifted squares as slices of one larger window: the same pixels as
    cutting each shifted square on its own."""
    rng = np.random.default_rng(1)
    top = cv2.GaussianBlur(rng.integers(0, 255, (200, 200)).astype(np.uint8), (0, 0), 2.0)
    img = _view(top)
    c = np.array([[60.0, 70.0]])
    win = top_face_patches(img, _Plane(), c, 16.0, 16.0, margin=4)[0]
    assert win.shape == (PATCH + 8, PATCH + 8)
    step = 16.0 * CONTEXT / PATCH  # mm per patch pixel
    for dx, dy in ((0, 0), (4, 0), (-4, 4)):
        alone = top_face_patches(img, _Plane(), c + np.array([[dx * step, dy * step]]), 16.0, 16.0)[0]
        part = win[4 + dy : 4 + dy + PATCH, 4 + dx : 4 + dx + PATCH]
        assert np.abs(alone.astype(int) - part).max() <= 1


def test_fast_normalisation_gives_the_training_numbers() -> None:
    rng = np.random.default_rng(2)
    ps = [rng.integers(0, 256, (PATCH, PATCH)).astype(np.uint8) for _ in range(6)]
    ps += [np.clip(rng.normal(200, 15, (PATCH, PATCH)), 0, 255).astype(np.uint8) for _ in range(6)]
    for p in ps[6:9]:
        p[10:14, 10:14] = 250  # light pips: the polarity flips
    assert np.abs(normalise_fast(ps) - normalise_patches(ps)).max() < 1e-5
    assert normalise_fast([]).shape == (0, 1, PATCH, PATCH)


def test_a_side_face_reading_toward_the_camera_is_dropped() -> None:
    from vision.dice.board import side_face_readings

    cam = (400.0, 900.0)  # the camera's foot, far "below" the dice in y
    top = np.array([[400.0, 300.0], [400.0, 319.0]])  # the second reading 1.2 edges toward the camera
    assert side_face_readings(top, cam, 16.0) == {1}
    assert side_face_readings(top[::-1].copy(), cam, 16.0) == {0}
    beside = np.array([[400.0, 300.0], [419.0, 300.0]])  # two dice side by side across the line of sight
    assert side_face_readings(beside, cam, 16.0) == set()
    far = np.array([[400.0, 300.0], [400.0, 330.0]])  # 1.9 edges: two dice
    assert side_face_readings(far, cam, 16.0) == set()


class _Counting:
    """A model reading every patch as ``face`` (in turns too: ``tta_face``), counting the patches read."""

    def __init__(self, face: int, probability: float, not_die: float, tta_face: int | None = None) -> None:
        self.guess = FaceGuess(face, probability, not_die)
        self.tta = FaceGuess(tta_face or face, probability, not_die)
        self.reads: list[tuple[int, bool]] = []

    def classify_patches(self, patches: list[np.ndarray], *, tta: bool = True, views: tuple[int, ...] = ()) -> list[FaceGuess]:
        self.reads.append((len(patches), tta))
        return [self.tta if tta else self.guess for _ in patches]


@pytest.mark.parametrize(("tta_face", "stands"), [(5, True), (2, False)])
def test_a_decisive_first_reading_is_checked_in_its_turns_without_the_grid(tta_face: int, stands: bool) -> None:
    img = _view(np.full((200, 200), 128, np.uint8))
    model = _Counting(5, 0.985, 0.001, tta_face)  # decisive, below top_sure_min_probability
    mm, g = read_top_faces(img, _Plane(), np.array([[60.0, 70.0]]), 16.0, model, DiceConfig())  # type: ignore[arg-type]
    assert model.reads == [(1, False), (1, True)]  # no 3 x 3 re-read
    assert np.allclose(mm[0], [60.0, 70.0])
    assert (g[0].face, g[0].probability >= 0.9) == (tta_face, stands)
    # an undecided first reading is re-read on the grid; the square kept (here the detector's own:
    # every square reads the same) is checked in its turns too, and stands only if they agree
    for tta_face2, stands2 in ((5, True), (3, False)):
        model = _Counting(5, 0.95, 0.001, tta_face2)
        mm, g = read_top_faces(img, _Plane(), np.array([[60.0, 70.0]]), 16.0, model, DiceConfig())  # type: ignore[arg-type]
        assert model.reads == [(1, False), (8, False), (1, True)]  # the centre is not read twice
        assert np.allclose(mm[0], [60.0, 70.0]) and (g[0].probability >= 0.9) == stands2
    model = _Counting(5, 0.95, 0.001, 3)  # the check off: the first reading stands unchecked
    mm, g = read_top_faces(img, _Plane(), np.array([[60.0, 70.0]]), 16.0, model,  # type: ignore[arg-type]
                           DiceConfig(top_check_unmoved=False))
    assert model.reads == [(1, False), (8, False)] and (g[0].face, g[0].probability) == (5, 0.95)


@pytest.mark.parametrize(("probability", "reads"), [(0.995, [(1, False)]), (0.985, [(1, False), (1, True)])])
def test_a_reading_sure_beyond_doubt_stands_without_the_check(probability: float, reads: list[tuple[int, bool]]) -> None:
    img = _view(np.full((200, 200), 128, np.uint8))
    model = _Counting(4, probability, 0.001, 2)  # the turns would read 2: only a checked reading hears them
    _, g = read_top_faces(img, _Plane(), np.array([[60.0, 70.0]]), 16.0, model, DiceConfig())  # type: ignore[arg-type]
    assert model.reads == reads
    assert (g[0].face, g[0].probability >= 0.9) == ((4, True) if probability >= DiceConfig().top_sure_min_probability else (2, False))
    model = _Counting(4, 0.999, 0.001, 2)  # the skip off: every decisive reading is checked
    _, g = read_top_faces(img, _Plane(), np.array([[60.0, 70.0]]), 16.0, model,  # type: ignore[arg-type]
                          DiceConfig(top_sure_min_probability=1.01))
    assert model.reads == [(1, False), (1, True)] and g[0].face == 2


def test_the_views_are_the_patch_turned_and_mirrored() -> None:
    """Reading a patch in views (0, 2, 5, 7) is reading those four orientations of it: a model that
    reads which corner the one dark pixel is in sees the four corners' average."""
    from vision.dice.classify import FaceClassifier

    class _Corner(FaceClassifier):
        def __init__(self) -> None:  # no model file: probabilities from the dark pixel's corner
            pass

        def probabilities(self, x: Any) -> np.ndarray:
            out = np.zeros((len(x), 7), np.float32)
            for n, p in enumerate(x[:, 0]):
                y, xx = np.unravel_index(int(np.argmin(p)), p.shape)
                out[n, 1 + 2 * (y >= PATCH // 2) + (xx >= PATCH // 2)] = 1.0  # faces 1-4: the corner
            return out

    p = np.full((PATCH, PATCH), 200, np.uint8)
    p[3, 5] = 0  # the top-left corner
    model = _Corner()
    assert model.classify_patches([p], tta=False)[0].face == 1
    one = model.classify_patches([p], tta=True, views=(0,))[0]
    assert (one.face, one.probability) == (1, 1.0)
    # half a turn: bottom-right (4); a quarter turn (counter-clockwise: bottom-left) mirrored:
    # bottom-right (4); three quarters (top-right) mirrored: top-left (1); so (0, 2, 5, 7) halves 1 and 4
    four = model.classify_patches([p], tta=True, views=(0, 2, 5, 7))[0]
    assert four.face in (1, 4) and abs(four.probability - 0.5) < 1e-6
    for v, face in ((2, 4), (5, 4), (7, 1), (1, 3), (4, 2), (3, 2), (6, 3)):
        assert model.classify_patches([p], tta=True, views=(v,))[0].face == face, v


def test_the_less_flat_the_die_the_surer_its_face_must_be() -> None:
    from vision.config import VisionConfig
    from vision.dice.faceread import face_needed

    cfg, d = VisionConfig(), DiceConfig()
    assert face_needed(0.95, cfg, d) == cfg.face_min_confidence
    assert face_needed(0.3, cfg, d) == d.tilted_face_min_probability
    assert face_needed(0.05, cfg, d) == d.leaning_face_min_probability
    assert face_needed(d.leaning_max_flat, cfg, d) == d.tilted_face_min_probability  # the bounds: below, not at
    assert face_needed(0.5, cfg, d) == cfg.face_min_confidence


def test_a_peak_centre_is_the_weighted_mean_of_its_cells() -> None:
    """Two equal neighbouring cells: the regressed centre of the peak cell alone, or halfway between
    both cells' centres with ``centroid``; a lone cell is where its own offset puts it."""
    from vision.dice.detect import STRIDE, DieDetector

    class _Heat(DieDetector):
        def __init__(self, heat: np.ndarray) -> None:  # no model: a given heat map
            self._heat = heat

        def heat(self, top: np.ndarray) -> np.ndarray:
            return self._heat

    h = np.zeros((3, 10, 10), np.float32)
    h[0, 4, 4] = h[0, 4, 5] = 0.9  # two cells of one die, no offsets
    h[0, 8, 1] = 0.8
    h[1, 8, 1], h[2, 8, 1] = 0.25, -0.5
    top = np.zeros((40, 40, 3), np.uint8)
    plain = _Heat(h).peaks(top, 0.5, 4)
    cen = _Heat(h).peaks(top, 0.5, 4, centroid=True)
    assert (plain[0].u, plain[0].v) == (4.5 * STRIDE - 0.5, 4.5 * STRIDE - 0.5)
    assert (cen[0].u, cen[0].v) == (5.0 * STRIDE - 0.5, 4.5 * STRIDE - 0.5)  # halfway between the two cells
    lone = next(p for p in cen if p.score < 0.85)
    assert np.allclose((lone.u, lone.v), ((1.5 + 0.25) * STRIDE - 0.5, (8.5 - 0.5) * STRIDE - 0.5))
    # a peak in the map's corner: the cells off the map weigh nothing, an offset beyond a cell is clipped
    e = np.zeros((3, 6, 8), np.float32)
    e[0, 0, 0], e[0, 0, 1], e[0, 1, 0] = 0.9, 0.3, 0.3
    e[1, 0, 0], e[2, 0, 0] = 3.0, -0.5
    corner = _Heat(e).peaks(np.zeros((24, 32, 3), np.uint8), 0.5, 4, centroid=True)[0]
    u = (0.9 * (0.5 + 1.0) + 0.3 * 1.5 + 0.3 * 0.5) / 1.5
    v = (0.9 * (0.5 - 0.5) + 0.3 * 0.5 + 0.3 * 1.5) / 1.5
    assert np.allclose((corner.u, corner.v), (u * STRIDE - 0.5, v * STRIDE - 0.5))


def test_the_check_reuses_the_unturned_reading() -> None:
    """The turned check takes a slice's unturned view from its first reading instead of reading it
    again (7 model reads, not 8, in all 8 views; 3, not 4, in the default four turns) and gives the
    same reading as reading every view afresh."""
    from vision.dice.classify import ALL_VIEWS, FaceClassifier

    class _Corner(FaceClassifier):
        """A decisive reading of which corner of the patch is darkest (faces 1-4), counting patches."""

        def __init__(self) -> None:  # no model file
            self.patches: list[int] = []

        def probabilities(self, x: Any) -> np.ndarray:
            self.patches.append(len(x))
            out = np.full((len(x), 7), 0.003, np.float32)  # a face at 0.985: decisive, checked
            for n, p in enumerate(x[:, 0]):
                y, xx = np.unravel_index(int(np.argmin(p)), p.shape)
                out[n, 1 + 2 * (y >= PATCH // 2) + (xx >= PATCH // 2)] = 0.98
                if np.ptp(p) < 1e-6:  # a blank square: maybe a die (re-read on the grid)
                    out[n, 0] = 0.3
            return out

    class _Plain:  # the same model seen only through classify_patches: every view read afresh
        def __init__(self, model: FaceClassifier) -> None:
            self.model = model

        def classify_patches(self, patches: list[np.ndarray], *, tta: bool = True, views: tuple[int, ...] = ()) -> list[FaceGuess]:
            return self.model.classify_patches(patches, tta=tta, views=views)

    top = np.full((200, 200), 200, np.uint8)
    top[66:69, 55:58] = 0  # a dark spot up and left of the centre (60, 70) mm
    img, centre = _view(top), np.array([[60.0, 70.0]])
    eight = DiceConfig(top_check_views=ALL_VIEWS)
    reuse, fresh = _Corner(), _Corner()
    read_top_faces(img, _Plane(), centre, 16.0, reuse, DiceConfig())
    assert reuse.patches == [1, 3]  # the default: the four quarter turns, the unturned one reused
    reuse = _Corner()
    mm_a, a = read_top_faces(img, _Plane(), centre, 16.0, reuse, eight)
    mm_b, b = read_top_faces(img, _Plane(), centre, 16.0, _Plain(fresh), eight)  # type: ignore[arg-type]
    assert reuse.patches == [1, 7] and fresh.patches == [1, 8]  # decisive, then checked in its turns
    assert np.array_equal(mm_a, mm_b)
    assert a == b and a[0].probability < 0.9  # the turns read other corners: not confirmed
    # with a second, undecided candidate (blank) the grid is read: the first one's turns go with it
    two = np.array([[60.0, 70.0], [150.0, 140.0]])
    reuse, fresh = _Corner(), _Corner()
    mm_a, a = read_top_faces(img, _Plane(), two, 16.0, reuse, eight)
    mm_b, b = read_top_faces(img, _Plane(), two, 16.0, _Plain(fresh), eight)  # type: ignore[arg-type]
    assert reuse.patches == [2, 8 + 7] and fresh.patches == [2, 8, 8]
    assert np.array_equal(mm_a, mm_b) and a == b and abs(a[1].not_die - 0.3) < 1e-6
