"""What a tool is, declared by the tool next to its schema, and how a tool call ended.

Every part that must know something about a tool reads its `ToolTraits`, never its name: the
workspace guard and the permission rules (which arguments are paths, what `bash(git *)` or
`write(src/**)` is matched against), the summariser (what was read, what changed), resume and the
front ends (its kind, its typed details). So a new tool is one file: its traits say the rest.

`ToolOutcome` is how a call ended, carried by `ToolEnd` and stored with the result, so no surface
reads the model-visible text to tell a refusal from a failure. `legacy_outcome` derives it for rows
stored before it was recorded; that is the one place such text is still read.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from flue_tui.core.abort import ABORT_MESSAGE

if TYPE_CHECKING:  # the app imports this before its first frame, which the details classes would delay
    from flue_tui.core.details import ToolDetails

ToolKind = Literal["read", "edit", "search", "execute", "delegate", "other"]
KINDS: tuple[ToolKind, ...] = ("read", "edit", "search", "execute", "delegate", "other")

# ok: ran and succeeded; error: ran (or could not start) and failed; denied: the policy, the
# workspace guard or the user refused it, so it never ran; aborted: stopped by an abort (Esc,
# Ctrl+C, a crash before its result was stored); cut: never run, its arguments were cut off by the
# output token limit.
ToolOutcome = Literal["ok", "error", "denied", "aborted", "cut"]
OUTCOMES: tuple[ToolOutcome, ...] = ("ok", "error", "denied", "aborted", "cut")
# How an outcome reads to a person (a cut call never ran: an error to them).
OUTCOME_WORDS: dict[ToolOutcome, str] = {
    "ok": "result",
    "error": "error",
    "denied": "denied",
    "aborted": "interrupted",
    "cut": "error",
}


class DetailsType(Protocol):
    """A typed details class (core/details.py): read back from its stored dict."""

    @classmethod
    def parse(cls, d: Mapping[str, Any]) -> ToolDetails | None: ...


@dataclass(frozen=True, slots=True)
class ToolTraits:
    """A tool's self-description. `paths` are the arguments naming files or directories (contained
    by the workspace guard, resolved against the cwd by rules); `subject` is the argument a rule's
    pattern matches (a path subject is matched as a path, any other as written); `read_only` says
    the tool changes nothing; `details` is its typed details class, if it has one."""

    kind: ToolKind = "other"
    paths: tuple[str, ...] = ()
    subject: str = "path"
    read_only: bool = False
    details: type[DetailsType] | None = None
    shell: bool = False  # `subject` is a shell command, read by the shell reader (bash)

    @property
    def subject_is_path(self) -> bool:
        return self.subject in self.paths

    def path_values(self, args: Mapping[str, Any]) -> list[str]:
        """The call's path arguments that are set (non-empty strings), in declaration order."""
        return [v for key in self.paths if isinstance(v := args.get(key), str) and v]

    def subject_of(self, args: Mapping[str, Any]) -> str | None:
        value = args.get(self.subject)
        return value if isinstance(value, str) else None

    def read_details(self, details: Any) -> ToolDetails | None:
        """The typed details of a stored or streamed dict; None for a tool without a details type,
        an empty or non-dict value (an interrupted call's `{"interrupted": true}` included)."""
        if self.details is None or not isinstance(details, Mapping) or not details:
            return None
        if details.get("interrupted") is True:
            return None
        return self.details.parse(details)


OTHER = ToolTraits()


class Described(Protocol):
    """Anything with traits: a tool, as the layers below tools/ see it."""

    @property
    def traits(self) -> ToolTraits: ...


def traits_of(tool: object) -> ToolTraits:
    """A tool's traits; a missing tool (an unknown name) is `other` with no paths."""
    traits = getattr(tool, "traits", None)
    return traits if isinstance(traits, ToolTraits) else OTHER


CUT_MARK = "was not executed: the response hit the output token limit"


def legacy_outcome(is_error: bool, text: str, details: Mapping[str, Any] | None) -> ToolOutcome:
    """The outcome of a result stored before outcomes were recorded, from what it said then: the
    policy's refusals all begin "Permission denied", an abort with Flue's abort message."""
    if not is_error:
        return "ok"
    if isinstance(details, Mapping) and details.get("interrupted") is True:
        return "aborted"
    if text.startswith(ABORT_MESSAGE):
        return "aborted"
    if text.startswith("Permission denied") and not details:
        return "denied"
    if text.startswith('Tool call "') and CUT_MARK in text:
        return "cut"
    return "error"
