"""ncu's human-readable text output (``ncu ./app > profile.txt``, no ``--csv``).

Each kernel block is a ``[pid] process@host`` line, a header line
``  name (grid)x(block), Context C, Stream S, Device D, CC X.Y`` and, per
section, ``Section: NAME`` with one or more tables of ``Metric Name``,
``Metric Unit`` and ``Metric Value`` columns between dashed rules.  Rule and
advice paragraphs (``OPT``, ``INF``, ``WRN``), ``==PROF==`` lines and the
program's own output around and between the blocks are skipped.

The rows are gathered as column lists in the shape of a CSV details page
(one row per launch and metric) and read by the details reader, so that a
text export and a CSV details export of one run give the same launches,
with units and values normalised by the same code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.rules import RuleTable, speedup_number
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.csv_pages import read_long
from ncu_roofline.readers.identity import IDENTITY_HEADERS
from ncu_roofline.readers.locate import RawInput, locate_table

#: A kernel block's header; the launch shape is matched from the right, so
#: a name may hold commas, parentheses and ``x``.
_KERNEL_RE = re.compile(
    r"^  (?P<name>\S.*) (?P<grid>\(\d+, \d+, \d+\))x(?P<block>\(\d+, \d+, \d+\)), "
    r"Context (?P<ctx>\d+), Stream (?P<stream>\d+)"
    r"(?:, Device (?P<dev>\d+))?(?:, CC (?P<cc>\d+[.,]\d+))?\s*$"
)
#: Older ncu (2019-2021) prints a time stamp in place of the launch shape.
_KERNEL_OLD_RE = re.compile(
    r"^  (?P<name>\S.*), (?P<when>\d{4}-\w{3}-\d{2} \d{2}:\d{2}:\d{2}), "
    r"Context (?P<ctx>\d+), Stream (?P<stream>\d+)\s*$"
)
#: A per-kernel summary (``--print-summary per-kernel``) block header.
_SUMMARY_RE = re.compile(r"(?m)^  \S.*, Invocations \d+\s*$")
_PROCESS_RE = re.compile(r"^\[(?P<pid>\d+)\] (?P<proc>.*?)@(?P<host>[^@]*?)\s*$")
_SECTION_RE = re.compile(r"^\s+Section: (?P<section>.*?)\s*$")
_RULE_RE = re.compile(r"^(\s*)-+(?: -+)*\s*$")
#: A rule result's paragraph: its type, then the text (ncu prints no rule name).
_ADVICE_RE = re.compile(r"^    (?P<type>OPT|INF|WRN|ERR)   (?P<text>.*?)\s*$")
_ADVICE_INDENT = " " * 10
#: The first line of a paragraph with an estimate (ncu 2023.x and later).
_SPEEDUP_RE = re.compile(r"^Est\. (?:(?P<kind>Local|Global) )?Speedup: (?P<pct>[\d.,]+)%$")

#: The columns of the CSV details page the rows are gathered into.
_HEADER = [
    *(h for h in IDENTITY_HEADERS if h != "Kernel Time"),
    "Section Name",
    "Metric Name",
    "Metric Unit",
    "Metric Value",
]

_ERROR_RE = re.compile(rb"(?m)^==ERROR==[^\r\n]*")


def _spans(rule: str) -> list[tuple[int, int]]:
    """The column spans of a dashed rule (``---- ---- ----``)."""
    return [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    """The cells of a row cut at the rule's columns; the last one runs to the line end.

    Names are left-aligned and values right-aligned inside their span, so a
    cut at the span edges holds each whole.
    """
    cells = [line[a:b].strip() for a, b in spans[:-1]]
    cells.append(line[spans[-1][0] :].strip())
    return cells


_IDENTITY = _HEADER[:11]


@dataclass
class TextRows:
    """The rows of a text output: each launch's identity once, and per row its launch."""

    #: Per launch, the identity cells in the order of the first 11 ``_HEADER`` columns.
    launches: list[tuple[str, ...]] = field(default_factory=list)
    #: Per row, the index of its launch in ``launches``.
    row_launch: list[int] = field(default_factory=list)
    sections: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    units: list[str] = field(default_factory=list)
    values: list[str] = field(default_factory=list)
    #: Rule paragraphs: launch index, type (``OPT``), section, their lines.
    rules: list[tuple[int, str, str, list[str]]] = field(default_factory=list)


def parse_rows(text: str) -> TextRows:
    """Parse ncu text output line by line (compiled patterns; one list append per cell)."""
    rows = TextRows()
    launches, row_launch = rows.launches, rows.row_launch
    sections, names, units, values = rows.sections, rows.names, rows.units, rows.values
    pid = proc = host = ""
    launch: tuple[str, ...] | None = None
    current = -1
    next_id = 0
    section = ""
    # Table state: the rule's spans, whether the header row was seen, and
    # where the name, unit and value cells are.
    spans: list[tuple[int, int]] | None = None
    in_rows = False
    where: tuple[int, int, int] | None = None
    # The lines of the rule paragraph being read, if any.
    paragraph: list[str] | None = None
    for line in text.splitlines():
        if spans is not None:
            if _RULE_RE.match(line):
                if where is not None and not in_rows:
                    in_rows = True
                    spans = _spans(line)
                    continue
                # The closing rule (or the rule above a header): a new table may follow.
                spans = _spans(line) if where is None else None
                in_rows = False
                if spans is None:
                    where = None
                continue
            if where is None:
                heads = _cells(line, spans)
                if "Metric Name" in heads and "Metric Value" in heads:
                    where = (
                        heads.index("Metric Name"),
                        heads.index("Metric Unit") if "Metric Unit" in heads else -1,
                        heads.index("Metric Value"),
                    )
                    continue
                if len(spans) != 3 or not line.strip() or "Metric Name" in line:
                    spans = None
                    continue
                # Older ncu prints no header row: name, unit and value follow the rule.
                where = (0, 1, 2)
                in_rows = True
            if in_rows and launch is not None and line.strip():
                cells = _cells(line, spans)
                if len(cells) > max(where):
                    row_launch.append(current)
                    sections.append(section)
                    names.append(cells[where[0]])
                    units.append(cells[where[1]] if where[1] >= 0 else "")
                    # "(!)" flags a value ncu could not measure; the value itself follows.
                    value = cells[where[2]]
                    values.append(value[4:] if value.startswith("(!) ") else value)
            continue
        if line.startswith("  ") and not line.startswith("   "):
            m = _KERNEL_RE.match(line)
            old = None if m is not None else _KERNEL_OLD_RE.match(line)
            if m is not None:
                launch = (
                    str(next_id),
                    pid,
                    proc,
                    host,
                    m["name"],
                    m["ctx"],
                    m["stream"],
                    m["block"],
                    m["grid"],
                    m["dev"] or "",
                    m["cc"] or "",
                )
            elif old is not None:
                launch = (str(next_id), pid, proc, host, old["name"], old["ctx"], old["stream"])
                launch += ("", "", "", "")
            if launch is not None and (m is not None or old is not None):
                launches.append(launch)
                current = len(launches) - 1
                next_id += 1
                section = ""
                continue
        if line.startswith("["):
            m = _PROCESS_RE.match(line)
            if m is not None:
                pid, proc, host = m["pid"], m["proc"], m["host"]
                continue
        if launch is None:
            continue
        advice = _ADVICE_RE.match(line)
        if advice is not None:
            paragraph = [advice["text"]]
            rows.rules.append((current, advice["type"], section, paragraph))
            continue
        if paragraph is not None and line.startswith(_ADVICE_INDENT) and line.strip():
            paragraph.append(line.strip())
            continue
        paragraph = None
        m = _SECTION_RE.match(line)
        if m is not None:
            section = m["section"]
            continue
        if _RULE_RE.match(line) and section:
            spans = _spans(line)
            where = None
            in_rows = False
    return rows


def _csv_bytes(rows: TextRows) -> bytes:
    """The rows as a CSV details page, every field quoted as ncu writes it."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    # Identity cells are made once per launch and repeated per row by Arrow.
    take = pa.array(rows.row_launch, type=pa.int64())
    per_launch = list(zip(*rows.launches, strict=True))
    data = {
        h: pa.array(per_launch[k], type=pa.string()).take(take) for k, h in enumerate(_IDENTITY)
    }
    data.update(
        {
            "Section Name": pa.array(rows.sections, type=pa.string()),
            "Metric Name": pa.array(rows.names, type=pa.string()),
            "Metric Unit": pa.array(rows.units, type=pa.string()),
            "Metric Value": pa.array(rows.values, type=pa.string()),
        }
    )
    table = pa.table(data)
    sink = pa.BufferOutputStream()
    options = pacsv.WriteOptions(quoting_style="all_valid")
    pacsv.write_csv(table, sink, write_options=options)
    return bytes(sink.getvalue().to_pybytes())


def read_text(raw: RawInput) -> tuple[Any, SourceInfo]:
    """Read ncu text output into the launch model (layout ``text``)."""
    text = bytes(raw.buf).decode("utf-8", errors="replace").lstrip("\ufeff")
    rows = parse_rows(text)
    if not rows.values and _SUMMARY_RE.search(text):
        raise InputFormatError(
            f"{raw.name}: ncu's per-kernel summary in text form (Minimum/Maximum/Average) is "
            "not read; export it with `ncu --csv --print-summary per-kernel --print-units base ...`"
        )
    if not rows.values:
        raise InputFormatError(
            f"{raw.name}: ncu text output without a kernel block holding a metric table"
        )
    table = RawInput(raw.name, _csv_bytes(rows), None)
    loc = locate_table(table)
    loc.errors = [
        m.group(0).decode("utf-8", errors="replace").rstrip() for m in _ERROR_RE.finditer(raw.buf)
    ]
    frame, info = read_long(table, loc, "details", None, line_numbers=False)
    info.layout = "text"
    info.rules = _rule_table(rows)
    return frame, info


def _rule_table(rows: TextRows) -> RuleTable:
    """The rule paragraphs as rule results, keyed as the CSV rows of their launch are.

    Text output names no rule: ``name`` is None and ``section`` the
    section's display name; an ``Est. Local Speedup: 30.24%`` first line is
    the estimate.
    """
    table = RuleTable()
    for launch, kind, section, lines in rows.rules:
        if launch < 0:
            continue
        ident = rows.launches[launch]
        pid = ident[1].strip()
        est = _SPEEDUP_RE.match(lines[0]) if lines else None
        text = lines[1:] if est is not None else lines
        table.add(
            int(pid) if pid.isdigit() else -1,
            int(ident[0]),
            None,
            kind,
            section,
            " ".join(text),
            est["kind"].lower() if est is not None and est["kind"] else None,
            speedup_number(est["pct"]) if est is not None else float("nan"),
        )
    return table
