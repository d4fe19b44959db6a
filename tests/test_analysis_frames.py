"""The analysis holds its launches and groups as tables; the frames are made on demand.

``analyze`` works on numpy columns (:class:`~ncu_roofline.core.table.Table`)
and the report reads them as they are; ``Analysis.launches`` and
``Analysis.kernels`` stay pandas frames for the Python API, built the first
time they are read: the identity columns as the launch frame holds them, the
rest value for value.  A frame built or set is what the analysis holds from
then on.
"""

from __future__ import annotations

import copy
import dataclasses
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ncu_roofline.analysis.engine import analyze
from ncu_roofline.core.table import Table
from ncu_roofline.notebook import NotebookAnalysis
from ncu_roofline.readers import load
from ncu_roofline.report.context import build_context
from tests.helpers import SAMPLE, SAMPLE_EXPORTS

_EXPORTS = SAMPLE_EXPORTS


def _same(got: np.ndarray, want: np.ndarray, where: str) -> None:
    if got.dtype == object or want.dtype == object:
        assert [None if v is None or v != v else v for v in got.tolist()] == [
            None if v is None or v != v else v for v in want.tolist()
        ], where
    else:
        assert np.array_equal(got.astype(np.float64), want.astype(np.float64), equal_nan=True), (
            where
        )


@pytest.mark.parametrize("path", [SAMPLE, *_EXPORTS], ids=lambda p: p.name[:40])
@pytest.mark.parametrize("gpu", [None, "h100_sxm5"])
def test_the_frames_hold_the_tables_rows(path: Path, gpu: str | None) -> None:
    analysis = analyze(load([str(path)]), gpu=gpu)
    assert analysis.frames == {}  # nothing built by the analysis itself
    launches = analysis.launches
    assert list(launches.columns) == analysis.launch_table.columns
    assert isinstance(launches.index, pd.RangeIndex) and len(launches) == len(analysis.launch_table)
    # The identity columns are the launch frame's own: nullable integers, texts.
    own = load([str(path)]).launches
    for name in analysis.identity:
        pd.testing.assert_series_equal(launches[name], own[name], check_names=True)
    back = Table.from_frame(launches)
    for name in analysis.launch_table.columns:
        _same(back[name], analysis.launch_table[name], name)
    kernels = analysis.kernels
    assert list(kernels.columns) == analysis.kernel_table.columns
    back = Table.from_frame(kernels)
    for name in analysis.kernel_table.columns:
        _same(back[name], analysis.kernel_table[name], name)
    # Texts are objects among the launches (as the frame always held them).
    assert launches["bound"].dtype == object


def test_a_frame_once_built_or_set_is_what_the_analysis_holds() -> None:
    analysis = analyze(load([str(SAMPLE)]), gpu="h100_sxm5")
    assert analysis.launch_columns is analysis.launch_table
    assert analysis.kernel_columns is analysis.kernel_table
    frame = analysis.launches
    assert analysis.launch_columns is frame and analysis.launches is frame
    top = analysis.kernels.iloc[:2].reset_index(drop=True)
    analysis.kernels = top
    assert analysis.kernel_columns is top and len(analysis.kernel_columns) == 2
    # A notebook analysis shares what was built, and keeps its own later changes.
    wrapped = NotebookAnalysis.of(analysis)
    assert wrapped.kernels is top
    wrapped.kernels = top.iloc[:1]
    assert len(analysis.kernels) == 2 and len(wrapped.kernels) == 1
    assert repr(analysis).startswith("Analysis(")


def _report_launches(analysis: Any) -> list[tuple[Any, ...]]:
    fields = ("kernel_short", "stream", "process_id", "id", "duration_s", "bound")
    records = build_context(analysis)["launches"]
    return [tuple(r.get(f) for f in fields) for r in records]


@pytest.mark.parametrize("built_before", [False, True])
@pytest.mark.parametrize("edit", ["in place", "reversed", "a row fewer"])
def test_later_edits_of_the_profile_leave_an_analysis_as_it_was(
    built_before: bool, edit: str
) -> None:
    """The identity columns the analysis did not read while analysing are made later
    (the report, ``launches``): from the profile as it was, not as it is by then."""
    profile = load([str(SAMPLE)])
    if built_before:
        profile.launches  # noqa: B018 - the frame built before the analysis
    analysis = analyze(profile)
    want_report = _report_launches(analyze(load([str(SAMPLE)])))
    fresh = analyze(load([str(SAMPLE)]))
    want = {c: fresh.launches[c].tolist() for c in ("stream", "id", "kernel", "duration_s")}
    frame = profile.launches
    if edit == "in place":
        frame["stream"] = 999
        frame["kernel"] = "renamed"
        frame["duration_s"] *= 2.0
    elif edit == "reversed":
        profile.launches = frame.iloc[::-1].reset_index(drop=True)
    else:
        profile.launches = frame.iloc[1:].reset_index(drop=True)
    assert _report_launches(analysis) == want_report
    got = {c: analysis.launches[c].tolist() for c in want}
    assert got == want


def test_copies_of_an_analysis_hold_their_own_frames() -> None:
    analysis = analyze(load([str(SAMPLE)]))
    n = len(analysis.kernels)
    assert n > 1
    for other in (dataclasses.replace(analysis), copy.copy(analysis)):
        other.kernels = other.kernels.head(1)
        assert len(other.kernels) == 1
        assert len(analysis.kernels) == n
