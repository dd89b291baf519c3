"""The session database: the only package that touches SQLite.

Front ends use `SessionStore` (find, list, rename, delete, fork, tail, search) and attach a
`Recorder` to a Session; nothing here imports Textual or litellm.
"""
