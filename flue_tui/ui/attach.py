"""`@path` in a prompt: the file's contents go with it (a directory as a listing), as in Claude Code.

One function, `attach`, used at prompt submission by the app, inline mode, `--plain` and `-p`. The
message the model gets (and the store keeps) is the typed text, then one fenced block per path;
what the transcript shows is the typed text and a short note per path (`display`).

A path is left as typed when it does not exist (an email address, a decorator, `@someone`). Under
`--sandbox workspace` a path outside the workspace roots is refused, as the tools would refuse it.
A binary file is noted, not inlined; a long file is cut with a note saying so.

An image (by its magic bytes, or a name ending .png/.jpg/.gif/.webp, which must then be one) goes
as an image (core/images.py: type, size, downscaling), under the same guard and `read` rules. A
path dropped or pasted into the terminal arrives as text without `@` (`/home/me/shot.png`,
quoted, or with a backslash before each space): an absolute or `~/` path to an image attaches it too.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from flue_tui.core.files import (
    Escape,
    NotRegular,
    SpecialFile,
    open_file,
    open_within,
    shown_name,
    workspace_roots,
)
from flue_tui.core.images import MAX_READ, Image, ImageRefused, from_bytes, looks_like_image, sniff
from flue_tui.core.messages import ATTACH_NOTE

if TYPE_CHECKING:
    from flue_tui.config.settings import Settings

MAX_FILE_CHARS = 50_000  # per file: about 12k tokens, cut with a note past it
MAX_TOTAL_CHARS = 200_000  # per prompt: later paths are noted, not attached
MAX_ENTRIES = 200  # per directory listing
# `@path`, `@my\ file.txt`, or `@"my notes/a b.txt"` (the form the completions insert for a space).
_MENTION = re.compile(r'(?<![\w@])@(?:"([^"\n]+)"|((?:[^\s\\]|\\ )+))')
_TRAILING = ".,;:!?)]}'\""
# A dropped path: absolute or ~/, quoted or with escaped spaces, naming an image, not after an `@`.
_DROPPED = re.compile(r"(?<![\w@/])(?:'((?:/|~/)[^']+)'|\"((?:/|~/)[^\"]+)\"|((?:/|~/)(?:[^\s\\'\"]|\\ )+))")


@dataclass(frozen=True, slots=True)
class Attached:
    """A prompt with its `@path` attachments: what is sent, and what the transcript shows."""

    text: str  # what is sent: the typed prompt and the attached contents
    display: str | None  # what the transcript shows: the typed text and one note per path (None: as sent)
    notes: tuple[str, ...] = ()
    images: tuple[Image, ...] = ()


def _image(mention: str, path: str, roots: tuple[str, ...] | None) -> tuple[Image | None, str]:
    """(the image, its note) or (None, why it is not attached)."""
    try:
        fd = open_file(path) if roots is None else open_within(roots, path)
        with os.fdopen(fd, "rb") as f:
            if os.fstat(f.fileno()).st_size > MAX_READ:  # refused unread: a 50 MB file costs nothing
                return None, f"not attached: {mention} is larger than {MAX_READ // 1024 // 1024} MB"
            data = f.read(MAX_READ + 1)
    except (Escape, NotRegular, SpecialFile):
        return None, f"not attached: {mention} is not a regular file"
    except OSError as exc:
        return None, f"not attached: {mention}: {exc.strerror or exc}"
    try:
        image = from_bytes(data, os.path.basename(mention))
    except ImageRefused as exc:
        return None, f"not attached: {exc}"
    return image, f"attached {image.label}"


def _fence(body: str) -> str:
    longest = max((len(m) for m in re.findall(r"`{3,}", body)), default=2)
    return "`" * (longest + 1)


def _read(path: str, roots: tuple[str, ...] | None) -> bytes:
    fd = open_file(path) if roots is None else open_within(roots, path)
    with os.fdopen(fd, "rb") as f:
        return f.read(MAX_FILE_CHARS * 4 + 1)


def _inside(real: str, roots: tuple[str, ...]) -> bool:
    return any(real == r or real.startswith(r.rstrip("/") + "/") for r in roots)


def _guard(
    mention: str, path: str, roots: tuple[str, ...] | None, denied: Callable[[str], str | None] | None
) -> str | None:
    """Why `path` may not be read for the model, as the `read` tool would be refused, or None."""
    rule = denied(path) if denied is not None else None
    if rule is not None:  # a `read` deny rule keeps the file from the model, typed or not
        return f"not attached: {mention} is denied by the rule {rule}"
    if roots is not None and not _inside(os.path.realpath(path), roots):
        return f"not attached: {mention} is outside the workspace (--sandbox workspace)"
    return None


def image_files(
    paths: list[str] | tuple[str, ...],
    cwd: str,
    *,
    roots: tuple[str, ...] | None = None,
    denied: Callable[[str], str | None] | None = None,
) -> tuple[tuple[Image, ...], str | None]:
    """`--image FILE`s: each one's image, or the first refusal's sentence (the user asked for each)."""
    out: list[Image] = []
    for given in paths:
        mention = shown_name(given)  # argv may carry a name that is not UTF-8
        path = os.path.normpath(os.path.join(cwd, os.path.expanduser(given)))
        if not os.path.lexists(path):
            return (), f"not attached: {mention}: no such file"
        refused = _guard(mention, path, roots, denied)
        if refused is not None:
            return (), refused
        image, note = _image(mention, path, roots)
        if image is None:
            return (), note
        out.append(image)
    return tuple(out), None


def _one(
    mention: str, cwd: str, roots: tuple[str, ...] | None, denied: Callable[[str], str | None] | None
) -> tuple[str | Image | None, str | None]:
    """(block for the model or an image, note for the user), or (None, None) to leave the text as typed."""
    path = os.path.normpath(os.path.join(cwd, os.path.expanduser(mention)))
    if not os.path.lexists(path):
        return None, None
    refused = _guard(mention, path, roots, denied)
    if refused is not None:
        return None, refused
    if os.path.isdir(path):
        try:
            entries = sorted(e.name + ("/" if e.is_dir() else "") for e in os.scandir(path))
        except OSError as exc:
            return None, f"not attached: {mention}: {exc.strerror or exc}"
        shown = entries[:MAX_ENTRIES]
        more = f"\n… {len(entries) - len(shown)} more entries" if len(entries) > len(shown) else ""
        body = "\n".join(shown) + more
        fence = _fence(body)
        return (
            f"Directory listing of {mention} ({len(entries)} entries):\n{fence}\n{body}\n{fence}",
            f"attached {mention} (listing, {len(entries)} entries)",
        )
    if looks_like_image(mention):
        return _image(mention, path, roots)
    try:
        data = _read(path, roots)
    except (Escape, NotRegular, SpecialFile):
        return None, f"not attached: {mention} is not a regular file"
    except OSError as exc:
        return None, f"not attached: {mention}: {exc.strerror or exc}"
    if sniff(data) is not None:  # an image under another name
        return _image(mention, path, roots)
    if b"\0" in data[:8192]:
        return None, f"not attached: {mention} is a binary file"
    text = data.decode("utf-8", errors="replace")
    lines = text.splitlines()
    cut = len(text) > MAX_FILE_CHARS
    if cut:
        text = text[:MAX_FILE_CHARS].rsplit("\n", 1)[0]
        kept = len(text.splitlines())
        head = f"Contents of {mention} (the first {kept} lines; the rest was cut at {MAX_FILE_CHARS} characters):"
        note = f"attached {mention} (first {kept} lines: the file is longer than {MAX_FILE_CHARS:,} characters)"
    else:
        head = f"Contents of {mention} ({len(lines)} lines):"
        note = f"attached {mention} ({len(lines)} line{'s' if len(lines) != 1 else ''})"
    fence = _fence(text)
    return f"{head}\n{fence}\n{text.rstrip(chr(10))}\n{fence}", note


def attach(
    prompt: str, cwd: str, *, roots: tuple[str, ...] | None = None, denied: Callable[[str], str | None] | None = None
) -> Attached:
    """`roots` are the workspace's (real paths) under `--sandbox workspace`, None for local();
    `denied(path)` names the permission rule that denies reading `path`, if any."""
    blocks: list[str] = []
    notes: list[str] = []
    images: list[Image] = []
    seen: set[str] = set()
    total = 0
    for mention in _mentions(prompt):
        if not mention or mention in seen:
            continue
        seen.add(mention)
        block, note = _one(mention, cwd, roots, denied)
        if isinstance(block, Image):
            images.append(block)
            block = None
        if block is not None and total + len(block) > MAX_TOTAL_CHARS:
            block, note = (
                None,
                f"not attached: {mention} (this prompt's attachments reached {MAX_TOTAL_CHARS:,} characters)",
            )
        if block is not None:
            blocks.append(block)
            total += len(block)
        if note is not None:
            notes.append(note)
    if not notes:
        return Attached(prompt, None)
    text = "\n\n".join([prompt, *blocks]) if blocks else prompt
    display = "\n".join([prompt, *(f"{ATTACH_NOTE}{n}" for n in notes)])
    return Attached(text, display, tuple(notes), tuple(images))


def _mentions(prompt: str) -> list[str]:
    """Each `@path`, then each dropped path to an image (a path that is no image stays text)."""
    found = [m.group(1) or m.group(2).replace("\\ ", " ").rstrip(_TRAILING) for m in _MENTION.finditer(prompt)]
    for m in _DROPPED.finditer(prompt):
        path = next(g for g in m.groups() if g is not None).replace("\\ ", " ")
        if looks_like_image(path.rstrip(_TRAILING)):
            found.append(path.rstrip(_TRAILING))
    return found


def with_images(got: Attached, images: tuple[Image, ...], prompt: str) -> Attached:
    """`got` with images the user attached another way (a pasted clipboard, `--image FILE`)."""
    if not images:
        return got
    notes = (*got.notes, *(f"attached {i.label}" for i in images))
    display = "\n".join([got.display or prompt, *(f"{ATTACH_NOTE}attached {i.label}" for i in images)])
    return Attached(got.text, display, notes, (*got.images, *images))


def attached(prompt: str, settings: Settings, session: Any = None) -> Attached:
    """What to send, what the transcript shows and the images, for a typed prompt, per the
    settings' sandbox and the session's `read` deny rules."""
    return attach(
        prompt,
        settings.cwd,
        roots=workspace_roots(settings.sandbox, settings.cwd, settings.add_dirs),
        denied=read_denied(session),
    )


def read_denied(session: Any) -> Callable[[str], str | None] | None:
    from flue_tui.permissions.policy import policy_of
    from flue_tui.permissions.rules import FILE_PATH, matches

    policy = policy_of(session) if session is not None else None
    if policy is None:
        return None

    def denied(path: str) -> str | None:
        rule = matches(
            policy.deny, "read", {"path": path}, traits=FILE_PATH, base=policy.root, root=policy.root, deny=True
        )
        return rule.text if rule is not None else None

    return denied
