"""The JSON report: the report context, serialised."""

from __future__ import annotations

import json
from typing import Any


def render_json(context: dict[str, Any], indent: int | None = 1) -> str:
    """Serialise a report context; NaN is refused (the context has none)."""
    return json.dumps(context, indent=indent, allow_nan=False, ensure_ascii=False) + "\n"
