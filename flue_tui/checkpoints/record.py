"""What a checkpoint saw on disk but did not capture, kept in its commit message.

A restore may remove a path only when its checkpoint vouches the path did not exist then. A path
missing from a checkpoint's tree proves that only if the checkpoint also knew every path it left
out: the ignored ones (`.env` under a `.gitignore` line a turn then removed), the ones over the
size cap, the unreadable ones and nested repositories. A checkpoint without this record (taken by
an older flue, or one whose list was too long to keep) vouches for nothing, so nothing missing from
it is removed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

_MARK = "flue-uncaptured: "
_MAX_BYTES = 4 * 1024 * 1024  # a commit message this long is slow to read back; past it, vouch for nothing


@dataclass(frozen=True, slots=True)
class Record:
    """What a checkpoint left out: ignored paths and those it skipped, kept in its commit message."""

    ignored: frozenset[str]  # "dir/" for a whole ignored directory
    skipped: frozenset[str]  # over the size cap, unreadable, nested repositories ("dir/")

    def message(self, text: str) -> str:
        body = json.dumps({"ignored": sorted(self.ignored), "skipped": sorted(self.skipped)}, ensure_ascii=True)
        return f"{text or 'checkpoint'}\n\n{_MARK}{body if len(body) <= _MAX_BYTES else 'null'}\n"

    @staticmethod
    def parse(message: str) -> Record | None:
        for line in reversed(message.splitlines()):
            if line.startswith(_MARK):
                try:
                    data = json.loads(line[len(_MARK) :])
                    return Record(frozenset(map(str, data["ignored"])), frozenset(map(str, data["skipped"])))
                except (ValueError, TypeError, KeyError):
                    return None
        return None

    def covers(self, path: str) -> str | None:
        """Why `path` may have existed at this checkpoint though its tree lacks it, or None."""
        parts = path.split("/")
        names = [path, *("/".join(parts[:i]) + "/" for i in range(1, len(parts)))]
        for entries, why in (
            (self.skipped, "over the size cap, unreadable or a nested repository"),
            (self.ignored, "ignored"),
        ):
            if any(name in entries for name in names):
                return why
        return None


def vouch(record: Record | None, path: str) -> str | None:
    """None when the checkpoint vouches `path` did not exist then (so removing it restores the
    checkpoint); else the sentence saying why it was left."""
    if record is None:
        return "the checkpoint does not record what it left out, so it cannot vouch this was created since"
    why = record.covers(path)
    return None if why is None else f"not in the checkpoint ({why} then), so it may predate it"
