"""The slash commands every front end offers: the table (for `/` completion, /help and the
command palette), the key help, the permission modes' one-line help, and parsing `/name rest`."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    args: str
    help: str


COMMANDS: tuple[Command, ...] = (
    Command("help", "", "commands and keys"),
    Command("new", "", "start a fresh session"),
    Command("resume", "[name]", "pick a session to resume"),
    Command("name", "NEW", "rename this session"),
    Command("model", "[provider/model]", "show or switch the model"),
    Command("effort", "[off|low|medium|high]", "show or switch how hard the model thinks"),
    Command("compact", "[focus]", "summarise the conversation to free context"),
    Command("rewind", "[N [both|code|conversation]]", "go back to before a message: files, conversation or both"),
    Command("undo", "", "put the files back as they were before the last turn"),
    Command("skills", "", "list the skills you can run as /<skill>"),
    Command("cost", "", "tokens and cost so far"),
    Command("export", "[file.md]", "write the conversation to a Markdown file"),
    Command("mode", "[ask|accept-edits|plan|yolo]", "show or switch the permission mode"),
    Command("mcp", "[restart NAME]", "MCP servers, their status and tools"),
    Command("quit", "", "leave flue"),
)

KEYS = (
    ("enter", "send (queued while the agent works)"),
    ("shift+enter / ctrl+j", "new line"),
    ("up / down", "prompt history (at the first / last line)"),
    ("@", "complete a file path"),
    ("esc", "interrupt the agent"),
    ("esc esc", "on an empty prompt: rewind (/rewind)"),
    ("ctrl+c twice", "quit"),
    ("ctrl+o", "expand / collapse tool output"),
    ("pageup / pagedown, ctrl+end", "scroll; jump to the latest"),
    ("ctrl+p", "command palette"),
    ("shift+tab", "permission mode: ask → accept-edits → plan"),
)


def help_text(skills: list[tuple[str, str]]) -> str:
    width = max(len(f"/{c.name} {c.args}".strip()) for c in COMMANDS)
    lines = ["Commands:"]
    lines += [f"  {f'/{c.name} {c.args}'.strip():<{width}}  {c.help}" for c in COMMANDS]
    if skills:
        lines.append("Skills: " + ", ".join(f"/{name}" for name, _ in skills))
    lines.append("Keys:")
    kw = max(len(k) for k, _ in KEYS)
    lines += [f"  {k:<{kw}}  {v}" for k, v in KEYS]
    return "\n".join(lines)


def parse(text: str) -> tuple[str, str] | None:
    """`/name rest` → (name, rest); None when the text is not a command line."""
    if not text.startswith("/") or text.startswith("//"):
        return None
    head, _, rest = text[1:].partition(" ")
    head = head.strip()
    if not head or "/" in head:
        return None  # "/usr/bin/env ..." is a prompt, not a command
    return head, rest.strip()


MODE_HELP = {
    "ask": "write, edit and bash ask first",
    "accept-edits": "file changes run freely, bash asks",
    "plan": "read-only: write, edit and bash are refused",
    "yolo": "nothing asks",
}
