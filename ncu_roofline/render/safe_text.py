"""Text bound for a terminal, with nothing in it that could drive the terminal.

Kernel names, paths and values come from profiles and users.  An escape
sequence in one (``ESC ] 0 ; title BEL`` sets the window title, ``ESC [ 2 J``
clears the screen), a backspace, or a bidirectional override (U+202E shows
the text after it reversed) would act on the terminal instead of being
shown.  :func:`terminal_safe` is the one filter every terminal-bound text
goes through: the terminal summary's cells, the plain-text documents, and
every warning, note and error line on stderr.
"""

from __future__ import annotations

import re
from typing import Any

# C0 controls (tab and newline included: one message is one line), DEL, C1
# controls, the bidirectional marks, embeddings, overrides and isolates, the
# Arabic letter mark, and the Unicode line and paragraph separators (which
# some terminals and viewers break lines at).
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEP_LINES = re.compile(
    "[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def terminal_safe(value: Any) -> str:
    """``value`` as one line of text with every control and bidi character replaced by a space.

    >>> terminal_safe("k\\x1b]0;owned\\x07\\u202eeman")
    'k ]0;owned  eman'
    """
    return _UNSAFE.sub(" ", "" if value is None else str(value))


def terminal_safe_lines(text: str) -> str:
    """A multi-line document made safe: :func:`terminal_safe` on each line, newlines kept."""
    return _UNSAFE_KEEP_LINES.sub(" ", text)
