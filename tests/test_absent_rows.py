"""The launches lacking a row of a summed metric: the mask against a plain set-based reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.readers.integrity import _summed_part, absent_rows

METRICS = (
    "dram__bytes.sum",
    "lts__t_bytes.sum",
    "sm__sass_thread_inst_executed_op_ffma_pred_on.sum",
    "gpu__time_duration.sum",
)


def _reference(
    launch_of_row: np.ndarray, row_metric: np.ndarray, index: dict[str, int], n: int
) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    if n < 2:
        return out
    for mid, j in sorted(index.items(), key=lambda kv: kv[1]):
        if not _summed_part(mid):
            continue
        have = {
            int(at) for at, m in zip(launch_of_row, row_metric, strict=True) if m == j and at >= 0
        }
        if have and len(have) < n:
            out[mid] = sorted(set(range(n)) - have)
    return out


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(min_value=0, max_value=40),
    rows=st.lists(
        st.tuples(st.integers(min_value=-1, max_value=39), st.integers(min_value=-1, max_value=9)),
        max_size=200,
    ),
)
def test_absent_rows_matches_the_reference(n: int, rows: list[tuple[int, int]]) -> None:
    index = {m: 2 * i + 1 for i, m in enumerate(METRICS)}
    launch = np.array([min(r[0], n - 1) for r in rows], dtype=np.int64)
    metric = np.array([r[1] for r in rows], dtype=np.int64)
    got = absent_rows(launch, metric, index, n)
    want = _reference(launch, metric, index, n)
    assert list(got) == list(want)
    for mid, launches in want.items():
        assert got[mid].tolist() == launches
