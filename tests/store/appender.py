"""A writer process for the concurrency test: `python -m tests.store.appender DB WHO SECONDS`.

Records a conversation into its own session and into a session shared with the other writer,
through the real Recorder, as fast as it can; prints how many messages it committed.
"""

from __future__ import annotations

import sys
import time

from flue_tui.core.events import MessageEnd, TextDelta, TurnStart
from flue_tui.store.recorder import Recorder
from flue_tui.store.sessions import SessionStore


def main(db: str, who: str, seconds: float) -> int:
    store = SessionStore.open(db)
    own = Recorder(store, session_id=f"ses_{who}", cwd="/proj", model="m", checkpoint_s=0)
    shared = Recorder(store, session_id="ses_shared", cwd="/proj", model="m", checkpoint_s=0)
    counts = {"own": 0, "shared": 0}
    end = time.monotonic() + seconds
    n = 0
    while time.monotonic() < end:
        n += 1
        for rec, key in ((own, "own"), (shared, "shared")):
            sid = rec.root
            rec(MessageEnd(session=sid, message={"role": "user", "content": f"{who} question {n}"}))
            rec(TurnStart(session=sid, turn_id=f"t{n}"))
            for word in ("streamed ", "answer ", f"{who}-{n}"):
                rec(TextDelta(session=sid, text=word))  # checkpoint_s=0: every delta is a write
            rec(
                MessageEnd(
                    session=sid,
                    message={
                        "role": "assistant",
                        "text": f"streamed answer {who}-{n}",
                        "thinking": "",
                        "tool_calls": [],
                        "stop_reason": "stop",
                        "error": None,
                        "model": "m",
                        "usage": None,
                    },
                )
            )
            counts[key] += 2
    if own._warned or shared._warned:
        return 1
    print(counts["own"], counts["shared"])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], float(sys.argv[3])))
