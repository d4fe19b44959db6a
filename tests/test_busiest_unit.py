"""The busiest unit of each launch, kept as a running maximum, agrees with a units x launches argmax.

``_busiest`` walks the units one launch-long array at a time (a matrix of
all units' utilisations costs hundreds of MB at 200,000 launches).  The
reference below is the matrix form it replaced, written out here: NaN as
not measured, ties to the first unit, a named unit over a composite unless
the composite is more than the margin busier.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.analysis.limiter.judge import COMPOSITE_MARGIN, Utilisations, _busiest
from ncu_roofline.analysis.limiter.units import UNITS

# Few distinct values, so ties and the margin's edge come up often.
_VALUE = st.sampled_from([np.nan, 0.0, 0.2, 0.5, 0.5 + COMPOSITE_MARGIN, 0.9, 1.2, -0.5])


def _reference(
    values: dict[str, np.ndarray], n: int
) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    stack = np.vstack([values[u.key] for u in UNITS])
    known = ~np.isnan(stack)
    any_known = known.any(axis=0)
    filled = np.where(known, stack, -1.0)
    max_util = np.where(any_known, filled.max(axis=0), np.nan)
    named = np.array([not u.composite for u in UNITS], dtype=bool)
    keys = np.array([u.key for u in UNITS], dtype=object)
    named_best = filled[named]
    best_named = named_best.argmax(axis=0)
    best_named_util = named_best.max(axis=0)
    best_all = filled.argmax(axis=0)
    use_named = (best_named_util >= 0) & (best_named_util >= max_util - COMPOSITE_MARGIN)
    limiter = np.where(use_named, keys[named][best_named], keys[best_all]).astype(object)
    # The basis is that of the busiest unit, kept where all are idle.
    basis = [f"metric of {k}" for k in limiter]
    with np.errstate(invalid="ignore"):
        named_any = any_known & (max_util > 0)
    limiter[~named_any] = "unknown"
    return limiter.tolist(), max_util.tolist(), keys[best_all].tolist(), basis


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_running_maximum_matches_the_matrix_argmax(data: st.DataObject) -> None:
    n = data.draw(st.integers(1, 12))
    values = {
        u.key: np.array(data.draw(st.lists(_VALUE, min_size=n, max_size=n)), dtype=np.float64)
        for u in UNITS
    }
    basis = {u.key: np.full(n, f"metric of {u.key}", dtype=object) for u in UNITS}
    got = _busiest(Utilisations(values, basis, np.ones(n, dtype=bool)), n)
    limiter, max_util, top, basis_of = _reference(values, n)
    assert got.limiter.tolist() == limiter
    np.testing.assert_array_equal(got.max_util, np.array(max_util))
    assert got.top.tolist() == top
    assert got.basis.tolist() == basis_of


def test_a_composite_far_busier_than_every_named_unit_wins() -> None:
    composite = next(u for u in UNITS if u.composite)
    named = next(u for u in UNITS if not u.composite)
    values = {u.key: np.array([np.nan]) for u in UNITS}
    values[named.key] = np.array([0.3])
    values[composite.key] = np.array([0.3 + COMPOSITE_MARGIN + 0.2])
    basis = {u.key: np.array([u.key], dtype=object) for u in UNITS}
    got = _busiest(Utilisations(values, basis, np.ones(1, dtype=bool)), 1)
    assert got.limiter.tolist() == [composite.key]
    assert got.max_util.tolist() == [0.3 + COMPOSITE_MARGIN + 0.2]
