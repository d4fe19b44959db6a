"""ncu's own rule results per launch and kernel group, and how they bound the ranking.

The readers keep each source's rule results as one table keyed by
``(process_id, id)`` (:mod:`ncu_roofline.core.rules`); here they are joined
to the launches once (a pandas merge, no loop over launches) and give:

``ncu_rules``
    The launch's rule results, ``{name, type, section, speedup_type,
    speedup_pct}`` each; a kernel group's: one entry per distinct rule, with
    its largest estimate and the ``message`` of the launch that gave it (a
    launch's messages stay in the frame as ``ncu_rule_messages``).
``ncu_recoverable_s``
    The launch's time x ncu's largest estimated speedup / 100 (a group: the
    sum over the launches ncu estimated).  A ``local`` estimate is of the
    rule's own unit, so as a share of the kernel's time it is an upper
    bound; ``ncu_recoverable_basis`` names the rule and its type.
``recoverable_s``
    The recoverable time every output shows and ranks by: the smaller of
    ncu's estimate and ours (``roof_recoverable_s``, bounded by the roof and
    the units, :mod:`~ncu_roofline.analysis.limiter`) where both exist,
    ncu's where ours is unknown, ours where ncu estimated nothing;
    ``recoverable_bound_by`` says which won, and ``recoverable_basis``
    names ncu's rule where it did.
``ncu_disagrees``
    A group whose two estimates differ by more than :data:`DISAGREE_FACTOR`.
``ncu_tail_pct``
    The share of the runtime ncu's launch rule says a partial last wave may
    take ("up to 50.0%"), for the tail-effect finding to compare with.

A launch is named by its process id (absent in ``.ncu-rep`` files: -1)
and ncu's result ID within its source; where two launches of one source
share both (several runs of one process concatenated), the rules go to the
first of them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, TypedDict

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.core.frame import column as _f
from ncu_roofline.core.grouping import (
    distinct_codes,
    distinct_objects,
    distinct_rows,
    per_distinct,
)
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.rules import DISAGREE_FACTOR, RULE_FIELDS

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]


def rule_frame(sources: Sequence[SourceInfo], launches: pd.DataFrame) -> pd.DataFrame:
    """Every rule result of every source, with the launch row (``launch``) it belongs to.

    ``launches`` is the launch frame in positional order (``source``,
    ``process_id``, ``id``).  Rules whose launch is not in the frame are
    left out.
    """
    parts: list[pd.DataFrame] = []
    for info in sources:
        rules = info.rules
        if not len(rules):
            continue
        pid, lid = rules.keys()
        columns: dict[str, Any] = {"source": info.path, "pid": pid, "lid": lid}
        for name in RULE_FIELDS:
            values = getattr(rules, name)
            # Texts stay the reader's objects (a few, shared by many rows): pandas'
            # string type would copy every row's text, 200 MB at 135,000 rules.
            columns[name] = (
                np.asarray(values, dtype=np.float64)
                if name == "speedup_pct"
                else pd.Series(np.asarray(values, dtype=object), dtype=object, copy=False)
            )
        parts.append(pd.DataFrame(columns))
    if not parts or not len(launches):
        empty: pd.DataFrame = pd.DataFrame(columns=["launch", *RULE_FIELDS])
        return empty
    rules_all = pd.concat(parts, ignore_index=True)
    keys = pd.DataFrame(
        {
            "source": launches["source"].astype(object).to_numpy(),
            "pid": _ints(launches, "process_id"),
            "lid": _ints(launches, "id"),
            "launch": np.arange(len(launches)),
        }
    ).drop_duplicates(["source", "pid", "lid"], keep="first")
    joined = rules_all.merge(keys, on=["source", "pid", "lid"], how="inner", sort=False)
    out: pd.DataFrame = joined[["launch", *RULE_FIELDS]].reset_index(drop=True)
    return out


def _ints(frame: pd.DataFrame, name: str) -> npt.NDArray[np.int64]:
    """An integer identity column as int64, -1 where missing."""
    if name not in frame:
        return np.full(len(frame), -1, dtype=np.int64)
    values = pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64, na_value=-1)
    return np.where(np.isnan(values), -1, values).astype(np.int64)


#: A launch's rule records leave the message out: at 100,000 launches with a
#: handful of rules each, the texts would be most of the JSON report, and a
#: kernel group's records carry each rule's message once.
LAUNCH_RULE_FIELDS = tuple(f for f in RULE_FIELDS if f != "message")


class _RuleFields(TypedDict):
    ncu_rules: ObjArray
    ncu_rule_messages: ObjArray
    ncu_speedup_pct: FloatArray
    ncu_recoverable_s: FloatArray
    ncu_recoverable_basis: ObjArray
    ncu_tail_pct: FloatArray


class RuleColumns(_RuleFields, total=False):
    """Launch columns of ncu's rules (:func:`launch_rule_columns`); :func:`combine` adds
    the recoverable time bounded by both estimates."""

    roof_recoverable_s: FloatArray
    recoverable_s: FloatArray
    recoverable_bound_by: ObjArray
    recoverable_basis: ObjArray


def launch_rule_columns(rules: pd.DataFrame, n: int, total_s: FloatArray) -> RuleColumns:
    """Per launch: its rules, ncu's largest estimated speedup and the time it stands for.

    Launches with the same rule results share one list of records (and, with
    the same messages too, one list of messages): found from codes per rule
    row, so the Python work is per distinct launch, not per launch.
    """
    listed = np.full(n, None, dtype=object)
    messages = np.full(n, None, dtype=object)
    pct = np.full(n, np.nan)
    basis = np.full(n, None, dtype=object)
    if len(rules):
        order = np.argsort(rules["launch"].to_numpy(dtype=np.int64), kind="stable")
        launch = rules["launch"].to_numpy(dtype=np.int64)[order]
        starts = np.flatnonzero(np.r_[True, launch[1:] != launch[:-1]])
        # Coded in launch order: of equal rows (0.0 and -0.0 are equal), the
        # first launch's values are the record all of them share.
        record_code, rows = distinct_rows([rules[name].iloc[order] for name in LAUNCH_RULE_FIELDS])
        records = [dict(zip(LAUNCH_RULE_FIELDS, row, strict=True)) for row in rows]
        message_code, texts = distinct_codes(rules["message"].iloc[order])
        # Code -1 (missing) reads the None at the end.
        texts.append(None)
        heads = launch[starts]
        kinds, firsts = _distinct_runs(record_code, starts)
        listed[heads] = _run_lists(firsts, starts, record_code, records)[kinds]
        both = record_code * (len(texts) + 1) + message_code + 1
        kinds, firsts = _distinct_runs(both, starts)
        messages[heads] = _run_lists(firsts, starts, message_code, texts)[kinds]
        rows_best = _best_estimates(rules, order, launch)
        if rows_best.size:
            best = order[rows_best]
            at = launch[rows_best]
            pct[at] = rules["speedup_pct"].to_numpy(dtype=np.float64)[best]
            basis[at] = _estimate_bases(rules, best)
    return {
        "ncu_rules": listed,
        # The messages of a launch's rules, in its records' order, for its
        # group's records (a frame column the reports do not write).
        "ncu_rule_messages": messages,
        "ncu_speedup_pct": pct,
        "ncu_recoverable_s": total_s * pct / 100.0,
        "ncu_recoverable_basis": basis,
        "ncu_tail_pct": _tail_pct(rules, n),
    }


def _distinct_runs(
    codes: npt.NDArray[np.int64], starts: npt.NDArray[np.intp]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Each run's kind (runs of equal codes, in order, are one kind) and the first run of each.

    ``starts`` are the runs' first rows in ``codes`` (a run ends where the
    next starts).  Runs of one length are compared as the rows of one
    matrix, so the memory is that of ``codes`` and the work is in numpy.
    """
    lengths = np.diff(np.r_[starts, len(codes)])
    kinds = np.empty(len(starts), dtype=np.intp)
    firsts: list[npt.NDArray[np.intp]] = []
    for length in np.unique(lengths).tolist():
        runs = np.flatnonzero(lengths == length)
        table = codes[starts[runs][:, None] + np.arange(length)]
        _, first, inverse = np.unique(table, axis=0, return_index=True, return_inverse=True)
        kinds[runs] = inverse.reshape(-1) + sum(len(f) for f in firsts)
        firsts.append(runs[first])
    return kinds, np.concatenate(firsts)


def _run_lists(
    firsts: npt.NDArray[np.intp],
    starts: npt.NDArray[np.intp],
    codes: npt.NDArray[np.int64],
    values: Sequence[Any],
) -> ObjArray:
    """One list per kind of run: the values its codes read, from the kind's first run."""
    ends = np.r_[starts[1:], len(codes)]
    out = np.empty(len(firsts), dtype=object)
    # One at a time: numpy would spread lists of equal length into a matrix.
    for k, run in enumerate(firsts.tolist()):
        out[k] = [values[c] for c in codes[starts[run] : ends[run]].tolist()]
    return out


def _best_estimates(
    rules: pd.DataFrame, order: npt.NDArray[np.intp], launch: npt.NDArray[np.int64]
) -> npt.NDArray[np.intp]:
    """The row (in ``order``) of each launch's largest estimate, for launches with one.

    Of equal estimates a global one (of the kernel's time) comes before a
    local one, and then the first row.
    """
    speedup = rules["speedup_pct"].to_numpy(dtype=np.float64)[order]
    rows = np.flatnonzero(~np.isnan(speedup))
    if not rows.size:
        return rows
    type_code, types = distinct_codes(rules["speedup_type"])
    global_code = np.array([t == "global" for t in types] + [False], dtype=bool)
    is_global = global_code[type_code[order][rows]]
    ranked = rows[np.lexsort((rows, ~is_global, -speedup[rows], launch[rows]))]
    at = launch[ranked]
    out: npt.NDArray[np.intp] = ranked[np.r_[True, at[1:] != at[:-1]]]
    return out


def _estimate_bases(rules: pd.DataFrame, best: npt.NDArray[np.intp]) -> ObjArray:
    """The basis of each best estimate: its rule (or section), type and size, once per distinct."""
    speedup = rules["speedup_pct"].to_numpy(dtype=np.float64)[best]
    columns = [rules[name].iloc[best] for name in ("name", "section", "speedup_type")]
    # By bits, not by value: 0.0 and -0.0 read differently.
    columns.append(pd.Series(speedup.view(np.int64)))
    kinds, rows = distinct_rows(columns)
    texts = []
    for name, section, kind, bits in rows:
        # Text output names no rule: its section stands in.
        label = name if name is not None else section if section is not None else "ncu rule"
        kind_text = "unknown type" if kind is None else str(kind)
        value = float(np.int64(bits).view(np.float64))
        texts.append(f"{label!s} ({kind_text} {value:g}%)")
    out: ObjArray = np.asarray(texts, dtype=object)[kinds]
    return out


#: ncu's wording of a partial last wave's share of the runtime (its
#: LaunchConfiguration / TailEffect rules): "the partial wave may account for
#: up to 50.0% of the total kernel runtime".
_NCU_TAIL = r"partial wave may account for up to ([0-9.]+)%"
_TAIL_PATTERN = re.compile(_NCU_TAIL)


def _tail_pct(rules: pd.DataFrame, n: int) -> FloatArray:
    """Per launch: the share of the runtime (percent) ncu's rule says its partial wave may take.

    NaN where no rule of the launch speaks of a partial wave.
    """
    out = np.full(n, np.nan)
    if not len(rules):
        return out
    # Read once per distinct message: a long run repeats a few texts on
    # every launch, and a copy of each row's text would cost its size again.
    pct = per_distinct(rules["message"], _said_tail_pct, np.nan, np.float64)
    has = ~np.isnan(pct)
    if has.any():
        launch = rules["launch"].to_numpy(dtype=np.int64)[has]
        np.fmax.at(out, launch, pct[has])
    return out


def _said_tail_pct(message: object) -> float:
    """The partial wave's share of the runtime one rule message gives (NaN where none)."""
    text = str(message)
    # A plain substring test first: the regular expression runs only on
    # messages that speak of a partial wave.
    found = _TAIL_PATTERN.search(text) if "partial wave" in text else None
    try:
        return float(found.group(1)) if found else np.nan
    except ValueError:  # "1.2.3%": not a number
        return np.nan


def rank_bound(ours: FloatArray, ncu: FloatArray) -> tuple[FloatArray, ObjArray]:
    """The recoverable time that ranks, and which estimate gave it.

    The smaller of the two where both are known (each is an upper bound
    on what can be recovered), the one known otherwise, NaN where neither.
    """
    both = ~np.isnan(ours) & ~np.isnan(ncu)
    out = np.where(np.isnan(ours), ncu, ours)
    out = np.where(both, np.fmin(ours, ncu), out)
    by = np.full(ours.shape, None, dtype=object)
    by[~np.isnan(ours)] = "ours"
    by[np.isnan(ours) & ~np.isnan(ncu)] = "ncu"
    with np.errstate(invalid="ignore"):
        by[both & (ncu < ours)] = "ncu"
    return out, by


def combine(frame: pd.DataFrame, sources: Sequence[SourceInfo]) -> RuleColumns:
    """The launch columns of ncu's rules and the recoverable time bounded by both estimates.

    A separate step after :func:`~ncu_roofline.analysis.limiter.judge`,
    whose ``recoverable_s`` becomes ``roof_recoverable_s``; the returned
    ``recoverable_s`` is the smaller of it and ncu's estimate.
    """
    rules = rule_frame(sources, frame)
    cols = launch_rule_columns(rules, len(frame), _f(frame, "total_duration_s"))
    ours = _f(frame, "recoverable_s")
    bounded, by = rank_bound(ours, cols["ncu_recoverable_s"])
    cols["roof_recoverable_s"] = ours
    cols["recoverable_s"] = bounded
    cols["recoverable_bound_by"] = by
    if "recoverable_basis" in frame:
        basis = frame["recoverable_basis"].to_numpy(dtype=object).copy()
        won = by == "ncu"
        basis[won] = "ncu's estimated speedup: " + cols["ncu_recoverable_basis"][won].astype(str)
        cols["recoverable_basis"] = basis
    return cols


def group_rules(
    listed: ObjArray, messages: ObjArray, gid: npt.NDArray[np.intp], n_groups: int
) -> ObjArray:
    """Per group: one entry per distinct rule (name, type, section) over its launches.

    ``listed`` holds each launch's rule records, ``messages`` their texts in
    the same order.  Each entry keeps the largest estimate any launch got and
    that launch's message (of equal estimates, the first launch's), and says
    in how many of the group's launches the rule fired; a group's entries
    are in the order of the rows that gave them.

    Launches of one group holding the same lists (shared, as
    :func:`launch_rule_columns` makes them) are read once, the first of
    them standing for all: a later one's rows are equal and come after, so
    they win no comparison and only count.
    """
    out = np.full(n_groups, None, dtype=object)
    # Launches with a non-empty list (a missing entry may be NaN, which is truthy).
    listed_any = np.fromiter(map(bool, listed), dtype=bool, count=len(listed))
    has = np.flatnonzero(np.asarray(pd.notna(listed), dtype=bool) & listed_any)
    if has.size == 0:
        return out
    lists, _ = distinct_objects(listed[has])
    texts, _ = distinct_objects(messages[has])
    pair, _ = pd.factorize(lists.astype(np.int64) * (int(texts.max()) + 1) + texts, sort=False)
    kind, _ = pd.factorize(gid[has].astype(np.int64) * (int(pair.max()) + 1) + pair, sort=False)
    times = np.bincount(kind)
    # pd.factorize numbers kinds in order of first appearance: ascending firsts.
    firsts = np.full(len(times), has.size, dtype=np.int64)
    np.minimum.at(firsts, kind, np.arange(has.size, dtype=np.int64))
    entries: dict[tuple[int, object, object, object], list[Any]] = {}
    # Each row's place among the rows read: that of its launch's rows in
    # launch order, as the kept launches come in that order.
    place = 0
    for first, count in zip(has[firsts].tolist(), times.tolist(), strict=True):
        g = int(gid[first])
        for record, message in zip(listed[first], messages[first], strict=True):
            place += 1
            key = (g, _blank(record["name"]), _blank(record["type"]), _blank(record["section"]))
            speedup = record["speedup_pct"]
            value = np.nan if _is_na(speedup) else float(speedup)
            entry = entries.get(key)
            if entry is None:
                entries[key] = [value, place, record, message, count]
                continue
            entry[4] += count
            if not np.isnan(value) and (np.isnan(entry[0]) or value > entry[0]):
                entry[:4] = [value, place, record, message]
    # A group's entries in the order of the rows that gave them.
    for key, (value, _, record, message, count) in sorted(
        entries.items(), key=lambda item: int(item[1][1])
    ):
        kept = out[key[0]]
        if kept is None:
            kept = out[key[0]] = []
        kept.append(
            {
                **{k: _text_or_none(record[k]) for k in ("name", "type", "section")},
                "message": None if _is_na(message) else message,
                "speedup_type": None if _is_na(record["speedup_type"]) else record["speedup_type"],
                "speedup_pct": None if np.isnan(value) else value,
                "launches": count,
            }
        )
    return out


def _blank(value: object) -> object:
    """A grouping key's value: a missing one counts as a blank text."""
    return "" if _is_na(value) else value


def _is_na(value: object) -> bool:
    """Whether one value is missing: None, NaN or pandas' NA."""
    if value is None or value is pd.NA or value is pd.NaT:
        return True
    return isinstance(value, (float, np.floating)) and bool(np.isnan(value))


def _text_or_none(value: object) -> str | None:
    """A rule's name, type or section: None where blank or no text."""
    return value if isinstance(value, str) and value else None


def disagrees(ours: FloatArray, ncu: FloatArray) -> npt.NDArray[np.bool_]:
    """Where ncu's estimate and ours are both known and differ by more than the factor."""
    with np.errstate(invalid="ignore", divide="ignore"):
        hi, lo = np.fmax(ours, ncu), np.fmin(ours, ncu)
        far = (hi > DISAGREE_FACTOR * lo) & (hi > 0)
    return np.asarray(far & ~np.isnan(ours) & ~np.isnan(ncu), dtype=bool)


__all__ = [
    "DISAGREE_FACTOR",
    "LAUNCH_RULE_FIELDS",
    "combine",
    "disagrees",
    "group_rules",
    "launch_rule_columns",
    "rank_bound",
    "rule_frame",
]
