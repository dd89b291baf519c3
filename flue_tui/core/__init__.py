"""The lowest layer: values every other package shares, importing nothing of flue_tui.

messages.py  conversation messages, their storage dicts and the OpenAI-chat wire format
events.py    the event vocabulary every front end, the store and print mode consume
ids.py       sortable, copyable ids
abort.py     AbortSignal/AbortError and ToolError (raised by tools and sandboxes alike)
toolcall.py  what a tool call is about, in a few words, for every surface
details.py   tool details typed per tool (bash, read, write, edit, grep/glob, task) and their wire dicts
jsstr.py     JavaScript string semantics (whitespace, UTF-16 length) Flue's limits count in
heap.py      start-up's long-lived objects frozen out of the collector's full scans
"""
