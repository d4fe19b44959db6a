"""How much of every real export the report explains: the corpus figures, pinned.

For each export in ``../shared/ncu-samples/`` (read as a user would, with no
``--gpu``), two shares of its kernel time (duration x invocations; launches
are counted instead where the export holds no duration):

* **named**: launches whose ``limiter`` is a unit or a latency verdict, not
  ``unknown``;
* **placed**: launches with a bound class other than ``not placeable``
  (drawn on the roofline, by counters, by bandwidth or from theory).

The figures are printed (``pytest -s``) and pinned per file, so a change that
loses evidence on any real export fails here, and one that gains it must
update the table on purpose.  The corpus means are pinned too: they are the
headline of what the verdicts cover.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ncu_roofline

#: Saved name -> (named share, placed share), as measured on this commit.
EXPECTED: dict[str, tuple[float, float]] = {}

#: Figures are shares of time: two decimals say all that matters here.
TOLERANCE = 0.005


def _shares(path: Path) -> tuple[float, float]:
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(path)]))
    launches = analysis.launches
    weight = launches["total_duration_s"].to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.nansum(weight) > 0:
        weight = launches["invocations"].to_numpy(dtype=np.float64, na_value=1.0)
    weight = np.nan_to_num(weight)
    total = weight.sum()
    limiter = launches["limiter"].astype(object).to_numpy()
    bound = launches["bound"].astype(object).to_numpy()
    named = weight[(limiter != "unknown") & (limiter != None)].sum() / total  # noqa: E711
    placed = weight[(bound != "not placeable") & (bound != None)].sum() / total  # noqa: E711
    return float(named), float(placed)


def test_corpus_shares_named_and_placed(samples_dir: Path) -> None:
    files = sorted(p for p in samples_dir.iterdir() if p.is_file() and p.name != "INDEX.md")
    assert files, "no exports in the samples folder"
    measured = {p.name: _shares(p) for p in files}
    width = max(len(n) for n in measured)
    print()
    for name, (named, placed) in measured.items():
        print(f"{name:{width}}  named {named:6.1%}  placed {placed:6.1%}")
    mean_named = float(np.mean([v[0] for v in measured.values()]))
    mean_placed = float(np.mean([v[1] for v in measured.values()]))
    print(f"{'mean':{width}}  named {mean_named:6.1%}  placed {mean_placed:6.1%}")
    assert set(measured) == set(EXPECTED), "the samples folder changed: update EXPECTED"
    for name, (named, placed) in measured.items():
        want_named, want_placed = EXPECTED[name]
        assert named == pytest.approx(want_named, abs=TOLERANCE), name
        assert placed == pytest.approx(want_placed, abs=TOLERANCE), name
    assert mean_named == pytest.approx(MEAN_NAMED, abs=TOLERANCE)
    assert mean_placed == pytest.approx(MEAN_PLACED, abs=TOLERANCE)


MEAN_NAMED = 0.0
MEAN_PLACED = 0.0
