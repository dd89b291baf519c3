"""A strict stand-in for Ollama's native API: `/api/chat`, `/api/show`, `/api/tags`, `/api/version`.

Scripted with the same `Turn`s as the OpenAI-compatible server. It answers a malformed request with
the 400 and `{"error": "..."}` body the real server (Go, encoding/json) sends, streams NDJSON the
way Ollama does (tool calls whole, arguments as an object, usage on the `done` line), and records
every request's `options` (e.g. `num_ctx`) in `requests`. Point litellm at it with
`OLLAMA_API_BASE=<base_url>`, or flue with `OLLAMA_HOST=<base_url>`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

from aiohttp import web

from .images import ollama_images_problem
from .script import Turn, generated_words
from .server import TEXT_PIECE, FakeLLM, _abort, _drain

_CREATED = "2026-01-01T00:00:00.000000Z"
# Ollama's typed option fields that must be integers; encoding/json's wording when they are not.
_INT_OPTIONS = ("num_ctx", "num_predict", "num_keep", "seed", "top_k", "num_batch", "num_gpu", "num_thread")


def _error(status: int, message: str) -> web.Response:
    return web.json_response({"error": message}, status=status)


class FakeOllama(FakeLLM):
    """`models` maps each installed model to its trained context length (`/api/show` model_info);
    `parameters` is the Modelfile parameter text `/api/show` reports (e.g. "num_ctx 8192")."""

    def __init__(
        self,
        turns: Iterable[Turn] | None = None,
        *,
        models: dict[str, int] | None = None,
        parameters: str = "",
        tools: bool = True,
        **kw: Any,
    ) -> None:
        super().__init__(turns, **kw)
        self.models = dict(models or {"qwen3:8b": 40960})
        self.parameters = parameters
        self.supports_tools = tools
        self.rejections: list[str] = []
        self.shows: list[dict[str, Any]] = []

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def _routes(self, app: web.Application) -> None:
        app.router.add_post("/api/chat", self._handle_native)
        app.router.add_post("/api/show", self._show)
        app.router.add_get("/api/tags", self._tags)
        app.router.add_get("/api/version", self._version)
        app.router.add_get("/", self._root)

    async def _handle_native(self, request: web.Request) -> web.StreamResponse:
        return await self._guarded(self._chat_native, request)

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response({"version": "0.12.6"})

    async def _root(self, request: web.Request) -> web.Response:
        return web.Response(text="Ollama is running")

    def _reject(self, status: int, message: str) -> web.Response:
        with self._lock:
            self.rejections.append(message)
        return _error(status, message)

    def _known(self, name: str) -> str | None:
        for model in self.models:
            if name in (model, model.removesuffix(":latest")) or f"{name}:latest" == model:
                return model
        return None

    async def _tags(self, request: web.Request) -> web.Response:
        return web.json_response(
            {
                "models": [
                    {
                        "name": m,
                        "model": m,
                        "modified_at": _CREATED,
                        "size": 5_000_000_000,
                        "digest": "0" * 64,
                        "details": {
                            "format": "gguf",
                            "family": "qwen3",
                            "parameter_size": "8.2B",
                            "quantization_level": "Q4_K_M",
                        },
                    }
                    for m in self.models
                ]
            }
        )

    async def _show(self, request: web.Request) -> web.Response:
        try:
            body = json.loads(await request.read())
        except ValueError as exc:
            return self._reject(400, f"invalid character in request body: {exc}")
        with self._lock:
            self.shows.append(body)
        name = body.get("model") or body.get("name") if isinstance(body, dict) else None
        if not name:
            return self._reject(400, "model is required")
        model = self._known(name)
        if model is None:
            return self._reject(404, f"model '{name}' not found")
        return web.json_response(
            {
                "modelfile": f"FROM {model}\n",
                "parameters": self.parameters,
                "template": "{{ if .Tools }}tools{{ end }}" if self.supports_tools else "{{ .Prompt }}",
                "details": {"format": "gguf", "family": "qwen3"},
                "model_info": {"general.architecture": "qwen3", "qwen3.context_length": self.models[model]},
                "capabilities": ["completion", "tools"] if self.supports_tools else ["completion"],
            }
        )

    async def _chat_native(self, request: web.Request) -> web.StreamResponse:
        raw = await request.read()
        try:
            body = json.loads(raw)
        except ValueError:
            return self._reject(400, "invalid character 'x' looking for beginning of value")
        if not isinstance(body, dict):
            return self._reject(400, "json: cannot unmarshal array into Go value of type api.ChatRequest")
        problem = self._problem(body)
        if problem:
            with self._lock:
                self._requests.append(body)
                self._arrived.notify_all()
            return self._reject(*problem)
        turn, _ids = await self._claim(body)
        if turn is None:
            return self._reject(400, "fakellm: no scripted turn matches this request")
        if turn.status is not None:
            return _error(turn.status, turn.error_message or f"scripted error {turn.status}")
        lines = list(_lines(body, turn))
        if body.get("stream") is False:
            return web.json_response(_whole(lines))
        resp = web.StreamResponse(headers={"Content-Type": "application/x-ndjson"})
        await resp.prepare(request)
        try:
            for sent, line in enumerate(lines):
                if turn.disconnect_after is not None and sent >= turn.disconnect_after:
                    await _drain(request)
                    _abort(request)
                    return resp
                await resp.write((json.dumps(line) + "\n").encode())
            await resp.write_eof()
        except (ConnectionError, RuntimeError):
            self._count_disconnect()
        return resp

    def _problem(self, body: dict[str, Any]) -> tuple[int, str] | None:
        """What Ollama's request decoding and checks refuse, in its words."""
        name = body.get("model")
        if not name:
            return 400, "model is required"
        if self._known(name) is None:
            return 404, f'model "{name}" not found, try pulling it first'
        options = body.get("options")
        if options is not None and not isinstance(options, dict):
            return (
                400,
                "json: cannot unmarshal string into Go struct field ChatRequest.options of type map[string]interface {}",
            )
        for key in _INT_OPTIONS:
            if options and key in options and not isinstance(options[key], int):
                return 400, f'option "{key}" must be of type integer'
        if body.get("tools") and not self.supports_tools:
            return 400, f"registry.ollama.ai/library/{name} does not support tools"
        for message in body.get("messages") or []:
            if not isinstance(message.get("content", ""), str):
                return 400, (
                    "json: cannot unmarshal array into Go struct field Message.messages.content of type string"
                )
            images = message.get("images")
            if images is not None:
                refused = ollama_images_problem(images)
                if refused:
                    return 400, refused
            for call in message.get("tool_calls") or []:
                if not isinstance((call.get("function") or {}).get("arguments", {}), dict):
                    return 400, (
                        "json: cannot unmarshal string into Go struct field ToolCallFunction.messages."
                        "tool_calls.function.arguments of type api.ToolCallFunctionArguments"
                    )
        return None


def _lines(body: dict[str, Any], turn: Turn) -> Iterator[dict[str, Any]]:
    model = body["model"]

    def line(message: dict[str, Any]) -> dict[str, Any]:
        return {"model": model, "created_at": _CREATED, "message": {"role": "assistant", **message}, "done": False}

    if body.get("think") and turn.reasoning:
        for piece in turn.reasoning_pieces(TEXT_PIECE):
            yield line({"content": "", "thinking": piece})
    for piece in [*turn.text_pieces(TEXT_PIECE), *generated_words(turn.text_tokens, after=turn.text)]:
        yield line({"content": piece})
    if turn.calls:
        calls = [
            {
                "id": f"call_{n}",
                "function": {
                    "index": n,
                    "name": c.name,
                    "arguments": c.arguments if isinstance(c.arguments, dict) else {},
                },
            }
            for n, c in enumerate(turn.calls)
        ]
        yield line({"content": "", "tool_calls": calls})
    usage = turn.effective_usage()
    reason = "length" if turn.finish_reason == "length" else "stop"
    yield {
        "model": model,
        "created_at": _CREATED,
        "message": {"role": "assistant", "content": ""},
        "done_reason": reason,
        "done": True,
        "total_duration": 1_000_000,
        "load_duration": 10_000,
        "prompt_eval_count": usage[0],
        "prompt_eval_duration": 100_000,
        "eval_count": usage[1],
        "eval_duration": 500_000,
    }


def _whole(lines: list[dict[str, Any]]) -> dict[str, Any]:
    last = dict(lines[-1])
    message: dict[str, Any] = {"role": "assistant", "content": ""}
    for line in lines[:-1]:
        part = line["message"]
        message["content"] += part.get("content", "")
        if part.get("thinking"):
            message["thinking"] = message.get("thinking", "") + part["thinking"]
        if part.get("tool_calls"):
            message["tool_calls"] = part["tool_calls"]
    last["message"] = message
    return last
