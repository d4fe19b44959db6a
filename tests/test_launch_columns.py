"""The launch model as columns: the counts read from them agree with the frame.

:class:`~ncu_roofline.core.launches.LaunchColumns` answers ``inspect``'s
questions (launches, kernels, devices, metrics present) without building the
pandas frame.  Each answer is checked here against the same question asked of
the frame with pandas (the way the readers asked it before), on every real
export and on generated columns; the Arrow-buffer readers of
:mod:`~ncu_roofline.core.arrays` against pyarrow's own conversion.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core.arrays import (
    false_where_null,
    flags,
    indices,
    integer_array,
    null_text,
    numbers,
    strings,
)
from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.launches import (
    Coded,
    LaunchColumns,
    coded,
    finalize_columns,
    integers,
)
from ncu_roofline.core.model import short_names
from ncu_roofline.errors import NcuRooflineError
from ncu_roofline.readers import _read_columns, load
from ncu_roofline.readers.passes import pass_keys

SUFFIXES = (".csv", ".ncu-rep", ".txt")
REGISTRY = {c.name for c in LAUNCH_MODEL_COLUMNS}


def _exports(samples_dir: Path) -> list[Path]:
    return sorted(p for p in samples_dir.rglob("*") if p.suffix in SUFFIXES)


def _frame_labels(frame: pd.DataFrame) -> list[str]:
    """Device labels the way the frame gave them: distinct (device, name, CC) rows."""
    labels: list[str] = []
    sub = frame[["device", "device_name", "cc"]].drop_duplicates()
    for dev, name, cc in sub.itertuples(index=False, name=None):
        label = str(name) if not pd.isna(name) else None
        if label is None:
            label = f"device {dev}" if not pd.isna(dev) else "unknown device"
        if not pd.isna(cc):
            label = f"{label} CC {cc}"
        if label not in labels:
            labels.append(label)
    return labels


def _counts(columns: LaunchColumns) -> tuple[int, int, list[str], set[str]]:
    return (
        columns.launch_count(),
        columns.kernel_count(),
        columns.device_labels(),
        columns.present_metrics(),
    )


def _check_counts(columns: LaunchColumns) -> None:
    # First from the columns; then, once the frame exists, from the frame
    # (the arrays are dropped when it is built).
    from_columns = _counts(columns)
    frame = columns.to_frame()
    metric_cols = [c for c in frame.columns if c not in REGISTRY]
    has = frame[metric_cols].notna().any(axis=0)
    expected = (
        int(frame["invocations"].fillna(1).sum()),
        int(frame["kernel"].nunique()),
        _frame_labels(frame),
        {c for c, ok in has.items() if ok},
    )
    assert from_columns == expected
    assert _counts(columns) == expected


def test_counts_agree_with_the_frame_on_every_real_export(samples_dir: Path) -> None:
    checked = 0
    for path in _exports(samples_dir):
        try:
            columns, _ = _read_columns(str(path))
        except NcuRooflineError:
            continue
        # Fresh columns each time: the counts are read before the frame exists.
        _check_counts(columns)
        checked += 1
    assert checked >= 10


RAW = "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__gqa_bf16_b128_ctx2k_p64.ncu.csv"


def test_raw_export_counts_worked_by_hand(samples_dir: Path) -> None:
    # 64 launch rows of one kernel on one B200 (CC 10.0), read from the file.
    profile = load(str(samples_dir / RAW))
    info = profile.sources[0]
    assert (info.launches, info.rows, info.kernels) == (64, 64, 1)
    assert info.devices == ["NVIDIA B200 CC 10.0"]
    # The single input's frame is not built until it is asked for.
    assert profile._frame is None
    before = profile.present_metrics(info.path)
    assert profile.present_metrics("another.csv") == set()
    frame = profile.launches
    assert profile.present_metrics(info.path) == before
    assert len(frame) == 64
    assert frame["duration_s"].notna().all()


def test_profile_of_two_inputs_is_one_frame(samples_dir: Path) -> None:
    path = str(samples_dir / RAW)
    profile = load([path, path], jobs=1)
    assert len(profile.launches) == 128
    assert profile.present_metrics(path) == load(path).present_metrics(path)


texts = st.one_of(st.none(), st.sampled_from(["", "a", "b", "8,6", "(2, 3, 1)", "x"]))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(texts, texts, st.one_of(st.none(), st.integers(0, 3))), max_size=30))
def test_finalize_columns_matches_its_frame(
    rows: list[tuple[str | None, str | None, int | None]],
) -> None:
    n = len(rows)
    ident = {
        "kernel": [r[0] for r in rows],
        "cc": [r[1] for r in rows],
        "grid": [r[1] for r in rows],
        "device": np.array([np.nan if r[2] is None else r[2] for r in rows], dtype=np.float64),
        "source": Coded(np.zeros(n, dtype=np.int64), ["in.csv"]),
    }
    metrics = {"gpu__time_duration.sum": np.array([float(r[2] or 0) or np.nan for r in rows])}
    columns = finalize_columns(ident, metrics, n)
    _check_counts(columns)
    frame = columns.to_frame()
    for i, (kernel, cc, dev) in enumerate(rows):
        assert frame["kernel"].iat[i] == (kernel or "")
        expected_cc = cc.replace(",", ".") if cc else None
        assert (None if pd.isna(frame["cc"].iat[i]) else frame["cc"].iat[i]) == expected_cc
        assert columns.value("device", i) == dev
        grid = frame["grid_blocks"].iat[i]
        # "(2, 3, 1)" is 2 x 3 x 1 blocks, and "8,6" reads as the pair 8 x 6.
        assert (None if pd.isna(grid) else int(grid)) == {"(2, 3, 1)": 6, "8,6": 48}.get(cc or "")


def test_integers_leave_what_is_not_whole_missing() -> None:
    values, missing = integers(np.array([1.0, 2.5, np.inf, np.nan, -3.0, 2.0**70]), 6)
    assert missing.tolist() == [False, True, True, True, False, True]
    assert values[[0, 4]].tolist() == [1, -3]
    values, missing = integers(["7", "x", None, "1,024"], 4)
    assert values[0] == 7
    assert missing.tolist() == [False, True, True, True]


def test_coded_reads_blank_as_missing_and_keeps_other_objects() -> None:
    column = coded(["a", "", None, float("nan"), "a"], 5)
    assert column.texts().tolist() == ["a", None, None, None, "a"]
    mixed = coded(["a", 5, None], 3)
    assert mixed.texts().tolist() == ["a", 5, None]


def _arrays() -> st.SearchStrategy[tuple[list[float | None], int, int]]:
    values = st.lists(st.one_of(st.none(), st.floats(allow_nan=False, width=64)), max_size=40)
    return values.flatmap(
        lambda v: st.tuples(st.just(v), st.integers(0, len(v)), st.integers(0, len(v)))
    )


@settings(max_examples=80, deadline=None)
@given(_arrays(), st.sampled_from([pa.float64(), pa.int32(), pa.int64()]))
def test_buffer_numbers_match_pyarrow(
    case: tuple[list[float | None], int, int], kind: pa.DataType
) -> None:
    values, start, length = case
    if kind != pa.float64():
        values = [None if v is None else int(max(-1e9, min(1e9, v))) for v in values]
    arr = pa.array(values, type=kind).slice(start, length)
    chunked = pa.chunked_array([arr, arr], type=kind)
    expected = np.asarray(chunked.to_numpy(zero_copy_only=False), dtype=np.float64)
    got = numbers(chunked)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(st.none(), st.booleans()), max_size=40), st.integers(0, 5))
def test_buffer_flags_match_pyarrow(values: list[bool | None], start: int) -> None:
    arr = pa.array(values, type=pa.bool_()).slice(min(start, len(values)))
    expected = [bool(v) for v in arr.to_pylist()]
    assert flags(arr).tolist() == expected


def test_indices_take_rows() -> None:
    arr = pa.array(["a", "b", "c", "d"])
    assert arr.take(indices(np.array([3, 0, 2], dtype=np.int32))).to_pylist() == ["d", "a", "c"]
    with pytest.raises(TypeError):
        numbers(pa.array(["1"]))
    assert math.isnan(numbers(pa.array([None], type=pa.int64()))[0])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(max_size=6), max_size=20))
def test_strings_built_from_buffers_hold_the_texts(values: list[str]) -> None:
    arr = strings(values)
    assert arr.type == pa.string()
    assert arr.to_pylist() == values


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.integers(-(2**31), 2**31 - 1), max_size=20),
    st.sampled_from([np.int32, np.int64]),
)
def test_integer_array_keeps_values_and_type(values: list[int], dtype: type) -> None:
    arr = integer_array(np.array(values, dtype=dtype))
    assert arr.type == (pa.int32() if dtype is np.int32 else pa.int64())
    assert arr.to_pylist() == values


def test_mask_helpers_read_null_as_false() -> None:
    mask = pa.array([True, None, False, True])
    assert false_where_null(mask).to_pylist() == [True, False, False, True]
    texts = pa.array(["a", "b", "c", "d"])
    import pyarrow.compute as pc

    assert pc.if_else(false_where_null(mask), null_text(), texts).to_pylist() == [
        None,
        "b",
        "c",
        None,
    ]
    with pytest.raises(TypeError):
        integer_array(np.array([1.5]))


def test_display_names_fill_devices_and_a_gap_stays_missing() -> None:
    # A NaN or None display name is a missing name, never the text "nan".
    names = [np.nan, "A", None]
    columns = finalize_columns({"device": [0, 0, 1]}, {"device__attribute_display_name": names}, 3)
    assert [columns.value("device_name", i) for i in range(3)] == [None, "A", None]
    assert columns.device_labels() == ["device 0", "A", "device 1"]
    coded_names = Coded(np.array([-1, 0, 1]), ["A", "B"])
    columns = finalize_columns(
        {"device_name": ["own", None, None]},
        {"device__attribute_display_name": coded_names},
        3,
    )
    assert columns.to_frame()["device_name"].tolist() == ["own", "A", "B"]


def test_number_lists_with_gaps_are_floats() -> None:
    frame = finalize_columns({}, {"dram__bytes.sum": [1, None, 3]}, 3).to_frame()
    assert frame["dram__bytes.sum"].dtype == np.float64
    assert np.isnan(frame["dram__bytes.sum"].iat[1])


def test_integer_edges_and_byte_order() -> None:
    values, missing = integers(np.array([-(2.0**63), 2.0**63]), 2)
    assert missing.tolist() == [False, True]
    assert values[0] == np.iinfo(np.int64).min
    assert integer_array(np.arange(3, dtype=">i8")).to_pylist() == [0, 1, 2]


@given(
    st.lists(
        st.tuples(
            st.one_of(st.none(), st.integers(0, 3)),
            st.sampled_from([None, "A", "B"]),
            st.sampled_from([None, "8.0", "9.0"]),
        ),
        max_size=25,
    )
)
def test_device_labels_follow_first_appearance(
    rows: list[tuple[int | None, str | None, str | None]],
) -> None:
    """One label per distinct (device, name, CC), in order of first appearance."""
    n = len(rows)
    columns = finalize_columns(
        {
            "device": [np.nan if d is None else d for d, _, _ in rows],
            "device_name": [name for _, name, _ in rows],
            "cc": [cc for _, _, cc in rows],
        },
        {},
        n,
    )
    expected: list[str] = []
    for device, name, cc in rows:
        label = (
            name
            if name is not None
            else (f"device {device}" if device is not None else "unknown device")
        )
        label = f"{label} CC {cc}" if cc is not None else label
        if label not in expected:
            expected.append(label)
    assert columns.device_labels() == expected


def _old_pass_keys(frame: pd.DataFrame, aggregated: bool) -> np.ndarray | None:
    """Pass keys as the readers hashed them from the frame before (the reference)."""
    columns = ["kernel", "grid", "block", "device", "cc"] if aggregated else ["id", "kernel"]
    if frame.empty or (not aggregated and frame["id"].isna().any()):
        return None
    keys = pd.util.hash_pandas_object(frame[columns].astype(str), index=False).to_numpy()
    return None if len(np.unique(keys)) != len(keys) else keys


def test_concat_is_the_parts_frames_concatenated(samples_dir: Path) -> None:
    # Parts that differ in layout, metrics, compute capability (present or
    # not) and text metrics; an empty part among them.
    exports = _exports(samples_dir)
    readable = []
    for path in exports:
        try:
            _read_columns(str(path))
        except NcuRooflineError:
            continue
        readable.append(path)
    empty = finalize_columns({}, {}, 0)
    for a, b in zip(readable, readable[1:] + readable[:1], strict=True):
        for renamed in (False, True):
            parts = [_read_columns(str(a))[0], empty, _read_columns(str(b))[0]]
            joined = LaunchColumns.concat(parts, renamed=renamed)
            assert len(joined) == sum(len(p) for p in parts)
            # Counts and names from the joined columns, before any frame exists.
            _check_counts(LaunchColumns.concat([_read_columns(str(p))[0] for p in (a, b)]))
            names = joined.metric_names()
            frame = joined.to_frame()
            frames = [_read_columns(str(p))[0].to_frame() for p in (a, b)]
            frames.insert(1, empty.to_frame())
            expected = pd.concat(frames, ignore_index=True, sort=False)
            if renamed:
                expected["kernel_short"] = short_names(expected["kernel"])
            pd.testing.assert_frame_equal(frame, expected)
            assert names == [c for c in expected.columns if c not in REGISTRY]


def test_pass_keys_group_as_the_hashed_frames_did(samples_dir: Path) -> None:
    read = []
    for path in _exports(samples_dir):
        try:
            read.append((path, _read_columns(str(path))[1]))
        except NcuRooflineError:
            continue
    # Each input twice: every keyed input has a sibling with the same keys.
    columns = [_read_columns(str(p))[0] for p, _ in read * 2]
    infos = [i for _, i in read * 2]
    got = pass_keys(columns, infos)
    old = [_old_pass_keys(c.to_frame(), i.aggregated) for c, i in zip(columns, infos, strict=True)]
    assert [k is None for k in got] == [k is None for k in old]
    assert any(k is not None for k in got)
    for i, j in [(i, j) for i in range(len(got)) for j in range(len(got))]:
        if got[i] is None or got[j] is None or infos[i].aggregated != infos[j].aggregated:
            continue
        same = np.array_equal(np.sort(got[i]), np.sort(got[j]))
        assert same == np.array_equal(np.sort(old[i]), np.sort(old[j]))


def test_profile_of_different_inputs_answers_per_source_as_its_frame(samples_dir: Path) -> None:
    paths = [str(p) for p in _exports(samples_dir) if p.suffix == ".csv"][:4]
    profile = load(paths, jobs=1)
    assert profile._frame is None
    sources = [s.path for s in profile.sources]
    asked = [None, *sources, "another.csv"]
    from_columns = [(profile.present_metrics(s), profile.compute_capability(s)) for s in asked]
    assert profile.metric_columns == [c for c in profile.launches.columns if c not in REGISTRY]
    assert profile._frame is not None
    assert [(profile.present_metrics(s), profile.compute_capability(s)) for s in asked] == (
        from_columns
    )
