"""ncu's own rule results per launch and kernel group, and how they bound the ranking.

The readers keep each source's rule results as one table keyed by
``(process_id, id)`` (:mod:`ncu_roofline.core.rules`); here they are joined
to the launches once (keys sorted and searched, no loop over launches) and give:

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

from ncu_roofline.core.frame import Columns, column, floats, object_column, objects
from ncu_roofline.core.grouping import (
    distinct_codes,
    distinct_objects,
    distinct_rows,
    per_distinct,
)
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.rules import DISAGREE_FACTOR, RULE_FIELDS
from ncu_roofline.core.table import Table

FloatArray = npt.NDArray[np.float64]
ObjArray = npt.NDArray[np.object_]


def rule_frame(sources: Sequence[SourceInfo], launches: Columns) -> Table:
    """Every rule result of every source, with the launch row (``launch``) it belongs to.

    A table of ``launch`` (int64) and :data:`RULE_FIELDS` (texts as objects,
    None where missing; ``speedup_pct`` as float64), in the sources' order
    and each source's own.  ``launches`` is the launch table or frame in
    positional order (``source``, ``process_id``, ``id``).  Rules whose
    launch is not in it are left out; where launches share a key, the rules
    go to the first of them.
    """
    tables = [info for info in sources if len(info.rules)]
    n = len(launches)
    if not tables or not n:
        return _rule_table(np.zeros(0, dtype=np.int64), tables, np.zeros(0, dtype=np.intp))
    # A source is matched by its text: coded once, so no launch's text is hashed.
    sources_of = launches["source"] if "source" in launches else np.full(n, None, dtype=object)
    launch_source, names = distinct_codes(sources_of)
    code_of = {name: code for code, name in enumerate(names)}
    rule_source = np.concatenate(
        [np.full(len(info.rules), code_of.get(info.path, -1), dtype=np.int64) for info in tables]
    )
    keys = [info.rules.keys() for info in tables]
    rule_pid = np.concatenate([pid for pid, _ in keys])
    rule_lid = np.concatenate([lid for _, lid in keys])
    joint = _joint_codes(
        np.concatenate([launch_source, rule_source]),
        np.concatenate([_ints(launches, "process_id"), rule_pid]),
        np.concatenate([_ints(launches, "id"), rule_lid]),
    )
    # A launch without a source is no rule's (nor is a rule of a source no launch has).
    held = np.flatnonzero(launch_source >= 0)
    launch_keys, first = np.unique(joint[:n][held], return_index=True)
    rule_keys = joint[n:]
    if not len(launch_keys):
        return _rule_table(np.zeros(0, dtype=np.int64), tables, np.zeros(0, dtype=np.intp))
    at = np.minimum(np.searchsorted(launch_keys, rule_keys), len(launch_keys) - 1)
    kept = np.flatnonzero((launch_keys[at] == rule_keys) & (rule_source >= 0))
    return _rule_table(held[first][at[kept]].astype(np.int64), tables, kept)


def _rule_table(
    launch: npt.NDArray[np.int64], tables: Sequence[SourceInfo], kept: npt.NDArray[np.intp]
) -> Table:
    """The rule rows ``kept`` of the sources' tables (concatenated), with their launches."""
    columns: dict[str, npt.NDArray[Any]] = {"launch": launch}
    for name in RULE_FIELDS:
        dtype = np.float64 if name == "speedup_pct" else object
        # Texts stay the reader's objects (a few, shared by many rows): no
        # rule's text is copied.
        parts = [np.asarray(getattr(info.rules, name), dtype=dtype) for info in tables]
        values = np.concatenate(parts) if parts else np.zeros(0, dtype=dtype)
        columns[name] = values[kept]
    return Table(columns, len(launch))


def _joint_codes(*columns: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """One integer per distinct combination of the columns' values (equal rows, equal
    integers), the columns' values side by side in mixed radix."""
    joint = np.zeros(len(columns[0]), dtype=np.int64)
    span = 1
    for values in columns:
        low = int(values.min())
        width = int(values.max()) - low + 1
        if span * width >= _KEY_LIMIT:
            # Too wide to place side by side: both numbered densely first.
            joint, span = _dense(joint)
            values, width = _dense(values)
            low = 0
        joint = joint * width + (values - low)
        span *= width
    return joint


def _dense(values: npt.NDArray[np.int64]) -> tuple[npt.NDArray[np.int64], int]:
    """Each value's rank among the distinct values, and how many there are."""
    distinct, ranks = np.unique(values, return_inverse=True)
    return ranks.reshape(-1).astype(np.int64), len(distinct)


#: Joint keys stay below this (a product of the columns' widths), else are renumbered.
_KEY_LIMIT = 1 << 62


def _ints(frame: Columns, name: str) -> npt.NDArray[np.int64]:
    """An integer identity column as int64, -1 where missing."""
    values = column(frame, name)  # all NaN where the frame lacks it
    out: npt.NDArray[np.int64] = np.where(np.isnan(values), -1, values).astype(np.int64)
    return out


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


def launch_rule_columns(rules: Columns, n: int, total_s: FloatArray) -> RuleColumns:
    """Per launch: its rules, ncu's largest estimated speedup and the time it stands for.

    ``rules`` holds the rule rows as :func:`rule_frame` gives them (a table
    or a frame).  Launches with the same rule results share one list of
    records (and, with the same messages too, one list of messages): found
    from codes per rule row, so the Python work is per distinct launch, not
    per launch.
    """
    listed = np.full(n, None, dtype=object)
    messages = np.full(n, None, dtype=object)
    pct = np.full(n, np.nan)
    basis = np.full(n, None, dtype=object)
    tail = np.full(n, np.nan)
    if len(rules):
        # Every field read once; the codes below read None and NaN alike as
        # missing, so a table's texts are taken as they are held.
        fields: dict[str, npt.NDArray[Any]] = {
            name: floats(rules[name]) if name == "speedup_pct" else _texts(rules[name])
            for name in RULE_FIELDS
        }
        rule_launch = floats(rules["launch"]).astype(np.int64)
        order = np.argsort(rule_launch, kind="stable")
        launch = rule_launch[order]
        starts = np.flatnonzero(np.r_[True, launch[1:] != launch[:-1]])
        # Coded in launch order: of equal rows (0.0 and -0.0 are equal), the
        # first launch's values are the record all of them share.
        record_code, rows = distinct_rows([fields[name][order] for name in LAUNCH_RULE_FIELDS])
        records = [dict(zip(LAUNCH_RULE_FIELDS, row, strict=True)) for row in rows]
        message_code, texts = distinct_codes(fields["message"][order])
        # Code -1 (missing) reads the None at the end.
        texts.append(None)
        heads = launch[starts]
        kinds, firsts = _distinct_runs(record_code, starts)
        listed[heads] = _run_lists(firsts, starts, record_code, records)[kinds]
        both = record_code * (len(texts) + 1) + message_code + 1
        kinds, firsts = _distinct_runs(both, starts)
        messages[heads] = _run_lists(firsts, starts, message_code, texts)[kinds]
        speedup = fields["speedup_pct"]
        rows_best = _best_estimates(speedup, fields["speedup_type"], order, launch)
        if rows_best.size:
            best = order[rows_best]
            at = launch[rows_best]
            pct[at] = speedup[best]
            basis[at] = _estimate_bases(fields, best)
        tail = _tail_pct(fields["message"], rule_launch, n)
    return {
        "ncu_rules": listed,
        # The messages of a launch's rules, in its records' order, for its
        # group's records (a frame column the reports do not write).
        "ncu_rule_messages": messages,
        "ncu_speedup_pct": pct,
        "ncu_recoverable_s": total_s * pct / 100.0,
        "ncu_recoverable_basis": basis,
        "ncu_tail_pct": tail,
    }


def _texts(values: Any) -> ObjArray:
    """A column of texts as an array of objects: a table's as it is, a frame's with None
    where missing."""
    if isinstance(values, np.ndarray) and values.dtype == object:
        return values
    return objects(values)


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
    speedup_pct: FloatArray,
    speedup_type: ObjArray,
    order: npt.NDArray[np.intp],
    launch: npt.NDArray[np.int64],
) -> npt.NDArray[np.intp]:
    """The row (in ``order``) of each launch's largest estimate, for launches with one.

    Of equal estimates a global one (of the kernel's time) comes before a
    local one, and then the first row.
    """
    speedup = speedup_pct[order]
    rows = np.flatnonzero(~np.isnan(speedup))
    if not rows.size:
        return rows
    type_code, types = distinct_codes(speedup_type)
    global_code = np.array([t == "global" for t in types] + [False], dtype=bool)
    is_global = global_code[type_code[order][rows]]
    ranked = rows[np.lexsort((rows, ~is_global, -speedup[rows], launch[rows]))]
    at = launch[ranked]
    out: npt.NDArray[np.intp] = ranked[np.r_[True, at[1:] != at[:-1]]]
    return out


def _estimate_bases(fields: dict[str, npt.NDArray[Any]], best: npt.NDArray[np.intp]) -> ObjArray:
    """The basis of each best estimate: its rule (or section), type and size, once per distinct."""
    speedup = fields["speedup_pct"][best]
    columns = [fields[name][best] for name in ("name", "section", "speedup_type")]
    # By bits, not by value: 0.0 and -0.0 read differently.
    columns.append(speedup.view(np.int64))
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


def _tail_pct(messages: ObjArray, launch: npt.NDArray[np.int64], n: int) -> FloatArray:
    """Per launch: the share of the runtime (percent) ncu's rule says its partial wave may take.

    ``messages`` and ``launch`` are each rule row's message and launch.
    NaN where no rule of the launch speaks of a partial wave.
    """
    out = np.full(n, np.nan)
    if not len(messages):
        return out
    # Read once per distinct message: a long run repeats a few texts on
    # every launch, and a copy of each row's text would cost its size again.
    pct = per_distinct(messages, _said_tail_pct, np.nan, np.float64)
    has = ~np.isnan(pct)
    if has.any():
        np.fmax.at(out, launch[has], pct[has])
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


def combine(frame: Columns, sources: Sequence[SourceInfo]) -> RuleColumns:
    """The launch columns of ncu's rules and the recoverable time bounded by both estimates.

    A separate step after :func:`~ncu_roofline.analysis.limiter.judge`,
    whose ``recoverable_s`` becomes ``roof_recoverable_s``; the returned
    ``recoverable_s`` is the smaller of it and ncu's estimate.
    """
    rules = rule_frame(sources, frame)
    cols = launch_rule_columns(rules, len(frame), column(frame, "total_duration_s"))
    ours = column(frame, "recoverable_s")
    bounded, by = rank_bound(ours, cols["ncu_recoverable_s"])
    cols["roof_recoverable_s"] = ours
    cols["recoverable_s"] = bounded
    cols["recoverable_bound_by"] = by
    if "recoverable_basis" in frame:
        # A copy: a table's columns are read-only, and the frame's stay as they are.
        basis = object_column(frame, "recoverable_basis").copy()
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
    # Launches with a non-empty list, judged once per list object (launches
    # with the same results share one).
    objects_of, first_rows = distinct_objects(listed)
    filled = np.array([not _is_na(v) and bool(v) for v in listed[first_rows].tolist()], dtype=bool)
    has = np.flatnonzero(filled[objects_of])
    if has.size == 0:
        return out
    lists, _ = distinct_objects(listed[has])
    texts, _ = distinct_objects(messages[has])
    pair, _ = _first_seen(lists.astype(np.int64) * (int(texts.max()) + 1) + texts)
    kind, firsts = _first_seen(gid[has].astype(np.int64) * (int(pair.max()) + 1) + pair)
    times = np.bincount(kind)
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


def _first_seen(
    keys: npt.NDArray[np.int64],
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
    """Each key's code, numbered in order of first appearance, and each code's first row."""
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    by_appearance = np.argsort(first, kind="stable")
    rank = np.empty(len(first), dtype=np.intp)
    rank[by_appearance] = np.arange(len(first))
    return rank[inverse.reshape(-1)], first[by_appearance]


def _blank(value: object) -> object:
    """A grouping key's value: a missing one counts as a blank text."""
    return "" if _is_na(value) else value


def _is_na(value: object) -> bool:
    """Whether one value is missing: None, NaN or pandas' NA (or NaT).

    Told without pandas: NaN and NaT are the values unequal to themselves,
    and pandas' NA compares as NA, which has no truth value.
    """
    if value is None:
        return True
    try:
        return bool(value != value)
    except TypeError:
        return True


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
