"""Every threshold of the vision pipeline, in one typed, frozen config.

>>> VisionConfig().face_min_confidence
0.9
>>> VisionConfig.default().replace(still_frames=3).still_frames
3
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True, slots=True)
class VisionConfig:
    # ---- motion / hands gate (vision/motion.py)
    motion_scale: float = 0.125
    """The gate works on a copy of the frame shrunk by this factor (cheap: ≤ 2 ms at 1080p)."""
    motion_threshold: int = 18
    """Grey-level change (0..255) of a gate pixel counted as motion."""
    motion_fraction: float = 0.004
    """A region moves when more than this fraction of its gate pixels changed."""
    motion_min_pixels: int = 3
    """...and at least this many of them: single pixels flickering in a compressed video are not motion."""
    still_frames: int = 5
    """Frames a scene must stay still before a full reading runs (≈ 0.17 s at 30 fps)."""
    skin_fraction: float = 0.06
    """A region is covered when more than this fraction of its pixels look like skin or moves."""

    # ---- checkers (vision/checkers.py)
    rectified_px_per_mm: float = 1.0
    """Resolution of the rectified board image used for checkers, dice and cube."""
    count_min_confidence: float = 0.99
    """A count (the joint posterior of its stack, ``checkers.decode_stack``) below this confidence is
    unsure, and makes the observation not confident.  Chosen on validation seeds 900000-900039: the
    lowest value with no confident-wrong stack there (0.98 still let 5-vs-6 stacks through)."""
    slot_layer_error_factor: float = 30.0
    """A point read as a full row or more (5+ on a tournament board) has its error probability
    (1 - confidence) multiplied by this: the slot model's typical confident error is a missed
    second-layer checker (6 read as 5).  Chosen on the held-out training frames (seed % 10 == 0) and
    validation seeds 900000-900039 with the session-3 slot model (30: no confident-wrong region on
    either at 0.99; 10 let two tall stacks through)."""
    slot_layer_error_cap: float = 0.2
    """...but the multiplied error probability is at most this (or the model's own, when that is
    higher): the model's error on full rows is not 30x its own at every level.  Measured on seen seeds
    900040-900579 with the session-7 slot model (1029 full rows read from frames without hands):
    read with the model's own error 0.0003-0.01 they were wrong 3 times in 146 (~2 %), 0.01-0.03 3 in
    37 (8 %), 0.03-0.1 4 in 41 (10 %), so x30 overstated 0.003-0.1 (up to 1.0, the floor).  A full
    row stays unsure alone (0.8 < 0.99); the cap lets the totals cross-check confirm it when another
    full row or the tray could otherwise make up for it.  0.2, twice the worst rate seen (session 8):
    0.1 read one more board on seeds 900040-902199 but left a stack and a tray wrong by one each
    way, adding up (902136 p3 6 for 5, white's tray 1 for 2), at 0.988 (0.977 at 0.2; 0.922 at 1);
    0.05 read them at 0.994."""
    slot_hand_max: float = 0.5
    """A stack with any slot whose "hand" probability reaches this is not read (confidence 0); a tray
    whose "hand" probability reaches it neither.  0.5 (session 5; was 0.3): on seeds 900000-900339
    boards exact and confident 101 -> 109 of 283 (900340-900579: 67 -> 73 of 197; held-out training
    frames 81 -> 85 of 206), with no covered point, bar or tray read confidently that 0.3 did not
    (0.7 read none either); most slots between 0.3 and 0.5 were false hands on clear frames."""
    slot_neighbour_hand_max: float = 0.6
    """...nor is a region beside one with a slot whose "hand" probability reaches this (a hand is
    wider than a point, and its edge can look like a plain checker).  0.6 (session 6, with the
    session-6 slot model, which gives hands lower probabilities: at 0.7-0.8 it read one covered point
    (900111 p4, own hand slots 0.33-0.50, a neighbour between 0.6 and 0.7); chosen on seeds
    900040-900539: boards exact and confident 146/249 and 109/168 at 0.6, the same at 0.8 but one
    covered region read; the session-5 model read 142/106 at both).  0.8 (session 4; was 0.5): on
    the held-out training frames and seeds 900000-900039, no region released by it (hand < 0.3 in
    its own slots) is read confidently wrong, up to 1.0; the one covered region with its own
    "hand" below 0.3 has a neighbour at 0.965, so 0.8 keeps a margin (0 covered regions read)."""
    slot_hand_pair_max: float = 0.2
    """...nor is a point with two or more slots whose "hand" probability reaches this (a hand over the
    point's tip: fresh-then 900978 p13, an empty point under a fingertip, slots "hand" 0.33 and 0.24,
    was read at 1.0 with the session-6 slot model; 0.32 on ``slot_hand_max`` would have cost 10 of 127
    boards there and 7 of 249 on 900040-900339).  Chosen on seeds 900040-900579 with the session-6 slot
    model: boards exact and confident 146 -> 145 of 249 and 128 -> 128 (900340-900579), 0 covered
    regions read (0.1: 145 and 127).  Measured on the frame that showed it, so not a held-out figure."""
    slot_object_weight: float = 0.02
    """An "object" slot (a die or the cube) counts as empty, and as any checker class with this weight
    (1: no evidence either way; the slot model labels a checker with a die on it as the checker, so
    "object" leans to empty).  0.02 (session 5; was 0.1, which left an empty point with a die on its
    first slot at ~0.97, unsure): chosen on seeds 900000-900339, checked on 900340-900579 and the
    held-out training frames (no region read wrong at any confidence above 0.9 because of it).  The
    bar always uses 1: the cube in the middle may cover a bar checker."""
    slot_temperature: float | None = None
    """Slot-model logits are divided by this before the softmax; None: the temperature fitted when
    the model was trained (``checker_slot.train.json``: the one minimising the log-loss of "the
    decoded region count is right" against its confidence on held-out training frames)."""
    tray_disagree_factor: float = 10.0
    """A tray count read from the image (``checkers.tray_readings``) that the board's total
    contradicts (15 minus the board's checkers of that colour is another count) has its error
    probability multiplied by this: one of the two readings is wrong, or a checker is off the board."""
    slot_bar_hand_corroboration: float = 0.3
    """The bar's own "hand" slots count (the bar not read, its neighbours doubted) only when a slot off
    the bar gives "hand" at least this (``checkers.corroborated_hands``): a hand reaching the bar comes
    over the points or the rail, while an empty bar alone is the slot model's typical false "hand" (a
    quarter of the frames without hands).  Chosen on seeds 900000-900579 (the 12 frames with the bar
    covered all had >= 0.93 elsewhere) and the one training render with only the bar covered (1.0 on
    point 6).  The live gate's skin and motion test still marks a covered bar on its own."""
    stack_min_count: int = 4
    """The stack model (``vision.stacks``, a whole point's colour and count) looks at the points the
    slot decoder reads as this many checkers or more (a few per frame)."""
    stack_slot_power: float = 0.5
    """The slot decoder's posterior is raised to this before it is multiplied by the stack model's
    probabilities (``stacks.combine``): the slot model is overconfident about layers.  Chosen with
    the other stack settings on seen seeds 900040-900579, checked on 902000-902199 (session 9; 2.0
    and 3.0 read a 6-stack as 5 at 0.9994 and 1.0)."""
    stack_ask_below: float = 0.9999
    """...but a point read below a full row (a 4-stack on a tournament board) is asked only when the
    slots' reading of it is under this confidence (session 10: on seen seeds 900040-900579 and
    902000-902199 every figure is the same as asking them all, with a quarter fewer stack-model calls:
    1754 -> 1341 and 634 -> 476; at 0.999 one region fewer is right)."""
    stack_disagree_cap: float = 0.9
    """A point whose combined reading is not the stack model's own best count is read with at most
    this confidence (two looks at the same pixels are not independent; 0.5 read 5 fewer boards)."""
    stack_agree_min: float = 0.7
    """...and the stack model agrees only when it gives that count at least this probability: at
    0.5 a 6-stack read as 5 (stack model 0.61 for 5) reached 0.947 (0.989 at power 1); 0.7 leaves
    the highest wrong region at 0.80 (boards exact and confident on 900040-900579 345 of 446, 350 at
    0.5; 902000-902199 120 of 166 either way; slots alone 322 and 120)."""
    stack_contradiction_min: float = 1.01
    """A point whose slots' own best classes contradict every stack (a die on the first checker read as
    "object", a gap, a dark checker's colour), no hand among them, is asked of the stack model too and
    read where it gives the joint count at least this probability (``stacks.combine``); above 1: never
    read.  OFF: at 0.99 it read 5 more of the 249 seen random boards (200 -> 205, 0 wrong) but, on
    rendered games, read blots as two checkers at confidence 0.99-1.0 (game 7409: 730 wrong region-frames
    on 13 points, 0 with it off; a played checker does not sit where a placed one does)."""

    hand_free_max: float = 0.01
    """The whole-frame hand model (``vision.hands``, ``checker_hand.onnx``: is a hand or an arm anywhere
    in the frame?) at or below this means no hand: the slot, stack and tray models' own "hand" then
    does not count on that frame (``checkers.HandEvidence``; it was the largest loss of whole boards on
    frames with no hand).  The gate's skin and motion test still marks covered regions."""

    # ---- dice (vision/dice/)
    face_min_confidence: float = 0.9
    """Below this the die face is reported as None (unsure)."""
    notdie_max_prob: float = 0.05
    """On a calibrated board, a candidate whose "not a die" probability is at least this is dropped
    (strict: a board is full of die-like things, and a phantom die would be an accusation)."""
    photo_notdie_max_prob: float = 0.3
    """The same for ``bgref vision dice`` on an arbitrary photo (fewer die-like distractors)."""
    find_min_side_frac: float = 0.012
    """Smallest die side searched by the profile-free finder, as a fraction of the image's longer side."""
    find_max_side_frac: float = 0.2
    """Largest die side searched by the profile-free finder."""
    find_nms_iou: float = 0.3
    """Overlap above which two die candidates are the same die."""
    boundary_uncertain_mm: float = 3.0
    """Dice closer than this to an area boundary are flagged uncertain (low area confidence)."""

    # ---- cube (vision/cube.py)
    cube_min_confidence: float = 0.9
    cube_min_contrast: float = 18.0
    """Grey-level contrast a cube-sized square needs against its surroundings to count as the cube."""
    cube_middle_band_mm: float = 40.0
    """A cube whose centre is within this distance of the board's long centre line sits in the middle."""

    # ---- overall
    observation_min_confidence: float = 0.9

    @classmethod
    def default(cls) -> VisionConfig:
        return cls()

    def replace(self, **changes: object) -> VisionConfig:
        return replace(self, **changes)  # type: ignore[arg-type]
