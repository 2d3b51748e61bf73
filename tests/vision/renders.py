"""Rendered seen scenes for vision tests, rendered into a test's own cache folder."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def rendered_frames(folder: Path, seeds: Iterable[int], width: int = 1280,
                    height: int = 720) -> dict[int, tuple[Any, Any, dict[str, Any]]]:
    """Each seed's rendered frame, its profile and its truth (``vision.training.rendered``), rendered into
    ``folder`` (``BGREF_RENDER_CACHE`` set there only while rendering; ~3 s a 1280x720 frame)."""
    from vision.training.rendered import profile_for, rendered

    old = os.environ.get("BGREF_RENDER_CACHE")
    os.environ["BGREF_RENDER_CACHE"] = str(folder)
    try:
        rs = {s: rendered(s, width, height) for s in seeds}
    finally:
        if old is None:
            del os.environ["BGREF_RENDER_CACHE"]
        else:
            os.environ["BGREF_RENDER_CACHE"] = old
    return {s: (r.image(), profile_for(r.truth), r.truth) for s, r in rs.items()}
