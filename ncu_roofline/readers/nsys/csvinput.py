"""One CSV input of ``nsys stats`` reports into a :class:`~ncu_roofline.core.timeline.Timeline`."""

from __future__ import annotations

import os

import pandas as pd
import pyarrow as pa

from ncu_roofline.core.timeline import Timeline, TimelineSource
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.nsys.columns import key_of
from ncu_roofline.readers.nsys.reports import REPORTS, Columns, Report, candidates, choose
from ncu_roofline.readers.nsys.stream import Block, blocks, header_cells, parse_block

__all__ = ["read_csv_reports"]


def read_csv_reports(path: str, buf: bytes) -> Timeline:
    """Every report in ``buf`` (the bytes of ``path``), each filling its timeline table.

    One input may hold several reports (``nsys stats`` to stdout); a table
    whose header is no known report is an error when it is the input's only
    table, else it is left out with a warning (the stream also prints reports
    the timeline has no place for, such as ``osrt_sum``).
    """
    source = TimelineSource(path=path)
    if not buf.strip():
        raise InputFormatError(f"{path}: the file is empty")
    found = list(blocks(buf))
    if not found:
        raise InputFormatError(f"{path}: no nsys report table found (no CSV header line)")
    arrow_buf = pa.py_buffer(buf)
    tables: dict[str, list[pd.DataFrame]] = {}
    unknown: list[str] = []
    for block in found:
        header = header_cells(buf, block)
        keys = {k for k in (key_of(c) for c in header) if k is not None}
        fits = candidates(keys)
        if block.hint is not None and block.hint not in REPORTS:
            # The stream named it (osrt_sum shares cuda_api_sum's header): a
            # report the timeline has no table for, whatever its columns.
            unknown.append(
                f"{path}: the table with its header on line {block.line} is nsys's "
                f"{block.hint} report, which the timeline does not hold"
            )
            continue
        if not fits:
            described = _unknown(path, block, header)
            if len(found) == 1:
                raise InputFormatError(described)
            unknown.append(described)
            continue
        report = _read_block(path, buf, arrow_buf, block, fits, source)
        tables.setdefault(report[0].table, []).append(report[1])
        source.reports.append(report[0].name)
        source.rows += len(report[1])
    if not source.reports:
        raise InputFormatError(unknown[0])
    for message in unknown:
        source.warn(message.removeprefix(f"{path}: ") + ": left out")
    for frames in tables.values():
        for frame in frames:
            frame["source"] = path
    joined = {name: pd.concat(frames, ignore_index=True) for name, frames in tables.items()}
    return Timeline.of([source], **joined)


def _read_block(
    path: str,
    buf: bytes,
    arrow_buf: pa.Buffer,
    block: Block,
    fits: list[Report],
    source: TimelineSource,
) -> tuple[Report, pd.DataFrame]:
    used = set().union(*(r.keys for r in fits))
    parsed = parse_block(buf, arrow_buf, block, used, path, source)
    # nsys stats --output names each file <base>_<report>.csv: a hint when two reports tie.
    report = choose(fits, [block.hint, os.path.basename(path)], parsed.values.get("name"))
    frame = report.build(Columns(parsed.values, parsed.rows))
    return report, frame


def _unknown(path: str, block: Block, header: list[str]) -> str:
    shown = ", ".join(header[:20]) + (", ..." if len(header) > 20 else "")
    return (
        f"{path}: the table with its header on line {block.line} is no nsys report this tool "
        f"reads (columns: {shown})"
    )
