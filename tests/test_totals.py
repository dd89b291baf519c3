"""One set of totals per session, task children included, on every surface: the json result, the
sum of the `usage` events, the app's status bar (live and after resume), /cost, `sessions show`
and `list --json`, and the store a resumed session starts from."""

from __future__ import annotations

import json
import os

from flue_tui.config.settings import Settings
from flue_tui.runtime.start import SessionOptions, start_session
from flue_tui.store.sessions import SessionStore
from tests.fakellm import Call, Turn

# The parent uses 300/60 + 400/80 = 700/140; its task child 100/20 + 100/20 = 200/40.
PARENT_AND_CHILD = [
    Turn(
        match="parent job",
        calls=[Call("task", {"prompt": "kid job: read notes.txt", "agent": "flue-general"})],
        usage=(300, 60),
    ),
    Turn(match="kid job", calls=[Call("read", {"path": "notes.txt"})], usage=(100, 20)),
    Turn(match="kid job", text="the notes say hi", usage=(100, 20)),
    Turn(match="parent job", text="The child says hi.", usage=(400, 80)),
]


def test_print_result_events_and_store_count_the_task_child(fakellm, flue_main, tmp_path, _isolated_home):
    (tmp_path / "notes.txt").write_text("hi\n")
    fakellm.script(PARENT_AND_CHILD)
    out = flue_main("-p", "parent job", "--model", "openai/fake", "--output-format", "events")
    assert out.code == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    result = lines[-1]
    assert result["usage"]["input_tokens"] == 900 and result["usage"]["output_tokens"] == 180
    usage_events = [e for e in lines if e["type"] == "usage"]
    assert len(usage_events) == 4
    assert sum(e["turn"]["input"] for e in usage_events) == 900
    assert sum(e["turn"]["output"] for e in usage_events) == 180
    root_events = [e for e in usage_events if "taskId" not in e]
    assert root_events[-1]["total"]["input"] == 900 and root_events[-1]["total"]["output"] == 180
    operation = [e for e in lines if e["type"] == "operation" and "taskId" not in e][-1]
    assert operation["usage"]["input"] == 900

    sid = result["session_id"]
    with SessionStore.open(_isolated_home / "sessions.db") as store:
        assert store.tree_usage(sid)[:2] == (900, 180)
    shown = flue_main("sessions", "show", sid, env={**os.environ, "COLUMNS": "300"})
    assert "900 in · 180 out" in shown.stdout, shown.stdout + shown.stderr
    listed = flue_main("sessions", "list", "--json")
    row = next(r for r in json.loads(listed.stdout) if r["id"] == sid)
    assert row["total"]["input_tokens"] == 900 and row["total"]["output_tokens"] == 180


async def test_budget_check_counts_the_task_child(fakellm, tmp_path, monkeypatch):
    """The child's cost is the caller's cost: the budget check after the task sees both. gpt-4.1 is
    priced ($2/$8 per million): the parent's first turn costs $0.00108, the child $0.00072."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "notes.txt").write_text("hi\n")
    fakellm.script(PARENT_AND_CHILD)
    settings = Settings(model="openai/gpt-4.1", cwd=str(tmp_path), api_base=fakellm.base_url, retry_base_ms=5)
    session = start_session(settings, SessionOptions(persist=False)).session
    session.max_budget_usd = 0.0015
    result = await session.prompt("parent job")
    assert result.subtype == "error_max_budget_usd", result
    assert (result.usage.input, result.usage.output) == (500, 100)
    assert abs(result.usage.cost - 0.0018) < 1e-9


async def test_resume_starts_from_the_total_with_children(fakellm, tmp_path, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "notes.txt").write_text("hi\n")
    fakellm.script([*PARENT_AND_CHILD, Turn(text="again", usage=(10, 5))])
    settings = Settings(model="openai/fake", cwd=str(tmp_path), api_base=fakellm.base_url, retry_base_ms=5)
    db = str(tmp_path / "s.db")
    first = start_session(settings, SessionOptions(name="kept", db=db))
    await first.session.prompt("parent job")
    assert (first.session.usage.input, first.session.usage.output) == (900, 180)
    first.recorder.close()
    first.store.close()
    again = start_session(settings, SessionOptions(resume="kept", db=db))
    assert (again.session.usage.input, again.session.usage.output) == (900, 180)
    result = await again.session.prompt("one more")
    assert (result.usage.input, result.usage.output) == (10, 5)  # this run's own
    assert (again.session.usage.input, again.session.usage.output) == (910, 185)
    again.recorder.close()
    again.store.close()


def test_every_surface_words_the_total_the_same_way():
    from flue_tui.agent import usage_text
    from flue_tui.core.messages import Usage

    total = Usage(input=100, output=20, cache_read=700, cache_write=100, cost=0.0123)
    assert usage_text.brief(total) == "900 in · 20 out · $0.0123"  # cache reads and writes are prompt tokens
    assert usage_text.detailed(total, tasks=True) == (
        "Tokens: 900 in (700 cache read, 100 cache write) · 20 out · cost $0.0123 · task sub-agents included"
    )
    assert usage_text.from_dict(total.to_dict()) == total
    unpriced = Usage(input=5, output=1, priced=False)
    assert usage_text.brief(unpriced) == "5 in · 1 out · cost unknown"
    assert usage_text.detailed(unpriced).endswith("1 out · cost unknown")
