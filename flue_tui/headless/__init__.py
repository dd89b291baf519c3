"""Front ends without a screen of their own.

printmode.py  `flue -p`: one prompt; text, json or stream-json; an honest exit code
resultline.py `-p`'s result object and the note of calls refused for want of an asker
output.py     every print-mode write: a closed pipe (`| head -1`) ends the run quietly
workers.py    signals during a headless start-up (the daemon executor and `exit_now`, re-exported)
plain.py      line mode, the fallback when no full-screen UI can run
claude/       Claude Code's headless protocol (stream-json, control requests, its flags) for `flue -p`
"""
