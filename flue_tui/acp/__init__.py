"""`flue --acp`: the Agent Client Protocol (JSON-RPC over stdio) for editors (Zed, JetBrains,
Neovim, toad) and harnesses (Harbor), on the official `agent-client-protocol` SDK, which only this
package imports. A front end like headless, inline and tui: it drives `SessionHandle`.

`serve.py` is the entry (stdout kept for JSON-RPC alone), `wire.py` the bounded line transport,
`agent.py` the protocol methods, `state.py` one ACP session around a handle, `updates.py` flue
events as `session/update`, `toolinfo.py` a tool call's ACP kind, title and locations, `prompt.py`
content blocks as a prompt, `replay.py` a stored conversation as updates, `asker.py` permission
questions, `options.py` modes and the model option, `clientio.py` the client's files and terminals.
"""
