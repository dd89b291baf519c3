"""Presentation shared by every front end; no Textual, no prompt-toolkit (rich is fine).

router.py, transcript.py  session events -> transcript entries (plain data widgets render)
toolfmt.py        how a tool call reads on screen (its summary: flue_tui.core.toolcall)
backfill.py       a resumed history as the entries a live run builds (task children read from the store)
commands.py       the slash commands: table, /help text, parsing, and the `FrontEnd` protocol
dispatch.py       running a command: each name's handler over `FrontEnd`, else a skill or "unknown"
slash.py          `/name args` where the app's commands do not run (`-p`, `--plain`, ACP)
status_text.py    /status and /context; permissions_text.py /permissions; hooks_text.py /hooks
bashes.py         `/bashes` and what is heard when a background command ends
rewind.py         /rewind, /undo and /redo: the points to go back to, and the actions
plan.py           the model's plan (todo_write) as a checklist
modelpick.py      what the `/model` picker shows, in the app and inline mode
history.py        prompt history; pathindex.py  the `@` path completion index
sessions_show.py  a stored session rendered (`flue sessions show`)
keys.py           whether the configured model lacks its API key (the no-key screen, the refusal)
welcome.py        what a fresh session greets with; statusline.py  a status line fitted by priority
notify.py         the turn-end notification (OSC 9 + BEL), its text made terminal-safe
logline.py        how a log event reads (a retry with its attempt, status and wait)
attach.py         `@path` in a prompt: the file (or a listing) attached, with a note per path
clipboard.py      an image from the system clipboard (the app's Ctrl+V)
pacing.py         when a front end draws what changed: at most once per interval
mdtext.py         Markdown source adjusted before rendering (task-list boxes)
hanging.py        two-column notices (/skills, /help) wrapped under their second column
termsafe.py       `terminal_safe`, re-exported from flue_tui.core.termsafe
"""
