"""The inline pieces in-process: Markdown block cutting, the renderer fed real events, the prompt
fed keys through prompt-toolkit's pipe input."""

from __future__ import annotations

import asyncio
import io
import json
import time
from pathlib import Path

import pytest
from prompt_toolkit.document import Document
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from flue_tui.core import events as ev
from flue_tui.inline.blocks import complete_prefix
from flue_tui.inline.prompt import QUIT, InlineCompleter, InlinePrompt
from flue_tui.inline.renderer import Renderer
from flue_tui.inline.terminal import make_console
from flue_tui.tools.bash import BashTool
from flue_tui.tools.read import ReadTool
from flue_tui.ui.history import PromptHistory, history_path
from flue_tui.ui.pathindex import PathIndex
from tests.inline.conftest import in_order


@pytest.mark.parametrize(
    ("text", "whole"),
    [
        ("One.\n\nTwo", "One.\n\n"),
        ("One.\n\n", ""),  # the next block has not started
        ("```\na\n\nb\n```\n\nNext", "```\na\n\nb\n```\n\n"),  # never inside a fence
        ("```\na\n\nb", ""),
        ("- item\n\n  more of the item", ""),  # an indented line continues the item
        ("# Title\nText\n\n- a\n- b\n\nEnd", "# Title\nText\n\n- a\n- b\n\n"),
    ],
)
def test_complete_prefix_cuts_only_whole_blocks(text: str, whole: str):
    assert text[: complete_prefix(text)] == whole


def test_no_color_is_honoured(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("NO_COLOR", "1")
    assert make_console(dumb=False).no_color
    assert make_console(dumb=True).color_system is None


def _events(s: str) -> list[ev.Event]:
    child = dict(session="ses_child", task_id="tsk_1", parent_session=s)
    result = lambda text, **details: {"content": [{"type": "text", "text": text}], "details": details}  # noqa: E731
    return [
        ev.OperationStart(session=s, operation_id="op1"),
        ev.TurnStart(session=s, turn_id="t1"),
        *(ev.TextDelta(session=s, text=piece) for piece in ("Looking ", "first.\n\nThen ", "more.")),
        ev.MessageEnd(session=s, message={"role": "assistant", "text": "…"}),
        ev.ToolStart(
            session=s, tool_name="read", tool_call_id="c1", args={"path": "a.txt"}, kind="read", traits=ReadTool.traits
        ),
        ev.ToolEnd(
            session=s,
            tool_name="read",
            tool_call_id="c1",
            is_error=False,
            result=result("x", lines=3),
            duration_ms=5,
            outcome="ok",
        ),
        ev.ToolStart(
            session=s,
            tool_name="task",
            tool_call_id="c2",
            args={"prompt": "go", "agent": "flue-general", "description": "dig"},
            kind="delegate",
        ),
        ev.TaskStart(**child, prompt="go", agent="flue-general", tool_call_id="c2"),
        ev.ToolStart(
            **child, tool_name="bash", tool_call_id="k1", args={"command": "ls"}, kind="execute", traits=BashTool.traits
        ),
        ev.ToolOutput(**child, tool_call_id="k1", stream="stdout", chunk="file\n"),
        ev.ToolEnd(
            **child,
            tool_name="bash",
            tool_call_id="k1",
            is_error=False,
            result=result("file", exitCode=0),
            duration_ms=7,
            outcome="ok",
        ),
        ev.TextDelta(**child, text="Child says hi."),
        ev.MessageEnd(**child, message={"role": "assistant", "text": "Child says hi."}),
        ev.TaskEnd(
            **child, agent="flue-general", is_error=False, result="Child says hi.", duration_ms=9, tool_call_id="c2"
        ),
        ev.ToolEnd(
            session=s,
            tool_name="task",
            tool_call_id="c2",
            is_error=False,
            result=result("Child says hi."),
            duration_ms=12,
            outcome="ok",
        ),
        ev.TurnStart(session=s, turn_id="t2"),
        ev.TextDelta(session=s, text="All done."),
        ev.Operation(session=s, operation_id="op1", operation_kind="prompt", duration_ms=30, is_error=False),
    ]


async def test_renderer_prints_each_thing_once_in_order_even_in_one_flush():
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system=None)
    renderer = Renderer(console, "/tmp")
    renderer.begin_turn("do it")
    for event in _events("ses_root"):
        renderer.handle(event)  # all of it before the first flush: the hardest case for ordering
    renderer.finish()
    lines = [ln.rstrip() for ln in out.getvalue().splitlines()]
    in_order(
        lines,
        "› do it",
        "Looking first.",
        "Then more.",
        "✓ read  a.txt  3 lines",
        "▸ task  flue-general · dig",
        "│ ✓ bash  ls  exit 0",
        "│ Child says hi.",
        "✓ task  flue-general · dig",
        "All done.",
    )
    assert sum("Looking first." in ln for ln in lines) == 1


def _prompt(tmp_path: Path, pipe, history: PromptHistory | None = None) -> InlinePrompt:
    paths = PathIndex(str(tmp_path))
    paths.build()
    return InlinePrompt(
        history or PromptHistory(str(tmp_path)),
        paths,
        lambda: [("compact", "c"), ("cost", "t")],
        lambda: "toolbar",
        lambda: None,
        input=pipe,
        output=DummyOutput(),
    )


async def _read(prompt: InlinePrompt, pipe, keys: str) -> object:
    task = asyncio.ensure_future(prompt.read())
    deadline = time.monotonic() + 60  # the prompt is reading (generous: returns as soon as it is)
    while not prompt.session.app.is_running and time.monotonic() < deadline:
        await asyncio.sleep(0.01)
    pipe.send_text(keys)
    return await asyncio.wait_for(task, 60)


async def test_prompt_keys(tmp_path: Path):
    with create_pipe_input() as pipe:
        prompt = _prompt(tmp_path, pipe)
        assert await _read(prompt, pipe, "hello\r") == "hello"
        assert await _read(prompt, pipe, "one\ntwo\r") == "one\ntwo"  # Ctrl+J: a new line
        assert await _read(prompt, pipe, "three\\\rfour\r") == "three\nfour"  # \ Enter: a new line
        assert await _read(prompt, pipe, "junk\x1b\x1bkept\r") == "kept"  # Esc Esc clears
        assert await _read(prompt, pipe, "x\x03\x03") is QUIT  # Ctrl+C clears, again quits


async def test_an_at_path_typed_before_the_index_is_built_completes_once_it_is(tmp_path: Path):
    """Typed at launch, `@REA` found no index yet and never got its menu: no key came after."""
    (tmp_path / "README.md").write_text("")
    paths = PathIndex(str(tmp_path))  # not built yet
    with create_pipe_input() as pipe:
        prompt = InlinePrompt(
            PromptHistory(str(tmp_path)), paths, lambda: [], lambda: "", lambda: None, input=pipe, output=DummyOutput()
        )
        task = asyncio.ensure_future(prompt.read())
        deadline = time.monotonic() + 60  # generous: goes on as soon as the prompt reads
        while not prompt.session.app.is_running and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        pipe.send_text("look at @REA")
        buffer = prompt.session.default_buffer
        while buffer.text != "look at @REA" and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        paths.build()
        prompt.paths_ready()
        while not (buffer.complete_state and buffer.complete_state.completions) and time.monotonic() < deadline:
            await asyncio.sleep(0.01)
        assert buffer.complete_state is not None, "no completion menu once the index was built"
        assert [c.text for c in buffer.complete_state.completions] == ["@README.md"]
        pipe.send_text("\x03\x03")
        assert await asyncio.wait_for(task, 60) is QUIT


async def test_prompt_history_is_the_tui_file(tmp_path: Path):
    path = history_path(str(tmp_path))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in ("older", "newest")))
    with create_pipe_input() as pipe:
        prompt = _prompt(tmp_path, pipe)
        assert await _read(prompt, pipe, "\x1b[A\r") == "newest"
        assert await _read(prompt, pipe, "\x1b[A\x1b[A\x1b[A\r") == "older"
        assert await _read(prompt, pipe, "fresh\r") == "fresh"
    saved = [json.loads(line)["text"] for line in path.read_text().splitlines()]
    assert saved[-1] == "fresh"


def test_completer_paths_and_commands(tmp_path: Path):
    (tmp_path / ".gitignore").write_text("dist/\n")
    (tmp_path / "README.md").write_text("")
    (tmp_path / "dist").mkdir()
    (tmp_path / "dist" / "READY.md").write_text("")
    (tmp_path / "my notes.txt").write_text("")
    paths = PathIndex(str(tmp_path))
    paths.build()
    completer = InlineCompleter(paths, lambda: [("compact", "c"), ("cost", "t"), ("new", "n")])

    def complete(text: str) -> list[str]:
        return [c.text for c in completer.get_completions(Document(text), None)]

    assert complete("read @REA") == ["@README.md"]
    assert complete("@notes") == ['@"my notes.txt"']
    assert complete("/co") == ["/compact", "/cost"]
    assert complete("/compact now") == []
    assert complete("email me@") == []  # `@` inside a word is not a path
    (tmp_path / "my dir").mkdir()
    (tmp_path / "my dir" / "a b.txt").write_text("")
    paths.build()
    start = [c for c in completer.get_completions(Document("@my"), None)]
    assert '@"my dir/' in [c.text for c in start]  # a directory's quote stays open
    inside = [c for c in completer.get_completions(Document('see @"my dir/a b'), None)]
    assert [c.text for c in inside] == ['@"my dir/a b.txt"'] and inside[0].start_position == -len('@"my dir/a b')


async def test_renderer_shows_task_list_items_as_boxes():
    out = io.StringIO()
    renderer = Renderer(Console(file=out, width=80, force_terminal=True, color_system=None), "/tmp")
    renderer.begin_turn("status?")
    for event in (
        ev.OperationStart(session="ses_r", operation_id="op1"),
        ev.TurnStart(session="ses_r", turn_id="t1"),
        ev.TextDelta(session="ses_r", text="Status:\n\n- [x] read it\n- [ ] fix it\n"),
        ev.Operation(session="ses_r", operation_id="op1", operation_kind="prompt", duration_ms=3, is_error=False),
    ):
        renderer.handle(event)
    renderer.finish()
    text = out.getvalue()
    assert "☑ read it" in text and "☐ fix it" in text and "[x]" not in text
