"""Per-group reductions and orderings over numpy arrays, without pandas.

Rows are told to their groups by ``groups``: each row's group number in
``range(n)`` (as :func:`~ncu_roofline.core.grouping.row_groups` numbers them).
Every reduction returns one value per group, in group order, and leaves
missing values (NaN) out as pandas' group-by does: a group with no value
gets NaN from :func:`group_min`, :func:`group_max` and :func:`group_mean`,
and 0 from :func:`group_fsum` (an empty sum).

Sums are exact (:func:`math.fsum` per group): the result does not depend on
the order of the rows, so equal multisets of values sum to equal totals,
which a compensated or plain running sum does not promise.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from ncu_roofline.core.table import FloatArray

IntArray = npt.NDArray[np.intp]

__all__ = [
    "descending_order",
    "group_any",
    "group_fsum",
    "group_max",
    "group_mean",
    "group_min",
    "group_present",
    "unique_keys",
]


def unique_keys(keys: npt.NDArray[np.int64], span: int) -> tuple[IntArray, IntArray, IntArray]:
    """``np.unique(keys, return_index=True, return_inverse=True)`` for keys in ``range(span)``:
    the distinct keys in increasing order, each one's first row, and each row's index
    among them.

    Keys that span a range not much longer than they are many (codes combined
    from a few columns) are told apart by a table over the range instead of
    a sort.
    """
    n = len(keys)
    if span > 4 * n + 1024:
        found, firsts, inverse = np.unique(keys, return_index=True, return_inverse=True)
        return found.astype(np.intp), firsts.astype(np.intp), inverse.reshape(n).astype(np.intp)
    seen = np.zeros(span, dtype=bool)
    seen[keys] = True
    found = np.flatnonzero(seen)
    index = np.cumsum(seen, dtype=np.intp) - 1
    inverse = index[keys]
    firsts = np.full(len(found), n, dtype=np.intp)
    np.minimum.at(firsts, inverse, np.arange(n, dtype=np.intp))
    return found.astype(np.intp), firsts, inverse


def group_present(values: FloatArray, groups: IntArray, n: int) -> npt.NDArray[np.int64]:
    """Per group, how many of its rows hold a value (are not NaN)."""
    counts: npt.NDArray[np.int64] = np.bincount(groups[~np.isnan(values)], minlength=n)
    return counts


def group_any(flags: npt.NDArray[np.bool_], groups: IntArray, n: int) -> npt.NDArray[np.bool_]:
    """Per group, whether any of its rows is True."""
    out: npt.NDArray[np.bool_] = np.bincount(groups[flags], minlength=n) > 0
    return out


def _extreme(values: FloatArray, groups: IntArray, n: int, highest: bool) -> FloatArray:
    """Per group, the least (or greatest) value, NaN left out; NaN for a group without one."""
    kept = ~np.isnan(values)
    # Start each group beyond any value, so that the first value it meets replaces it.
    out = np.full(n, -np.inf if highest else np.inf)
    (np.maximum if highest else np.minimum).at(out, groups[kept], values[kept])
    out[group_present(values, groups, n) == 0] = np.nan
    return out


def group_min(values: FloatArray, groups: IntArray, n: int) -> FloatArray:
    """Per group, the least value (NaN left out); NaN where the group has none.

    What pandas' ``Series(values).groupby(groups).min()`` gives for groups ``range(n)``.
    """
    return _extreme(values, groups, n, highest=False)


def group_max(values: FloatArray, groups: IntArray, n: int) -> FloatArray:
    """Per group, the greatest value (NaN left out); NaN where the group has none.

    What pandas' ``Series(values).groupby(groups).max()`` gives for groups ``range(n)``.
    """
    return _extreme(values, groups, n, highest=True)


def group_fsum(values: FloatArray, groups: IntArray, n: int) -> FloatArray:
    """Per group, the exact sum of its values (NaN left out) rounded once; 0 where none.

    One stable sort brings each group's values together, and each group is
    summed by :func:`math.fsum`: a loop over groups, never over rows.  The
    total is the same whatever the rows' order.  Sums past the largest float
    (and infinities of both signs) are left to a plain sum, which gives the
    infinity or NaN that any running sum would.
    """
    kept = ~np.isnan(values)
    kept_groups = groups[kept]
    # Narrow group numbers sort in linear time (numpy's radix sort).
    order = np.argsort(kept_groups.astype(np.uint16 if n <= 1 << 16 else np.intp), kind="stable")
    sorted_values: list[float] = values[kept][order].tolist()
    stops = np.cumsum(np.bincount(kept_groups, minlength=n)).tolist()
    out = np.zeros(n)
    start = 0
    for g, stop in enumerate(stops):
        if stop > start:
            part = sorted_values[start:stop]
            try:
                out[g] = math.fsum(part)
            except (OverflowError, ValueError):
                with np.errstate(over="ignore", invalid="ignore"):
                    out[g] = float(np.sum(part))
        start = stop
    return out


def group_mean(values: FloatArray, groups: IntArray, n: int) -> FloatArray:
    """Per group, the mean of its values (NaN left out); NaN where the group has none.

    The sum is :func:`group_fsum`'s (exact, then divided by the count), so
    it may differ from pandas' compensated group mean in the last bit.
    """
    count = group_present(values, groups, n)
    total = group_fsum(values, groups, n)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: FloatArray = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    return out


def descending_order(keys: Sequence[FloatArray]) -> IntArray:
    """Row positions ordered by ``keys[0]`` descending, ties by ``keys[1]`` and so on;
    NaN after every number in each key, rows still tied kept in their order.

    What pandas' ``sort_values(keys, ascending=False, na_position="last",
    kind="stable")`` gives.  Equal numbers are tied (0.0 and -0.0 too).
    """
    if not keys:
        raise ValueError("descending_order needs at least one key")
    # np.lexsort sorts by its last key first, and is stable.
    sort_keys: list[npt.NDArray[np.generic]] = []
    for values in reversed(keys):
        missing = np.isnan(values)
        # Negated for descending; 0 stands in for NaN, whose rows are already
        # set apart by the missing flag sorted before it.
        sort_keys.append(np.where(missing, 0.0, -values))
        sort_keys.append(missing)
    order: IntArray = np.lexsort(sort_keys).astype(np.intp)
    return order
