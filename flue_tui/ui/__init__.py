"""Presentation shared by every front end; no Textual, no prompt-toolkit (rich is fine).

router.py, transcript.py  session events -> transcript entries (plain data widgets render)
toolfmt.py     how a tool call reads on screen (its summary: core/toolcall.py)
backfill.py    a resumed history as the entries a live run builds (task children read from the store)
commands.py    the slash commands: table, /help text, parsing, and `dispatch` over `FrontEnd`
history.py     prompt history; pathindex.py  the `@` path completion index
sessions_show.py  a stored session rendered (`flue sessions show`); /export is the session
               handle's (runtime/handle.py), through store/export.py like `flue sessions export`
keys.py        whether the configured model lacks its API key (the no-key screen, the refusal)
welcome.py     what a fresh session greets with; statusline.py  a status line fitted by priority
notify.py      the turn-end notification (OSC 9 + BEL), its text made terminal-safe
logline.py     how a log event reads (a retry with its attempt, status and wait)
attach.py      `@path` in a prompt: the file (or a listing) attached, with a note per path
mdtext.py      Markdown source adjusted before rendering (task-list boxes)
hanging.py     two-column notices (/skills, /help) wrapped under their second column
"""
