"""What the permission policy says of one tool call: a typed decision, never a mutated argument.

Modelled on pi-mono's `beforeToolCall` result: the loop asks before each call (agent/toolrun.py)
and gets back a value. `allow` runs the call, with `args` when the person answering rewrote its
input (a new dict, checked like the model's own; the caller's arguments are never touched);
`deny` refuses it and `reason` is what the model reads; `ask` is the policy's own middle state
(rules and mode could not decide), which its caller settles by asking someone or refusing.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

Verdict = Literal["allow", "ask", "deny"]


@dataclass(frozen=True, slots=True)
class Decision:
    """The policy's answer before a call: allow (maybe with a rewritten input), ask or deny."""

    verdict: Verdict
    reason: str | None = None  # the refusal, for "deny"; for "ask", the refusal when no one can be asked
    args: dict[str, Any] | None = None  # "allow" with a rewritten input: run with this instead


ALLOW = Decision("allow")
