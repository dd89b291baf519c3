"""Prompt history per working directory, persisted as JSONL under ~/.local/share/flue/history/."""

from __future__ import annotations

import hashlib
import json
import os
import time
from pathlib import Path

from flue_tui.config.paths import history_dir

MAX_ITEMS = 1000


def history_path(cwd: str) -> Path:
    digest = hashlib.sha256(cwd.encode("utf-8", "surrogatepass")).hexdigest()[:16]
    return history_dir() / f"{digest}.jsonl"


class PromptHistory:
    """Up/Down browsing: `prev(draft)` walks back, `next()` forward; the draft comes back at the end."""

    def __init__(self, cwd: str) -> None:
        self.cwd = cwd
        self.path = history_path(cwd)
        self.items: list[str] = []
        self._pos: int | None = None
        self._draft = ""

    def load(self) -> None:
        """Blocking (run it in a thread); a damaged line is skipped, not fatal."""
        try:
            lines = self.path.read_text("utf-8", errors="replace").splitlines()
        except OSError:
            return
        items: list[str] = []
        for line in lines[-MAX_ITEMS:]:
            try:
                text = json.loads(line).get("text")
            except (ValueError, AttributeError):
                continue
            if isinstance(text, str) and text and (not items or items[-1] != text):
                items.append(text)
        self.items = items + [i for i in self.items if i not in items]

    def add(self, text: str) -> None:
        self._pos = None
        if not text.strip() or (self.items and self.items[-1] == text):
            return
        self.items.append(text)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            # 0600 whatever the directory's mode (another tool may have made it 0755): a typed
            # prompt can hold a token. O_NOFOLLOW: a link planted there does not take the line elsewhere.
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as f:
                if os.fstat(fd).st_mode & 0o077:
                    os.fchmod(fd, 0o600)  # a file an older flue created 0644
                f.write(json.dumps({"text": text, "ts": round(time.time(), 3), "cwd": self.cwd}) + "\n")
        except OSError:
            pass  # history is a convenience; never fail a prompt over it

    def prev(self, draft: str) -> str | None:
        if not self.items:
            return None
        if self._pos is None:
            self._draft = draft
            self._pos = len(self.items)
        if self._pos == 0:
            return None
        self._pos -= 1
        return self.items[self._pos]

    def next(self) -> str | None:
        if self._pos is None:
            return None
        self._pos += 1
        if self._pos >= len(self.items):
            self._pos = None
            return self._draft
        return self.items[self._pos]

    def reset(self) -> None:
        self._pos = None
