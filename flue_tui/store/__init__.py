"""The session database: the only package that touches SQLite.

db.py, migrations.py  opening and the schema; sessions.py SessionStore; transcript.py messages;
recorder.py saves a Session's events; resume.py rebuilds a context; values.py frozen values;
export.py `flue sessions export`; health.py facts for `flue doctor`; conn.py connections,
transactions and what an SQLite error means; dbfile.py what sits at the database path before SQLite
may touch it; lock.py one writer per session; images.py image bytes stored once per sha256;
importing.py `flue sessions import`, checking a whole export before writing it.

Front ends use `SessionStore` (find, list, rename, delete, fork, tail, search) and attach a
`Recorder` to a Session; nothing here imports Textual or litellm.
"""
