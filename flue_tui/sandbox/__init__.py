"""Where tools read, write and run commands (below tools: it never imports them).

base.py            the Sandbox protocol and ExecResult
local.py           Flue's local(): the host filesystem and `bash -c` in its own process group
workspace.py       `--sandbox workspace`: paths confined to the workspace; command_checks.py its checks
procguard.py       keeps flue's keys out of its commands' reach and takes them along when flue dies
proctree.py        finds what flue started by its environment mark; the reaper's program
node_errors.py     OS errors in Node's wording; tail.py  bounded output tails
"""
