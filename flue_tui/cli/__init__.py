"""argv and the subcommands. The top layer; imports lazily so `flue --help` stays fast.

flue.py             `flue`: argv -> app | inline | plain | print mode | subcommand (entry point)
flags.py            every flag's argparse definition (all `flue --help` imports besides flue.py)
sessions.py         `flue sessions ...`; sessions_view.py, sessions_compact.py its parts
sessions_import.py  `flue sessions import FILE|DIR ...`: many exports in one process
sessions_rewind.py  `flue sessions checkpoints | diff | rewind`: a session's file checkpoints, headless
doctor.py           `flue doctor`
trust.py            `flue trust`
worktree.py         `flue worktree list | remove NAME`: the worktrees `flue -w NAME` made
"""
