"""Which characters of profile and user text are unsafe to show, and how they are shown.

Kernel names, GPU names, NVTX ranges, rule messages and file names come
from profiles and users.  An escape sequence in one (``ESC ] 0 ; title BEL``
sets a terminal's window title, ``ESC [ 2 J`` clears the screen), a
backspace, a NUL, or a bidirectional override (U+202E shows the text after
it reversed, in a terminal, a browser or a pull-request comment) would act
instead of being shown.  This module is the one home of that fact: every
writer for people (the terminal, stderr, the HTML pages, the Markdown and
the JUnit XML) shows such a character as its escape, and the JSON writers
escape it as JSON does.

How one is shown: as the escape a programmer would write for it, ``\\x1b``
for ESC, ``\\x07`` for BEL, ``\\x00`` for NUL, ``\\x9b`` for the C1 CSI and
``\\u202e`` for the right-to-left override.  It is readable in any font,
plain ASCII, inert in every format, and says the text was altered and how
to undo it: ``\\x1b[31mred`` is ESC, then ``[31mred``.  The JSON report keeps
the true text, lossless, as JSON escapes (``\\u001b``, ``\\u202e``).

Which characters: the C0 controls but tab, newline and carriage return,
DEL, the C1 controls, and the bidirectional marks, embeddings, overrides and
isolates (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
Tab, newline, carriage return and the Unicode line and paragraph separators
(U+2028, U+2029) only break or space a line: in one-line text (a table
cell, a message) each is a space.  In multi-line text (a page, a document)
a carriage return is a space (in a terminal it would move back over what
was shown) and the others stay, but for the terminal, which gets the
separators as spaces too (some terminals break lines at them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

__all__ = [
    "UNSAFE_CHARACTERS",
    "UNSAFE_RANGES",
    "escape_unsafe",
    "json_escape_unsafe",
    "json_escape_unsafe_bytes",
    "json_has_unsafe_lead",
    "json_shows_otherwise",
    "safe_data",
    "safe_text",
    "terminal_safe",
    "terminal_safe_lines",
]

#: The code points never written raw for people, as inclusive ranges: C0 but tab,
#: newline and carriage return; DEL and C1; the Arabic letter mark; the
#: left-to-right and right-to-left marks; embeddings and overrides; isolates.
UNSAFE_RANGES: tuple[tuple[int, int], ...] = (
    (0x00, 0x08),
    (0x0B, 0x0C),
    (0x0E, 0x1F),
    (0x7F, 0x9F),
    (0x061C, 0x061C),
    (0x200E, 0x200F),
    (0x202A, 0x202E),
    (0x2066, 0x2069),
)
#: Characters that only break or space a line.
_BREAKS = "\t\n\r\u2028\u2029"


def _class(ranges: tuple[tuple[int, int], ...]) -> str:
    return "".join(
        re.escape(chr(a)) + ("" if a == b else "-" + re.escape(chr(b))) for a, b in ranges
    )


#: :data:`UNSAFE_RANGES` as the body of a regular-expression class.
UNSAFE_CHARACTERS = _class(UNSAFE_RANGES)

_UNSAFE = re.compile(f"[{UNSAFE_CHARACTERS}]")
_ANY_ONE_LINE = re.compile(f"[{UNSAFE_CHARACTERS}{_BREAKS}]")
_ANY_LINES = re.compile(f"[{UNSAFE_CHARACTERS}\r]")
_ANY_TERMINAL_LINES = re.compile(f"[{UNSAFE_CHARACTERS}\r\u2028\u2029]")
_BREAK_SET = frozenset(_BREAKS)

# What JSON writers leave raw, every C0 control being escaped by them already:
# the rest of the unsafe characters, and the two separators (which ended
# JavaScript strings before ES2019).
_JSON_RANGES = (*((a, b) for a, b in UNSAFE_RANGES if a > 0x1F), (0x2028, 0x2029))
_JSON_RAW = re.compile(f"[{_class(_JSON_RANGES)}]")
# The same characters as UTF-8 (a character's bytes never match inside another's).
_JSON_RAW_BYTES = re.compile(
    b"|".join(re.escape(chr(c).encode("utf-8")) for a, b in _JSON_RANGES for c in range(a, b + 1))
)
# Their UTF-8 lead bytes: a document without any needs no closer look (a fast byte search).
_JSON_LEAD_BYTES = tuple(
    sorted({chr(c).encode("utf-8")[:1] for a, b in _JSON_RANGES for c in range(a, b + 1)})
)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def _shown(match: re.Match[str]) -> str:
    char = match.group()
    return " " if char in _BREAK_SET else _escape(match)


def escape_unsafe(text: str) -> str:
    """``text`` with each unsafe character as its escape (``\\x1b``, ``\\u202e``), nothing else changed.

    The escapes are JavaScript's too: source code (plotly.js, inlined in a
    page) keeps its meaning where the characters sit in string literals.
    """
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


def safe_text(value: Any, *, lines: bool = False) -> str:
    """``value`` as text safe to show: unsafe characters escaped, line breaks spaced.

    One line by default (tab, newline, carriage return and the line and
    paragraph separators become spaces); with ``lines`` only a carriage
    return is a space.
    A ``str`` with nothing to change is returned as it is (the same object).

    >>> safe_text("k\\x1b]0;owned\\x07\\u202eeman\\nx")
    'k\\\\x1b]0;owned\\\\x07\\\\u202eeman x'
    """
    text = "" if value is None else value if isinstance(value, str) else str(value)
    pattern = _ANY_LINES if lines else _ANY_ONE_LINE
    if not pattern.search(text):
        return text
    return pattern.sub(_shown, text)


def terminal_safe(value: Any) -> str:
    """``value`` as one line for the terminal: :func:`safe_text`.

    >>> terminal_safe("k\\x1b]0;owned\\x07\\u202eeman")
    'k\\\\x1b]0;owned\\\\x07\\\\u202eeman'
    """
    return safe_text(value)


def terminal_safe_lines(text: str) -> str:
    """A multi-line document for the terminal: :func:`safe_text` on each line, newlines kept."""
    return _ANY_TERMINAL_LINES.sub(_shown, text) if _ANY_TERMINAL_LINES.search(text) else text


def safe_data(value: Any) -> Any:
    """Plain data with every string in it (keys included) made :func:`safe_text` (``lines``).

    For data a page shows through a script (chart hover boxes, tables):
    what the browser decodes from the page's JSON is then the shown text.
    Anything but dicts, lists, tuples and strings (numbers, arrays) is kept.
    """
    if isinstance(value, str):
        return safe_text(value, lines=True)
    if isinstance(value, Mapping):
        return {safe_data(k): safe_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [safe_data(v) for v in value]
    return value


# In the writers' JSON (the unsafe characters escaped): the escapes of the
# characters a page shows otherwise, the carriage return included.
_JSON_SHOWN_OTHERWISE = re.compile(
    "|".join(
        re.escape(f"\\u{c:04x}") for a, b in (*UNSAFE_RANGES, (0x0D, 0x0D)) for c in range(a, b + 1)
    )
    + r"|\\[bfr]",
    re.IGNORECASE,
)


def json_shows_otherwise(text: str) -> bool:
    """Whether JSON text from the writers may hold a string :func:`safe_data` would change.

    A literal backslash before such letters matches too: a false alarm,
    which only costs the caller a look at the data.
    """
    return _JSON_SHOWN_OTHERWISE.search(text) is not None


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_escape_unsafe(text: str) -> str:
    """JSON text with the unsafe characters JSON writers leave raw written as ``\\uXXXX``.

    Outside strings JSON holds none of them, so the document stays valid and
    reads back to the same values: the escaping is lossless.
    """
    return _JSON_RAW.sub(_json_escape, text) if _JSON_RAW.search(text) else text


def _json_escape_bytes(match: re.Match[bytes]) -> bytes:
    return b"\\u%04x" % ord(match.group().decode("utf-8"))


def json_has_unsafe_lead(data: bytes) -> bool:
    """Whether UTF-8 JSON bytes may hold a character :func:`json_escape_unsafe_bytes` escapes."""
    return any(lead in data for lead in _JSON_LEAD_BYTES)


def json_escape_unsafe_bytes(data: bytes) -> bytes:
    """:func:`json_escape_unsafe` for UTF-8 JSON bytes (whole characters, as a writer emits them)."""
    if not json_has_unsafe_lead(data):
        return data
    return _JSON_RAW_BYTES.sub(_json_escape_bytes, data)
