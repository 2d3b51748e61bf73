"""The board simulator: rendered scenes and game videos with exact ground truth."""
