"""The session database: the only package that touches SQLite.

db.py, migrations.py  opening and the schema; sessions.py SessionStore; transcript.py messages;
recorder.py saves a Session's events; resume.py rebuilds a context; values.py frozen values;
export.py `flue sessions export`; health.py facts for `flue doctor`.

Front ends use `SessionStore` (find, list, rename, delete, fork, tail, search) and attach a
`Recorder` to a Session; nothing here imports Textual or litellm.
"""
