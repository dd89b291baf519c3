"""Model- and tool-controlled text on its way to a real terminal.

The model's answer, its tool arguments, provider errors and repository files are untrusted: raw,
an `ESC ]0;…` retitles the window, `ESC ]52;…` writes the clipboard, `ESC [2J` wipes the screen
and `\\r` overwrites what the user read. Every front end that writes such text to a terminal as
bytes (print mode's text and progress lines, plain mode, inline mode's dumb-terminal stream) passes
it through `terminal_safe`. JSON output needs none of this: json.dumps escapes control characters.
"""

from __future__ import annotations

import re

# CSI (`ESC [ … final`), OSC and the other string commands (`ESC ] P X ^ _ … BEL|ST`), two-byte escapes.
_SEQUENCE = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]?|\x1b[\]PX^_][^\x07\x1b\x9c]*(?:\x07|\x1b\\|\x9c)?|\x1b[ -~]?")
# C0 except tab and newline, DEL, and C1 (a terminal in 8-bit mode reads \x9b as CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def terminal_safe(text: str) -> str:
    """`text` with escape sequences removed and any other control character shown as `\\xNN`;
    newlines and tabs stay, a Windows `\\r\\n` becomes `\\n`."""
    if not _CONTROL.search(text):
        return text
    text = _SEQUENCE.sub("", text.replace("\r\n", "\n"))
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def visible(text: str) -> str:
    """One line: `text` with a newline shown as `\\n` and any other control character but tab as
    `\\xNN`, none removed. For repository text the user decides on (the trust question), where a
    sequence `terminal_safe` drops could hide part of a command (`echo ok ESC ]0;; curl … | sh BEL`)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text.replace("\n", "\\n"))
