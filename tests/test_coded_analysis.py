"""Analysis steps done over codes agree with the group-by or loop each replaced.

A kernel group's dominant value (its bound, limiter, recoverable-time bound):
the oracle is a group-by, per (group, value) the exactly summed time
(``math.fsum`` of the times that are known, so that the sums do not depend
on the launches' order) and first launch, sorted by group and time
(stable), the first row of each group kept; Hypothesis draws groups, values with missing ones (and the
``missing`` word itself among them), times with NaN and ties.  A launch's
missing-precision label: the oracle is the per-launch join.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis.classify import Groups, _dominant


def _oracle(
    values: list[Any], gid: np.ndarray, n_groups: int, t0: np.ndarray, missing: str
) -> tuple[list[Any], list[int]]:
    by = pd.DataFrame(
        {
            "gid": gid,
            "v": pd.Series(values, dtype=object).fillna(missing),
            "t": t0,
            "i": np.arange(len(values)),
        }
    )
    per = (
        by.groupby(["gid", "v"], sort=False)
        .agg(t=("t", lambda t: math.fsum(t.dropna())), i=("i", "first"))
        .reset_index()
    )
    per = per.sort_values(["gid", "t"], ascending=[True, False], kind="stable").drop_duplicates(
        "gid"
    )
    value: list[Any] = [None] * n_groups
    first = [0] * n_groups
    for g, v, i in zip(per["gid"], per["v"], per["i"], strict=True):
        value[int(g)] = v
        first[int(g)] = int(i)
    return value, first


@settings(max_examples=300, deadline=None)
@given(
    rows=st.lists(
        st.tuples(
            st.sampled_from(["a", "b", "k"]),
            st.sampled_from(["memory", "compute", "latency", "unknown", None]),
            # Sums that tie only when summed exactly (0.1 + 0.2 + 0.3 vs 0.6).
            st.sampled_from([0.0, 1.0, 2.0, 0.5, 0.1, 0.2, 0.3, 0.6, float("nan")]),
        ),
        min_size=1,
        max_size=30,
    ),
    as_text=st.booleans(),
)
def test_dominant_value_is_the_group_by(
    rows: list[tuple[str, str | None, float]], as_text: bool
) -> None:
    kernels, values, times = zip(*rows, strict=True)
    launches = pd.DataFrame(
        {
            "source": ["s"] * len(rows),
            "kernel": list(kernels),
            "device_name": [None] * len(rows),
            "grid": ["(1, 1, 1)"] * len(rows),
            "block": ["(32, 1, 1)"] * len(rows),
            "limiter": pd.Series(values, dtype="str" if as_text else object),
        }
    )
    groups = Groups(launches)
    t0 = np.array(times, dtype=np.float64)
    got_value, got_first = _dominant(launches, "limiter", groups, t0, "unknown")
    want_value, want_first = _oracle(list(values), groups.gid, groups.n, t0, "unknown")
    assert got_value.tolist() == want_value
    assert got_first.tolist() == want_first


@settings(max_examples=200, deadline=None)
@given(
    masks=st.lists(
        st.tuples(st.booleans(), st.booleans(), st.booleans(), st.booleans()), max_size=30
    )
)
def test_missing_labels_name_each_launchs_missing_parts_in_order(
    masks: list[tuple[bool, bool, bool, bool]],
) -> None:
    """The per-launch list of precisions without a count, as the loop it replaced made it."""
    from ncu_roofline.analysis.measures import _missing_labels

    names = ("fp64", "fp32", "fp16", "tensor")
    columns = [np.array([m[k] for m in masks], dtype=bool) for k in range(4)]
    got = _missing_labels(list(zip(names, columns, strict=True)), len(masks))
    expected = [",".join(n for n, bit in zip(names, m, strict=True) if bit) or None for m in masks]
    assert got.tolist() == expected
    # Equal labels are one object each.
    assert len({id(v) for v in got.tolist()}) == len(set(expected))


def test_a_tie_of_exact_sums_keeps_the_first_value() -> None:
    """0.6 against 0.1 + 0.2 + 0.3: a plain sum makes the second larger (0.6000000000000001),
    the exact sum makes them equal, and the value seen first wins."""
    launches = pd.DataFrame(
        {
            "source": ["s"] * 4,
            "kernel": ["k"] * 4,
            "device_name": [None] * 4,
            "grid": ["(1, 1, 1)"] * 4,
            "block": ["(32, 1, 1)"] * 4,
            "limiter": ["B", "A", "A", "A"],
        }
    )
    groups = Groups(launches)
    value, first = _dominant(launches, "limiter", groups, np.array([0.6, 0.1, 0.2, 0.3]), "x")
    assert value.tolist() == ["B"]
    assert first.tolist() == [0]
