"""A writer process for the concurrency test: `python -m tests.store.appender DB WHO OTHER ROUNDS`.

Records a conversation into its own session and into a session shared with the other writer,
through the real Recorder, as fast as it can; prints how many messages it committed. It writes at
least ROUNDS rounds and goes on until it has seen the other writer's messages in the shared
session, so the two really wrote at the same time whatever the machine's load (no clock decides it).
"""

from __future__ import annotations

import sys
import time

from flue_tui.core.events import MessageEnd, TextDelta, TurnStart
from flue_tui.store.recorder import Recorder
from flue_tui.store.sessions import SessionStore

SAFETY_S = 300.0  # only against a hang: a writer that never sees the other fails the test


def main(db: str, who: str, other: str, rounds: int) -> int:
    store = SessionStore.open(db)
    own = Recorder(store, session_id=f"ses_{who}", cwd="/proj", model="m", checkpoint_s=0)
    shared = Recorder(store, session_id="ses_shared", cwd="/proj", model="m", checkpoint_s=0)
    counts = {"own": 0, "shared": 0}
    give_up = time.monotonic() + SAFETY_S
    n = 0
    while n < rounds or not _seen(store, other):
        if time.monotonic() > give_up:
            print(f"{who} never saw {other}'s messages", file=sys.stderr)
            return 2
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


def _seen(store: SessionStore, other: str) -> bool:
    return any(m.text.startswith(f"{other} question ") for m in store.iter_messages("ses_shared"))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])))
