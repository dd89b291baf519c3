"""The TUI's plain-Python parts: output tail, Markdown freezing, path index, diffs, history, backfill."""

from __future__ import annotations

import subprocess
from pathlib import Path

from flue_tui.core.messages import AssistantMessage, ToolCall, ToolResultMessage, UserMessage
from flue_tui.tui.widgets.reply import cut_points, split_frozen
from flue_tui.ui.backfill import make_backfill
from flue_tui.ui.commands import parse
from flue_tui.ui.history import PromptHistory
from flue_tui.ui.pathindex import PathIndex, walk_paths
from flue_tui.ui.toolfmt import diff_text, key_argument
from flue_tui.ui.transcript import OutputTail, ReplyEntry, ToolEntry, UserEntry


def test_output_tail_stays_bounded_and_clean():
    tail = OutputTail(max_lines=50)
    for i in range(20_000):
        tail.feed("stdout", f"line {i}\n")
    assert len(tail.lines) == 50 and tail.total_lines == 20_000
    assert tail.last(3) == ["line 19997", "line 19998", "line 19999"]
    tail.feed("stdout", "\x1b[31mred\x1b[0m\n")
    tail.feed("stdout", "progress 10%\rprogress 90%\r\nhalf a li")
    assert tail.last(3) == ["red", "progress 90%", "half a li"]
    tail.feed("stderr", "x" * 5_000_000)  # one enormous chunk: only its end is kept
    assert len(tail.partial["stderr"]) <= OutputTail.MAX_CHUNK
    assert len(tail.last(1)[0]) <= 400


def test_freezing_never_cuts_inside_a_code_fence():
    src = "para one\n\n```\ncode\n\nmore code\n```\n\npara two\n\npara three"
    cuts = cut_points(src)
    assert all(not ("```\ncode" in src[:c] and "more code\n```" not in src[:c]) for c in cuts)
    paragraphs = "".join(f"paragraph {i}\n\n" for i in range(100))
    frozen, tail = split_frozen(paragraphs, blocks=24)
    assert "".join(frozen) + tail == paragraphs
    assert len(frozen) == 4 and tail.count("paragraph") <= 24


def test_walk_paths_honours_nested_gitignore(tmp_path: Path):
    for rel in (
        "a.py",
        "debug.log",
        "keep.log",
        "build/out.js",
        "src/x.py",
        "src/gen/y.py",
        "src/z.tmp",
        "docs/sub/readme.md",
        ".git/config",
        "excluded.txt",
    ):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("")
    (tmp_path / ".gitignore").write_text("*.log\n!keep.log\nbuild/\n")
    (tmp_path / "src" / ".gitignore").write_text("gen/\n*.tmp\n")
    (tmp_path / ".git" / "info").mkdir()
    (tmp_path / ".git" / "info" / "exclude").write_text("excluded.txt\n")
    paths = walk_paths(str(tmp_path))
    assert set(paths) == {
        "a.py",
        "keep.log",
        ".gitignore",
        "src/",
        "src/x.py",
        "src/.gitignore",
        "docs/",
        "docs/sub/",
        "docs/sub/readme.md",
    }
    assert paths.index("a.py") < paths.index("src/x.py")  # shallow first


def test_walk_paths_skips_a_directory_its_own_gitignore_ignores(tmp_path: Path):
    cache = tmp_path / ".pytest_cache"
    (cache / "v" / "cache").mkdir(parents=True)
    (cache / ".gitignore").write_text("# Created by pytest automatically.\n*\n")
    (cache / "README.md").write_text("")
    (cache / "v" / "cache" / "nodeids").write_text("[]")
    part = tmp_path / "partly"
    part.mkdir()
    (part / ".gitignore").write_text("*.o\n")
    (part / "a.o").write_text("")
    (part / "a.c").write_text("")
    paths = walk_paths(str(tmp_path))
    assert not any(p.startswith(".pytest_cache") for p in paths), paths
    assert {"partly/", "partly/a.c", "partly/.gitignore"} <= set(paths) and "partly/a.o" not in paths


def test_walk_paths_agrees_with_git(tmp_path: Path):
    for rel in ("one.py", "two/three.py", "two/skip.bin", "four/five/six.txt", "vendor/lib.c"):
        p = tmp_path / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text("x")
    (tmp_path / ".gitignore").write_text("*.bin\nvendor/\n")
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    listed = subprocess.run(
        ["git", "-C", str(tmp_path), "ls-files", "--others", "--exclude-standard"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert {p for p in walk_paths(str(tmp_path)) if not p.endswith("/")} == set(listed)


def test_path_search_ranks_names_before_paths():
    index = PathIndex("/nowhere")
    paths = ["src/main.py", "main.py", "docs/domain/notes.md", "tests/test_main.py", "src/maintenance/a.py"]
    index.paths, index._lower = paths, [p.lower() for p in paths]
    index._base = [p.rstrip("/").rsplit("/", 1)[-1].lower() for p in paths]
    index.ready = True
    assert index.search("main")[:2] == ["main.py", "src/main.py"]
    assert "tests/test_main.py" in index.search("main")
    assert index.search("dnm") == ["docs/domain/notes.md"]  # letters in order


def test_diff_text_numbers_lines_and_counts_the_rest():
    diff = "--- a/f\n+++ b/f\n@@ -10,3 +10,3 @@\n ctx\n-old\n+new\n ctx2"
    text, hidden = diff_text(diff, None)
    lines = text.plain.splitlines()
    assert lines[0].split() == ["10", "ctx"] and lines[1].split() == ["11", "-old"]
    assert lines[2].split() == ["11", "+new"] and hidden == 0
    _, hidden = diff_text(diff, 2)
    assert hidden == 2


def test_key_argument_per_tool():
    entry = ToolEntry(name="read", args={"path": "/repo/src/a.py", "offset": 10, "limit": 5}, cwd="/repo")
    assert key_argument(entry) == "src/a.py:10+5"
    assert key_argument(ToolEntry(name="bash", args={"command": "make\nmake test"})) == "make …"
    assert key_argument(ToolEntry(name="grep", args={"pattern": "TODO", "include": "*.py"})) == "TODO  (*.py)"


def test_history_walks_back_and_returns_the_draft(tmp_path: Path):
    history = PromptHistory(str(tmp_path))
    for text in ("one", "two", "two", "three"):
        history.add(text)
    assert history.items == ["one", "two", "three"]
    assert history.prev("draft") == "three" and history.prev("") == "two" and history.prev("") == "one"
    assert history.prev("") is None
    assert history.next() == "two" and history.next() == "three" and history.next() == "draft"
    again = PromptHistory(str(tmp_path))
    again.load()
    assert again.items == ["one", "two", "three"]


def test_command_parsing():
    assert parse("/name new-name") == ("name", "new-name")
    assert parse("/help") == ("help", "")
    assert parse("/usr/bin/env python") is None
    assert parse("hello /help") is None


def test_backfill_pairs_results_across_pages():
    call = ToolCall(id="c1", name="read", arguments={"path": "a.py"})
    messages = [
        UserMessage(content="first"),
        AssistantMessage(text="reading", tool_calls=[call]),
        ToolResultMessage(tool_call_id="c1", tool_name="read", text="x", details={"lines": 1}),
        AssistantMessage(text="done"),
    ]
    backfill = make_backfill(messages, "/")
    newest = backfill(1)
    assert isinstance(newest[0], ReplyEntry) and newest[0].text == "done"
    older = backfill(10)
    kinds = [type(e).__name__ for e in older]
    assert kinds == ["UserEntry", "ReplyEntry", "ToolEntry"]
    tool = older[-1]
    assert isinstance(tool, ToolEntry) and tool.status == "ok" and tool.details == {"lines": 1}
    assert isinstance(older[0], UserEntry) and backfill(5) == []


def test_picker_rows_tell_identical_titles_apart_and_count_one_message():
    from flue_tui.store.sessions import SessionStore
    from flue_tui.tui.screens.picker import session_label

    store = SessionStore.open(None)
    try:
        a = store.create("ses_01AAAAAAAAAAAAAAAAAAAAAAAA", cwd="/p", title="fix the tests", message_count=1)
        b = store.create("ses_01AAAAAAAAAAAAAAAAAAAAAAZZ", cwd="/p", title="fix the tests", message_count=3)
    finally:
        store.close()
    first, second = session_label(a, 20).plain, session_label(b, 20).plain
    assert first != second
    assert "1 message " in first and "msgs" not in first and "3 messages" in second
