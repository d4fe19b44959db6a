"""Inputs that are passes of one run: found, and joined per launch with ``--merge``.

Metrics and timing are often collected in separate ``ncu`` runs of one
program (ncu replays each launch per pass anyway; users split the metric
list to keep runs short): one export holds durations, another byte
counters, a third instruction counts.  Read apart, none of them places a
kernel on the roofline.

Two inputs look like passes of one run when they hold the same launches --
the same keys, each once -- with different metric sets.  A launch's key is
its ncu ID and kernel name; a per-kernel summary (``--print-summary
per-kernel``, no IDs) is keyed by kernel name, launch shape, device and
compute capability, its invocation counts compared.  Process IDs are not
part of the key: every pass is a new process.

:func:`merge_passes` joins such a group on the first input's rows: a metric
the first lacks comes from the next input that has it; where two passes
both measured a metric, the first's values stay and a large difference is
warned about.  The duration is recomputed from the joined metrics.

Design: finding passes reads the launch columns
(:class:`~ncu_roofline.core.launches.LaunchColumns`) and needs no pandas, so
the readers import this module at the top and ``inspect`` of several inputs
builds no frame; joining (``--merge``) works on the inputs' frames, each
built once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from ncu_roofline.core.files import MERGED_SEPARATOR
from ncu_roofline.core.launches import LaunchColumns
from ncu_roofline.core.model import IDENTITY_COLUMNS, SourceInfo, fill_duration

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["merge_passes", "pass_groups", "pass_hint", "pass_keys"]

#: Key columns of a launch, and of a per-kernel summary row.
_LAUNCH_KEY = ("id", "kernel")
_SUMMARY_KEY = ("kernel", "grid", "block", "device", "cc")

#: A metric both passes measured whose median relative difference exceeds
#: this is warned about (replayed launches differ by a few percent).
_DISAGREE = 0.10


def pass_keys(
    columns: Sequence[LaunchColumns], infos: Sequence[SourceInfo]
) -> list[np.ndarray | None]:
    """Per input, one integer per row for its key, the same for the same key in
    every input; ``None`` when the key is missing or repeats.

    Keys are compared as their texts (an ID as its digits, a missing text as
    ``None``), as they always have been; no pandas is needed.
    """
    out: list[np.ndarray | None] = [None] * len(columns)
    # Texts numbered once over every input, so that equal texts get equal numbers.
    numbers: dict[str, int] = {}
    rows: dict[bool, list[tuple[int, np.ndarray]]] = {}
    for i, (cols, info) in enumerate(zip(columns, infos, strict=True)):
        names = _SUMMARY_KEY if info.aggregated else _LAUNCH_KEY
        if cols.n == 0:
            continue
        parts: list[np.ndarray] = []
        for name in names:
            if name in ("id", "device"):
                values, missing = cols.integer(name)
                if name == "id" and missing.any():
                    break
                # A missing device is "<NA>": apart from every number.
                parts.append(np.where(missing, np.iinfo(np.int64).min, values))
            else:
                column = cols.text(name)
                table = [numbers.setdefault(str(v), len(numbers)) for v in column.values]
                none = numbers.setdefault(str(None), len(numbers))
                parts.append(np.array([*table, none], dtype=np.int64)[column.codes])
        else:
            rows.setdefault(info.aggregated, []).append((i, np.stack(parts, axis=1)))
    for members in rows.values():
        # One number per distinct key over the inputs keyed alike.
        _, inverse = np.unique(np.concatenate([r for _, r in members]), axis=0, return_inverse=True)
        inverse = inverse.reshape(-1).astype(np.int64)
        start = 0
        for i, r in members:
            keys = inverse[start : start + len(r)]
            start += len(r)
            if len(np.unique(keys)) == len(keys):
                out[i] = keys
    return out


def pass_groups(
    columns: Sequence[LaunchColumns],
    infos: Sequence[SourceInfo],
    keyed: Sequence[np.ndarray | None] | None = None,
) -> list[list[int]]:
    """Indices of inputs that look like passes of one run, group by group (two or more each).

    Inputs join a group when they hold the same launch keys, each once (and,
    for summaries, the same invocation counts), and the group's metric sets
    are not all the same.  ``keyed``: the inputs' :func:`pass_keys`, when
    already known.
    """
    if keyed is None:
        keyed = pass_keys(columns, infos)
    by_keys: dict[tuple[bool, bytes], list[int]] = {}
    for i, (cols, info, keys) in enumerate(zip(columns, infos, keyed, strict=True)):
        if keys is None:
            continue
        signature = np.sort(keys)
        if info.aggregated:
            order = np.argsort(keys)
            values, missing = cols.integer("invocations")
            counts = np.where(missing, 1, values)[order]
            signature = np.concatenate([signature, counts.astype(np.int64)])
        by_keys.setdefault((info.aggregated, signature.tobytes()), []).append(i)
    groups: list[list[int]] = []
    for members in by_keys.values():
        if len(members) < 2:
            continue
        if len({frozenset(columns[i].present_metrics()) for i in members}) > 1:
            groups.append(members)
    return groups


def _metrics(frame: pd.DataFrame) -> frozenset[str]:
    cols = [c for c in frame.columns if c not in IDENTITY_COLUMNS]
    if not cols:
        return frozenset()
    present = frame[cols].notna().any(axis=0)
    return frozenset(str(c) for c, ok in present.items() if ok)


def pass_hint(infos: Sequence[SourceInfo], group: Sequence[int]) -> str:
    """The warning for inputs that look like passes when ``--merge`` was not given."""
    names = ", ".join(infos[i].path for i in group)
    return (
        f"{names} look like passes of one run (the same launches, different metrics): "
        "give --merge to join them per launch"
    )


def _aligned(base: np.ndarray, other: np.ndarray) -> np.ndarray:
    """Positions in ``other`` of each of ``base``'s keys (the key sets are equal)."""
    order = np.argsort(other)
    return order[np.searchsorted(other, base, sorter=order)]


def merge_passes(
    frames: Sequence[pd.DataFrame],
    infos: Sequence[SourceInfo],
    group: Sequence[int],
    keyed: Sequence[np.ndarray | None],
) -> tuple[pd.DataFrame, SourceInfo]:
    """The inputs of ``group`` joined per launch into one frame and one source.

    ``keyed``: every input's :func:`pass_keys`.
    """
    first = group[0]
    base_keys = keyed[first]
    assert base_keys is not None  # pass_groups only groups keyed inputs
    merged = frames[first].copy()
    name = MERGED_SEPARATOR.join(infos[i].path for i in group)
    info = _merged_info(infos, group, name)
    for i in group[1:]:
        other_keys = keyed[i]
        assert other_keys is not None
        other = frames[i].iloc[_aligned(base_keys, other_keys)].reset_index(drop=True)
        other.index = merged.index
        for col in other.columns:
            if col in ("source", "process_id", "duration_s", "duration_basis"):
                continue
            if col not in merged:
                merged[col] = other[col]
                continue
            mine, theirs = merged[col], other[col]
            if col not in IDENTITY_COLUMNS:
                _check_agreement(info, col, mine, theirs, infos[first].path, infos[i].path)
            merged[col] = mine.where(mine.notna(), theirs)
    merged["source"] = name
    fill_duration(merged)
    info.passes = [
        {"path": infos[i].path, "rows": infos[i].rows, "metrics": sorted(_metrics(frames[i]))}
        for i in group
    ]
    return merged, info


def _check_agreement(
    info: SourceInfo, col: str, mine: pd.Series, theirs: pd.Series, first: str, other: str
) -> None:
    """Warn when two passes measured ``col`` and disagree by more than :data:`_DISAGREE`."""
    both = mine.notna() & theirs.notna()
    if not both.any() or mine.dtype == object or theirs.dtype == object:
        return
    a = mine[both].to_numpy(dtype=np.float64)
    b = theirs[both].to_numpy(dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.abs(a - b) / np.maximum(np.abs(a), np.abs(b))
    rel = rel[np.isfinite(rel)]
    if rel.size and float(np.median(rel)) > _DISAGREE:
        info.warn(
            f"{col} differs between the passes {first} and {other} by a median "
            f"{100 * float(np.median(rel)):.0f}%; the values of {first} are kept"
        )


def _merged_info(infos: Sequence[SourceInfo], group: Sequence[int], name: str) -> SourceInfo:
    first = infos[group[0]]
    members = [infos[i] for i in group]
    units = {m.units for m in members if m.units}
    versions = [m.ncu_version for m in members if m.ncu_version]
    info = SourceInfo(
        path=name,
        layout=first.layout,
        launches=first.launches,
        rows=sum(m.rows for m in members),
        kernels=first.kernels,
        devices=list(first.devices),
        ncu_version=versions[0] if versions else None,
        units=units.pop() if len(units) == 1 else ("mixed" if units else None),
        aggregated=first.aggregated,
    )
    for m in members:
        info.absorb(m)
    return info
