"""A provider's refusal (OpenAI's finish_reason `content_filter`, Anthropic's `refusal`) is said as
such: the stored reply's stop reason, `-p`'s result and ACP's stop reason (tests/acp) — not a
plain end of turn."""

from __future__ import annotations

import json

from flue_tui.store.sessions import SessionStore
from tests.fakellm import Turn


def test_a_refusal_is_the_results_stop_reason(fakellm, flue_main, _isolated_home):
    fakellm.script([Turn(text="I can't help with that.", finish_reason="content_filter")])
    out = flue_main("-p", "something", "--model", "openai/fake", "--output-format", "json")
    assert out.code == 0, out.stderr
    result = json.loads(out.stdout.splitlines()[-1])
    assert result["stop_reason"] == "refusal" and result["result"] == "I can't help with that."
    with SessionStore.open(_isolated_home / "sessions.db") as store:
        (info,) = store.list_sessions(None)
        stored = [m for m in store.load_context(info.id) if m.role == "assistant"]
    assert stored[-1].stop_reason == "refusal"  # type: ignore[union-attr]
