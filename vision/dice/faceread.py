"""A found die's up face: reading its rectified top face and deciding when the face stands.

:func:`read_top_faces` reads every candidate's up face on the plane of a flat die's top
(:mod:`vision.dice.topface`, ``die_face_top.onnx``), re-reads the plausible ones on a 3 x 3 grid of
shifted squares and in its turns (``DiceConfig.top_check_views``), and caps a face the readings do not agree on at 0.5 (unsure);
:func:`face_needed` is the probability a face must reach given the pose model's P(flat).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.config import VisionConfig
from vision.dice.classify import FaceClassifier, FaceGuess, face_guess
from vision.dice.config import DiceConfig
from vision.dice.topface import top_face_patches
from vision.preprocess import CONTEXT, PATCH

DICE = DiceConfig()


def choose(g: list[FaceGuess], vote_notdie: float, vote_share: float, min_probability: float) -> tuple[int, FaceGuess]:
    """The most die-like of one candidate's re-read crops (index, reading); its face probability is
    capped at 0.5 (unsure) unless the die-like crops agree on the face (``vote_share`` of their
    weight, :func:`_vote_share`) and it reaches ``min_probability``."""
    j = min(range(len(g)), key=lambda k: g[k].doubt)
    best = g[j]
    if _vote_share(g, best.face, vote_notdie) < vote_share or best.probability < min_probability:
        best = FaceGuess(best.face, min(best.probability, 0.5), best.not_die)
    return j, best


def read_top_faces(gray: npt.NDArray[Any], profile: Any, centres: npt.NDArray[Any], z: float,
                   model: FaceClassifier, dcfg: DiceConfig = DICE) -> tuple[npt.NDArray[np.float64], list[FaceGuess]]:
    """Read candidates (board mm, on the plane ``z`` = the die's edge) on their rectified up faces
    (:mod:`vision.dice.topface`).  A candidate the first reading calls a die decisively
    (``DiceConfig.top_decisive_*``) goes straight to the check below (or, sure beyond doubt,
    ``top_sure_min_probability``, stands without it); one it does not reject is
    re-read on the 3 x 3 grid of squares shifted by ``DiceConfig.top_refine_shift_px`` patch pixels
    (slices of one rectified window per candidate): the most die-like square wins when it is clearly
    a die, and the grid's die-like squares vote on its face.  The square kept, moved or not, is read
    once more in its turns (``DiceConfig.top_check_views``): its face stands only when that reading agrees and reaches
    ``top_min_probability`` (else it is capped at 0.5, unsure).
    Returns the (maybe moved) centres and the readings."""
    mm = np.asarray(centres, np.float64).reshape(-1, 2).copy()
    edge = z
    s = dcfg.top_refine_shift_px
    steps = max(1, dcfg.top_recentre_steps)
    mg = s * steps
    win = top_face_patches(gray, profile, mm, z, edge, margin=mg)

    def square(i: int, dx: int, dy: int) -> npt.NDArray[Any]:
        return win[i][mg + dy : mg + dy + PATCH, mg + dx : mg + dx + PATCH]

    # each slice's raw probabilities (7) by (candidate, dx, dy): the check's unturned view reuses them
    raw: dict[tuple[int, int, int], npt.NDArray[np.float32]] = {}

    # the turned views (all but 0) of slices checked early, read with the grid's first run
    early: dict[tuple[int, int, int], npt.NDArray[np.float32]] = {}
    views = dcfg.top_check_views
    rest = tuple(v for v in views if v != 0)

    def read(keys: list[tuple[int, int, int]], ahead: Sequence[tuple[int, int, int]] = ()) -> list[FaceGuess]:
        if not isinstance(model, FaceClassifier):  # a stand-in that only classifies (tests)
            return model.classify_patches([square(*k) for k in keys], tta=False)
        p, t = model.read_both([square(*k) for k in keys], [square(*k) for k in ahead], rest if ahead else ())
        raw.update(zip(keys, p, strict=True))
        early.update(zip(ahead, t.transpose(1, 0, 2), strict=True))
        return [face_guess(q) for q in p]

    first = read([(i, 0, 0) for i in range(len(win))])
    out = list(first)
    # (candidate, square's shift in patch px, the grid agrees on its face, moved): read in its turns
    # at the end
    decisive = [i for i, f in enumerate(first)
                if f.not_die < dcfg.top_decisive_max_notdie and f.probability >= dcfg.top_decisive_min_probability]
    # a reading sure beyond doubt (``top_sure_min_probability``) stands as it is
    check: list[tuple[int, tuple[int, int], bool, bool]] = [
        (i, (0, 0), True, False) for i in decisive if first[i].probability < dcfg.top_sure_min_probability]
    done = set(decisive)
    todo = [i for i, f in enumerate(first) if f.not_die < dcfg.top_refine_max_notdie and i not in done]
    grid = [(dx, dy) for dx in (0, -s, s) for dy in (0, -s, s)]
    at = {i: (0, 0) for i in todo}  # the square's shift so far
    cur = {i: first[i] for i in todo}  # its reading
    last: dict[int, list[FaceGuess]] = {}  # the last grid read around it
    agreed: dict[int, bool] = {}  # the grid that moved it last agreed on its face
    seen = {(i, 0, 0): first[i] for i in todo}  # (candidate, dx, dy) -> its reading
    active = list(todo)
    # the decisive readings' checks do not depend on the grid: their turns go with its first run
    early_ok = dcfg.top_tta_final and 0 in views and bool(rest) and isinstance(model, FaceClassifier)
    ahead: Sequence[tuple[int, int, int]] = [(i, 0, 0) for i, _, _, _ in check] if early_ok else []
    for _ in range(steps):
        if not active:
            break
        # a square a previous grid read is not read again (a step shares 3-6 of its 9 squares)
        new = list(dict.fromkeys((i, at[i][0] + dx, at[i][1] + dy) for i in active for dx, dy in grid
                                 if (i, at[i][0] + dx, at[i][1] + dy) not in seen))
        seen.update(zip(new, read(new, ahead), strict=True))
        ahead = ()
        moving = []
        for i in active:
            gs = [seen[(i, at[i][0] + dx, at[i][1] + dy)] for dx, dy in grid]
            j, best = choose(gs, dcfg.vote_notdie, dcfg.top_vote_share, 0.0)
            c = cur[i]
            moved = (j != 0 and best.not_die < dcfg.top_refined_max_notdie
                     and best.doubt < c.doubt)
            last[i] = gs
            if moved:
                at[i] = (at[i][0] + grid[j][0], at[i][1] + grid[j][1])
                cur[i] = gs[j]
                agreed[i] = best.probability == gs[j].probability
                moving.append(i)
        active = moving
    mm_per_px = edge * CONTEXT / PATCH
    for i in todo:
        gs = last[i]
        f = first[i]
        if at[i] != (0, 0):
            mm[i] += np.array(at[i], np.float64) * mm_per_px
            check.append((i, at[i], agreed[i], True))
            out[i] = cur[i]
        elif f.not_die < dcfg.top_refined_max_notdie and dcfg.top_check_unmoved:
            # the detector's own square is the most die-like: checked like a moved one (fresh seed
            # 900476: a 3 read 2 at 0.94 on one view stood unchecked; 0.88 in 8 turns)
            check.append((i, (0, 0), _vote_share(gs, f.face, dcfg.vote_notdie) >= dcfg.top_vote_share, False))
        elif f.probability < dcfg.top_min_probability:
            out[i] = FaceGuess(f.face, min(f.probability, 0.5), f.not_die)
    if check:
        # a side face of a tilted die can look like a face from one orientation, rarely from all
        # eight; a moved square's P(not a die) is the 8-turn reading's (keeping the slice's instead
        # made one more wrong face on the tuning seeds), the detector's own square keeps its first
        # reading's (as before the check: the check decides the face, not whether it is a die;
        # with the 8-turn value, 3 more of 280 dice of 900400-900539 were lost)
        tt = (_check_readings(model, [(i, dx, dy) for i, (dx, dy), _, _ in check], square, raw, early, views)
              if dcfg.top_tta_final else [(out[i], 0.0) for i, _, _, _ in check])
        for (i, _, agree, moved), (t, least) in zip(check, tt, strict=True):
            ok = agree and t.face == out[i].face and t.probability >= dcfg.top_min_probability
            nd = t.not_die if moved else out[i].not_die
            # every turn reads the face (none below ``top_unanimous_min_view``) of a sure die: it
            # stands at the bar
            whole = (agree and t.face == out[i].face and t.probability >= dcfg.top_unanimous_min_mean
                     and least >= dcfg.top_unanimous_min_view and nd < dcfg.top_unanimous_max_notdie)
            p = t.probability if ok else max(t.probability, dcfg.top_min_probability) if whole else min(t.probability, 0.5)
            out[i] = FaceGuess(t.face, p, nd, whole and not ok)
    return mm, out


def _check_readings(model: FaceClassifier, keys: list[tuple[int, int, int]],
                    square: Callable[[int, int, int], npt.NDArray[Any]],
                    raw: dict[tuple[int, int, int], npt.NDArray[np.float32]],
                    early: dict[tuple[int, int, int], npt.NDArray[np.float32]],
                    views: tuple[int, ...]) -> list[tuple[FaceGuess, float]]:
    """The turned check (``DiceConfig.top_check_views``) of the slices ``keys`` (candidate, dx, dy): the mean of their probabilities in
    ``views`` (as ``FaceClassifier.classify_patches(tta=True, views=views)``), the unturned view (0)
    taken from ``raw`` (the slice's earlier unturned reading) instead of read again (1 of 8 model
    reads saved) and the turned views of a slice in ``early`` (read with the grid) from there: the
    same numbers (to the model's float rounding across batches).  With each reading, the least
    probability any one view gives its face when every view reads that face (0.0 when a view reads
    another face, or when ``model`` only gives the mean)."""
    if not isinstance(model, FaceClassifier):  # a stand-in that only classifies (tests)
        return [(g, 0.0) for g in model.classify_patches([square(*k) for k in keys], tta=True, views=views)]
    if 0 not in views or not all(k in raw for k in keys):
        vp = model.view_probabilities([square(*k) for k in keys], views).transpose(1, 0, 2)
        return [_turns_reading(p) for p in vp]
    rest = tuple(v for v in views if v != 0)
    todo = [k for k in keys if k not in early]
    if todo and rest:
        early = {**early, **dict(zip(todo, model.view_probabilities([square(*k) for k in todo], rest).transpose(1, 0, 2), strict=True))}
    out = []
    for k in keys:
        turned = iter(early[k] if rest else ())
        out.append(_turns_reading(np.stack([raw[k] if v == 0 else next(turned) for v in views])))
    return out


def _turns_reading(probs: npt.NDArray[np.float32]) -> tuple[FaceGuess, float]:
    """The reading of one slice's (views, 7) probabilities: their mean's, and the least face
    probability one view gives the mean's face when every view reads it (0.0 when one does not)."""
    g = face_guess(probs.mean(axis=0))
    views = [face_guess(p) for p in probs]
    least = min(v.probability for v in views) if all(v.face == g.face for v in views) else 0.0
    return g, least


def _vote_share(g: list[FaceGuess], face: int, vote_notdie: float) -> float:
    """The share of the die-like readings' weight ((1 - P(not a die)) x P(face), those below
    ``vote_notdie``) that reads ``face`` (1.0 when none is die-like).  Weighed by P(face) (session 16):
    on game frames the squares shifted toward one side of a flat die (a row of the 3 x 3 grid) read a
    weak 2 (P 0.39-0.60) while the other six read its face at 0.73-0.97, which capped a face the
    turned check read surely (7588 f1495, a 5 and a 1); weighed by (1 - P(not a die)) only, their
    share was 0.67 < ``top_vote_share``.  Seen: 39 re-rendered s15f game frames faces right 52 -> 56
    of 102, slots 900040-900339 498 -> 503 of 600, wrong faces and phantoms unchanged."""
    votes = [((1 - a.not_die) * a.probability, a.face) for a in g if a.not_die < vote_notdie]
    wsum = sum(w for w, _ in votes)
    return sum(w for w, f in votes if f == face) / wsum if wsum > 0 else 1.0


def face_needed(p_flat: float, config: VisionConfig, dcfg: DiceConfig = DICE) -> float:
    """The face probability a die's reading needs to stand, given the pose model's P(flat): a die
    that may lean shows a side face almost as much as its top, so the less flat, the surer the face
    must be (``tilted_face_min_probability`` below P(flat) 0.5, ``leaning_face_min_probability``
    below ``leaning_max_flat``).

    >>> cfg = VisionConfig()
    >>> face_needed(0.9, cfg), face_needed(0.3, cfg), face_needed(0.05, cfg)
    (0.9, 0.975, 0.99)
    """
    need = config.face_min_confidence
    if p_flat < 0.5:
        need = max(need, dcfg.tilted_face_min_probability)
    if p_flat < dcfg.leaning_max_flat:
        need = max(need, dcfg.leaning_face_min_probability)
    return need


