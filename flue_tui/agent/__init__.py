"""The agent: Session, the loop, compaction. Knows nothing of litellm, SQLite or Textual.

session.py     Session: history, prompt(), abort(), subscribers
seams.py       what a Session consults (policy, hooks, checkpoints, MCP), one value given at construction
loop.py        one operation: model turn -> tools -> next turn; toolrun.py runs one batch of calls
result.py      what one prompt() (or compaction) produced, and its running counts
ending.py      how a prompt was admitted and how its run ended, between prompt()'s phases
prompt.py      the system prompt; compaction.py, compaction_prompts.py  summarising old context
pending.py     a prompt's file checkpoint, taken beside its first model request
prompthooks.py the user's prompt, stop and compaction hooks, seen through a Protocol
usershell.py   `!command`: a shell command the user runs themselves (Session.shell)
usage_text.py  how every front end words a token total
"""
