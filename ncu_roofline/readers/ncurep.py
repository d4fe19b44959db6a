"""Read binary ``.ncu-rep`` reports through NVIDIA's optional ``ncu_report`` module.

The module (PyPI ``ncu-report``) needs no GPU or CUDA install, but its licence
forbids redistribution, so it is an optional dependency imported lazily.
Reports hold full double-precision values in base units, which makes them
the most precise input.  The object API is walked once per launch (that is
the API's shape); metric names are filtered once per distinct name set.
The values then go through the checks the CSV readers apply, per metric
and unit as whole columns: a unit that is unknown or of the wrong
dimension, a negative or infinite value, each left out with one warning
per metric and problem; a quantity that lost a part so is missing, never a
partial sum (:func:`~ncu_roofline.readers.integrity.blank_inconsistent`).
"""

from __future__ import annotations

import os
import tempfile
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from ncu_roofline.core.dimensions import unit_fits
from ncu_roofline.core.files import NCU_REP_MAGIC
from ncu_roofline.core.launches import finalize_columns
from ncu_roofline.core.limits import memory_exhausted
from ncu_roofline.core.metrics import STRING_METRICS, canonical_metric, is_relevant, unit_for
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.rules import RuleTable, speedup_number
from ncu_roofline.core.units import parse_unit
from ncu_roofline.errors import InputFormatError, MissingDependencyError
from ncu_roofline.readers.identity import IdentityColumns, IdentityValue, MetricColumns
from ncu_roofline.readers.integrity import blank_inconsistent
from ncu_roofline.readers.locate import RawInput
from ncu_roofline.readers.values import ValueProblems, checked_values, launch_label

_INSTALL_HINT = "pip install 'ncu-roofline[ncu-rep]'"


def _import_ncu_report() -> Any:
    try:
        import ncu_report
    except ImportError as exc:
        if memory_exhausted(exc):
            # Installed, but no room to load it (ulimit -v): exit 8, not "install it".
            raise MemoryError(str(exc)) from exc
        raise MissingDependencyError(
            f"reading .ncu-rep files needs NVIDIA's ncu-report module: {_INSTALL_HINT} "
            "(or export CSV with `ncu --import FILE --csv --page raw --print-units base`)"
        ) from None
    return ncu_report


def _version_hint(raw: RawInput) -> str | None:
    """ncu records its install path in the report; take the version from it."""
    import re

    head = raw.buf[: 1 << 20]
    m = re.search(rb"nsight-compute[-/ ](20\d\d\.\d+(?:\.\d+)?)", head, re.IGNORECASE)
    if m is None:
        m = re.search(rb"Nsight Compute (20\d\d\.\d+(?:\.\d+)?)", head)
    return m.group(1).decode() if m else None


#: ``ncu_report`` does not document thread safety: one report at a time.
_NCU_REPORT_LOCK = threading.Lock()


def read_ncu_rep(raw: RawInput) -> tuple[Any, SourceInfo]:
    """Read every profiled result in a report into the launch model."""
    with _NCU_REPORT_LOCK:
        return _read_locked(raw)


def _read_locked(raw: RawInput) -> tuple[Any, SourceInfo]:
    ncu_report = _import_ncu_report()
    info = SourceInfo(path=raw.name, layout="ncu-rep", units="base")
    tmp: str | None = None
    path = raw.path
    if path is None:
        fd, tmp = tempfile.mkstemp(suffix=".ncu-rep")
        with os.fdopen(fd, "wb") as fh:
            fh.write(bytes(raw.buf))
        path = tmp
    try:
        try:
            ctx = ncu_report.load_report(path)
        except Exception as exc:  # the SWIG layer raises assorted types
            raise InputFormatError(
                f"{raw.name}: ncu_report could not load the report ({exc})"
            ) from None
        missing = _missing_bytes(raw.buf)
        if ctx is None or ctx.num_ranges() == 0:
            raise InputFormatError(
                f"{raw.name}: the report is cut off before its first result"
                if missing
                else f"{raw.name}: the report holds no results (corrupt or not a report?)"
            )
        if missing:
            info.warn(
                f"the report is cut off ({missing:,} byte(s) of its last record are missing): "
                "the launches it holds in full are read"
            )
        return _walk(ncu_report, ctx, raw, info)
    finally:
        if tmp is not None:
            os.unlink(tmp)


def _missing_bytes(buf: bytes | Any) -> int:
    """How many bytes a cut-off report lacks at its end; 0 when whole or not understood.

    A report is the magic, then length-prefixed protobuf messages: a
    little-endian uint32 length and that many bytes, each message starting
    with field 1 (byte 0x08), as in the sample reports of ncu 2022.2 and
    2022.3.  A whole report ends exactly after its last message.  Only the
    lengths are read; a layout that does not fit claims nothing.
    """
    size = len(buf)
    pos = len(NCU_REP_MAGIC)
    while pos + 4 <= size:
        length = int.from_bytes(buf[pos : pos + 4], "little")
        if length and pos + 4 < size and buf[pos + 4] != 0x08:
            return 0
        pos += 4 + length
    if pos == size:
        return 0
    # A length beyond the end, or a few bytes too short for a length: a cut.
    return pos - size if pos > size else 4 - (size - pos)


def _walk(ncu_report: Any, ctx: Any, raw: RawInput, info: SourceInfo) -> tuple[Any, SourceInfo]:
    demangled = getattr(ncu_report.IAction, "NameBase_DEMANGLED", 1)
    ident_rows: list[dict[str, IdentityValue]] = []
    metric_rows: list[dict[str, str | None]] = []
    #: Per metric: each value's launch, the double as stored, its unit as printed.
    stored: dict[str, tuple[list[int], list[float], list[str]]] = {}
    wanted_cache: dict[tuple[str, ...], list[tuple[str, str]]] = {}
    string_kind = getattr(ncu_report.IMetric, "ValueKind_STRING", 2)
    broken = 0
    for r in range(ctx.num_ranges()):
        rng = ctx.range_by_idx(r)
        for a in range(rng.num_actions()):
            act = rng.action_by_idx(a)
            names = tuple(act.metric_names())
            if not names and not act.name(demangled):
                # What a cut-off report leaves of its last launch: no name,
                # no metrics.  It is no launch to analyse.
                broken += 1
                continue
            wanted = wanted_cache.get(names)
            if wanted is None:
                wanted = [
                    (n, canonical_metric(n)) for n in names if is_relevant(canonical_metric(n))
                ]
                wanted_cache[names] = wanted
            values: dict[str, str | None] = {}

            def num(name: str, act: Any = act) -> float | None:
                m = act.metric_by_name(name)
                if m is None or not m.has_value() or m.kind() == string_kind:
                    return None
                return float(m.as_double())

            for name, mid in wanted:
                m = act.metric_by_name(name)
                if m is None or not m.has_value():
                    continue
                if mid in STRING_METRICS or m.kind() == string_kind:
                    values[mid] = m.as_string() if mid in STRING_METRICS else None
                    continue
                launches, doubles, units = stored.setdefault(mid, ([], [], []))
                launches.append(len(ident_rows))
                doubles.append(float(m.as_double()))
                units.append(m.unit() or "")
            metric_rows.append(values)
            _rules(ncu_report, act, len(ident_rows), info.rules)
            ident_rows.append(_identity(act, num, demangled, len(ident_rows)))
    n = len(metric_rows)
    if broken:
        info.warn(
            f"left out {broken} launch(es) with no kernel name and no metrics "
            "(the report is damaged or cut off)"
        )
    if n == 0:
        raise InputFormatError(
            f"{raw.name}: the report holds no profiled results"
            + (" (it is damaged or cut off)" if broken else "")
        )
    problems = ValueProblems()
    metrics = _checked_columns(stored, n, problems, info)
    blank_inconsistent(metrics, problems.rejected_by_metric(), list(range(n)), info)
    # The identity columns are the keys _identity fills; finalize_columns
    # holds them to the column registry.
    ident: IdentityColumns = {c: [row[c] for row in ident_rows] for c in ident_rows[0]}
    ident["source"] = [raw.name] * n
    info.ncu_version = _version_hint(raw)
    frame = finalize_columns(ident, metrics, n)
    problems.warn(info, launch_label(frame, summary=False))
    return frame, info


#: ncu_report's message types as the command line prints them (MsgType_OK is
#: ncu's INF); MsgType_NONE has no printed form (None).
_MSG_TYPES = {"MsgType_OK": "INF", "MsgType_OPTIMIZATION": "OPT", "MsgType_WARNING": "WRN"}
_SPEEDUP_TYPES = {"SpeedupType_GLOBAL": "global", "SpeedupType_LOCAL": "local"}


def _rules(ncu_report: Any, act: Any, launch_id: int, table: RuleTable) -> None:
    """The launch's rule results, into ``table`` (keyed by the launch's id; no process id)."""
    try:
        results = act.rule_results()
    except Exception:  # an older ncu_report without the rule API
        return
    types = {getattr(ncu_report, k, -1): v for k, v in _MSG_TYPES.items()}
    types[getattr(ncu_report, "MsgType_ERR", -1)] = "ERR"
    speedups = {getattr(ncu_report, k, -1): v for k, v in _SPEEDUP_TYPES.items()}
    for rule in results:
        message = rule.rule_message() if rule.has_rule_message() else None
        pct, kind = float("nan"), None
        if rule.has_speedup_estimation():
            estimate = rule.speedup_estimation()
            pct = speedup_number(str(estimate["speedup"]))
            kind = speedups.get(estimate["type"])
        table.add(
            -1,
            launch_id,
            str(rule.rule_identifier()),
            types.get(message["type"]) if message else None,
            str(rule.section_identifier()),
            str(message["message"]) if message else None,
            kind,
            pct,
        )


def _checked_columns(
    stored: dict[str, tuple[list[int], list[float], list[str]]],
    n: int,
    problems: ValueProblems,
    info: SourceInfo,
) -> MetricColumns:
    """One column per numeric metric over the ``n`` launches, in SI units and checked.

    Per metric and distinct unit (one, nearly always): a unit that is
    unknown is left out (one warning for all of them), one of the wrong
    dimension too (:class:`~ncu_roofline.readers.values.ValueProblems`);
    the values of a known unit are scaled and checked as the CSV readers
    check theirs (:func:`~ncu_roofline.readers.values.checked_values`).
    """
    metrics: MetricColumns = {}
    unknown: dict[str, set[str]] = {}
    for mid in sorted(stored):
        launch_list, double_list, unit_list = stored[mid]
        launches = np.asarray(launch_list, dtype=np.int64)
        doubles = np.asarray(double_list, dtype=np.float64)
        units = np.asarray(unit_list, dtype=object)
        column: np.ndarray | None = None
        for text in sorted(set(unit_list)):
            rows = units == text
            unit = parse_unit(unit_for(mid, text))
            if unit is None:
                unknown.setdefault(text, set()).add(mid)
                continue
            if not unit_fits(mid, unit.si):
                problems.add(mid, f"unit {text}", launches[rows], repr(float(doubles[rows][0])))
                continue
            if column is None:
                column = np.full(n, np.nan)
            at = launches[rows]
            column[at] = checked_values(doubles[rows], unit.factor, mid, at, problems)
            info.metric_units.setdefault(mid, unit.si)
        if column is not None:
            metrics[mid] = column
    if unknown:
        left_out = sorted(set().union(*unknown.values()))
        info.warn(
            f"unknown unit(s) {', '.join(repr(u) for u in sorted(unknown))}: left out "
            f"{', '.join(left_out[:6])} rather than misread"
        )
    return metrics


def _identity(
    act: Any, num: Callable[[str], float | None], demangled: int, launch_id: int
) -> dict[str, IdentityValue]:
    """One launch's identity columns, by registry name (the rest stay null)."""
    major = num("device__attribute_compute_capability_major")
    minor = num("device__attribute_compute_capability_minor")
    name_metric = act.metric_by_name("device__attribute_display_name")
    return {
        "id": launch_id,
        "kernel": act.name(demangled),
        "device": num("launch__device_id"),
        "cc": f"{int(major)}.{int(minor)}" if major is not None and minor is not None else None,
        "context": num("launch__context_id"),
        "stream": num("launch__stream_id"),
        "grid": _dims_text([num(f"launch__grid_dim_{d}") for d in "xyz"]),
        "block": _dims_text([num(f"launch__block_dim_{d}") for d in "xyz"]),
        "grid_blocks": num("launch__grid_size"),
        "block_threads": num("launch__block_size"),
        "nvtx": _nvtx(act),
        "device_name": name_metric.as_string() if name_metric else None,
    }


def _dims_text(dims: list[float | None]) -> str | None:
    if any(d is None for d in dims):
        return None
    return "(" + ", ".join(str(int(d)) for d in dims if d is not None) + ")"


def _nvtx(act: Any) -> str | None:
    try:
        state = act.nvtx_state()
    except Exception:
        return None
    if state is None:
        return None
    names: list[str] = []
    for dom_id in state.domains():
        dom = state.domain_by_id(dom_id)
        if dom is None:
            continue
        names.extend(str(r) for r in dom.push_pop_ranges())
        names.extend(str(r) for r in dom.start_end_ranges())
    return " > ".join(names) if names else None
