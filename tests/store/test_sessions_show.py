"""`flue sessions show` (ui/sessions_show.py): each output under its call, labelled; bash's last lines;
a task child's report printed once."""

from __future__ import annotations

import io

from rich.console import Console

from flue_tui.ui.sessions_show import show
from tests.store.conftest import assistant, result, user


def _shown(store, session_id: str) -> list[str]:
    out = io.StringIO()
    show(store, store.get(session_id), console=Console(file=out, width=100, color_system=None, highlight=False))
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_outputs_sit_under_their_calls_labelled_and_bash_shows_its_tail(store):
    store.create("ses_a", cwd="/p", title="two calls")
    for m in (
        user("look"),
        assistant("", calls=[("c1", "read"), ("c2", "bash")]),
        result("c1", "alpha file"),
        result("c2", "\n".join(f"line {i}" for i in range(1, 31)), name="bash"),
        assistant("done"),
    ):
        store.append("ses_a", m)
    lines = _shown(store, "ses_a")
    text = "\n".join(lines)
    read_call = next(i for i, line in enumerate(lines) if line.startswith("· read"))
    bash_call = next(i for i, line in enumerate(lines) if line.startswith("· bash"))
    assert read_call < text.splitlines().index("    ⎿ read result") < bash_call  # read's output before bash's call
    assert lines[read_call + 2] == "    alpha file"
    assert lines[bash_call + 1] == "    ⎿ bash result"
    assert lines[bash_call + 2] == "    … 22 more lines above"
    assert lines[bash_call + 3 : bash_call + 11] == [f"    line {i}" for i in range(23, 31)]
    assert "line 1\n" not in text


def test_a_task_childs_report_is_printed_once(store):
    store.create("ses_p", cwd="/p", title="delegate")
    store.append("ses_p", user("find callers"))
    store.append("ses_p", assistant("", calls=[("ct", "task")]))
    store.create("ses_k", cwd="/p", parent_id="ses_p", parent_tool_call_id="ct", title="callers", agent="general")
    store.append("ses_k", user("look for callers of verify_key"))
    store.append("ses_k", assistant("Found two callers: a.py and b.py."))
    store.append("ses_p", result("ct", "Found two callers: a.py and b.py.", name="task"))
    text = "\n".join(_shown(store, "ses_p"))
    assert text.count("Found two callers") == 1
    assert "⎿ task result: its report above" in text


def test_a_childs_unknown_price_keeps_the_total_unknown(store):
    """The store keeps dollars, not whether a price was known: a tree with an unpriced message
    must read `cost unknown` (as the live session did), never `$0.0000`."""
    usage = {"input": 10, "output": 5, "cache_read": 0, "cache_write": 0, "cost": 0.0}
    store.create("ses_p", cwd="/p", title="priced")
    store.append("ses_p", user("go"))
    store.append("ses_p", assistant("ok", usage={**usage, "cost": 0.5, "priced": True}))
    assert store.tree_priced("ses_p")
    assert "$0.5000" in "\n".join(_shown(store, "ses_p"))
    store.create("ses_k", cwd="/p", parent_id="ses_p", parent_tool_call_id="ct", title="kid", agent="general")
    store.append("ses_k", assistant("kid", usage={**usage, "priced": False}))
    assert not store.tree_priced("ses_p") and store.tree_priced("ses_k") is False
    text = "\n".join(_shown(store, "ses_p"))
    assert "cost unknown" in text and "$0.5000" not in text
