"""The full-screen app: the ONLY place Textual is imported.

app.py          FlueApp around one Session; session_ctl.py which session it shows
frontend.py     the app's side of the slash commands' FrontEnd protocol (the table: flue_tui.ui.commands)
prompting.py    the prompt queue and the agent workers that run a prompt or a /compact
rendering.py    what changed, flushed to the widgets at a pace
shell.py        `!command` in the app, interruptible as a turn is
approvals.py    the approval dialog as the policy's asker
palette.py      Ctrl+P; screens/ modal screens; widgets/ the conversation's widgets
screenshots.py  where the palette's "Screenshot" goes (Downloads, else flue's home)
driver.py       Textual's terminal driver, without waiting for its key thread on exit
support.py      whether the app can run here (Textual-free, so the check is cheap)
nokey.py        a prompt that cannot be sent: why, and back into the input; notifier.py  turn-end notification
"""
