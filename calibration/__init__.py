"""bgref calibration package."""
