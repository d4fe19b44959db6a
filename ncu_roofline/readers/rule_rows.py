"""ncu's rule rows on the details page, read into a :class:`~ncu_roofline.core.rules.RuleTable`.

Rule rows carry the full header's width (metric rows stop after ``Metric
Value``), so the table parse hands them to its invalid-row handler, which
keeps their text (:class:`~ncu_roofline.readers.table.SkipCounter`); they
are a handful per launch, parsed here with the csv module.  ``Section
Name`` holds the section identifier on rule rows (``SpeedOfLight``).  The
estimated-speedup columns exist since ncu 2023.x; older exports (three rule
columns) give no estimate (NaN).
"""

from __future__ import annotations

import csv

from ncu_roofline.core.rules import RuleTable, speedup_number
from ncu_roofline.readers.decode import long_csv_fields


def _whole(text: str) -> int | None:
    cleaned = text.strip().replace(",", "")
    return int(cleaned) if cleaned.lstrip("+-").isdigit() else None


def rule_table(texts: list[str], header: list[str]) -> RuleTable:
    """The rule results among ``texts`` (rule rows as printed), by launch.

    Rows without a rule name or a whole-number ``ID`` (a damaged row) are
    not rule results and are left out.
    """
    table = RuleTable()
    if not texts or "Rule Name" not in header or "ID" not in header:
        return table
    at = {name: i for i, name in reversed(list(enumerate(header)))}
    width = len(header)

    def cell(row: list[str], name: str) -> str | None:
        i = at.get(name)
        return row[i] if i is not None and i < len(row) else None

    # A kernel name can be longer than the csv module's default field limit.
    with long_csv_fields():
        rows = list(csv.reader(texts))
    for row in rows:
        if len(row) != width:
            continue
        name = (cell(row, "Rule Name") or "").strip()
        launch = _whole(cell(row, "ID") or "")
        if not name or launch is None:
            continue
        pid = _whole(cell(row, "Process ID") or "")
        table.add(
            -1 if pid is None else pid,
            launch,
            name,
            (cell(row, "Rule Type") or "").strip(),
            (cell(row, "Section Name") or "").strip(),
            (cell(row, "Rule Description") or "").strip(),
            (cell(row, "Estimated Speedup Type") or "").strip(),
            speedup_number(cell(row, "Estimated Speedup")),
        )
    return table


__all__ = ["rule_table"]
