"""Permission modes, rules and the approval seam between the agent loop and the front ends.

policy.py      the policy consulted before every tool call; asking.py what a question shows
approval.py    a permission question, its answer and the asker between them, shared by every asker
rules.py       rule matching; shell.py, runners.py, git.py  reading bash the way bash runs it
shellwords.py  what reading a shell command produces (words, simple commands, files written)
gitindex.py    the submodules a git index names (its gitlinks), read from the index file
readonly.py    commands that only read, run without a question in ask and accept-edits modes
scope.py       where a change may go without a question, and what always asks
config.py      the [permissions] tables; flags.py what the CLI flags give; secrets.py redaction
project.py     asking the user to trust a project (settings and rules it would loosen)
claude.py      Claude Code's permission rule syntax mapped onto flue's rules (the one mapping)
claudefiles.py Claude Code's settings files as rule sources: what applies untrusted, what waits for trust

Submodules are imported directly (flue_tui.permissions.policy, .config, .flags ...) so that the
CLI's argument parsing pulls in nothing but argparse.
"""
