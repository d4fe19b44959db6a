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
from itertools import chain
from typing import Any, TypedDict, cast

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.core.frame import column as _f
from ncu_roofline.core.grouping import distinct_rows, per_distinct
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


def _records(rules: pd.DataFrame, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """Rule rows as plain JSON records (NaN speedup as None), equal rows sharing one record.

    A long run repeats the same few rule results on every launch of a
    kernel: a dict per row would hold hundreds of megabytes at 100,000
    launches, and so would the per-row Python values of the columns they
    are made from.  So the distinct rows are found from codes
    (:func:`~ncu_roofline.core.grouping.distinct_rows`), one record is made
    per distinct row (read, never changed), and each row refers to its own.
    """
    if not len(rules):
        return []
    groups, rows = distinct_rows([rules[name] for name in fields])
    shared = np.empty(len(rows), dtype=object)
    shared[:] = [dict(zip(fields, row, strict=True)) for row in rows]
    return cast("list[dict[str, Any]]", shared[groups].tolist())


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
    """Per launch: its rules, ncu's largest estimated speedup and the time it stands for."""
    listed = np.full(n, None, dtype=object)
    messages = np.full(n, None, dtype=object)
    pct = np.full(n, np.nan)
    basis = np.full(n, None, dtype=object)
    if len(rules):
        order = rules.sort_values("launch", kind="stable")
        launch = order["launch"].to_numpy(dtype=np.int64)
        starts = np.flatnonzero(np.r_[True, launch[1:] != launch[:-1]])
        records = _records(order, LAUNCH_RULE_FIELDS)
        texts = order["message"].astype(object).where(order["message"].notna(), None).tolist()
        bounds = [*starts.tolist(), len(records)]
        # Launches with the same rule results share one list, as equal rows
        # share one record: one list per distinct set, not per launch.
        shared: dict[tuple[int, ...], list[dict[str, Any]]] = {}
        # One slice of records per launch that has rules: the loop is over
        # launches with rules, each a handful of rule results.
        for k, start in enumerate(starts.tolist()):
            part = records[start : bounds[k + 1]]
            listed[launch[start]] = shared.setdefault(tuple(map(id, part)), part)
            messages[launch[start]] = texts[start : bounds[k + 1]]
        est = order.dropna(subset=["speedup_pct"])
        if len(est):
            # The largest estimate; a global one (of the kernel's time) before
            # a local one of the same size.
            est = est.assign(is_global=est["speedup_type"] == "global")
            best = est.sort_values(
                ["speedup_pct", "is_global"], ascending=[False, False], kind="stable"
            ).drop_duplicates("launch")
            rows = best["launch"].to_numpy(dtype=np.int64)
            pct[rows] = best["speedup_pct"].to_numpy(dtype=np.float64)
            kinds = best["speedup_type"].fillna("unknown type").astype(str)
            basis[rows] = (
                # Text output names no rule: its section stands in.
                best["name"].fillna(best["section"]).fillna("ncu rule").astype(str)
                + " ("
                + kinds
                + " "
                + best["speedup_pct"].map("{:g}%".format)
                + ")"
            ).to_numpy(dtype=object)
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
    that launch's message, and says in how many of the group's launches the
    rule fired.
    """
    out = np.full(n_groups, None, dtype=object)
    # Launches with a non-empty list (a missing entry may be NaN, which is truthy).
    listed_any = np.fromiter(map(bool, listed), dtype=bool, count=len(listed))
    has = np.flatnonzero(np.asarray(pd.notna(listed), dtype=bool) & listed_any)
    if has.size == 0:
        return out
    per = listed[has]
    flat = pd.DataFrame.from_records(
        list(chain.from_iterable(per)), columns=list(LAUNCH_RULE_FIELDS)
    )
    # The texts stay a Python list (one object per distinct message), picked
    # by ``order`` for the entries kept: as a frame column every launch's
    # copy would be converted.
    texts = list(chain.from_iterable(messages[has]))
    flat["gid"] = np.repeat(gid[has], [len(x) for x in per])
    flat["order"] = np.arange(len(flat))
    keys = ["gid", "name", "type", "section"]
    filled = flat.assign(**{k: flat[k].fillna("") for k in ("name", "type", "section")})
    counts = filled.groupby(keys, sort=False)["order"].transform("size")
    filled["launches"] = counts
    best = filled.sort_values(
        ["speedup_pct", "order"], ascending=[False, True], na_position="last", kind="stable"
    ).drop_duplicates(keys)
    best = best.sort_values("order", kind="stable")
    best = best.assign(message=[texts[i] for i in best["order"].tolist()])
    for g, part in best.groupby("gid", sort=False):
        recs = part[[*RULE_FIELDS, "launches"]].astype(object)
        recs = recs.where(recs.notna(), None)
        for k in ("name", "type", "section"):
            # Blank or missing is None, never NaN: an object column built as
            # such (pandas would infer its string type, whose missing value is NaN).
            blanked = [v if isinstance(v, str) and v else None for v in recs[k].tolist()]
            recs[k] = pd.Series(blanked, index=recs.index, dtype=object)
        out[int(g)] = list(recs.to_dict(orient="records"))
    return out


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
