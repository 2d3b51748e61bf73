"""Camera sources: a webcam, a video file, a folder of images, or the simulator, behind one interface.

>>> with open_source("sim:3?size=640x480&turns=1") as cam:
...     frame = next(iter(cam))
>>> frame.image.shape, frame.seq
((480, 640, 3), 0)

A source is a context manager and an iterator of :class:`Frame`; a frame that cannot be
decoded comes as a :class:`CorruptFrame` notice (never an exception); a source that cannot be
opened, or a camera that goes away, raises :class:`CameraError` with a clear message.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import parse_qs

import cv2
import numpy as np
import numpy.typing as npt

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
MAX_FAILED_READS = 30  # consecutive failed webcam reads before it counts as unplugged


class CameraError(OSError):
    """A camera source that cannot be opened or has gone away."""


@dataclass(frozen=True, slots=True)
class Frame:
    """One camera image (BGR uint8, HxWx3), its time in seconds and its sequence number."""

    image: npt.NDArray[np.uint8]
    t: float
    seq: int


@dataclass(frozen=True, slots=True)
class CorruptFrame:
    """A notice that frame ``seq`` could not be read (the source goes on)."""

    seq: int
    t: float
    reason: str


class CameraSource(ABC):
    """Iterator of :class:`Frame` (or :class:`CorruptFrame` notices); close() releases the device."""

    name: str = "camera"

    def __enter__(self) -> CameraSource:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def __iter__(self) -> Iterator[Frame | CorruptFrame]:
        while True:
            item = self.read()
            if item is None:
                return
            yield item

    @abstractmethod
    def read(self) -> Frame | CorruptFrame | None:
        """The next frame, a corrupt-frame notice, or None at the end of the source."""

    @abstractmethod
    def close(self) -> None: ...


def _valid(img: Any) -> bool:
    return isinstance(img, np.ndarray) and img.ndim == 3 and img.shape[2] == 3 and img.size > 0


class WebcamSource(CameraSource):
    def __init__(self, index: int, *, width: int | None = None, height: int | None = None) -> None:
        self.name = f"webcam {index}"
        self.cap = cv2.VideoCapture(index)
        if not self.cap.isOpened():
            raise CameraError(f"cannot open webcam {index}: is it plugged in and not used by another program?")
        if width and height:
            self.cap.set(cv2.CAP_PROP_FRAME_WIDTH, width)
            self.cap.set(cv2.CAP_PROP_FRAME_HEIGHT, height)
        self.seq = 0
        self.start = time.monotonic()
        self.failed = 0

    def read(self) -> Frame | CorruptFrame | None:
        ok, img = self.cap.read()
        t = time.monotonic() - self.start
        seq = self.seq
        self.seq += 1
        if not ok or not _valid(img):
            self.failed += 1
            if self.failed >= MAX_FAILED_READS:
                raise CameraError(f"{self.name} stopped delivering frames ({self.failed} failed reads): unplugged?")
            return CorruptFrame(seq, t, "the camera returned no image")
        self.failed = 0
        return Frame(np.asarray(img, np.uint8), t, seq)

    def close(self) -> None:
        self.cap.release()


class VideoFileSource(CameraSource):
    def __init__(self, path: Path) -> None:
        self.name = str(path)
        if not path.is_file():
            raise CameraError(f"video file {str(path)!r} does not exist")
        self.cap = _open_video(path)
        if not self.cap.isOpened():
            raise CameraError(f"cannot read video file {str(path)!r}: unknown format or codec")
        fps = self.cap.get(cv2.CAP_PROP_FPS)
        self.fps = fps if fps and fps > 0 else 30.0
        self.total = int(self.cap.get(cv2.CAP_PROP_FRAME_COUNT) or 0)
        self.seq = 0

    def read(self) -> Frame | CorruptFrame | None:
        seq = self.seq
        t = seq / self.fps
        ok, img = self.cap.read()
        if not ok:
            if self.total and seq < self.total - 1:
                self.seq += 1
                return CorruptFrame(seq, t, f"frame {seq} of {self.total} could not be decoded")
            return None
        self.seq += 1
        if not _valid(img):
            return CorruptFrame(seq, t, f"frame {seq} has an unexpected shape")
        return Frame(np.asarray(img, np.uint8), t, seq)

    def close(self) -> None:
        self.cap.release()


def _open_video(path: Path) -> cv2.VideoCapture:
    """A capture decoding on one thread: the referee decodes on its own thread beside the reader's
    worker, and on two cores a multi-threaded decoder only competes with them (same speed, more CPU)."""
    n_threads = getattr(cv2, "CAP_PROP_N_THREADS", None)
    if n_threads is not None:
        cap = cv2.VideoCapture(str(path), cv2.CAP_FFMPEG, [n_threads, 1])
        if cap.isOpened():
            return cap
        cap.release()
    return cv2.VideoCapture(str(path))


class FolderSource(CameraSource):
    """Images in a folder, in name order, at ``fps`` frames per second."""

    def __init__(self, path: Path, *, fps: float = 30.0) -> None:
        self.name = str(path)
        self.files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"folder {str(path)!r} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        self.fps = fps
        self.seq = 0

    def read(self) -> Frame | CorruptFrame | None:
        if self.seq >= len(self.files):
            return None
        seq = self.seq
        self.seq += 1
        path = self.files[seq]
        img = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if not _valid(img):
            return CorruptFrame(seq, seq / self.fps, f"{path.name} is not a readable image")
        return Frame(np.asarray(img, np.uint8), seq / self.fps, seq)

    def close(self) -> None:
        self.files = []


class SimSource(CameraSource):
    """The simulator playing a game live.  ``last_truth`` is the ground truth of the last frame."""

    def __init__(self, seed: int, *, width: int = 1280, height: int = 720, fps: float = 30.0,
                 infractions: tuple[str, ...] = (), max_turns: int = 400, clean: bool = False,
                 realtime: bool = False) -> None:
        from vision.sim.config import SimConfig
        from vision.sim.game import GameDirector, GameScript

        self.name = f"sim:{seed}"
        cfg = SimConfig.clean() if clean else SimConfig()
        self.director = GameDirector(seed, script=GameScript.parse(list(infractions), max_turns=max_turns),
                                     cfg=cfg, width=width, height=height, fps=fps, jpeg=True)
        self.frames = self.director.frames()
        self.fps = fps
        self.realtime = realtime
        self.start = time.monotonic()
        self.last_truth: dict[str, Any] | None = None

    def read(self) -> Frame | CorruptFrame | None:
        try:
            img, truth = next(self.frames)
        except StopIteration:
            return None
        self.last_truth = truth
        seq = int(truth["seq"])
        t = float(truth["t"])
        if self.realtime:
            wait = self.start + t - time.monotonic()
            if wait > 0:
                time.sleep(wait)
        return Frame(img, t, seq)

    def close(self) -> None:
        stop = getattr(self.frames, "close", None)
        if stop is not None:
            stop()


def _parse_sim(spec: str) -> SimSource:
    body = spec[4:]
    seed_text, _, query = body.partition("?")
    try:
        seed = int(seed_text)
    except ValueError as exc:
        raise CameraError(f"camera {spec!r}: the simulator needs a numeric seed, as in 'sim:7'") from exc
    q = {k: v[-1] for k, v in parse_qs(query, keep_blank_values=True).items()}
    kw: dict[str, Any] = {}
    try:
        if "size" in q:
            w, h = (int(v) for v in q.pop("size").lower().split("x"))
            kw["width"], kw["height"] = w, h
        if "fps" in q:
            kw["fps"] = float(q.pop("fps"))
        if "turns" in q:
            kw["max_turns"] = int(q.pop("turns"))
        if "infractions" in q:
            kw["infractions"] = tuple(x for x in q.pop("infractions").split(",") if x)
        for flag in ("clean", "realtime"):
            if flag in q:
                kw[flag] = q.pop(flag) not in ("0", "false", "no")
    except ValueError as exc:
        raise CameraError(f"camera {spec!r}: bad option ({exc})") from exc
    if q:
        raise CameraError(f"camera {spec!r}: unknown option(s) {sorted(q)}; "
                          "known: size, fps, turns, infractions, clean, realtime")
    try:
        return SimSource(seed, **kw)
    except ValueError as exc:
        raise CameraError(f"camera {spec!r}: {exc}") from exc


def open_source(spec: str | int, **kw: Any) -> CameraSource:
    """Open a camera by spec: an int or digits (webcam), ``sim:SEED[?size=WxH&infractions=a@3,b@5
    &turns=N&clean=1&realtime=1]``, a video file, or a folder of images."""
    if isinstance(spec, int) or (isinstance(spec, str) and spec.isdigit()):
        return WebcamSource(int(spec), **kw)
    if spec.startswith("sim:"):
        return _parse_sim(spec)
    path = Path(spec)
    if path.is_dir():
        return FolderSource(path, **kw)
    if path.exists():
        return VideoFileSource(path)
    raise CameraError(f"camera {spec!r} is not a webcam number, 'sim:SEED', a video file or a folder of images")
