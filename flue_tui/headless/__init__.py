"""Front ends without a screen of their own.

printmode.py  `flue -p`: one prompt; text, json or stream-json; an honest exit code
plain.py      line mode, the fallback when no full-screen UI can run
"""
