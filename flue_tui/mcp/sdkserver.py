"""The transport of an Agent SDK server (`create_sdk_mcp_server`, `{"type": "sdk"}` in the SDK's
--mcp-config): the server lives in the SDK script's process, so each JSON-RPC message flue's MCP
client sends goes out as an `mcp_message` control request, and the SDK's `mcp_response` comes
back as the server's answer (headless/claude/asks.py sends them).

The script is untrusted like any server: an answer that is not a JSON-RPC response to the
request it answers becomes a JSON-RPC error for that request (the client never waits on an id
that will not come); a notification's acknowledgement is dropped, as the SDK only acks it.
Without an SDK on stdin (`send` is None) the server fails to start, in one sentence.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

# (server name, JSON-RPC message) -> the SDK's mcp_response, or raises ValueError with one sentence.
Send = Callable[[str, dict[str, Any]], Awaitable[Any]]


def _error(rid: Any, text: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": text}}


def checked(message: dict[str, Any], answer: Any) -> dict[str, Any]:
    """The SDK's answer to `message` as a JSON-RPC response for its id, or an error response."""
    rid = message.get("id")
    if not isinstance(answer, dict) or answer.get("jsonrpc") != "2.0":
        return _error(rid, "the Agent SDK's server answered with something that is not JSON-RPC")
    if answer.get("id") != rid:
        return _error(rid, "the Agent SDK's server answered another request")
    if ("result" in answer) == ("error" in answer):
        return _error(rid, "the Agent SDK's server answered with neither a result nor an error")
    return answer


@contextlib.asynccontextmanager
async def sdk_transport(name: str, send: Send | None) -> AsyncIterator[tuple[Any, Any]]:
    """(read stream, write stream) for mcp's ClientSession, as its own transports give."""
    import anyio
    from mcp import types
    from mcp.shared.message import SessionMessage

    if send is None:
        raise RuntimeError("it is an Agent SDK server, and no Agent SDK is driving this run")
    to_client, from_server = anyio.create_memory_object_stream[Any](32)
    to_server, from_client = anyio.create_memory_object_stream[Any](32)

    async def one(item: Any) -> None:
        message = item.message.model_dump(by_alias=True, mode="json", exclude_unset=True)
        if "id" not in message:  # a notification (or a response to the server): the SDK only acks it
            with contextlib.suppress(ValueError):
                await send(name, message)
            return
        try:
            answer = checked(message, await send(name, message))
        except ValueError as exc:
            answer = _error(message.get("id"), str(exc))
        try:
            parsed = types.jsonrpc_message_adapter.validate_python(answer, by_name=False)
        except ValueError:  # pydantic's ValidationError: the shape passed checked(), the fields did not
            parsed = types.jsonrpc_message_adapter.validate_python(
                _error(message.get("id"), "the Agent SDK's server answered with a malformed response"), by_name=False
            )
        with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
            await to_client.send(SessionMessage(parsed))

    async def pump() -> None:
        async with anyio.create_task_group() as group:  # requests in parallel, as over a pipe
            async for item in from_client:
                group.start_soon(one, item)

    async with anyio.create_task_group() as tg, to_client, from_server, to_server, from_client:
        tg.start_soon(pump)
        try:
            yield from_server, to_server
        finally:
            tg.cancel_scope.cancel()
