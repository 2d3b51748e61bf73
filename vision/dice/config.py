"""Thresholds of the dice search on a calibrated board (the shared :class:`VisionConfig` holds the rest).

>>> DiceConfig().refine_offsets
(0.0, -0.15, 0.15)
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class DiceConfig:
    """Candidate refinement (test-time augmentation) of the face classifier on a board.

    A candidate from the top-view contrast search is centred to about a millimetre and sized from the
    profile, but the classifier was trained on crops centred on the face to ~6% of its side; so a
    candidate it does not reject outright is re-read on a small grid of shifted and scaled crops and the
    most die-like crop wins, only if it is clearly a die and the die-like crops agree on the face.
    """

    detect_min_score: float = 0.2
    """Detector peaks (die-centre score 0..1) below this are not candidates."""
    detect_centroid: bool = True
    """A peak's centre is the score-weighted mean of its 3x3 cells' regressed centres (else the peak
    cell's own; see ``DieDetector.peaks``).  Right / wrong / unsure / missed / false, off -> on:
    tuning 901000-901159 229/1/54/36/0 -> 230/1/53/36/0; held out 900040-900399 539/0/80/101/1 ->
    543/0/89/88/1, 900400-900539 214/0/33/33/0 -> 222/0/27/31/0, fresh 901160-901206 80/0/6/8/0 ->
    84/0/2/8/0."""
    detect_max_peaks: int = 8
    """At most this many detector peaks are read by the face classifier (best first).  Seen seeds
    900000-900579 (1160 dice; right / wrong / unsure / missed / false), re-centring on: 8 peaks
    902/0/138/120/1, 12 peaks 910/0/139/111/1, but on 901207-901299 12 peaks made one more false die
    (unsure, speckled cork read as a die: 140/0/22/24/2 -> 143/0/22/21/3) and cost ~1 ms: 8.
    Re-centring off, 8 -> 12 -> 16 with ``detect_min_score`` 0.15: 876/0/144/140/1 ->
    882/0/146/132/1 -> 897/1/143/119/2 (a wrong face and a false 4)."""
    second_look_below: int = 2
    """When the stage finds fewer dice than this (a pair is two), the detector's next peaks are read
    too (a second look, ``board.second_look``): peaks beyond ``detect_max_peaks`` or below
    ``detect_min_score``, down to ``second_look_min_score`` and up to ``second_look_peaks`` in all,
    the best ``second_look_max_reads`` of them centred and read like the first ones, kept only when
    surely a die with a sure face (0: off; with more dice found, ``second_look_found_below``).
    Session 8, seen 900040-900339: of 56 missed dice, 13 had a peak the stage did not read ("peak
    below the score or the peak limit": 14 by ``evaluate --why``), 9 of them read surely."""
    second_look_found_below: int = 5
    """When the stage finds at least ``second_look_below`` dice but fewer than this, the second look
    still reads the best ``second_look_found_reads`` of those peaks (a board holds at most four dice,
    a premature throw beside the mover's pair: 5 = every frame; until session 15 such frames never
    looked again).  In played games the die of a throw never found is mostly a die the detector ranks
    11th-18th (board texture and checkers above it) while the other die, or the mover's pair, is
    found: on the missed outside-table, premature, wrong-distance and hit-not-to-bar throws of the
    seen s13f + s14f games, 78 true dice never found or face-unread, 43 of them never found, and of
    those 12 read surely at the true centre with a peak ranked 2nd-18th within 9 mm
    (``/tmp/s15/dice/diag.py``).  Session 15, on those 54 re-rendered frames (152 true dice), found /
    faces right / wrong / phantoms: sessions 8-14's look 106 / 74 / 1 / 0; every frame with 12 reads
    (cb337ed) 114 / 82 / 1 / 0, but ~1.3 ms CPU more a 720p frame (paired bench, dice stage 9.0 ->
    11.2 ms: the first readings of 12 more peaks); with this rule (6 reads when a pair is found, 12
    when not) see ``second_look_found_reads``.  Session 14's 42 frames of phantom spots: the same 28
    phantoms (none with a face), nothing else changed."""
    second_look_found_reads: int = 6
    """See ``second_look_found_below`` (each read ~0.1 ms CPU: the frames that find a pair pay for these
    only).  On the 54 game frames: 6 reads 114 / 82 / 1 / 0 (as 12), 4 reads 111 / 79 / 1 / 0.  Seen
    900040-900339 497/0/58/45/1, right-hand table 552/552 (as cb337ed).  Paired ``bgref bench vision
    --frames 20 --repeats 11`` against session 14's code, dice stage CPU at 720p 9.31 -> 11.62, 9.26 ->
    9.69, 7.58 -> 9.42 ms, at 1080p 9.87 -> 10.97, 9.87 -> 11.23, 9.32 -> 10.92 ms; interleaved in one
    process on 900000-900019 at 720p 7.71 -> 8.51 ms: about +0.8 to +1.9 ms a 720p frame."""
    second_look_peaks: int = 20
    """See ``second_look_below`` (12 until session 15).  16 peaks down to score 0.1 read 2 more dice
    on 900040-900339 (489/0/64/47/1 against 487/0/64/49/1) and 1 more on 900340-900579 (395/0/42/43/0 against
    394/0/41/45/0) but made the dice stage ~0.3 ms CPU slower at 720p and 0.5 ms at 1080p on the
    bench (``bgref bench vision --frames 20 --repeats 11``, two runs each, off -> on: 9.32 / 9.56 ->
    9.63 / 9.86 ms); 12 peaks down to 0.13: 9.52 / 9.16 -> 8.99 / 8.90 ms at 720p, 9.89 / 9.78 ->
    9.97 / 9.66 ms at 1080p (load ~7, noise ~0.3 ms): not slower."""
    second_look_max_reads: int = 12
    """At most this many of those peaks (the best first) are read by the second look (speed: each
    costs a face-model read, ~0.1 ms; 4 until session 15, see ``second_look_below``).  12 -> 4:
    900040-900339 487/0/64/49/1 -> 486/0/64/50/1, 900340-900579 394/0/41/45/0 -> 393/0/41/46/0.
    Paired bench runs at load ~2 (off -> on, dice stage CPU at 720p): 12 reads 7.87 / 8.11 -> 8.31 / 8.45 ms (slower by ~0.3 ms), 4 reads
    9.16 / 8.31 -> 8.32 / 7.63 ms (1080p 8.52 / 8.60 -> 9.09 / 8.54): within the noise."""
    second_look_min_score: float = 0.13
    """See ``second_look_below`` and ``second_look_peaks``."""
    second_look_first_max_notdie: float = 0.05
    """A second-look peak is centred and read in full only when a first reading at the detector's
    own centre gives P(not a die) below this (speed: most such peaks are board texture).  With 16
    peaks down to 0.1, right / wrong / unsure / missed / false, 0.5 -> 0.2 -> 0.1 -> 0.05:
    900040-900339 489/0/64/47/1 for all;
    900340-900579 396/0/43/41/0, the same, 395/0/43/42/0, 395/0/42/43/0 (no second look
    392/0/41/47/0).  The dice stage's CPU on the bench frames 900000-900019 (loaded machine, median
    of per-frame medians, off -> on): 0.5 9.57 -> 9.86 ms, 0.2 9.06 -> 9.36 ms, 0.05 9.15 -> 9.11 ms
    and 9.19 -> 9.23 ms: the frames that look again (5 of 20) pay ~1.1-1.6 ms instead of up to 4.4."""
    second_look_max_notdie: float = 0.003
    """A second-look reading is a die only below this P(not a die) (stricter than ``top_notdie_max``:
    among the 16 best peaks of a frame most are not dice; on 900040-900339 every second-look reading
    below 0.01 with a face at 0.97 was a die the stage missed) ..."""
    second_look_min_probability: float = 0.97
    """... and with its face read at this probability or more (after the grid and 8-turn check)."""
    near_look_edges: tuple[float, float] = (0.8, 1.6)
    """A look beside each found die (``board.near_cells``, ``board.near_look``; (0, 0): off): the
    detector's best cell between these many die edges of each die found, at ``near_look_min_score``
    or more, farther than ``same_die_edges`` from every point already read, is read like a first
    peak (centre model, grid, turns) when a first reading there gives P(not a die) below
    ``second_look_first_max_notdie``, and kept below ``near_look_max_notdie`` with a face at
    ``near_look_min_probability``.  A die leaning on the other die, or the die it leans on, lies
    there, and the found die's peak hides its neighbour's from the 3 x 3 peak search (session 13,
    pose renders 901850-901899: of 31 dice leaning on the other die never found, 14 had a found die
    within 1.6 edges and no peak read near them, 13 of them with heat 0.18-0.72 at their centre).  Measured with
    ``side_face_min_pair_probability`` 0.99 and ``same_die_edges`` 0.8 (the three together, below)."""
    near_look_yields: bool = True
    """A near-look reading and an earlier one on the line toward the camera (``side_face_readings``):
    the near look's is dropped, whichever lies nearer the camera (off: the nearer one, as for any
    two readings; pose renders 901850-901899 with it off: 2 dice found before lost, 2 others found)."""
    near_look_min_score: float = 0.15
    """See ``near_look_edges`` (0.1 with ``same_die_edges`` 0.75: pose renders 901650-901899
    cocked found 1032 instead of 1030 of 1410, flat 2802 / 2790 of 3149, but seen 900340-900579 one
    flat die fewer)."""
    near_look_max_notdie: float = 0.05
    """See ``near_look_edges`` (``top_notdie_max``; 0.003 with a face at 0.97, the second look's
    bars, the near look alone: pose renders 901850-901899 cocked found 256 instead of 258)."""
    near_look_min_probability: float = 0.0
    """See ``near_look_edges`` (a leaning die's face is mostly unsure: the bar is on P(not a die))."""
    side_face_min_pair_probability: float = 0.99
    """Two readings on the line toward the camera (``side_face_readings``) whose faces are both read
    at this probability or more and are the same face or opposite faces (adding up to 7) are two
    dice, not a die and its side: a die's side faces are never its top's face or the opposite one
    (1.01: off).  0.9 kept a leaning 5 (read 4 at 0.974) and its own side (read 4 at 0.972) as two
    dice (pose render 901693_2, a false die); 0.99 keeps the pairs read at 0.997-0.9996 (901885_4,
    a 4 leaning on a 4; 901886_5, a 5 leaning on a 2)."""
    centre_passes: int = 1
    """Move each detector centre by the centre model (``die_centre.onnx``: the offset to the die its
    window shows) before the face is read, this many times, each from the last move's window
    (``board.refine_centres``; 0: off).  Seen seeds 900040-900339 (600 dice, right / wrong / unsure /
    missed / false; median distance of right / unsure readings from the die): 0 -> 1 pass
    464/0/70/66/1 (1.76 / 3.19 mm) -> 482/1/56/61/1 (0.80 / 2.69 mm), 900340-900579 (480 dice)
    386/0/48/46/0 -> 395/0/38/47/0; 2 passes 477/1/51/71/2 (more missed, a false die).  The wrong face
    is a die cocked against a checker (900151, a 3 read 6 at 0.990), see ``cocked_face``."""
    centre_peaks: int = 8
    """Only the best this many detector peaks are moved by the centre model (speed)."""
    centre_max_move_edges: float = 0.7
    """A centre-model move longer than this many die edges is not made."""
    recentre_edges: float = 0.0
    """A candidate the up-face reading rejects as "not a die" but not outright (P(not a die) from
    ``top_notdie_max`` up to ``recentre_max_notdie``) is read again at centres moved by this many
    die edges in 8 directions (the detector's centre can be 4-9 mm off a die beside a checker or
    another die); the most die-like reading that passes every check replaces it (0: off).  Seeds
    900000-900579, 8 peaks: off 876/0/144/140/1, 0.3 edges 902/0/138/120/1 (half of the dice the
    face model rejected at the detector's centre were 4-9 mm off it).  Off since the centre model
    (``centre_passes``) moves the centres: 900040-900339 with it, 0.3 -> off: 476/0/63/61/1 ->
    476/0/62/62/1, the dice stage ~0.5 ms less CPU."""
    recentre_max_notdie: float = 0.9
    """See ``recentre_edges``."""
    recentre_climbers: int = 2
    """Of a re-centred candidate's 8 moved centres, read once each, this many (the most die-like
    first) are read in full (shifted grids, 8-turn check; 0: every one the up-face reading would
    re-read, as in session 5).  Seen seeds, right / wrong / unsure / missed / false, 0 -> 2:
    900040-900339 464/0/70/66/1 both, 900340-900579 386/0/48/46/0 both; 1 lost 2 dice on
    900040-900339.  The dice stage's CPU on 900000-900029: 10.50 -> 9.97 ms (loaded machine)."""
    recentre_moved_max_notdie: float = 0.01
    """A moved reading replaces the candidate's only when its P(not a die) is below this (stricter
    than ``top_notdie_max``: a search over 8 more squares finds die-like texture more often; on seeds
    900000-900579 the two moved readings that were not dice, a speckled cork board read 4 and 4,
    had 0.021 and 0.038, 23 of the 32 moved onto dice were below 0.01)."""
    board_notdie_max: float = 0.05
    """On a board a detector candidate is a die when the face model's P(not a die) is below this
    (0.12 found 3 more of 80 validation dice but made 9 false dice on 260 held-out frames, 3 at 0.05)."""
    same_die_edges: float = 0.8
    """Two readings whose centres lie closer than this many die edges (board mm) are one die (the
    better read is kept): two dice lying flat cannot be closer than one edge, but a die leaning on
    the other die, its top read on the plane of a flat die's top, can (session 13, 0.9 -> 0.8: pose
    render 901894_4, a 3 leaning 44 degrees on a flat 2, read 0.84 edges from it, and 901899_0; with
    the near look most gains of the three rules are here).  Session 13, the three rules (off ->
    ``near_look_edges`` (0.8, 1.6), ``side_face_min_pair_probability`` 0.99, this 0.8), dice stage
    alone: pose renders 901650-901799 + 901850-901899 (seen, 1200 frames) cocked dice found 1005 ->
    1030 of 1410 visible (leaning on the other die 144 -> 169 of 254), flat 2745 -> 2790 of 3149,
    faces right / wrong / unsure 2912 / 6 / 832 -> 2967 / 6 / 847 (the same 6 wrong dice), false
    dice 3 -> 3 (the same); seen 900040-900339 496/0/57/47/1 -> 497/0/57/46/1, 900340-900579
    397/0/37/46/0 -> 398/0/39/43/0 (right / wrong / unsure / missed / false), right-hand table
    (both slices) 981/981 -> 985/985."""
    candidate_side: float = 1.0
    """Crop side of a top-view candidate, in die edges projected at die height."""
    dedupe_distance: float = 0.02
    """Candidates of about the same size closer than this many sides are one candidate (read once)."""
    tta_first: bool = False
    """Read the first crops in 8 orientations (slower; refinement crops are read once)."""
    refine_offsets: tuple[float, ...] = (0.0, -0.15, 0.15)
    """Shifts of the refinement crops in x and y, in candidate sides (a 3 x 3 grid)."""
    refine_scales: tuple[float, ...] = (1.0, 1.15)
    """Scales of the refinement crops."""
    refine_max_notdie: float = 0.9
    """Candidates the first reading calls 'not a die' with more than this are not refined (speed)."""
    refined_max_notdie: float = 0.01
    """A refined crop replaces the first reading only when P(not a die) is below this (no false dice)."""
    vote_notdie: float = 0.5
    """Refinement crops with P(not a die) below this vote on the face ..."""
    vote_share: float = 0.7
    """... and the winning face needs this share of their weight, else the face is unsure."""
    refined_min_probability: float = 0.97
    """A refined crop's face probability below this makes the face unsure."""
    flat_min_probability: float = 0.99871
    """:func:`vision.dice.pose.pose_call`: P(flat) (the two-head die_pose.onnx's deciding head) at or
    above this: flat; between this and the leaning / on-die limits below: unsure (None).  Session 7
    (deciding head: session 6's 16-epoch candidate), tuned on the seen pose renders 901500-901649 at
    the die stage's own centres (900 frames, 745 found cocked dice: the 2nd highest P(flat) of a cocked
    die, ``tune(allow=0.002)``, plus half its distance to 1); seen 901650-901799: 1 of 735 cocked dice
    called flat, 354 of 2026 flat dice called flat (session 6's head at 0.99909: 2 and 281)."""
    on_die_min_probability: float = 0.5
    """A cocked die with P(on the other die) at or above this rests on top of the other die."""
    leaning_min_probability: float = 0.96659
    """:func:`vision.dice.pose.pose_call`: P(leaning) at or above this, or ...  Session 13 (the averaged
    deciding head, sha256 59ae8296b6a1137a): pooled, 0.25 logits above the highest P(leaning) + P(on the
    other die) of a seen flat die the previous head left uncalled (901884_0, 0.9575), over all seen
    pose renders 901650-901799, 901850-901899, 904000-904239 (6113 flat, 2252 cocked dice found, at
    the die stage's centres): cocked called cocked 721 -> 755, flat called cocked 5 -> 5 (the same
    dice), cocked called flat 5 -> 4 (``die_pose.train.json`` "session13": why 0.25).  Was 0.98514
    (sessions 7-12's head, 0.14 logits above its own highest uncalled flat die)."""
    on_die_call_min_probability: float = 0.96659
    """... P(on the other die) at or above this, or, the two being one pooled threshold, their sum:
    cocked (the split rule's own on-die limit called 4 of 660 flat dice cocked on 901550-901599)."""
    white_dice_bgr: tuple[int, int, int] | None = None
    """Body colour (BGR) of White's dice and ...."""
    black_dice_bgr: tuple[int, int, int] | None = None
    """... of Black's dice, when the two pairs differ in colour (else owner is None)."""
    owner_margin: float = 2.0
    """A die belongs to a pair when its colour is this many times nearer (Lab) that pair's than the other's."""
    owner_min_separation: float = 25.0
    """Pairs whose colours lie closer than this (Lab distance) are not told apart."""
    cocked_face: bool = False
    """Report the face of a die the pose model calls cocked against a checker, the rail or the other
    die (its face still needs ``face_needed``); off: such a die has no face (unsure): the throw is void
    whatever it shows, and a tilted top shows a side face almost as much as its own.  A die lying on
    the other die keeps its face (its top is level).  900040-900339 with the centre model: on
    482/1/56/61/1 (900151: a 3 leaning on a checker read 6 at 0.990, P(flat) < 0.1), off
    476/0/63/61/1 (6 faces of cocked dice no longer given)."""
    tilted_face_min_probability: float = 0.975
    """A die the pose model does not think flat (P(flat) < 0.5) needs this face probability (a
    tilted die shows a side face almost as much as its top: 900150, a 4 leaning on the bar, read 2
    at 0.91) ...  0.97 -> 0.975 (session 12): recorded game 7441 frame 1045, a flat 3 (camera 43 deg)
    whose side 21 mm off read 1 at 0.9725 with P(flat) 0.13 (17 frames; its top one edge on reads 3
    at P(not a die) 0.39, so ``unread_tops`` does not see it), is unsure; right faces made unsure:
    900322 (a cocked 6 at 0.971) and pose render 901866_3 (a flat 6 at 0.973): a thin margin, chosen
    on these seen sets.  0.98 made 4 right faces unsure on 900040-900339 and 4 on 901850-901889."""
    leaning_max_flat: float = 0.1
    """... and one it thinks is not flat at all (P(flat) below this) ..."""
    leaning_face_min_probability: float = 0.99
    """... needs this (900391, a 6 leaning on the rail, P(flat) 0.05, read 3 at 0.985: the one wrong
    face of sessions 3 and 4 on 900040-900399).  Tuning seeds (400 dice): 2 right dice fewer, the same
    1 wrong (a cocked 3 with P(flat) 0.71).  0.99 for every P(flat) < 0.5 instead: 6 fewer on the
    tuning seeds, 18 fewer of 720 on 900040-900399."""
    likely_leaning_min_probability: float = 0.4
    """A die the pose model leaves unsure (not called cocked) with P(leaning) at least this ...  (0.6
    until session 13: the averaged head's P(leaning) runs lower; at 0.4 it flags every die but one the
    old head flagged at 0.6 on the seen pose renders, and read_dice's faces on the 437 seen frames whose
    call or flag changes are wrong 6 -> 6, the same dice.)"""
    likely_leaning_max_flat: float = 0.3
    """... and a face-check P(flat) below this has no face (``board.likely_leaning``): its crop shows
    a side face almost as much as its top, and a side face can read at 0.98-0.995 (session 9, pose
    renders 901850-901899: 901853_2 a 1 leaning 40 deg on a checker read 4 at 0.995, P(leaning)
    0.98, P(flat) 0.17; 901870_0 a 6 leaning 44 deg on the other die read 3 at 0.977, P(leaning)
    0.66, P(flat) 0.20; 901878_5 a 3 lying on the other die read 5 at 0.999 on a crop 11 mm off it,
    P(leaning) 0.87, P(flat) 0.01).  Right / wrong / unsure faces, off -> (0.6, 0.3): pose renders
    (tuning) 757/4/195 -> 729/1/226 (22 of the 28 lost on cocked dice); seen 900040-900339
    486/0/64 -> 482/0/68, seen 900340-900579 393/0/41 -> 386/0/48, 902900-902999 159/0/16 ->
    157/0/18: of the 13 right faces lost on these slices 12 are on cocked dice (a void throw
    anyway), one a flat 2 (900503).  P(flat) below 0.5 instead of 0.3: the same three caught, 2 / 3
    more right faces lost on the two seen slices; P(leaning) 0.65-0.7 sits at the 0.659 it must
    catch; 1.01: off."""

    photo_read_scales: tuple[float, ...] = (1.0, 1.1)
    """The profile-free photo finder (``photo.find_dice``, ``die_face.onnx``) reads each candidate
    square at these multiples of its side, probabilities averaged over them and the 8 views.  The
    finder's square often cuts a face's corner pips (crops_tomitomi3 5s read 0.79-0.90 at 1.0).
    Chosen on the photographs' tuning slice (``training.faces.photo_tune_slice``) with two
    fine-tunes that never saw it (1.0 -> (1.0, 1.1): tomitomi 238 -> 240 of 240 for both, webcam
    135 -> 135 and 136 of 140, 0 wrong); held out with the committed model: tomitomi 237 -> 239 of
    240, webcam Valid 241 -> 242 of 245, 0 wrong."""
    photo_top_sides: tuple[float, ...] = (0.7, 0.8)
    """The photo finder confirms a square it reads unsure on its top face alone
    (``classify.TopWindows``): windows of these fractions of the square's side ...  (() = off).
    Chosen on the photographs' tuning slice (``training.faces.photo_tune_slice``, 631 candidate
    squares) with session 6's fine-tune A that never saw it: off 617 sure and right, on 622, 0 wrong;
    windows of 0.6 also showed side faces surely (2 webcam dice), so not used.  Held out, the
    committed ``die_face.onnx``: webcam Valid 242 -> 244 of 245 (valid_16, valid_86: dice seen at an
    angle), tomitomi 239 -> 239 of 240, 0 wrong; the finder 245 -> 247 right, the same 1 "wrong"
    (valid_56's label error)."""
    photo_top_shifts: tuple[float, ...] = (0.12, 0.2)
    """... centred these fractions of its side away from its centre in 8 directions (0: the centre) ..."""
    photo_top_min_probability: float = 0.98
    """... one of which must read the square's own face at this probability ..."""
    photo_top_max_notdie: float = 0.02
    """... and be surely a die (P(not a die) below this)."""
    top_refine_max_notdie: float = 0.5
    """Rectified up-face reading (``die_face_top.onnx``): candidates whose first reading has
    P(not a die) above this are not re-read (speed; tuning seeds: 0.9 and 0.5 read the same) ..."""
    top_refine_shift_px: int = 4
    """... the others are re-read on the 3 x 3 grid of squares shifted by this many patch pixels in
    board x and y (4 px = 0.144 die edges, 2.3 mm on a 16 mm die; the square keeps the die's size:
    the rectified face has it; a cross of 5 instead of 9 lost 3 of 139 right dice on the tuning seeds).
    8 px with a vote share of 0.5 read 11 more of 400 tuning dice right (900000-900039 +
    901000-901159) but on fresh seeds 900400-900539 made 2 wrong faces instead of 1: a square shifted
    by 0.29 edges cuts the face (a 4 read as 2, a 2 as 1 at 0.94-0.95)."""
    top_recentre_steps: int = 2
    """How many 3 x 3 grids a re-read candidate may climb: after a grid whose shifted square beat its
    centre, the grid is read again around that square (``top_refine_shift_px`` per step; the face
    keeps the vote of the grid that moved it last).  The die stage's centres are up to 5-10 mm off
    the die (seen seeds 900040-900339: median 3.3 mm off for the unsure faces, 1.8 mm for the right
    ones) and a square 0.2 edges off cuts the face.  Whole reader on 900040-900339 (600 dice): 1 step
    (sessions 3-4) 449 right / 0 wrong / 78 unsure / 73 missed, 2 steps 454 / 0 / 73 / 73."""
    top_refined_max_notdie: float = 0.03
    """A re-read square replaces the first reading only when its P(not a die) is below this
    (tuning seeds 900000-900039 + 901000-901059, 200 dice: 0.01 -> 0.03 found 8 more dice, 0 false)."""
    top_vote_share: float = 0.7
    """The re-read squares that look like a die must agree on the face by this share of their weight
    (the guard against a square that cuts the face; 0.5 / 0.6 / 0.7 on the tuning seeds: 288 / 286 /
    281 right, 1 wrong each)."""
    top_decisive_max_notdie: float = 0.02
    """A first reading this sure it is a die ...."""
    top_decisive_min_probability: float = 0.98
    """... with at least this face probability skips the 3 x 3 re-read: its square is read in its 8
    turns and mirrors, which must agree (tuning seeds: 281 right, 1 wrong, 69 unsure, 49 missed
    against 280 / 2 / 70 / 48 with the re-read; 9 fewer reads for most dice)."""
    top_sure_min_probability: float = 0.99
    """A decisive first reading (``top_decisive_max_notdie``) with at least this face probability
    stands without the turned check (its turns' patch reads saved; 1.01: every decisive reading
    is checked).  Seen seeds 900000-900399, 459 decisive readings (session 5): the check never
    caught a wrong face; it capped 4 right ones, all below 0.998; 144 readings reach 0.998, all right
    faces of real dice.  Session 10 (the check in four turns), 0.998 -> 0.99, right / wrong / unsure /
    missed / false: seen 900040-900339 485/0/66/49/1 -> 486/0/65/49/1, 900340-900579 388/0/47/45/0
    -> 390/0/45/45/0; pose renders 901850-901899 faces 738/1/218 -> 742/1/214 and 901500-901549
    715/3/228 -> 723/3/221 (the same wrong dice, all cocked, as with eight views and 0.998).  0.98
    (no decisive reading checked) read 489/0/62/49/1 but made a fourth wrong face on 901500-901549
    (901548_4, a 3 leaning on a checker read 5 at 0.985)."""
    top_check_unmoved: bool = True
    """The detector's own square, when no re-read square beats it, is checked like a moved one (8
    turns, the grid's vote); off: its first reading stands at ``top_min_probability``."""
    top_check_views: tuple[int, ...] = (0, 1, 2, 3)
    """The orientations (``classify.ALL_VIEWS``) in which the square kept is read for the check: its
    four quarter turns (a face's mirror image is one of its turns, so mirrors add the model's noise,
    not the face's evidence).  On the tuning seeds (400 dice) the four (0, 2, 5, 7) read 287 right /
    1 wrong against 279 / 1 for all eight, but on seeds 900400-900539 they let a 3 read 2 at 0.955
    stand (900476; 0.877 in eight, unsure).  Session 10, all eight -> the four turns (right / wrong
    / unsure / missed / false): seen 900040-900339 482/0/68/50/1 -> 485/0/66/49/1, seen
    900340-900579 386/0/48/46/0 -> 388/0/47/45/0, pose renders 901850-901899 (600 frames) faces
    729/1/226 -> 738/1/218 (the one wrong, 901873_5, is the same die), cocked dice found 252 -> 254
    of 349; (0, 2, 4, 6) read 488/0/61/51/2 and 736/2/220 (a second wrong face, 901891_5).  4 fewer
    patch reads per checked die: the dice stage ~0.6 ms CPU faster at 720p."""
    top_min_probability: float = 0.9
    """A rectified reading's face probability below this makes the face unsure ..."""
    top_unanimous_min_mean: float = 0.7
    """... unless every one of its turns (``top_check_views``) reads the same face, none below
    ``top_unanimous_min_view``, their mean at least this, and the grid agreed: then the face stands
    at ``top_min_probability`` (the bar, below the referee's call bar; ``FaceGuess.by_turns``), on a
    sure die (``top_unanimous_max_notdie``) the pose model finds flat (``top_unanimous_min_flat``;
    1.01: off).  Session 10: 17 flat dice of seen 900040-900339 read the right face in every view
    but their turns' mean stayed at 0.69-0.899.  Session 11, dice stage alone, right / wrong /
    unsure / missed / false, off -> on: seen 900040-900339 487/0/66/47/1 -> 497/0/56/47/1, seen
    900340-900579 393/0/41/46/0 -> 397/0/37/46/0; pose renders (faces of found dice right / wrong /
    unsure) 901650-901699 682/3/230 -> 694/3/218, 901850-901889 588/1/165 -> at most 599/1/154 (the
    same wrong faces).  Without the flat bar (0.5): 901665_5, a 3 leaning 39 deg on the other die
    (face-check P(flat) 0.54), read 1 (turns 0.88, 0.89, 0.87, 0.57); without the sure-die bar
    900147, a flat 5 at P(not a die) 0.05-0.12, was found and read 4; mean 0.5 with no view bar:
    900449 a flat 6 read 3."""
    top_unanimous_min_view: float = 0.5
    """See ``top_unanimous_min_mean`` (0.6 instead: 496 and 395 right on the two seen slices)."""
    top_unanimous_max_notdie: float = 0.05
    """See ``top_unanimous_min_mean``: only a reading this sure it is a die (P(not a die) below;
    ``top_notdie_max``) ..."""
    top_unanimous_min_flat: float = 0.7
    """... and only on a die the pose model's face-check head finds flat at least this likely
    (``pose.PoseGuess.face_flat``)."""
    top_tta_final: bool = True
    """... read (for a re-read candidate) on the chosen square in its turns (``top_check_views``), which must
    agree with the single reading.  Tuning seeds 900000-900039 + 901000-901159 (400 dice): single
    reading at 0.95: 301 right, 6 wrong (4 of them cocked dice: a side face), 52 unsure, 41 missed;
    at 0.97 / 0.99: 288 / 239 right, 4 / 3 wrong; 8-way reading at 0.9: 293 right, 3 wrong."""
    top_notdie_max: float = 0.05
    """A rectified reading is a die when its P(not a die) is below this ..."""
    sure_face_max_notdie: float = 0.12
    """... or below this with a face read at ``sure_face_min_probability`` or more (``board.is_found``;
    at ``top_notdie_max``: off).  Session 7: of the 62 dice missed on seen 900040-900339, 10 had a
    reading within 2 mm of their centre at P(not a die) 0.05-0.12, 7 of them with their face right
    at 0.92-0.99; far from every die no reading had P(not a die) 0.05-0.12 with a face at 0.9 (the
    two below 0.2 read 0.33 and 0.5).  Right / wrong / unsure / missed / false, 0.05 -> 0.12: seen
    900340-900579 394/0/39/47/0 both; 901000-901159 232/0/56/32/1 -> 234/0/56/30/1; 900040-900339
    (where the 0.12 was read off, so not held out) 474/0/64/62/1 -> 480/0/64/56/1, right-hand table
    527/527 -> 533/533; fresh 902400-902499 (once) 169/0/16/15/0 -> 169/0/17/14/0."""
    sure_face_min_probability: float = 0.9
    """See ``sure_face_max_notdie``."""
    side_face_edges: float = 1.4
    """Two readings closer than this many die edges, on a line toward the camera, are one die and its
    side face (the reading nearer the camera is dropped; see ``board.side_face_readings``) ..."""
    side_face_angle_deg: float = 35.0
    """... when their line lies within this angle of the direction to the camera's foot (tuning seeds:
    1.4 edges / 35 degrees removed the one false die, a side face; 1.6 also dropped a touching die)."""
    side_face_away_edges: float = 1.0
    """A reading whose point this many die edges farther from the camera's foot reads as a die
    (P(not a die) below ``top_notdie_max``) with another face, where no other reading lies, is the
    side face of that unread die: its face is unsure (``board.unread_tops``; 0: off).  Rectified on
    the plane of the top, a die's side toward the camera can be found alone when its top is not:
    902793 read such a side, 18 mm off a flat 2, as 4 at 0.99 (its top, one edge on, reads 2).
    Checked only where the pose model's P(flat) is below 0.5 (a side is no flat top; most frames
    pay no model call).  Right / wrong / unsure / missed / false, off -> 1.0: seen 900040-900339
    486/0/64/50/1 both, 900340-900579 393/0/41/46/0 both, 902700-902799 158/1/22/19/2 ->
    158/0/23/19/2 (that frame made the rule: seen, not held out)."""
    side_face_check_below: float = 0.995
    """A standing face read below this probability (the referee's call bar) is checked by
    ``board.unread_tops`` whatever the pose model's P(flat) (0: only the faces of dice it doubts are
    flat).  Session 12: on the recorded games the only sure-but-wrong faces (once a die lying on the
    other die is matched first) were sides of flat dice read alone 14-15 mm off the die, at
    P(flat) 0.74-0.89 (not doubted): 7446 frame 114 a 1 read 4 at 0.972 (24 frames), 7448 frame 114
    a 5 read 1 at 0.991 (12), 7457 frame 913 a 5 read 4 at 0.993 (5).  Right / wrong / unsure /
    missed / false, 0 -> 0.995 (with ``side_face_away_max_notdie`` 0.05 -> 0.08): seen 900040-900339
    497/0/56/47/1 both; 900340-900579 397/0/37/46/0 both (0.2: 900533, a flat 1 read right at
    0.992, made unsure: its away point reads 5 at P(not a die) 0.097); pose renders 901850-901889
    faces 597/1/156 -> 596/1/157 (901852_4, a flat 1 at 0.977, made unsure).  Cost: 0.74 more
    patches read per frame (one batched call on about half the frames) on 900040-900339."""
    side_face_away_max_notdie: float = 0.08
    """The point one edge farther from the camera is a die's top (``board.unread_tops``) when its
    P(not a die) is below this (0.05 before session 12: 7448 frame 114's top reads 5 at 0.059)."""
    side_face_away_any_face: bool = True
    """... whatever face that point reads (off: only with another face than the reading's, as in
    sessions 8-11).  Recorded game 7457 frame 913 (s11a): a flat 5's side, 15 mm off, read 4 at
    0.993; its top, one edge on, reads 4 too (0.70, one unturned reading, P(not a die) 0.018).  Off
    -> on: seen 900040-900339 and 900340-900579 no reading changed; pose renders 901850-901889 one
    right face made unsure (901861_5, a cocked 1 at 0.994); 36 other re-rendered game frames no
    change.  Added after fresh 903600-903699 was measured (at 821c168): not measured fresh."""
