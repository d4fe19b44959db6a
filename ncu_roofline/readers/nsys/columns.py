"""Column spellings of ``nsys stats`` CSV reports, mapped onto one set of keys.

nsys renames columns between versions (``CorrId``/``CorrID``, ``Num Calls``
for ``Instances``, ``Time(%)``/``Time (%)``, ``Average``/``Avg (ns)``) and adds
some (``GreenCtx``).  Every spelling the readers know is in :data:`SPELLINGS`,
so a new version's rename is one line here, not a change to each report.
A column not listed is ignored.  Each key has a type (:data:`KEY_TYPES`): the
CSV parser reads the column as that type, so a text where a number belongs
is found while parsing, not later.
"""

from __future__ import annotations

__all__ = ["KEY_TYPES", "SPELLINGS", "key_of"]

#: Header text (stripped) -> key.  Keys are what :mod:`.reports` builders read.
SPELLINGS: dict[str, str] = {
    # Traces: times and identities.
    "Start (ns)": "start",
    "Start": "start",
    "End (ns)": "end",
    "End": "end",
    "Duration (ns)": "duration",
    "Duration": "duration",
    "CorrId": "corr_id",
    "CorrID": "corr_id",
    "GrdX": "grid_x",
    "GrdY": "grid_y",
    "GrdZ": "grid_z",
    "BlkX": "block_x",
    "BlkY": "block_y",
    "BlkZ": "block_z",
    # Memcpy/memset size: MB are 1e6 bytes in nsys's reports.
    "Bytes (MB)": "bytes_mb",
    "Bytes": "bytes",
    "Device": "device",
    "Ctx": "context",
    "Strm": "stream",
    "Name": "name",
    "Result": "result",
    "Pid": "pid",
    "PID": "pid",
    "Tid": "tid",
    "TID": "tid",
    # Summaries.
    "Time (%)": "time_pct",
    "Time(%)": "time_pct",
    "Total Time (ns)": "total",
    "Total Time": "total",
    "Instances": "instances",
    "Num Calls": "calls",
    "Avg (ns)": "avg",
    "Average": "avg",
    "Med (ns)": "med",
    "Median": "med",
    "Min (ns)": "min",
    "Minimum": "min",
    "Max (ns)": "max",
    "Maximum": "max",
    "StdDev (ns)": "stddev",
    "StdDev": "stddev",
    # NVTX.
    "NVTX Range": "range",
    "Range": "range",
    "Style": "style",
    "NVTX Inst": "nvtx_inst",
    "Kern Inst": "kern_inst",
    "Kernel Name": "kernel_name",
    "Lvl": "level",
    "NameTree": "name_tree",
    "Projected Start (ns)": "proj_start",
    "Projected Duration (ns)": "proj_duration",
    "Orig Start (ns)": "orig_start",
    "Orig Duration (ns)": "orig_duration",
    "NumGPUOps": "gpu_ops",
    "Total Proj Time (ns)": "total_proj",
    "Total Range Time (ns)": "total_range",
    "Range Instances": "range_instances",
    "Total GPU Ops": "gpu_ops_total",
}

#: Key -> ``"int"``, ``"float"`` or ``"text"``.  Times and counts are integers
#: (nanoseconds are exact in int64, not in float64 past 2**53); averages and
#: sizes are floats.  ``device`` is text: nsys writes it as ``"NVIDIA A100 (0)"``.
KEY_TYPES: dict[str, str] = {
    "start": "int",
    "end": "int",
    "duration": "int",
    "corr_id": "int",
    "grid_x": "int",
    "grid_y": "int",
    "grid_z": "int",
    "block_x": "int",
    "block_y": "int",
    "block_z": "int",
    "bytes_mb": "float",
    "bytes": "float",
    "device": "text",
    "context": "int",
    "stream": "int",
    "name": "text",
    "result": "text",
    "pid": "int",
    "tid": "int",
    "time_pct": "float",
    "total": "float",
    "instances": "int",
    "calls": "int",
    "avg": "float",
    "med": "float",
    "min": "float",
    "max": "float",
    "stddev": "float",
    "range": "text",
    "style": "text",
    "nvtx_inst": "int",
    "kern_inst": "int",
    "kernel_name": "text",
    "level": "int",
    "name_tree": "text",
    "proj_start": "int",
    "proj_duration": "int",
    "orig_start": "int",
    "orig_duration": "int",
    "gpu_ops": "int",
    "total_proj": "float",
    "total_range": "float",
    "range_instances": "int",
    "gpu_ops_total": "int",
}


def key_of(header: str) -> str | None:
    """The key of one header cell; ``None`` for a column the readers ignore."""
    return SPELLINGS.get(header.strip())
