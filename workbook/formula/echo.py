"""How untrusted text is shown back: in an error message, or anything printed on a terminal.

A site file, a vendor's cell, a file name or an API caller's value may hold anything: a control sequence that a
terminal obeys (ESC ]0;... sets its title, ESC [2J clears it), a bidirectional override that makes text read
other than it is, a lone surrogate that cannot even be encoded, or 3 MB of text. Shown back, each is escaped and
clipped here, the one rule for every reader (the site loader, the returned-file readers, the API's overrides and
the CLI's output streams).
"""

from __future__ import annotations

import unicodedata
from typing import Any

ECHO = 80  # characters of a value shown back in an error message


def printable(text: str) -> str:
    """Text safe to print on a terminal: every character that is not printable (controls such as ESC, which a
    terminal obeys; bidirectional overrides; lone surrogates, which cannot even be encoded) written as its escape,
    e.g. \\x1b or \\u202e. Newlines, tabs and spaces are kept."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch in "\n\t" or unicodedata.category(ch) == "Zs" else ascii(ch)[1:-1]
                   for ch in text)


def clip(text: Any) -> str:
    """Text as an error message shows it: on one line, cut to ECHO characters, its control characters escaped."""
    text = printable(" ".join(str(text).split()))
    return text if len(text) <= ECHO else text[:ECHO - 3] + "..."


def echo(value: Any) -> str:
    """A value as an error message shows it: its repr, clipped."""
    return clip(repr(value))
