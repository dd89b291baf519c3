"""Text the user hands flue (prompts, files named on the command line) must be UTF-8."""

from __future__ import annotations

from flue_tui.config.errors import ConfigError

_NOT_UTF8 = "{what} is not UTF-8 text (byte 0x{byte:02x} at offset {at}); convert it first, e.g. with iconv -t UTF-8."


def utf8_text(what: str, value: str | bytes) -> str:
    """Text for the model must be UTF-8: a bad byte is refused, saying where, never sent mangled.
    argv arrives with undecodable bytes as lone surrogates (U+DC80..U+DCFF); stdin and files as bytes."""
    if isinstance(value, bytes):
        try:
            # Newlines as text-mode reading had them (universal newlines).
            return value.decode("utf-8").replace("\r\n", "\n").replace("\r", "\n")
        except UnicodeDecodeError as exc:
            raise ConfigError(_NOT_UTF8.format(what=what, byte=value[exc.start], at=exc.start)) from None
    for at, char in enumerate(value):
        if 0xDC80 <= ord(char) <= 0xDCFF:
            raise ConfigError(
                _NOT_UTF8.format(
                    what=what, byte=ord(char) - 0xDC00, at=len(value[:at].encode("utf-8", "surrogateescape"))
                )
            )
    return value


def lone_surrogate(value: str) -> int | None:
    """Where `value` holds a lone UTF-16 surrogate (JSON's "\\ud800" decodes to one), or None. Such
    text cannot be encoded as UTF-8: stored or sent, it would fail every later write of the session."""
    try:
        value.encode("utf-8")  # strict UTF-8 fails on surrogates and on nothing else
    except UnicodeEncodeError as exc:
        return exc.start
    return None


# The most a prompt may hold: ~4 million characters is about a million tokens, the largest context
# window any model has; anything longer cannot be read by the model and would only be sent (and
# stored) whole. A stream-json line may be longer than its text (JSON escapes, other fields).
MAX_PROMPT_CHARS = 4_000_000
MAX_LINE_BYTES = 32 * 1024 * 1024


def prompt_problem(text: str) -> str | None:
    """Why a prompt cannot be sent (one sentence), or None: too long, or a lone surrogate (a JSON
    `\\ud800` escape decodes to one; no provider accepts it, and the stored history would poison
    every later request)."""
    if len(text) > MAX_PROMPT_CHARS:
        return f"the prompt has {len(text):,} characters; the most flue sends is {MAX_PROMPT_CHARS:,} (about a million tokens)"
    at = lone_surrogate(text)
    if at is not None:
        return f"the prompt is not UTF-8 text (a lone surrogate U+{ord(text[at]):04X} at character {at})"
    return None


def read_utf8_file(path: str, what: str) -> str:
    """A text file the user named on the command line: its text, or one ConfigError line."""
    try:
        with open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:
        raise ConfigError(f"Cannot read {what} {path}: {exc.strerror or exc}") from None
    return utf8_text(f"{what} {path}", data)
