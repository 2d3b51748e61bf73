"""Sub-commands of ``bgref``, one module each."""
