"""Putting a streamed turn back together from litellm's fragments: tool calls and thinking blocks.

Provider streams are untrusted in shape: servers split names, omit `index` or `id`, and litellm
streams an Anthropic thinking block's signature as its own fragment with empty text. Whatever the
split, each call and each thinking block comes out whole, once.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from flue_tui.core.ids import new_id
from flue_tui.core.jsonargs import parse_arguments
from flue_tui.core.messages import ToolCall
from flue_tui.core.surrogates import clean, clean_value


def _get(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


@dataclass
class _PendingCall:
    """A tool call being streamed: its id, and its name and argument pieces so far."""

    id: str | None = None
    name: list[str] = field(default_factory=list)
    args: list[str] = field(default_factory=list)


class ToolCallAccumulator:
    """Assemble streamed tool calls by index *and* id. A server that omits `index` gets index 0 for
    every call from litellm, so a new id at a used index starts a new call instead of merging. Name
    fragments are joined (a name split over chunks is one tool, not two); with neither id nor index
    to go by, a name that arrives after the current call's arguments starts the next call."""

    def __init__(self) -> None:
        self.calls: list[_PendingCall] = []
        self._by_index: dict[int, _PendingCall] = {}

    def add(self, deltas: Any) -> int:
        """Take one chunk's deltas; returns how many characters they added (for the reply's size bound)."""
        added = 0
        for tc in deltas or []:
            index, call_id = _get(tc, "index"), _get(tc, "id")
            fn = _get(tc, "function")
            name = (_get(fn, "name") or "") if fn is not None else ""
            arguments = (_get(fn, "arguments") or "") if fn is not None else ""
            idx = index if index is not None else (len(self.calls) - 1 if self.calls else 0)
            cur = self._by_index.get(idx)
            new_id = bool(call_id and cur is not None and cur.id and call_id != cur.id)
            # An id-less call whose name follows arguments is the next call, not more of this one.
            next_bare = bool(cur is not None and not call_id and name and cur.args)
            if cur is None or new_id or next_bare:
                cur = _PendingCall(id=call_id)
                self.calls.append(cur)
                if index is None and idx in self._by_index:
                    idx = len(self.calls) - 1
                self._by_index[idx] = cur
            if call_id and not cur.id:
                cur.id = call_id
            # Some servers repeat the whole name on every delta: a repeat is not a fragment.
            if name and "".join(cur.name) != name:
                cur.name.append(name)
            if arguments:
                cur.args.append(arguments)
            added += len(name) + len(arguments) + (len(call_id) if isinstance(call_id, str) else 0)
        return added

    def finish(self) -> list[ToolCall]:
        out = []
        for call in self.calls:
            raw = clean("".join(call.args))  # a character's halves split over two deltas: joined
            parsed, refusal = parse_arguments(raw)  # invalid JSON gives {}: validation says what is missing
            if refusal is not None:
                raw = "{}"  # never replay the deep text: a provider's own parser would choke on it
            elif (cleaned := clean_value(parsed)) is not parsed:
                # A `\ud800` escape with no partner: the tool gets U+FFFD, and the history replays
                # the arguments it ran with (a lone surrogate cannot be encoded into a request).
                parsed, raw = cleaned, json.dumps(cleaned, ensure_ascii=False)
            # A server that sends no ids still needs unique ones: results are matched by id, and
            # Anthropic refuses a history where two tool uses share one.
            out.append(
                ToolCall(
                    id=call.id or new_id("call"),
                    name=clean("".join(call.name)),
                    arguments=parsed,
                    raw_arguments=raw,
                    refusal=refusal,
                )
            )
        return out


class ThinkingFolder:
    """Fold litellm's `thinking_blocks` fragments into one block per index: `{type: thinking,
    thinking, signature}` or `{type: redacted_thinking, data}`, as the provider must get them back."""

    def __init__(self) -> None:
        self._blocks: dict[int, dict[str, str]] = {}

    def add(self, fragments: Any) -> int:
        """Take one chunk's fragments; returns the characters of signatures and redacted data they
        added (for the reply's size bound: thinking text is counted as the reasoning it also is)."""
        added = 0
        for fragment in fragments or []:
            kind = _get(fragment, "type")
            index = _get(fragment, "index")
            if not isinstance(index, int):
                index = max(self._blocks, default=-1)
                last = self._blocks.get(index)
                if kind != "thinking" or last is None or last.get("type") != "thinking" or last.get("signature"):
                    index += 1  # without an index, a block ends at its signature
            if kind == "redacted_thinking":
                self._blocks[index] = {"type": "redacted_thinking", "data": str(_get(fragment, "data") or "")}
                added += len(self._blocks[index]["data"])
            elif kind == "thinking":
                block = self._blocks.setdefault(index, {"type": "thinking", "thinking": "", "signature": ""})
                block["thinking"] += str(_get(fragment, "thinking") or "")
                signature = _get(fragment, "signature")
                if signature:
                    block["signature"] = str(signature)
                    added += len(block["signature"])
        return added

    def finish(self) -> list[dict[str, str]]:
        return [{k: clean(v) for k, v in self._blocks[i].items()} for i in sorted(self._blocks)]
