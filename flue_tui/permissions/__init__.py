"""Permission modes, rules and the approval seam between the agent loop and the front ends.

Submodules are imported directly (flue_tui.permissions.policy, .config, .flags ...) so that the
CLI's argument parsing pulls in nothing but argparse.
"""
