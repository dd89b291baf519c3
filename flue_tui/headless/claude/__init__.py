"""Claude Code's headless protocol on top of flue, so scripts and Claude Agent SDK programs written
against `claude -p` run unchanged on flue.

run.py         print mode's glue: the options its flags gave, the init message, the input loop
stream.py      flue events as stream-json messages
result.py      the `result` object
toolresult.py  `tool_use_result`: a tool result's structured shape, as Claude Code writes it
control.py     `--input-format stream-json`: user messages and the Agent SDK's control requests
asks.py        what flue asks the SDK: `can_use_tool` (the policy's asker), `hook_callback`
agents.py      the SDK's `agents={...}` as task agents
flags.py       Claude Code's flag spellings, parsed without prefix matching
"""
