"""``python -m vision.training.games``: bad seeds and missing frames give one clear line, not a traceback."""

from __future__ import annotations

from pathlib import Path

import pytest

from vision.training.games import main


@pytest.mark.parametrize("seeds, said", [("20x", "seed '20x': expected N or N-M"),
                                         ("20005-20000", "seed range '20005-20000': the end is before the start")])
def test_bad_seeds_are_named(seeds: str, said: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["measure", seeds, "--dir", str(tmp_path)])
    assert str(exc.value) == f"python -m vision.training.games: {said}"


def test_frames_not_rendered_are_named(tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["measure", "20000-20001", "--dir", str(tmp_path)])
    assert str(exc.value) == f"no game frames of 20000-20001 in {tmp_path} (render them first)"
    assert list(tmp_path.iterdir()) == []  # nothing written
