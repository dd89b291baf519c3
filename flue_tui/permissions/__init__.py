"""Permission modes, rules and the approval seam between the agent loop and the front ends.

policy.py  the policy consulted before every tool call; asking.py what a question shows
rules.py   rule matching; shell.py, runners.py, git.py  reading bash the way bash runs it
config.py  the [permissions] tables; flags.py what the CLI flags give; secrets.py redaction
project.py asking the user to trust a project (settings and rules it would loosen)

Submodules are imported directly (flue_tui.permissions.policy, .config, .flags ...) so that the
CLI's argument parsing pulls in nothing but argparse.
"""
