"""The full-screen app: the ONLY place Textual is imported.

app.py          FlueApp around one Session; session_ctl.py which session it shows
approvals.py    the approval dialog as the policy's asker (slash commands: ui/commands.py)
palette.py      Ctrl+P; screens/ modal screens; widgets/ the conversation's widgets
support.py      whether the app can run here (Textual-free, so the check is cheap)
nokey.py        a prompt that cannot be sent: why, and back into the input; notifier.py  turn-end notification
"""
