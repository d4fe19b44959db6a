"""The report's encoding: column-wise records, JSON bytes, script-safe page data."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.core.columns import KERNEL_FIELDS, LAUNCH_FIELDS
from ncu_roofline.render import render_document
from ncu_roofline.render.html_report import render_html
from ncu_roofline.render.json_report import render_json, render_json_bytes
from ncu_roofline.render.page import build_page
from ncu_roofline.render.templates import environment
from ncu_roofline.report.context import _fields, build_context, records
from tests.helpers import fp32, hover_escaped, profile, spec, strings


def _plain_by_value(value: Any) -> Any:
    """One value made plain the way the report always did it, value by value."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, np.generic):
        return _plain_by_value(value.item())
    return value


def _records_by_row(frame: pd.DataFrame, fields: tuple[str, ...]) -> list[dict[str, Any]]:
    """The row-wise reference: every value converted on its own."""
    out = []
    for i in range(len(frame)):
        row = {}
        for f in fields:
            if f not in frame:
                row[f] = None
                continue
            s = frame[f]
            v = s.iloc[i]
            if pd.api.types.is_float_dtype(s.dtype):
                v = None if pd.isna(v) else float(v)
                row[f] = v if v is not None and math.isfinite(v) else None
            else:
                row[f] = _plain_by_value(v)
        out.append(row)
    return out


def _assert_same(got: list[dict[str, Any]], want: list[dict[str, Any]]) -> None:
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert list(g) == list(w)
        for key in w:
            # Same value and same Python type: every writer sees the same data.
            assert type(g[key]) is type(w[key]), (key, g[key], w[key])
            assert g[key] == w[key], (key, g[key], w[key])


_FLOATS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([float("nan"), float("inf"), -float("inf"), 0.0, -0.0, 5e-324]),
)
_TEXT = st.one_of(st.none(), st.text(max_size=6), st.just("</script>\u2028"))
_OBJECTS = st.one_of(
    st.none(),
    st.text(max_size=4),
    st.integers(-(2**40), 2**40),
    st.booleans(),
    _FLOATS,
    _FLOATS.map(np.float64),
    st.integers(-100, 100).map(np.int64),
    st.just(pd.NA),
)


@st.composite
def _frames(draw: st.DrawFn) -> pd.DataFrame:
    n = draw(st.integers(0, 8))

    def col(elems: st.SearchStrategy[Any]) -> list[Any]:
        return draw(st.lists(elems, min_size=n, max_size=n))

    ints = col(st.one_of(st.none(), st.integers(-(2**50), 2**50)))
    return pd.DataFrame(
        {
            "f": pd.Series(col(_FLOATS), dtype="float64"),
            "nf": pd.array(col(st.one_of(st.none(), st.floats(-1e6, 1e6))), dtype="Float64"),
            "ni": pd.array(ints, dtype="Int64"),
            "i": pd.Series([v or 0 for v in ints], dtype="int64"),
            "b": pd.Series(col(st.booleans()), dtype="bool"),
            "nb": pd.array(col(st.one_of(st.none(), st.booleans())), dtype="boolean"),
            "s": pd.Series(col(_TEXT), dtype="str"),
            "o": pd.Series(col(_OBJECTS), dtype=object),
            "os": pd.Series(col(_TEXT), dtype=object),
            "c": pd.Series(col(st.sampled_from(["dram", "l2", None])), dtype="category"),
        }
    )


@settings(max_examples=150, deadline=None)
@given(_frames())
def test_column_wise_records_equal_the_row_wise_ones(frame: pd.DataFrame) -> None:
    fields = (*frame.columns, "absent")
    before = frame.copy()
    _assert_same(records(frame, fields), _records_by_row(frame, fields))
    # The frame is left as it was (missing values stay missing there).
    pd.testing.assert_frame_equal(frame, before)


def test_records_never_turn_missing_into_zero() -> None:
    frame = pd.DataFrame(
        {
            "t": [2.539e-06, np.nan, np.inf],
            "n": pd.array([3, None, 0], dtype="Int64"),
            "name": pd.Series(["gemv", None, "a<b>"], dtype="str"),
            "mixed": pd.Series([np.float64(1.5), float("-inf"), np.int64(4)], dtype=object),
        }
    )
    out = records(frame, ("t", "n", "name", "mixed"))
    assert out[1] == {"t": None, "n": None, "name": None, "mixed": None}
    assert out[2] == {"t": None, "n": 0, "name": "a<b>", "mixed": 4}
    assert type(out[2]["mixed"]) is int and type(out[0]["n"]) is int
    assert out[0]["t"] == 2.539e-06


def test_records_of_real_samples_equal_the_row_wise_ones(samples_dir: Path) -> None:
    names = (
        "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv",
        "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv",
        "wangzy0327__cuda-roofline__src_output_A100.csv",
    )
    checked = 0
    for name in names:
        analysis = ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / name)]))
        for frame, base in ((analysis.launches, LAUNCH_FIELDS), (analysis.kernels, KERNEL_FIELDS)):
            fields = _fields(frame, base)
            got = records(frame, fields)
            _assert_same(got, _records_by_row(frame, fields))
            checked += len(got) * len(fields)
    assert checked > 1000


def _context(kernel: str) -> Any:
    rows = [{**fp32(1e9), "dram__bytes.sum": 1e8, "gpu__time_duration.sum": 1e-3}]
    return build_context(ncu_roofline.analyze(profile(rows, kernel=kernel), gpu=spec()))


def test_json_report_is_written_as_the_bytes_of_the_text() -> None:
    context = _context("gemv\u2028<b>ünï")
    data = render_document("report", "json", context)
    assert isinstance(data, bytes)
    assert data == render_json(context).encode("utf-8") == render_json_bytes(context)
    assert data.endswith(b"}\n")
    assert json.loads(data)["launches"][0]["kernel"] == "gemv\u2028<b>ünï"


def test_line_separators_in_a_kernel_name_stay_valid_page_data() -> None:
    name = "k\u2028</script><img src=x>\u2029'&"
    html = render_html(build_page(_context(name), plotly_js="cdn"))
    blob = re.search(
        r'<script type="application/json" id="ncu-roofline-data">(.*?)</script>', html, re.S
    )
    assert blob is not None
    text = blob.group(1)
    for raw in ("\u2028", "\u2029", "<", ">", "'"):
        assert raw not in text
    assert "\\u2028" in text and "\\u2029" in text
    assert html.count("<script") == html.count("</script>")
    # The data reads back with the separators in place (hover text carries names escaped).
    found = [t for t in strings(json.loads(text)) if hover_escaped(name) in t]
    assert found


def test_tojson_escapes_markup_and_line_separators() -> None:
    value = {"name": "</script><b>&'x'\u2028\u2029", "b": 1, "a": [1.5, None]}
    out = str(environment().from_string("{{ v | tojson }}").render(v=value))
    for raw in ("<", ">", "&", "'", "\u2028", "\u2029"):
        assert raw not in out
    assert json.loads(out) == value
    assert out.index('"a"') < out.index('"b"') < out.index('"name"')  # sorted, as Jinja's


@pytest.mark.parametrize("value", [float("nan"), float("inf")])
def test_json_bytes_never_hold_nan_or_infinity(value: float) -> None:
    out = render_json_bytes({"x": value, "a": np.array([value, 1.0])})
    assert json.loads(out) == {"x": None, "a": [None, 1.0]}
