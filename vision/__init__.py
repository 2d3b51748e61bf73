"""bgref vision package."""
