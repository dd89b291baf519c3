"""Checkpoints of the workspace's files, taken before each turn so a turn can be undone.

`store.py` — `FileCheckpoints`: snapshot, diff, restore, delete, size (one store per workspace).
`git.py` — runs the `git` binary against flue's own bare store, isolated from every config file.
`restore.py` — writes a checkpoint's bytes back by a descriptor walk beneath the workspace.
`record.py` — what a checkpoint saw but did not capture (ignored, too big): what it vouches for.
`stack.py` — a session's rewinds, undos and redos as stacks of undo points, recorded first.
`claims.py` — which file states a session's own tool calls wrote; `owners.py` keeps and reads them.
"""

from flue_tui.checkpoints import stack
from flue_tui.checkpoints.git import GitFailed, GitMissing
from flue_tui.checkpoints.store import Change, FileCheckpoints, Restored, Snapshot, total_size

__all__ = ["Change", "FileCheckpoints", "GitFailed", "GitMissing", "Restored", "Snapshot", "stack", "total_size"]
