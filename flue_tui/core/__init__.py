"""The lowest layer: values every other package shares, importing nothing of flue_tui.

messages.py    conversation messages, their storage dicts and the OpenAI-chat wire format
events.py      the event vocabulary every front end, the store and print mode consume
ids.py         sortable, copyable ids
abort.py       AbortSignal/AbortError and ToolError (raised by tools and sandboxes alike)
toolcall.py    what a tool call is about, in a few words, for every surface
details.py     tool details typed per tool (bash, read, write, edit, grep/glob, task) and their wire dicts
jsstr.py       JavaScript string semantics (whitespace, UTF-16 length) Flue's limits count in
heap.py        start-up's long-lived objects frozen out of the collector's full scans
usage.py       a turn's or a session's token counts and cost (apart, for the app's first frame)
classcode.py   the code `@dataclass` compiles, kept beside the interpreter's own bytecode
decision.py    the policy's answer before a tool call: allow (maybe with a new input), ask, deny
files.py       the one place files are opened for the tools and flue's own reads: regular files only
images.py      what an attached image is (magic bytes, size bound, downscale) and how it travels
jsonargs.py    the one parser of a model's tool arguments, depth-bounded; `loads` for other untrusted JSON
validation.py  argument coercion and validation with TypeBox's semantics and wording
traits.py      what a tool declares beside its schema (kind, path arguments, ...) and how a call ended
termsafe.py    model- and tool-controlled text made safe for a real terminal
providers.py   one row per model provider: key variable, name in sentences, default model, host
surrogates.py  a character's UTF-16 halves joined across stream deltas; a lone half becomes U+FFFD
"""
