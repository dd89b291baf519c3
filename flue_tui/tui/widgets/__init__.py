"""The app's widgets.

conversation.py  the scroll view that mounts only a window of the transcript
views.py         entry -> widget: every conversation block is made here
blocks.py        small blocks: the user's prompt, notices, thinking
reply.py         assistant text, streamed block-wise; replymd.py its Markdown half, imported later
settled.py       the streaming reply's widgets take their size without a second layout
tool.py          one tool call: header and a short body
task.py          a `task` call: the child's steps nested inside, then its answer
plan.py          the plan panel above the prompt (the last todo_write)
prompt.py        the prompt: a multi-line editor with history and completion
status.py        the status line, fitted to the width
"""
