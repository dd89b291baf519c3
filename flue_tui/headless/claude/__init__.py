"""Claude Code's headless protocol on top of flue: its stream-json messages (`stream.py`, `result.py`),
its stdin control protocol (`control.py`) and its flag spellings (`flags.py`), so scripts and Claude
Agent SDK programs written against `claude -p` run unchanged on flue."""
