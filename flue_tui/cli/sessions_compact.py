"""`flue sessions compact NAME [FOCUS]`: summarise a saved session's older messages now.

The full history stays in the database; the compaction marker it adds changes only what the model
is sent when the session is resumed."""

from __future__ import annotations

import asyncio
import sys

from flue_tui.config.errors import ConfigError
from flue_tui.config.settings import Settings
from flue_tui.store.sessions import SessionStore
from flue_tui.store.values import SessionInfo


def compact_stored(store: SessionStore, info: SessionInfo, *, focus: str | None, model: str | None) -> int:
    from flue_tui.runtime.start import SessionOptions, SessionStartError, start_session

    try:
        settings = Settings.from_env(cwd=info.cwd, model=info.model or None, compaction_model=model)
        started = start_session(settings, SessionOptions(resume=info.id, db=store.path, owner="flue sessions compact"))
    except (ConfigError, SessionStartError) as exc:
        print(f"flue: {exc}", file=sys.stderr)
        return 1
    try:
        result = asyncio.run(started.session.compact(focus))
    finally:
        if started.recorder is not None:
            started.recorder.close()
        if started.store is not None:
            started.store.close()
    if result.is_error:
        print(f"flue: {result.error}", file=sys.stderr)
        return 1
    print(f"{info.label}: {result.text}")
    return 0
