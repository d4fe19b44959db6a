"""The SQLite export of a capture (``nsys export --type sqlite``) into a timeline.

Tables read (each optional: a capture without NVTX has no ``NVTX_EVENTS``):

* ``CUPTI_ACTIVITY_KIND_KERNEL``: kernels, named through ``StringIds`` by
  ``demangledName`` (else ``shortName``);
* ``CUPTI_ACTIVITY_KIND_MEMCPY`` and ``..._MEMSET``: labelled as nsys's
  reports label them, ``[CUDA memcpy Host-to-Device]``, ``[CUDA memset]``;
* ``CUPTI_ACTIVITY_KIND_RUNTIME`` (and ``..._DRIVER`` where a version
  writes one): API calls, named through ``StringIds`` by ``nameId``;
* ``NVTX_EVENTS``: push/pop (``eventType`` 59) and start/end (60) ranges,
  their domain from the domain-create events (75), their level computed
  (:mod:`.nesting`).

Columns are picked from what each table holds (``PRAGMA table_info``), so
a version that lacks one leaves that timeline column missing rather than
failing.  The file is opened read-only.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import numpy as np
import pandas as pd

from ncu_roofline.core.timeline import Timeline, TimelineSource
from ncu_roofline.errors import InputFormatError
from ncu_roofline.readers.nsys.nesting import OPEN, levels
from ncu_roofline.readers.nsys.series import (
    dims_text,
    distinct_map,
    frame_of,
    int_series,
    object_ints,
    text_series,
)

__all__ = ["SQLITE_MAGIC", "read_sqlite"]

SQLITE_MAGIC = b"SQLite format 3\x00"

KERNEL = "CUPTI_ACTIVITY_KIND_KERNEL"
MEMCPY = "CUPTI_ACTIVITY_KIND_MEMCPY"
MEMSET = "CUPTI_ACTIVITY_KIND_MEMSET"
RUNTIME = "CUPTI_ACTIVITY_KIND_RUNTIME"
DRIVER = "CUPTI_ACTIVITY_KIND_DRIVER"
NVTX = "NVTX_EVENTS"
KNOWN_TABLES = (KERNEL, MEMCPY, MEMSET, RUNTIME, DRIVER, NVTX)

#: NVTX event types (nsys's ENUM_NSYS_EVENT_TYPE).
NVTX_PUSHPOP = 59
NVTX_STARTEND = 60
NVTX_DOMAIN_CREATE = 75

#: CUPTI copy kinds -> the label nsys's reports print, used when the file has
#: no ``ENUM_CUDA_MEMCPY_OPER`` table of its own.
MEMCPY_LABELS: dict[int, str] = {
    0: "Unknown",
    1: "Host-to-Device",
    2: "Device-to-Host",
    3: "Host-to-Array",
    4: "Array-to-Host",
    5: "Array-to-Array",
    6: "Array-to-Device",
    7: "Device-to-Array",
    8: "Device-to-Device",
    9: "Host-to-Host",
    10: "Peer-to-Peer",
}

# globalTid packs the process and thread ids; the thread id is its low 24 bits.
_TID_MASK = 0xFFFFFF
# The runtime records versioned entry points ("cudaLaunchKernel_v7000"); the
# reports print the API's name.  Short suffixes (_v2) are part of the name.
_VERSION_TAG = re.compile(r"_v\d{4,}$")


def read_sqlite(path: str, label: str | None = None) -> Timeline:
    """Read an nsys SQLite export; rows' ``source`` is ``label`` (default ``path``)."""
    name = label or path
    with open(path, "rb") as fh:
        head = fh.read(len(SQLITE_MAGIC))
    if head != SQLITE_MAGIC:
        raise InputFormatError(f"{name}: not an SQLite file (expected nsys export --type sqlite)")
    try:
        conn = sqlite3.connect(Path(path).resolve().as_uri() + "?mode=ro", uri=True)
    except sqlite3.Error as exc:
        raise InputFormatError(f"{name}: cannot open the SQLite file ({exc})") from None
    try:
        return _read(conn, name)
    except sqlite3.DatabaseError as exc:
        raise InputFormatError(f"{name}: the SQLite file cannot be read ({exc})") from None
    finally:
        conn.close()


def _read(conn: sqlite3.Connection, name: str) -> Timeline:
    tables = {
        r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")
    }
    present = [t for t in KNOWN_TABLES if t in tables]
    if not present:
        raise InputFormatError(
            f"{name}: an SQLite file without any nsys table ({', '.join(KNOWN_TABLES[:4])}, {NVTX}): "
            "not an nsys export?"
        )
    source = TimelineSource(path=name, reports=["sqlite"])
    strings = "StringIds" in tables
    parts: dict[str, pd.DataFrame] = {}
    activities = [
        f
        for f in (
            _kernels(conn, strings) if KERNEL in tables else None,
            _memcpys(conn, tables) if MEMCPY in tables else None,
            _memsets(conn) if MEMSET in tables else None,
        )
        if f is not None and len(f)
    ]
    if activities:
        parts["activities"] = pd.concat(activities, ignore_index=True)
    api = [_api(conn, t, strings) for t in (RUNTIME, DRIVER) if t in tables]
    api = [f for f in api if len(f)]
    if api:
        parts["api"] = pd.concat(api, ignore_index=True)
    if NVTX in tables:
        parts["ranges"] = _ranges(conn, strings)
    for frame in parts.values():
        frame["source"] = name
        source.rows += len(frame)
    return Timeline.of([source], **parts)


def _columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def _pick(cols: set[str], column: str, alias: str = "t") -> str:
    """``alias.column`` when the table has it, else SQL ``NULL`` (the value is missing)."""
    return f"{alias}.{column}" if column in cols else "NULL"


def _query(conn: sqlite3.Connection, sql: str) -> pd.DataFrame:
    frame: pd.DataFrame = pd.read_sql_query(sql, conn)
    return frame


def _activity_frame(raw: pd.DataFrame, kind: str, name: pd.Series) -> pd.DataFrame:
    n = len(raw)
    return frame_of(
        {
            "kind": text_series(np.full(n, kind, dtype=object)),
            "start_ns": int_series(raw["start"]),
            "end_ns": int_series(raw["end"]),
            "name": text_series(name.reset_index(drop=True)),
            "corr_id": int_series(raw["corr"]),
            "device": object_ints(raw["device"]),
            "context": object_ints(raw["context"]),
            "stream": object_ints(raw["stream"]),
        }
    )


def _kernels(conn: sqlite3.Connection, strings: bool) -> pd.DataFrame:
    cols = _columns(conn, KERNEL)
    joins = ""
    names = []
    if strings:
        for i, column in enumerate(("demangledName", "shortName")):
            if column in cols:
                joins += f" LEFT JOIN StringIds s{i} ON s{i}.id = t.{column}"
                names.append(f"s{i}.value")
    name = f"COALESCE({', '.join(names)})" if len(names) > 1 else (names[0] if names else "NULL")
    dims = ", ".join(
        f"{_pick(cols, c)} AS {c}"
        for c in ("gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ")
    )
    raw = _query(
        conn,
        f"SELECT t.start AS start, t.end AS end, {_pick(cols, 'correlationId')} AS corr, "
        f"{_pick(cols, 'deviceId')} AS device, {_pick(cols, 'contextId')} AS context, "
        f"{_pick(cols, 'streamId')} AS stream, {dims}, {name} AS name "
        f"FROM {KERNEL} t{joins} ORDER BY t.start",
    )
    frame = _activity_frame(raw, "kernel", raw["name"])
    frame["grid"] = dims_text(raw["gridX"], raw["gridY"], raw["gridZ"])
    frame["block"] = dims_text(raw["blockX"], raw["blockY"], raw["blockZ"])
    return frame


def _memcpys(conn: sqlite3.Connection, tables: set[str]) -> pd.DataFrame:
    cols = _columns(conn, MEMCPY)
    raw = _query(
        conn,
        f"SELECT t.start AS start, t.end AS end, {_pick(cols, 'correlationId')} AS corr, "
        f"{_pick(cols, 'deviceId')} AS device, {_pick(cols, 'contextId')} AS context, "
        f"{_pick(cols, 'streamId')} AS stream, {_pick(cols, 'bytes')} AS bytes, "
        f"{_pick(cols, 'copyKind')} AS copy_kind FROM {MEMCPY} t ORDER BY t.start",
    )
    labels = dict(MEMCPY_LABELS)
    if "ENUM_CUDA_MEMCPY_OPER" in tables and "label" in _columns(conn, "ENUM_CUDA_MEMCPY_OPER"):
        labels.update(
            {int(i): str(v) for i, v in conn.execute("SELECT id, label FROM ENUM_CUDA_MEMCPY_OPER")}
        )

    def label(kind: object) -> str:
        text = (
            labels.get(int(kind), "Unknown")
            if isinstance(kind, (int, float, np.integer))
            else "Unknown"
        )
        return f"[CUDA memcpy {text}]"

    name = distinct_map(raw["copy_kind"], label).where(
        raw["copy_kind"].notna(), "[CUDA memcpy Unknown]"
    )
    frame = _activity_frame(raw, "memcpy", name)
    frame["bytes"] = pd.to_numeric(raw["bytes"]).astype("float64")
    return frame


def _memsets(conn: sqlite3.Connection) -> pd.DataFrame:
    cols = _columns(conn, MEMSET)
    raw = _query(
        conn,
        f"SELECT t.start AS start, t.end AS end, {_pick(cols, 'correlationId')} AS corr, "
        f"{_pick(cols, 'deviceId')} AS device, {_pick(cols, 'contextId')} AS context, "
        f"{_pick(cols, 'streamId')} AS stream, {_pick(cols, 'bytes')} AS bytes FROM {MEMSET} t ORDER BY t.start",
    )
    frame = _activity_frame(
        raw, "memset", text_series(np.full(len(raw), "[CUDA memset]", dtype=object))
    )
    frame["bytes"] = pd.to_numeric(raw["bytes"]).astype("float64")
    return frame


def _api(conn: sqlite3.Connection, table: str, strings: bool) -> pd.DataFrame:
    cols = _columns(conn, table)
    if strings and "nameId" in cols:
        name, join = "s.value", " LEFT JOIN StringIds s ON s.id = t.nameId"
    else:
        name, join = _pick(cols, "name"), ""
    raw = _query(
        conn,
        f"SELECT t.start AS start, t.end AS end, {_pick(cols, 'correlationId')} AS corr, "
        f"{_pick(cols, 'globalTid')} AS gtid, {name} AS name FROM {table} t{join} ORDER BY t.start",
    )
    return frame_of(
        {
            "name": distinct_map(raw["name"], lambda v: _VERSION_TAG.sub("", str(v))),
            "start_ns": int_series(raw["start"]),
            "end_ns": int_series(raw["end"]),
            "corr_id": int_series(raw["corr"]),
            "thread": object_ints(_thread(raw["gtid"])),
        }
    )


def _thread(gtid: pd.Series) -> pd.Series:
    ints = int_series(gtid)
    out: pd.Series = ints % (_TID_MASK + 1)
    return out


def _ranges(conn: sqlite3.Connection, strings: bool) -> pd.DataFrame:
    cols = _columns(conn, NVTX)
    texts = [_pick(cols, "text")]
    join = ""
    if strings and "textId" in cols:
        join = " LEFT JOIN StringIds s ON s.id = t.textId"
        texts.append("s.value")
    text = f"COALESCE({', '.join(texts)})" if len(texts) > 1 else texts[0]
    raw = _query(
        conn,
        f"SELECT t.start AS start, t.end AS end, t.eventType AS type, {text} AS text, "
        f"{_pick(cols, 'domainId')} AS domain, {_pick(cols, 'globalTid')} AS gtid "
        f"FROM {NVTX} t{join} WHERE t.eventType IN ({NVTX_PUSHPOP}, {NVTX_STARTEND}) ORDER BY t.start",
    )
    domains: dict[int, str] = {}
    if "domainId" in cols:
        domains = {
            int(d): str(v)
            for d, v in conn.execute(
                f"SELECT domainId, text FROM {NVTX} WHERE eventType = {NVTX_DOMAIN_CREATE} AND text IS NOT NULL"
            )
            if d is not None
        }
    start = int_series(raw["start"])
    end = int_series(raw["end"])
    # Each (thread, domain, push/pop or start/end) is one stack; its code names it.
    keys = pd.DataFrame(
        {
            "g": int_series(raw["gtid"]).fillna(-1),
            "d": int_series(raw["domain"]).fillna(-1),
            "t": raw["type"],
        }
    )
    group = keys.groupby(["g", "d", "t"], sort=False).ngroup().to_numpy(np.int64)
    level = levels(group, start.fillna(0).to_numpy(np.int64), end.fillna(OPEN).to_numpy(np.int64))
    domain = distinct_map(raw["domain"], lambda d: domains.get(int(d)))
    return frame_of(
        {
            "name": text_series(raw["text"]),
            "domain": domain,
            "start_ns": start,
            "end_ns": end,
            "level": pd.Series(level, dtype="Int64"),
            "thread": object_ints(_thread(raw["gtid"])),
            "projected": pd.Series(np.zeros(len(raw), bool), dtype="boolean"),
        }
    )
