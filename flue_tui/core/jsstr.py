"""JavaScript string semantics Flue's texts are measured in: its whitespace set and UTF-16 length.

In core because both the tools' truncation and the sandbox's output tail count this way.
"""

from __future__ import annotations

# What JS String.prototype.trim() strips: WhiteSpace (incl. U+FEFF and category Zs) and
# LineTerminator. Python's str.strip() differs (it strips \x1c-\x1f and \x85, keeps U+FEFF).
JS_WHITESPACE = (
    "\t\n\v\f\r \xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def len16(s: str) -> int:
    """Length in UTF-16 code units, i.e. JavaScript's `s.length`."""
    if s.isascii():
        return len(s)
    return len(s.encode("utf-16-le", "surrogatepass")) // 2
