"""Ground truth for a rendered frame: build it from a scene, write/read its JSON, and turn it into
the :class:`~vision.observation.BoardObservation` a perfect vision system would report.

The JSON schema ("bgref.sim.truth/1") is documented in docs/simulator.md.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from rules.position import Side
from vision.geometry import Area, BoardLayout
from vision.observation import (
    BoardObservation,
    CountReading,
    CubePosition,
    CubeReading,
    DieReading,
)
from vision.sim.optics import CameraModel
from vision.sim.render import RenderInfo
from vision.sim.scene import DIE_AXES, Scene, in_board_frame, mat

SCHEMA = "bgref.sim.truth/1"
COVER_FRACTION = 0.15  # a region is "covered" when a hand hides this share of it


class TruthError(ValueError):
    """A truth file that cannot be read."""


@dataclass(frozen=True, slots=True)
class DieTruth:
    face: int
    cocked: bool
    tilt_deg: float
    leaning_on: str | None
    on_die: bool
    area: Area
    boundary_mm: float
    center_mm: tuple[float, float, float]
    size_mm: float
    style: str
    owner: Side | None
    image_corners: tuple[tuple[float, float], ...]  # the up face's 4 corners in the image
    image_box: tuple[int, int, int, int]  # x, y, w, h around the whole die


@dataclass(frozen=True, slots=True)
class CubeTruth:
    face: int
    position: CubePosition
    rotation_deg: float
    center_mm: tuple[float, float, float]
    image_box: tuple[int, int, int, int]


@dataclass(frozen=True, slots=True)
class Truth:
    """The typed content of one truth record."""

    seq: int
    t: float
    points: tuple[tuple[int, int], ...]  # (white, black) per absolute point 1..24
    bar: tuple[int, int]
    trays: tuple[int, int]  # WHITE's borne off, BLACK's borne off
    dice: tuple[DieTruth, ...]
    cube: CubeTruth | None
    board_corners: tuple[tuple[float, float], ...]  # outer frame corners in the image (rail top)
    camera: CameraModel
    hands: bool
    covered: frozenset[str]
    still: bool
    turn: Side | None
    events: tuple[str, ...]
    raw: dict[str, Any]

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Truth:
        if d.get("schema") != SCHEMA:
            raise TruthError(f"not a {SCHEMA} record: schema={d.get('schema')!r}")
        try:
            c = d["counts"]
            dice = tuple(
                DieTruth(
                    int(x["face"]), bool(x["cocked"]), float(x["tilt_deg"]), x.get("leaning_on"), bool(x["on_die"]),
                    Area(x["area"]), float(x["boundary_mm"]), tuple(x["center_mm"]), float(x["size_mm"]),
                    str(x["style"]), None if x.get("owner") is None else Side[x["owner"]],
                    tuple(tuple(p) for p in x["image_corners"]), tuple(x["image_box"]),
                )
                for x in d["dice"]
            )
            cube = None
            if d.get("cube") is not None:
                cb = d["cube"]
                cube = CubeTruth(int(cb["face"]), CubePosition(cb["position"]), float(cb["rotation_deg"]),
                                 tuple(cb["center_mm"]), tuple(cb["image_box"]))
            return cls(
                seq=int(d["seq"]), t=float(d["t"]),
                points=tuple((int(w), int(b)) for w, b in c["points"]),
                bar=(int(c["bar"][0]), int(c["bar"][1])),
                trays=(int(c["tray_w"]), int(c["tray_b"])),
                dice=dice, cube=cube,
                board_corners=tuple(tuple(p) for p in d["board_corners_image"]),
                camera=CameraModel.from_json(d["camera"]),
                hands=bool(d["hands"]["present"]), covered=frozenset(d["hands"]["covered"]),
                still=bool(d.get("still", True)),
                turn=None if d.get("turn") is None else Side[d["turn"]],
                events=tuple(d.get("events", ())),
                raw=d,
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise TruthError(f"truth record seq={d.get('seq')!r} is malformed: {exc!r}") from exc


def _box(pts: np.ndarray) -> tuple[int, int, int, int]:
    x0, y0 = np.floor(pts.min(axis=0)).astype(int)
    x1, y1 = np.ceil(pts.max(axis=0)).astype(int)
    return (int(x0), int(y0), int(x1 - x0), int(y1 - y0))


def covered_regions(layout: BoardLayout, cam: CameraModel, hand_mask: np.ndarray | None) -> list[str]:
    """Regions of which a hand hides at least :data:`COVER_FRACTION` (mask at quarter resolution)."""
    if hand_mask is None or not hand_mask.any():
        return []
    out = []
    H, W = hand_mask.shape
    sx, sy = W / cam.width, H / cam.height
    names = (*(f"p{i}" for i in range(1, 25)), "bar", "tray_w", "tray_b")
    for name in names:
        poly = layout.region_polygon(name)
        z = layout.spec.rail_height_mm if name == "bar" else 0.0
        pts = cam.project([(x, y, z) for x, y in poly]) * np.array([sx, sy])
        m = np.zeros_like(hand_mask)
        cv2.fillConvexPoly(m, np.round(pts).astype(np.int32), 255)
        area = int(np.count_nonzero(m))
        if area == 0:
            continue
        hidden = int(np.count_nonzero((m > 0) & (hand_mask > 127)))
        if hidden / area >= COVER_FRACTION:
            out.append(name)
    return out


def build_truth(
    scene: Scene, info: RenderInfo, *, seq: int = 0, t: float = 0.0, still: bool = True,
    events: tuple[str, ...] = (),
) -> dict[str, Any]:
    """The JSON-ready truth record of a rendered scene (a moved board: as seen, in board millimetres)."""
    scene = in_board_frame(scene)
    layout, cam = scene.layout, scene.camera
    pts = [[0, 0] for _ in range(24)]
    bar = [0, 0]
    tray = [0, 0]
    for c in scene.checkers:
        k = 0 if c.side is Side.WHITE else 1
        if c.region.startswith("p"):
            pts[int(c.region[1:]) - 1][k] += 1
        elif c.region == "bar":
            bar[k] += 1
        elif c.region == "tray_w" or c.region == "tray_b":
            tray[k] += 1
    dice = []
    for i, d in enumerate(scene.dice):
        rot = mat(d.rot)
        ax = np.asarray(DIE_AXES[d.value], float)
        u = np.array([1.0, 0, 0]) if abs(ax[0]) < 0.5 else np.array([0, 1.0, 0])
        w = np.cross(ax, u)
        s = d.size / 2
        face = [ax * s + su * u * s + sw * w * s for su, sw in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
        corners = cam.project(np.array(face) @ rot.T + np.asarray(d.center))
        all_c = info.die_corners[i] if i < len(info.die_corners) else corners
        x, y = d.center[0], d.center[1]
        dice.append({
            "face": d.value,
            "cocked": d.cocked,
            "tilt_deg": round(d.tilt_deg, 3),
            "leaning_on": d.leaning_on,
            "on_die": d.on_die,
            "area": layout.area_of(x, y).value,
            "boundary_mm": round(layout.distance_to_boundary_mm(x, y), 3),
            "center_mm": [round(v, 3) for v in d.center],
            "size_mm": round(d.size, 3),
            "style": d.style.value,
            "owner": None if d.owner is None else d.owner.name,
            "image_corners": [[round(float(a), 2), round(float(b), 2)] for a, b in corners],
            "image_box": list(_box(np.asarray(all_c))),
        })
    cube = None
    if scene.cube is not None:
        cb = scene.cube
        cc = info.cube_corners if info.cube_corners is not None else cam.project([cb.center])
        cube = {
            "face": cb.value, "position": cb.position, "rotation_deg": round(cb.rotation_deg, 3),
            "center_mm": [round(v, 3) for v in cb.center], "image_box": list(_box(np.asarray(cc))),
        }
    o = layout.outline()
    f = layout.field()
    h = layout.spec.rail_height_mm
    covered = covered_regions(layout, cam, info.hand_mask)
    return {
        "schema": SCHEMA,
        "seed": scene.seed,
        "seq": seq,
        "t": round(t, 4),
        "still": still,
        "turn": None if scene.turn is None else scene.turn.name,
        "events": list(events),
        "board": {
            "spec": layout.spec.name, "width_mm": layout.spec.width_mm, "depth_mm": layout.spec.depth_mm,
            "seating": {"white": layout.seating.white.value, "white_home": layout.seating.white_home.value},
            "scheme": scene.scheme.name,
        },
        "counts": {"points": pts, "bar": bar, "tray_w": tray[0], "tray_b": tray[1]},
        "dice": dice,
        "cube": cube,
        "board_corners_image": [[round(float(a), 2), round(float(b), 2)]
                                for a, b in cam.project([(x, y, h) for x, y in o.corners()])],
        "field_corners_image": [[round(float(a), 2), round(float(b), 2)]
                                for a, b in cam.project([(x, y, 0.0) for x, y in f.corners()])],
        "camera": cam.to_json(),
        "lighting": {
            "direction": [round(v, 4) for v in scene.lighting.direction], "ambient": round(scene.lighting.ambient, 3),
            "key": round(scene.lighting.key, 3), "glare": round(scene.lighting.glare, 3),
        },
        "post": {"noise_sigma": round(scene.post.noise_sigma, 3), "defocus_sigma": round(scene.post.defocus_sigma, 3),
                 "jpeg_quality": scene.post.jpeg_quality},
        "hands": {"present": bool(scene.hands), "covered": covered},
    }


def load_truth(path: str | Path) -> list[Truth]:
    """Read a truth file: one JSON object (a still) or JSON lines (a video, one per frame)."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise TruthError(f"cannot read truth file {str(p)!r}: {exc}") from exc
    text = text.strip()
    try:
        if text.startswith("{") and "\n{" not in text:
            return [Truth.from_json(json.loads(text))]
        return [Truth.from_json(json.loads(line)) for line in text.splitlines() if line.strip()]
    except json.JSONDecodeError as exc:
        raise TruthError(f"{str(p)!r} is not JSON: {exc}") from exc


def truth_to_observation(truth: Truth) -> BoardObservation:
    """The observation a perfect vision system would report for this frame ("oracle vision").

    Covered regions read with confidence 0 (as real vision must report them); the rest are exact.
    """
    points = tuple(
        CountReading(w, b, 0.0 if f"p{i + 1}" in truth.covered else 1.0) for i, (w, b) in enumerate(truth.points)
    )
    bar = CountReading(truth.bar[0], truth.bar[1], 0.0 if "bar" in truth.covered else 1.0)
    trays = (
        CountReading(truth.trays[0], 0, 0.0 if "tray_w" in truth.covered else 1.0),
        CountReading(0, truth.trays[1], 0.0 if "tray_b" in truth.covered else 1.0),
    )
    dice = tuple(
        DieReading(
            face=d.face, face_confidence=1.0, cocked=d.cocked, cocked_confidence=1.0, area=d.area,
            boundary_mm=d.boundary_mm, center_mm=(d.center_mm[0], d.center_mm[1]), image_box=d.image_box,
            on_die=d.on_die, owner=d.owner,
        )
        for d in truth.dice
    )
    cube = None
    if truth.cube is not None:
        cube = CubeReading(truth.cube.face, 1.0, truth.cube.position, truth.cube.rotation_deg, 1.0)
    return BoardObservation(
        seq=truth.seq, t=truth.t, points=points, bar=bar, trays=trays, dice=dice, cube=cube,
        still=truth.still, covered=truth.covered, confident=not truth.covered,
    )
