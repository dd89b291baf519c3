"""`--input-format stream-json`: user messages and the Agent SDK's control protocol on stdin, one
headless session over many turns. Shapes are those of claude_agent_sdk/_internal/query.py:

  in:  {"type": "user", "message": {"role": "user", "content": str | [blocks]}, ...}
       {"type": "control_request", "request_id": id, "request": {"subtype": ..., ...}}
       {"type": "control_response", "response": {"subtype": "success"|"error", "request_id": id, ...}}
  out: {"type": "control_response", "response": {"subtype": "success", "request_id": id, "response": {...}}}
       {"type": "control_response", "response": {"subtype": "error", "request_id": id, "error": text}}
       {"type": "control_request", "request_id": id, "request": {"subtype": "can_use_tool", ...}}
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from flue_tui.agent.session import OperationResult, Session
from flue_tui.config.text import MAX_LINE_BYTES, prompt_problem
from flue_tui.core.images import Image, ImageRefused, from_base64
from flue_tui.core.jsonargs import loads
from flue_tui.headless.claude.agents import sdk_agents
from flue_tui.headless.claude.asks import Asks
from flue_tui.headless.claude.stream import Write
from flue_tui.hooks.config import Hook, sdk_hooks
from flue_tui.permissions.flags import CLAUDE_MODE, PERMISSION_MODES

Emit = Callable[[Session, OperationResult | None], None]


@dataclass(frozen=True, slots=True)
class Refused:
    """A user line flue could not take: answered with an error result in its place among the turns,
    so an SDK client counting one result per message never waits for it."""

    reason: str


Prompt = tuple[str, tuple[Image, ...]] | Refused


def prompt_images(message: Any) -> tuple[Image, ...]:
    """The Agent SDK's image blocks, `{"type": "image", "source": {"type": "base64", "media_type",
    "data"}}`, checked as a file is (core/images.py). Raises ImageRefused: the message is dropped."""
    content = message.get("content") if isinstance(message, dict) else None
    out: list[Image] = []
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, dict) or block.get("type") != "image":
            continue
        source = block.get("source")
        if not isinstance(source, dict) or source.get("type") != "base64":
            raise ImageRefused("an image block needs a base64 source (a URL is not fetched).")
        out.append(from_base64(source.get("media_type"), source.get("data"), f"image-{len(out) + 1}"))
    return tuple(out)


def prompt_text(message: Any) -> str | None:
    """The text of a user message (a string, or text blocks joined); None when it has no text."""
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [
            b["text"]
            for b in content
            if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)
        ]
        return "\n".join(parts) if parts else None
    return None


@dataclass(frozen=True, slots=True)
class TooLong:
    """A line over the bound: its size, and its first bytes (to tell whose message it was)."""

    size: int
    head: bytes


Line = bytes | TooLong
HEAD_BYTES = 256
# The SDK writes `{"type": ...` first: enough to tell a user message from a control message.
_TYPE = re.compile(rb'\A\s*\{\s*"type"\s*:\s*"([A-Za-z_]{1,40})"')


def read_lines(stream: Any, limit: int = MAX_LINE_BYTES) -> Iterator[Line]:
    """stdin's lines as bytes (each decoded on its own: one bad byte costs only its line), a line
    over `limit` bytes as TooLong, read through and dropped, never held whole."""
    while chunk := stream.readline(limit + 1):
        if len(chunk) <= limit or chunk.endswith(b"\n"):
            yield chunk
            continue
        size, head = len(chunk), chunk[:HEAD_BYTES]
        while chunk and not chunk.endswith(b"\n"):
            chunk = stream.readline(limit + 1)
            size += len(chunk)
        yield TooLong(size, head)


def _kind(raw: bytes) -> tuple[str | None, Any]:
    """What a line flue cannot read claims to be: its `type` (None: cannot tell) and its message."""
    try:
        msg = loads(raw.decode("utf-8", "replace"))
    except json.JSONDecodeError:
        found = _TYPE.match(raw)
        return (found.group(1).decode() if found else None), None
    kind = msg.get("type") if isinstance(msg, dict) else None
    return (kind if isinstance(kind, str) else None), msg


def _stdin_lines(loop: asyncio.AbstractEventLoop, inbox: asyncio.Queue[Line | None]) -> None:
    """A daemon thread: stdin may be a pipe, a file or a terminal, and must never block the loop."""

    def pump() -> None:
        stream = getattr(sys.stdin, "buffer", None)
        try:
            lines = (
                read_lines(stream)
                if stream is not None
                else (ln.encode("utf-8", "surrogateescape") for ln in sys.stdin)
            )
            for line in lines:
                loop.call_soon_threadsafe(inbox.put_nowait, line)
        except (OSError, ValueError):
            pass
        finally:
            loop.call_soon_threadsafe(inbox.put_nowait, None)

    threading.Thread(target=pump, name="flue-stdin", daemon=True).start()


class Controller:
    """Reads stdin, answers control requests at once (also while a turn runs), and runs the user
    messages one after another on `session`; `begin`/`end` write each turn's init and result."""

    def __init__(
        self,
        session: Session,
        write: Write,
        *,
        begin: Callable[[], None],
        end: Callable[[OperationResult], None],
        run: Callable[[str, tuple[Image, ...]], Any],
        set_model: Callable[[str | None], None],
        set_mode: Callable[[str], None] = lambda mode: None,
        replay: bool = False,
        add_hooks: Callable[[tuple[Hook, ...], Any], None] | None = None,
        add_agents: Callable[[list[Any]], None] | None = None,
    ) -> None:
        self.session, self.write = session, write
        self.begin, self.end, self.run, self.set_model, self.replay = begin, end, run, set_model, replay
        self.set_mode = set_mode  # the handle keeps the mode the SDK switched to
        self.asks = Asks(write, session.cwd)
        self.add_hooks = add_hooks
        self.add_agents = add_agents  # the handle's: the SDK's agents join the roster
        self.results: list[OperationResult] = []
        self.busy = False
        self.settled: asyncio.Event | None = None  # set whenever no turn is running

    # -- the main loop ---------------------------------------------------------------------------
    async def serve(self, first_prompt: str | None = None) -> None:
        inbox: asyncio.Queue[Line | None] = asyncio.Queue()
        self.settled = asyncio.Event()
        self.settled.set()
        prompts: asyncio.Queue[Prompt | None] = asyncio.Queue()
        if first_prompt:
            prompts.put_nowait((first_prompt, ()))
        worker = asyncio.ensure_future(self._turns(prompts))
        _stdin_lines(asyncio.get_running_loop(), inbox)
        while (line := await inbox.get()) is not None:
            text = self._decode(line, prompts)
            if text is not None and text.strip():
                self._handle(text, prompts)
        self._cancel_asks("stdin closed")  # nobody is left to answer a permission question
        prompts.put_nowait(None)
        await worker

    async def _turns(self, prompts: asyncio.Queue[Prompt | None]) -> None:
        assert self.settled is not None
        while (got := await prompts.get()) is not None:
            self.busy = True
            self.settled.clear()
            try:
                if isinstance(got, Refused):
                    result = OperationResult.failed(got.reason)  # nothing sent
                else:
                    self.begin()
                    result = await self.run(*got)
                self.results.append(result)
                self.end(result)
            finally:
                self.busy = False
                self.settled.set()

    def _decode(self, line: Line, prompts: asyncio.Queue[Prompt | None]) -> str | None:
        """A line as text, or None with one sentence on stderr: the line is dropped, the session
        goes on (a bad line once reached the model and failed every later request)."""
        if isinstance(line, TooLong):
            why = f"a stdin line of {line.size:,} bytes was ignored; the most flue reads is {MAX_LINE_BYTES:,} bytes a line"
            kind, msg = _kind(line.head) if _TYPE.match(line.head) else (None, None)
        else:
            try:
                return line.decode("utf-8")
            except UnicodeDecodeError as exc:
                why = f"a stdin line is not UTF-8 text (byte 0x{line[exc.start]:02x} at offset {exc.start}); ignored"
            kind, msg = _kind(line)
        print(f"flue: {why}.", file=sys.stderr)
        if kind in (None, "user"):  # what cannot be told apart may be a user message: answered
            prompts.put_nowait(Refused(why[0].upper() + why[1:] + "."))
        elif kind == "control_request" and isinstance(msg, dict) and isinstance(msg.get("request_id"), str):
            error = {"subtype": "error", "request_id": msg["request_id"], "error": why[0].upper() + why[1:] + "."}
            self.write({"type": "control_response", "response": error})
        return None

    def _handle(self, line: str, prompts: asyncio.Queue[Prompt | None]) -> None:
        try:
            msg = loads(line)  # nested past the recursion limit too: one line, and the next line is read
        except json.JSONDecodeError as exc:
            print(f"flue: stdin line is not JSON ({exc.msg}); ignored.", file=sys.stderr)
            return
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "user":
            text = prompt_text(msg.get("message"))
            try:
                images = prompt_images(msg.get("message"))
            except ImageRefused as exc:
                return self._refuse(f"a user message was ignored: {exc}", prompts)
            if text is None and images:
                text = ""
            if text is None:
                return self._refuse("a user message without text was ignored.", prompts)
            problem = prompt_problem(text)
            if problem is not None:
                return self._refuse(f"a user message was ignored: {problem}.", prompts)
            if self.replay:
                self.write({**msg, "session_id": self.session.id})
            prompts.put_nowait((text, images))
        elif kind == "control_request":
            self._control(msg)
        elif kind == "control_response":
            self.asks.answer(msg.get("response"))
        elif kind == "control_cancel_request":
            pass  # flue sends no long-running requests the SDK could cancel
        else:
            print(f"flue: stdin message of type {kind!r} was ignored.", file=sys.stderr)

    def _refuse(self, why: str, prompts: asyncio.Queue[Prompt | None]) -> None:
        """A user message dropped: one sentence on stderr, and its error result in turn."""
        print(f"flue: {why}", file=sys.stderr)
        prompts.put_nowait(Refused(why[0].upper() + why[1:]))

    # -- control requests from the SDK -----------------------------------------------------------
    def _control(self, msg: dict[str, Any]) -> None:
        rid = msg.get("request_id")
        request = msg.get("request")
        subtype = request.get("subtype") if isinstance(request, dict) else None
        try:
            if not isinstance(rid, str) or not isinstance(request, dict):
                raise ValueError("control_request needs a request_id and a request object")
            handler = getattr(self, f"_on_{subtype}", None) if isinstance(subtype, str) else None
            if handler is None:
                raise ValueError(f"Unsupported control request subtype: {subtype}")
            response = handler(request)
        except ValueError as exc:
            self.write(
                {"type": "control_response", "response": {"subtype": "error", "request_id": rid, "error": str(exc)}}
            )
            return
        self.write(
            {"type": "control_response", "response": {"subtype": "success", "request_id": rid, "response": response}}
        )

    def _on_initialize(self, request: dict[str, Any]) -> dict[str, Any]:
        hooks, skipped = sdk_hooks(request.get("hooks"))  # ValueError: the request's error answer
        agents, notes = sdk_agents(request.get("agents"))  # checked before anything changes
        for line in [*skipped, *notes]:
            print(f"flue: {line}", file=sys.stderr)
        if hooks and self.add_hooks is not None:
            self.add_hooks(tuple(hooks), self.asks.hook)
        if agents and self.add_agents is not None:
            self.add_agents(agents)
        return {
            "commands": [],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [],
            "account": {},
            "pid": os.getpid(),
            "hook_on_failure_supported": True,  # an SDK hook set to on_failure="block" blocks
        }

    def _on_interrupt(self, request: dict[str, Any]) -> dict[str, Any]:
        self._cancel_asks("interrupted")
        self.session.abort()
        return {}

    def _on_set_permission_mode(self, request: dict[str, Any]) -> dict[str, Any]:
        from flue_tui.permissions.policy import policy_of

        mode = request.get("mode")
        flue_mode = PERMISSION_MODES.get(mode, mode) if isinstance(mode, str) else None
        policy = policy_of(self.session)
        if policy is None or flue_mode not in CLAUDE_MODE:
            raise ValueError(f"Unknown permission mode: {mode} (flue takes {', '.join(PERMISSION_MODES)})")
        policy.set_mode(flue_mode)
        self.set_mode(flue_mode)
        return {}

    def _on_set_model(self, request: dict[str, Any]) -> dict[str, Any]:
        model = request.get("model")
        if model is not None and (not isinstance(model, str) or not model.strip()):
            raise ValueError("set_model needs a model id or null")
        self.set_model(model)
        return {}

    # -- what flue asks the SDK (asks.py) ---------------------------------------------------------
    async def ask(self, request: Any) -> Any:
        """The policy's asker: the SDK's can_use_tool callback."""
        return await self.asks.can_use_tool(request, self.session.abort)

    def _cancel_asks(self, why: str) -> None:
        self.asks.cancel_all(why)
