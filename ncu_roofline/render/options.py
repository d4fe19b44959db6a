"""What a document can be written as: the output formats with the file
suffixes that imply them, and the ways an HTML page gets plotly.js.

Plain data, read by the command line's options and by the writers.
"""

from __future__ import annotations

#: Output formats of written reports and the file suffixes that imply them.
FORMATS: dict[str, tuple[str, ...]] = {
    "html": (".html", ".htm"),
    "json": (".json",),
    "md": (".md", ".markdown"),
    "junit": (".xml", ".junit"),
}


#: How an HTML page gets plotly.js: embedded (``inline``) or linked (``cdn``).
PLOTLY_MODES = ("inline", "cdn")
