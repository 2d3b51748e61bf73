"""bgref firmware_bridge package."""
