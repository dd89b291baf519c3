"""The only wiring point: concrete parts (model, sandbox, tools, policy, store) put together.

wiring.py         Runtime: builds a Session for a run from Settings
handle.py         SessionHandle: the one session object every front end drives (start, /new, /resume,
                  rename, model, effort, mode, compact, export, totals, wait_idle, close)
start.py          checks the session flags and starts a Session that resumes from / records to the store
workers.py        the daemon default executor and `exit_now` (no exit waits on a thread or on teardown)
quitting.py       leaving the app or inline mode: close the session, print how to resume it, end at once
checkpointing.py  a file checkpoint before each user message, and each turn's end (Session.before_prompt)
claudecode.py     what `.claude/` changes beyond the prompt: an agent's `tools:`, a command's model and tools
costs.py          /cost's words in every front end
worktree.py       `flue -w NAME`'s git worktree beside the repository, and where isolated tasks run
"""
