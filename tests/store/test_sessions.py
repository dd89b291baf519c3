"""The store API the CLI and the TUI use: names, listing, paging, fork, delete, search."""

from __future__ import annotations

import json
import time

import pytest

from flue_tui.store.db import StoreError
from flue_tui.store.sessions import UnknownSession
from flue_tui.store.transcript import MARK_END, MARK_START
from tests.store.conftest import assistant, result, user


def fill(store, sid: str, cwd: str = "/proj", n: int = 3, name: str | None = None) -> None:
    store.create(sid, cwd=cwd, name=name, model="openai/fake")
    for i in range(n):
        store.append(sid, user(f"question {i}"))


def test_messages_keep_order_and_round_trip(store):
    store.create("ses_a", cwd="/proj")
    msgs = [
        user("hi"),
        assistant("let me look", calls=[("c1", "read")]),
        result("c1", "file text"),
        assistant("done", usage={"input": 10, "output": 5, "cache_read": 1, "cache_write": 0, "cost": 0.5}),
    ]
    for m in msgs:
        store.append("ses_a", m)
    stored = list(store.iter_messages("ses_a"))
    assert [m.seq for m in stored] == [1, 2, 3, 4]
    assert [m.data for m in stored] == msgs
    info = store.get("ses_a")
    assert info.message_count == 4 and info.input_tokens == 10 and info.output_tokens == 5
    assert info.cache_read_tokens == 1 and info.cost_usd == 0.5


def test_tail_and_paging_back(store):
    fill(store, "ses_a", n=120)
    tail = store.tail("ses_a", 50)
    assert [m.seq for m in tail] == list(range(71, 121))
    older = store.before("ses_a", tail[0].seq, 50)
    assert [m.seq for m in older] == list(range(21, 71))
    assert [m.seq for m in store.before("ses_a", 21, 50)] == list(range(1, 21))
    assert store.before("ses_a", 1, 50) == []


def test_list_is_newest_first_per_directory_and_skips_tasks(store):
    fill(store, "ses_old", n=1)
    time.sleep(0.002)
    fill(store, "ses_other_dir", cwd="/elsewhere", n=1)
    time.sleep(0.002)
    fill(store, "ses_new", n=1)
    store.create("ses_child", cwd="/proj", parent_id="ses_new", parent_tool_call_id="c1")
    assert [s.id for s in store.list_sessions("/proj")] == ["ses_new", "ses_old"]
    assert [s.id for s in store.list_sessions(None)] == ["ses_new", "ses_other_dir", "ses_old"]
    assert store.count_sessions("/proj") == 2 and store.newest("/proj").id == "ses_new"
    time.sleep(0.002)
    store.append("ses_old", user("again"))  # activity moves a session to the top
    assert store.newest("/proj").id == "ses_old"
    assert [c.id for c in store.children("ses_new")] == ["ses_child"]


def test_find_by_name_id_prefix_and_suggestions(store):
    fill(store, "ses_01AAAAAAAAAA", name="auth-refactor")
    fill(store, "ses_01BBBBBBBBBB", name="auth-tests")
    fill(store, "ses_01CCCCCCCCCC", cwd="/other", name="docs")
    assert store.find("auth-refactor", "/proj").id == "ses_01AAAAAAAAAA"
    assert store.find("ses_01BBBBBBBBBB", "/proj").name == "auth-tests"
    assert store.find("ses_01BB", "/proj").name == "auth-tests"  # a unique prefix
    assert store.find("ses_01", "/proj") is None  # ambiguous
    assert store.find("docs", "/proj").cwd == "/other"  # unique across directories
    with pytest.raises(UnknownSession) as err:
        store.require("auth-refactr", "/proj")
    assert err.value.suggestions[0] == "auth-refactor"
    assert 'No session named "auth-refactr" in /proj' in str(err.value) and "auth-refactor" in str(err.value)


def test_names_unique_per_directory_and_validated(store):
    fill(store, "ses_a", name="work")
    with pytest.raises(StoreError, match="already exists"):
        store.create("ses_b", cwd="/proj", name="work")
    fill(store, "ses_c", cwd="/other", name="work")  # another directory: fine
    fill(store, "ses_d")
    with pytest.raises(StoreError, match="already exists"):
        store.rename("ses_d", "work")
    for bad in ["", "   ", "two\nlines", "-flag", "ses_lookalike", "x" * 101]:
        with pytest.raises(StoreError):
            store.rename("ses_d", bad)
    assert store.rename("ses_d", "  play ").name == "play"
    assert store.get("ses_a").name == "work"  # nothing else changed


def test_delete_takes_children_and_messages_and_search_rows(store):
    fill(store, "ses_a", n=2)
    store.create("ses_kid", cwd="/proj", parent_id="ses_a", parent_tool_call_id="c1")
    store.append("ses_kid", user("needle in the child"))
    store.create("ses_grandkid", cwd="/proj", parent_id="ses_kid")
    store.append("ses_grandkid", user("needle deeper"))
    fill(store, "ses_keep", n=1)
    store.append("ses_keep", user("needle kept"))
    assert store.delete("ses_a") == 4
    assert store.get("ses_kid") is None and store.get("ses_grandkid") is None
    assert [h.session_id for h in store.search("needle")] == ["ses_keep"]


def test_fork_copies_and_leaves_the_original(store):
    fill(store, "ses_a", n=3, name="main")
    fork = store.fork("ses_a", name="experiment")
    assert fork.forked_from == "ses_a" and fork.name == "experiment" and fork.message_count == 3
    store.append(fork.id, user("only in the fork"))
    assert [m.text for m in store.iter_messages("ses_a")] == ["question 0", "question 1", "question 2"]
    assert [m.text for m in store.iter_messages(fork.id)][-1] == "only in the fork"
    assert store.fork("ses_a").title == "main (fork)"


def test_search_snippets_newest_first_and_safe_syntax(store):
    fill(store, "ses_a", n=0, name="alpha")
    store.append("ses_a", user("the parser fails on unicode input"))
    store.append("ses_a", assistant("I fixed the parser: it now decodes bytes first."))
    fill(store, "ses_b", cwd="/other", n=0)
    store.append("ses_b", user("is the parser fast?"))
    hits = store.search("parser")
    assert [(h.session_id, h.seq) for h in hits] == [("ses_b", 1), ("ses_a", 2), ("ses_a", 1)]
    assert hits[1].session_label == "alpha" and hits[1].role == "assistant"
    assert f"{MARK_START}parser{MARK_END}" in hits[1].snippet
    assert [h.session_id for h in store.search("parser", cwd="/proj")] == ["ses_a", "ses_a"]
    assert [h.seq for h in store.search("parser unicode")] == [1]  # every word must match
    for weird in ['"', "a-b", "NOT", "x*", "(", "col:val", "it's"]:
        store.search(weird)  # never an FTS5 syntax error
    with pytest.raises(StoreError):
        store.search("   ")


def test_search_labels_task_hits_with_their_conversation(store):
    fill(store, "ses_a", n=0, name="parent")
    store.create("ses_kid", cwd="/proj", parent_id="ses_a", title="look around")
    store.append("ses_kid", user("walrus"))
    (hit,) = store.search("walrus")
    assert hit.session_label == "look around" and hit.root_label == "parent"


def test_exports(store):
    from flue_tui.store.export import to_json, to_markdown

    fill(store, "ses_a", n=0, name="exported")
    store.append("ses_a", user("read a"))
    store.append("ses_a", assistant("", calls=[("c1", "task")]))
    store.create(
        "ses_kid", cwd="/proj", parent_id="ses_a", parent_tool_call_id="c1", title="child work", agent="flue-general"
    )
    store.append("ses_kid", user("child prompt"))
    store.append("ses_a", result("c1", "```fenced``` output", name="task"))
    data = to_json(store, store.get("ses_a"))
    json.dumps(data)
    assert [m["role"] for m in data["messages"]] == ["user", "assistant", "toolResult"]
    assert data["tasks"][0]["messages"][0]["content"] == "child prompt"
    md = to_markdown(store, store.get("ses_a"))
    assert md.startswith("# exported") and "## User\n\nread a" in md
    assert md.index("child prompt") < md.index("Tool result: task")  # nested under its call
    assert "````\n```fenced``` output\n````" in md
