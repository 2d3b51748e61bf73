"""``--show``: an OpenCV window with the annotated camera view (the board's regions, the last ruling).

Only where a window can be opened: a display (``DISPLAY`` / ``WAYLAND_DISPLAY``, or Windows /
macOS) and an OpenCV built with GUI support (``opencv-python``, not ``opencv-python-headless``).
Otherwise :func:`open_viewer` prints one clear line and the run goes on without the window.
The window is refreshed at most ``fps`` times a second so it never slows the referee.
"""

from __future__ import annotations

import contextlib
import os
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from referee.evidence import Mark, annotate

WINDOW = "bgref"


def display_available() -> tuple[bool, str]:
    """Whether a window can be shown here, and why not."""
    if sys.platform not in ("win32", "darwin") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return False, "no display (DISPLAY is not set)"
    import cv2

    info = cv2.getBuildInformation()
    gui = next((line.split(":", 1)[1].strip() for line in info.splitlines() if line.strip().startswith("GUI:")), "")
    if not gui or gui.upper() == "NONE":
        return False, "this OpenCV has no GUI support (opencv-python-headless); install opencv-python for --show"
    return True, ""


class Viewer:
    def __init__(self, profile: Any, fps: float = 10.0) -> None:
        import cv2

        self._cv2 = cv2
        self.outline: list[Mark] = []
        if profile is not None:
            from referee.marks import outline_layer

            self.outline = outline_layer(profile)
        self.period = 1.0 / fps
        self._last = 0.0
        cv2.namedWindow(WINDOW, cv2.WINDOW_NORMAL)

    def tap(self, session: Any) -> Callable[[Any], None]:
        """A hook for every frame (``run_loop(on_frame=...)``): shows it at most ``fps`` times a second."""

        def see(frame: Any) -> None:
            now = time.perf_counter()
            if now - self._last >= self.period and isinstance(frame.image, np.ndarray) and frame.image.ndim == 3:
                self._last = now
                caption = "bgref"
                if session.judged:
                    j = session.judged[-1]
                    caption = f"g{j.game} m{j.move}: {j.verdict.summary()}"
                self.show(frame.image, caption)

        return see

    def show(self, image: np.ndarray, caption: str) -> None:
        self._cv2.imshow(WINDOW, annotate(image, self.outline, caption))
        self._cv2.waitKey(1)

    def close(self) -> None:
        with contextlib.suppress(self._cv2.error):
            self._cv2.destroyWindow(WINDOW)


def open_viewer(profile: Any) -> Viewer | None:
    """A window if one can be shown; otherwise None after a one-line message on stderr."""
    ok, why = display_available()
    if not ok:
        print(f"bgref: --show: {why}; continuing without the window", file=sys.stderr)
        return None
    try:
        return Viewer(profile)
    except Exception as exc:  # a GUI backend that fails to start: say so and go on
        print(f"bgref: --show: cannot open a window ({exc}); continuing without it", file=sys.stderr)
        return None
