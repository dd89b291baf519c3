"""flue-tui: a terminal coding agent (Flue's local() session in Python)."""

__version__ = "0.1.0"
