"""A kernel group's dominant value (its bound, limiter, recoverable-time bound): the value
holding for the most time, computed over codes, agrees with the group-by it replaced.

The oracle below is that group-by: per (group, value) the summed time and first
launch, sorted by group and time (stable), the first row of each group kept.
Hypothesis draws groups, values with missing ones (and the ``missing`` word
itself among them), times with NaN and ties.
"""

from __future__ import annotations

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
    per = by.groupby(["gid", "v"], sort=False).agg(t=("t", "sum"), i=("i", "first")).reset_index()
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
            st.sampled_from([0.0, 1.0, 2.0, 0.5, float("nan")]),
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
