"""Renderers: a report context (plain data) to a document."""

from __future__ import annotations

from ncu_roofline.render.json_report import render_json

#: Output formats and the file suffixes that imply them.
FORMATS: dict[str, tuple[str, ...]] = {
    "html": (".html", ".htm"),
    "json": (".json",),
    "md": (".md", ".markdown"),
    "junit": (".xml",),
}

__all__ = ["FORMATS", "render_json"]
