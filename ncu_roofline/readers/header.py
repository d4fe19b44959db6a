"""What an ncu table's header and units say: its layout, its ncu version, its unit mode.

Read before the table itself; none of it needs the rows.
"""

from __future__ import annotations

import re
from collections import Counter

from ncu_roofline.core.units import detect_decimal, parse_unit
from ncu_roofline.errors import InputFormatError


def dedupe(names: list[str]) -> list[str]:
    """Repeated column names made unique: the second ``x`` is ``x#2``."""
    seen: Counter[str] = Counter()
    out: list[str] = []
    for n in names:
        seen[n] += 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def auto_units(units: list[str]) -> bool:
    """Whether any unit shows ncu's auto scaling (a prefix beyond base units)."""
    for u in units:
        parsed = parse_unit(u)
        if parsed is None:
            continue
        if parsed.si == "s":
            if parsed.factor not in (1e-9, 1.0):
                return True
        elif parsed.factor != 1.0:
            return True
    return False


def infer_ncu_version(header: list[str], units: list[str], ccs: list[str]) -> str | None:
    """A version range for the ncu that wrote an export, from its shape."""
    hints: list[str] = []
    low: str | None = None
    if "Kernel Time" in header:
        hints.append("'Kernel Time' header: ncu 2019.x-2022.x era")
        high = "2022.x"
    else:
        high = None
        if "Block Size" in header:
            low = "2022.3"
    if "Estimated Speedup" in header:
        low = "2023.2"
    if "Body Item Label" in header:
        low = "2023.2"
    if any(u in {"ns", "us", "ms", "Ghz", "Mhz", "hz"} or u.endswith("/s") for u in units):
        low = max(low or "2024.1", "2024.1")
    try:
        max_cc = max(float(c.replace(",", ".")) for c in ccs if c.strip())
    except ValueError:
        max_cc = 0.0
    if max_cc >= 10.0:
        low = max(low or "2025.1", "2025.1")
    if low and high:
        return f"{low}-{high}"
    if low:
        return f">= {low}"
    if high:
        return f"<= {high}"
    return None


def detect_layout(header: list[str]) -> str:
    """``details``, ``summary`` or ``raw`` from a table header."""
    if "Metric Value" in header:
        return "details"
    if "Invocations" in header and "Average" in header:
        return "summary"
    if any("__" in h for h in header):
        return "raw"
    raise InputFormatError(
        "unrecognised ncu table: neither a details page (Metric Value), a summary "
        "(Invocations/Average) nor a raw page (metric-id columns)"
    )


def decimal_for(samples: list[list[str]], header: list[str], value_cols: list[str]) -> str:
    """The decimal mark of a table: its CC column's, else its value columns' majority."""
    cc_idx = header.index("CC") if "CC" in header else None
    if cc_idx is not None:
        ccs = [r[cc_idx] for r in samples if len(r) > cc_idx]
        if any(re.fullmatch(r"\d+,\d", c) for c in ccs):
            return ","
        if any(re.fullmatch(r"\d+\.\d", c) for c in ccs):
            return "."
    values: list[str] = []
    for col in value_cols:
        if col in header:
            i = header.index(col)
            values += [r[i] for r in samples if len(r) > i]
    return detect_decimal(values)
