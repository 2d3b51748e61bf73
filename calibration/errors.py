"""The calibration error family: every error is a ``ValueError`` naming what was wrong.

>>> str(ProfileFieldError("camera.width", expected="1920", found="1280"))
'profile field camera.width: expected 1920, found 1280'
"""

from __future__ import annotations


class CalibrationError(ValueError):
    """Root of every calibration error (a ``ValueError``, so the CLI prints it as one line)."""


class ProfileError(CalibrationError):
    """A profile file that cannot be used: unreadable, corrupt, old, or for another camera."""


class ProfileFieldError(ProfileError):
    """One field of a profile is missing or wrong; names the field, what was expected and found."""

    def __init__(self, field: str, *, expected: str, found: str, source: str | None = None) -> None:
        self.field = field
        self.expected = expected
        self.found = found
        self.source = source
        where = f"{source}: " if source else ""
        super().__init__(f"{where}profile field {field}: expected {expected}, found {found}")


class ProfileVersionError(ProfileFieldError):
    """A profile written by another (older or newer) version of the format."""


class ResolutionMismatch(ProfileError):
    """A frame whose size differs from the resolution the profile was made for."""

    def __init__(self, expected: tuple[int, int], found: tuple[int, int], source: str | None = None) -> None:
        self.expected = expected
        self.found = found
        where = f"{source}: " if source else ""
        super().__init__(
            f"{where}frame is {found[0]}x{found[1]} but the profile was made for "
            f"{expected[0]}x{expected[1]}; recalibrate for this resolution"
        )


class BoardNotFound(CalibrationError):
    """No backgammon board could be found (or verified) in an image."""


class CornersError(CalibrationError):
    """Manual corner coordinates that cannot describe a board."""


class TargetNotFound(CalibrationError):
    """A chessboard / ChArUco target for the camera intrinsics was not found in enough images."""


class SeatsUndecided(CalibrationError):
    """The frame does not show the starting position clearly enough to tell the seats and home side
    (calibration abstains rather than guess: pass the seating, ``--white``/``--home``)."""


GIVE_CORNERS = "give the four outer corners (--corners X1,Y1,...,X4,Y4 or --click) or ArUco markers (--aruco)"
"""What every fit-guard abstention asks the user for instead."""


class FitUntrusted(CalibrationError):
    """The automatic fit found a board-like placement but cannot vouch for it (its corner confidence, the
    share of the board's edges it explains, is too low): calibration abstains rather than risk a board
    shifted or mirrored under a wrong seating.  ``fit`` is the placement it would have used (for diagnosis)."""

    def __init__(self, confidence: float, threshold: float, fit: object | None = None, *,
                 message: str | None = None) -> None:
        """``message``: the guard signal's own words (the other signals below); by default the confidence's."""
        self.confidence = confidence
        self.threshold = threshold
        self.fit = fit
        super().__init__(message or (
            f"board fit not trusted: corner confidence {confidence:.2f}, need {threshold:.2f} (the fitted "
            f"board explains too few of the frame's board edges: it may be shifted or turned); {GIVE_CORNERS}"
        ))


class SidesUntrusted(FitUntrusted):
    """The fit guard's second signal (:mod:`calibration.guard`): the image shows the points' sides clearly,
    but the fitted placement does not put them on their edges (a board taken shifted by about a point's
    width still shows the points' alternating colours and a convincing starting position)."""

    def __init__(self, confidence: float, side_support: float, need: float, contrast: float,
                 fit: object | None = None) -> None:
        super().__init__(confidence, need, fit, message=(
            f"board fit not trusted: the points' sides lie on {side_support:.2f} of their edges, need "
            f"{need:.2f} (the points stand out from the field by {contrast:.0f} Lab units, so their sides "
            f"should show: the fitted board may be shifted by a point); {GIVE_CORNERS}"
        ))
        self.side_support = side_support
        self.contrast = contrast


class CornerOutside(FitUntrusted):
    """The fit guard's third signal: a fitted outer corner lies well outside the frame.  The board's edges
    there are not in the image, so the fit only extrapolates its near (or far) end from the rest: seen 4351
    (dark on dark, 30.9 degrees) put its near corners 36 px below and 98 px right of the frame, 96-198 px
    from the true ones (which lie inside), with a corner confidence the first signal passed."""

    def __init__(self, confidence: float, corner: tuple[float, float], outside_px: float, limit_px: float,
                 width: int, height: int, fit: object | None = None) -> None:
        super().__init__(confidence, limit_px, fit, message=(
            f"board fit not trusted: its corner ({corner[0]:.0f}, {corner[1]:.0f}) lies {outside_px:.0f} px "
            f"outside the {width}x{height} frame (allowed {limit_px:.0f}): the board must be wholly in view, "
            f"or the fit is a guess there; frame the whole board, or {GIVE_CORNERS}"
        ))
        self.corner = corner
        self.outside_px = outside_px
