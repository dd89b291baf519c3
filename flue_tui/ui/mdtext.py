"""Markdown source adjusted before rich or Textual render it (both parse with markdown-it, without
the task-list extension): `- [x] done` becomes `- ☑ done`, `- [ ] todo` becomes `- ☐ todo`, as on
GitHub. Code blocks are left alone. Idempotent, so streamed text can be passed through again."""

from __future__ import annotations

import re

_TASK = r"^(\s*(?:[-*+]|\d{1,9}[.)])\s+)\[([ xX])\](?=\s|$)"
_FENCE = r"^\s{0,3}(`{3,}|~{3,})"


def task_boxes(text: str) -> str:
    if "[" not in text:
        return text
    out: list[str] = []
    fence: str | None = None
    for line in text.split("\n"):
        opened = re.match(_FENCE, line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
        elif opened:
            fence = opened.group(1)
        else:
            line = re.sub(_TASK, lambda m: f"{m.group(1)}{'☐' if m.group(2) == ' ' else '☑'}", line)
        out.append(line)
    return "\n".join(out)
