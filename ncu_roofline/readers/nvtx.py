"""NVTX range names from the NVTX columns of ncu's details and raw pages."""

from __future__ import annotations

import re

#: Header prefixes of the push/pop and start/end range columns (their full
#: text differs between ncu versions).
NVTX_PUSHPOP = "thread Domain:"
NVTX_STARTEND = "Id:Domain:"
_NVTX_TOKEN = re.compile(r'"([^"]*)"')


def parse_nvtx_cell(cell: str) -> str | None:
    """Range names from an NVTX cell, outermost first, joined by ``" > "``.

    A real ncu 2020.2 cell reads `` "0:<default domain>:convLayer:none:none" ``:
    quoted entries ``id:domain:name:payload-type:payload``.
    """
    text = cell.strip()
    if not text:
        return None
    tokens = _NVTX_TOKEN.findall(text) or [text]
    names: list[str] = []
    for tok in tokens:
        parts = tok.strip().split(":")
        if len(parts) >= 3 and parts[0].strip().isdigit():
            name = parts[2]
        elif len(parts) >= 2:
            name = parts[1] if parts[0].startswith("<") else parts[0]
        else:
            name = parts[0]
        name = name.strip()
        if name and name.lower() != "none":
            names.append(name)
    return " > ".join(names) if names else None
