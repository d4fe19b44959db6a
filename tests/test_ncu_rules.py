"""ncu's own rule results and estimated speedups: read, joined to launches, and used to rank.

Expected values are read off the exports by hand (quoted in each test).
"""

from __future__ import annotations

import csv
import io
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from helpers import DATA
from hypothesis import example, given, settings
from hypothesis import strategies as st

import ncu_roofline
from ncu_roofline.analysis.ncu_rules import (
    combine,
    disagrees,
    group_rules,
    launch_rule_columns,
    rank_bound,
)
from ncu_roofline.core.model import SourceInfo
from ncu_roofline.core.rules import speedup_number
from ncu_roofline.render.markdown_report import render_markdown
from ncu_roofline.report.context import build_context

CODEGANDEE = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
BERT = (
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__"
    "attention_actual_parameter_analysis_data_5-9_bert_torch_nsight.csv"
)
NBODY = "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep"
DAXPY = "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep"


def _analyse(samples_dir: Path, name: str) -> Any:
    return ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / name)]))


def test_codegandee_rule_rows(samples_dir: Path) -> None:
    """The four rule rows of launch 0 (process 1742833), as printed:

    ``SpeedOfLight,SOLBottleneck,OPT,…,"",""``,
    ``SpeedOfLight_RooflineChart,SOLFPRoofline,INF,…,"",""``,
    ``SchedulerStats,IssueSlotUtilization,OPT,…,"local","67.9"``,
    ``Occupancy,TheoreticalOccupancy,OPT,…,"global","67.9"``.
    """
    a = _analyse(samples_dir, CODEGANDEE)
    rules = a.launches["ncu_rules"].iloc[0]
    got = [(r["name"], r["type"], r["section"], r["speedup_type"], r["speedup_pct"]) for r in rules]
    assert got == [
        ("SOLBottleneck", "OPT", "SpeedOfLight", None, None),
        ("SOLFPRoofline", "INF", "SpeedOfLight_RooflineChart", None, None),
        ("IssueSlotUtilization", "OPT", "SchedulerStats", "local", 67.9),
        ("TheoreticalOccupancy", "OPT", "Occupancy", "global", 67.9),
    ]
    # A launch's records leave the texts to the frame (and to its group's records).
    assert all("message" not in r for r in rules)
    messages = a.launches["ncu_rule_messages"].iloc[0]
    assert messages[3].startswith("The 2.00 theoretical warps per scheduler")
    group = {r["name"]: r for r in a.kernels["ncu_rules"].iloc[0]}
    assert group["TheoreticalOccupancy"]["message"] == messages[3]


def test_codegandee_ncu_recoverable_by_hand(samples_dir: Path) -> None:
    """Duration 111.81 us (``Duration,us,111.81``) x the largest estimate 67.9% / 100
    = 75.919 us; of the two 67.9% estimates the global one (of the kernel's time)
    is named."""
    a = _analyse(samples_dir, CODEGANDEE)
    row = a.launches.iloc[0]
    assert row["ncu_speedup_pct"] == 67.9
    assert row["ncu_recoverable_s"] == pytest.approx(111.81e-6 * 0.679, rel=1e-12)
    assert row["ncu_recoverable_basis"] == "TheoreticalOccupancy (global 67.9%)"
    k = a.kernels.iloc[0]
    assert k["ncu_recoverable_s"] == pytest.approx(111.81e-6 * 0.679, rel=1e-12)
    # Ours is known and smaller: it is the recoverable time, and the two agree within 2x.
    assert row["roof_recoverable_s"] < row["ncu_recoverable_s"]
    assert k["recoverable_s"] == pytest.approx(k["roof_recoverable_s"])
    assert k["recoverable_bound_by"] == "ours"
    assert not k["ncu_disagrees"]
    group = {r["name"]: r for r in k["ncu_rules"]}
    assert group["TheoreticalOccupancy"]["speedup_pct"] == 67.9
    assert group["TheoreticalOccupancy"]["launches"] == 1


def test_bert_old_rule_columns_have_no_speedup(samples_dir: Path) -> None:
    """ncu 2021.2: three rule columns (``Rule Name,Rule Type,Rule Description``), no
    estimate.  Launch 0's only rule row: ``Occupancy,WRN,"This kernel's theoretical
    occupancy (62.5%) is limited by the number of required registers …"``; 51 rule
    rows in all."""
    profile = ncu_roofline.load([str(samples_dir / BERT)])
    assert len(profile.sources[0].rules) == 51
    a = ncu_roofline.analyze(profile)
    rules = a.launches["ncu_rules"].iloc[0]
    assert [(r["name"], r["type"], r["section"]) for r in rules] == [
        ("Occupancy", "WRN", "Occupancy")
    ]
    assert rules[0]["speedup_pct"] is None and rules[0]["speedup_type"] is None
    assert np.isnan(a.launches["ncu_recoverable_s"]).all()
    # Without ncu estimates the ranking is ours alone.
    ours = a.launches["roof_recoverable_s"].to_numpy(dtype=float)
    ranked = a.launches["recoverable_s"].to_numpy(dtype=float)
    assert np.array_equal(ours, ranked, equal_nan=True)


def test_ncu_rep_rule_results(samples_dir: Path) -> None:
    """A100 N-body report (ncu 2022.2): calculate_velocity has ten rule results, from
    ``HighPipeUtilization`` (ComputeWorkloadAnalysis) to ``SOLFPRoofline``; the SOL
    rule is a warning ("Compute is more heavily utilized than Memory"), the roofline
    rule an INF; no estimates in 2022 reports."""
    pytest.importorskip("ncu_report")
    a = _analyse(samples_dir, NBODY)
    row = a.launches[a.launches["kernel_short"] == "calculate_velocity"].iloc[0]
    rules = row["ncu_rules"]
    assert len(rules) == 10
    assert rules[0]["name"] == "HighPipeUtilization"
    assert rules[0]["section"] == "ComputeWorkloadAnalysis"
    at = next(i for i, r in enumerate(rules) if r["name"] == "SOLBottleneck")
    assert (rules[at]["type"], rules[at]["section"]) == ("WRN", "SpeedOfLight")
    message = row["ncu_rule_messages"][at]
    assert message.startswith("Compute is more heavily utilized than Memory")
    assert next(r for r in rules if r["name"] == "SOLFPRoofline")["type"] == "INF"
    assert all(r["speedup_pct"] is None for r in rules)
    assert math.isnan(row["ncu_recoverable_s"])


def test_daxpy_report_rules_per_launch(samples_dir: Path) -> None:
    """RTX 3070 NVTX sample: every launch has the Occupancy (WRN) and SOLBottleneck (INF) rules."""
    pytest.importorskip("ncu_report")
    a = _analyse(samples_dir, DAXPY)
    for rules in a.launches["ncu_rules"]:
        assert [(r["name"], r["type"]) for r in rules] == [
            ("Occupancy", "WRN"),
            ("SOLBottleneck", "INF"),
        ]


def test_rank_bound_takes_the_smaller_and_says_which() -> None:
    nan = float("nan")
    ours = np.array([1.0, 3.0, nan, 2.0, nan])
    ncu = np.array([2.0, 1.0, 4.0, nan, nan])
    value, by = rank_bound(ours, ncu)
    assert np.array_equal(value, [1.0, 1.0, 4.0, 2.0, nan], equal_nan=True)
    assert by.tolist() == ["ours", "ncu", "ncu", "ours", None]


def test_disagreement_is_more_than_twice() -> None:
    nan = float("nan")
    ours = np.array([1.0, 1.0, 3.0, nan, 0.0])
    ncu = np.array([2.0, 2.01, 1.0, 5.0, 0.0])
    assert disagrees(ours, ncu).tolist() == [False, True, True, False, False]


@pytest.mark.parametrize(
    ("text", "value"),
    [("67.9", 67.9), ("50", 50.0), ("1,234.5", 1234.5), ("", None), ("n/a", None), ("-3", None)],
)
def test_speedup_number(text: str, value: float | None) -> None:
    got = speedup_number(text)
    assert (math.isnan(got) and value is None) or got == value


def test_markdown_and_page_show_ncu_beside_ours(samples_dir: Path) -> None:
    context = build_context(_analyse(samples_dir, CODEGANDEE))
    text = render_markdown(context)
    assert "### ncu's own estimates" in text
    assert "ncu 75.9 µs" in text
    assert "TheoreticalOccupancy (OPT, global 67.9%)" in text


def test_text_output_rule_paragraphs() -> None:
    """heat_eq text output (RTX 4060-class, CC 8.9), first launch heat_kernel_2d (45.86 us):

    ``OPT   Memory is more heavily utilized than Compute: …`` under the SOL section,
    then under Occupancy ``OPT   Est. Local Speedup: 30.24%`` followed by "The
    difference between calculated theoretical (100.0%) and measured achieved
    occupancy (69.8%) …".  Text output prints no rule name.  ncu's recoverable
    time: 45.86 us x 30.24% = 13.868 us.
    """

    a = ncu_roofline.analyze(ncu_roofline.load([str(DATA / "ncu-text" / "heat_eq_ncu_output.txt")]))
    row = a.launches.iloc[0]
    rules = row["ncu_rules"]
    assert [(r["name"], r["type"], r["section"]) for r in rules] == [
        (None, "OPT", "GPU Speed Of Light Throughput"),
        (None, "OPT", "Occupancy"),
    ]
    messages = row["ncu_rule_messages"]
    assert messages[0].startswith("Memory is more heavily utilized than Compute: Look")
    assert messages[0].endswith("whether there are values you can (re)compute.")
    assert (rules[1]["speedup_type"], rules[1]["speedup_pct"]) == ("local", 30.24)
    assert messages[1].startswith("The difference between calculated theoretical")
    assert row["ncu_recoverable_s"] == pytest.approx(45.86e-6 * 0.3024, rel=1e-12)
    assert row["ncu_recoverable_basis"] == "Occupancy (local 30.24%)"


def test_ncu_estimate_bounds_the_recoverable_time() -> None:
    """ncu's estimate is a bound like ours: it becomes ``recoverable_s`` where it is
    smaller or ours is unknown, and the basis names its rule.

    Launch 0 (1 ms): ours unknown, ncu's IssueSlotUtilization global 20% -> 0.2 ms.
    Launch 1 (2 ms): ours 1.5 ms, ncu's 10% -> 0.2 ms, the smaller.
    Launch 2 (1 ms): ours 0.1 ms, ncu's 50% -> 0.5 ms: ours stays.
    """
    info = SourceInfo(path="p.csv", layout="details")
    for lid, pct in ((0, 20.0), (1, 10.0), (2, 50.0)):
        info.rules.add(7, lid, "IssueSlotUtilization", "OPT", "SchedulerStats", "m", "global", pct)
    frame = pd.DataFrame(
        {
            "source": ["p.csv"] * 3,
            "process_id": [7, 7, 7],
            "id": [0, 1, 2],
            "total_duration_s": [1e-3, 2e-3, 1e-3],
            "recoverable_s": [np.nan, 1.5e-3, 1e-4],
            "recoverable_basis": [None, "busiest unit: DRAM at 25%", "busiest unit: DRAM at 90%"],
        }
    )
    cols = combine(frame, [info])
    assert cols["recoverable_s"] == pytest.approx([2e-4, 2e-4, 1e-4])
    assert list(cols["recoverable_bound_by"]) == ["ncu", "ncu", "ours"]
    assert np.array_equal(cols["roof_recoverable_s"], [np.nan, 1.5e-3, 1e-4], equal_nan=True)
    assert cols["recoverable_basis"][0] == (
        "ncu's estimated speedup: IssueSlotUtilization (global 20%)"
    )
    assert cols["recoverable_basis"][2] == "busiest unit: DRAM at 90%"


def test_disagreement_compares_the_launches_ncu_estimated(
    samples_dir: Path, tmp_path: Path
) -> None:
    """CodeGandee's GEMM launch with two copies of its metric rows (IDs 1 and 2) and
    no rule rows for them: ncu estimated one launch (75.92 us), ours covers three
    (about 3 x 75.8 us).  Like for like, the one launch ncu estimated agrees with ours
    within 2x: no disagreement, although the group's sums differ threefold."""
    src = samples_dir / CODEGANDEE
    lines = src.read_text(encoding="utf-8").splitlines()
    header = next(csv.reader([lines[0]]))
    rows = [next(csv.reader([line])) for line in lines[1:] if line.strip()]
    metric_rows = [r for r in rows if len(r) < len(header)]
    assert len(metric_rows) < len(rows)  # the export has rule rows
    out = io.StringIO()
    writer = csv.writer(out, quoting=csv.QUOTE_ALL, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    for copy in ("1", "2"):
        writer.writerows([copy, *r[1:]] for r in metric_rows)
    path = tmp_path / "three_launches.csv"
    path.write_text(out.getvalue(), encoding="utf-8")
    a = ncu_roofline.analyze(ncu_roofline.load([str(path)]))
    k = a.kernels.iloc[0]
    assert k["launches"] == 3
    assert k["ncu_recoverable_s"] == pytest.approx(111.81e-6 * 0.679, rel=1e-12)
    assert k["roof_recoverable_s"] > 2.5 * k["ncu_recoverable_s"]
    assert not k["ncu_disagrees"]


def test_tail_effect_agrees_with_ncus_launch_rule(samples_dir: Path) -> None:
    """BERT's distribution_elementwise_grid_stride_kernel, launch 2: 1.42 waves, and
    ncu's LaunchConfiguration rule "1 full waves and a partial wave of 227 thread
    blocks ... the partial wave may account for up to 50.0% of the total kernel
    runtime".  Ours: (1 - 0.42) / 2 = 29% of that launch, within ncu's 50% bound."""
    a = ncu_roofline.analyze(ncu_roofline.load([str(samples_dir / BERT)]), gpu="a100_40gb_sxm")
    launch = a.launches[(a.launches["id"] == 2)].iloc[0]
    assert launch["ncu_tail_pct"] == 50.0
    assert launch["tail_loss"] == pytest.approx((1 - 0.42) / 2, abs=1e-9)
    assert a.launches[a.launches["id"] != 2]["ncu_tail_pct"].isna().all()
    tail = [f for f in a.findings if f.kind == "tail-effect"]
    assert len(tail) == 1
    assert "up to 50% of the runtime: this estimate is within that bound" in tail[0].message


def test_rule_row_ids_as_python_reads_them() -> None:
    """IDs with a plus, leading zeros or 19 digits are read as Python's int reads them;
    one past an int64 is a damaged row, left out."""
    from ncu_roofline.readers.rule_rows import rule_table

    header = ["ID", "Process ID", "Kernel Name", "Rule Name", "Rule Type", "Rule Description"]

    def row(launch: str, pid: str) -> str:
        return ",".join(f'"{v}"' for v in (launch, pid, "k", "SOLBottleneck", "OPT", "m"))

    table = rule_table(
        [
            row("+7", "0000000000000000000042"),
            row("0009223372036854775807", "1"),
            row("9223372036854775808", "1"),
            row(" 1,234 ", "-0"),
        ],
        header,
    )
    assert table.launch_id == [7, 2**63 - 1, 1234]
    assert table.process_id == [42, 1, 0]


def test_equal_rule_rows_share_one_record_and_tail_shares_read_per_message() -> None:
    message = "the partial wave may account for up to 37.5% of the total kernel runtime"
    rules = pd.DataFrame(
        {
            "launch": [0, 0, 1, 2, 2],
            "name": ["TailEffect", "Occupancy", "TailEffect", "TailEffect", "Bad"],
            "type": ["OPT"] * 5,
            "section": ["LaunchStats"] * 5,
            "speedup_type": ["global"] * 5,
            "speedup_pct": [12.5, np.nan, 12.5, 12.5, 3.0],
            "message": [
                message,
                "occupancy is limited",
                message,
                message,
                "may account for up to 1.2.3% (partial wave)",
            ],
        }
    )
    got = launch_rule_columns(rules, 4, np.array([1.0, 2.0, 4.0, 8.0]))
    first, again, third = got["ncu_rules"][0][0], got["ncu_rules"][1][0], got["ncu_rules"][2][0]
    # One dict for the three equal TailEffect rows, as the per-row records read.
    assert first is again is third
    assert first == {
        "name": "TailEffect",
        "type": "OPT",
        "section": "LaunchStats",
        "speedup_type": "global",
        "speedup_pct": 12.5,
    }
    assert got["ncu_rules"][0][1]["speedup_pct"] is None
    assert got["ncu_rules"][3] is None
    # Launches with the same rule results share one list; others have their own.
    again_rules = launch_rule_columns(
        pd.concat([rules, rules.assign(launch=rules["launch"] + 4)], ignore_index=True),
        8,
        np.ones(8),
    )["ncu_rules"]
    assert again_rules[0] is again_rules[4]
    assert again_rules[2] is again_rules[6]
    assert again_rules[0] is not again_rules[2]
    assert again_rules[1] == [first] and again_rules[1] is not again_rules[0]
    # 37.5 where a rule says it; "1.2.3" is no number; launch 3 has no rule.
    tail = got["ncu_tail_pct"]
    assert tail[:3].tolist() == [37.5, 37.5, 37.5]
    assert math.isnan(tail[3])


def test_group_rule_fields_left_blank_are_none_not_nan() -> None:
    """A rule without type or section (blank, or missing in a binary report) says None."""
    records = [
        {
            "name": "Occupancy",
            "type": "",
            "section": None,
            "speedup_type": None,
            "speedup_pct": 3.0,
        },
        {"name": "Tail", "type": "OPT", "section": "", "speedup_type": None, "speedup_pct": None},
    ]
    listed = np.empty(2, dtype=object)
    listed[0] = records
    listed[1] = records[:1]
    messages = np.empty(2, dtype=object)
    messages[0] = ["occupancy", "tail"]
    messages[1] = ["occupancy"]
    (entries,) = group_rules(listed, messages, np.array([0, 0]), 1)
    by_name = {e["name"]: e for e in entries}
    assert by_name["Occupancy"]["type"] is None
    assert by_name["Occupancy"]["section"] is None
    assert by_name["Tail"]["section"] is None
    assert by_name["Tail"]["type"] == "OPT"
    assert by_name["Occupancy"]["launches"] == 2


_ID_TEXTS = st.one_of(
    st.text(alphabet="0123456789", min_size=1, max_size=24),
    st.text(alphabet="0123456789-+x, ", max_size=24),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_ID_TEXTS, max_size=12))
def test_rule_row_ids_read_at_once_as_one_by_one(texts: list[str]) -> None:
    # A column of digits alone is cast at once; each value must read as it
    # does alone beside a text that sends it down the slower, regex path.
    import pyarrow as pa

    from ncu_roofline.readers.rule_rows import _wholes

    values, ok = _wholes(pa.array(texts, type=pa.string()))
    for i, text in enumerate(texts):
        one, one_ok = _wholes(pa.array([text, "x"], type=pa.string()))
        assert bool(ok[i]) == bool(one_ok[0]), text
        if one_ok[0]:
            assert values[i] == one[0], text


# Rule rows as ncu repeats them: a few names, blanks and missing values among
# them, equal estimates of both types, 0.0 and -0.0 (which read differently).
_RULE_ROW = st.fixed_dictionaries(
    {
        "launch": st.integers(0, 5),
        "name": st.sampled_from(["Tail", "Occupancy", "", None]),
        "type": st.sampled_from(["OPT", "WRN", None]),
        "section": st.sampled_from(["LaunchStats", "", None]),
        "speedup_type": st.sampled_from(["global", "local", None]),
        "speedup_pct": st.sampled_from([12.5, 3.0, 0.0, -0.0, np.nan]),
        "message": st.sampled_from(["a", "b", "partial wave may account for up to 4.5%", None]),
    }
)


#: One rule result, as ncu repeats it on every launch of a kernel.
_TAIL = {
    "name": "Tail",
    "type": "OPT",
    "section": "LaunchStats",
    "speedup_type": "global",
    "speedup_pct": 12.5,
}


def _rule_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rule rows as ``rule_frame`` gives them: texts as objects, estimates as floats."""
    columns: dict[str, Any] = {
        k: pd.Series([r[k] for r in rows], dtype=object)
        for k in ("name", "type", "section", "speedup_type", "message")
    }
    columns["speedup_pct"] = np.array([r["speedup_pct"] for r in rows], dtype=np.float64)
    columns["launch"] = np.array([r["launch"] for r in rows], dtype=np.int64)
    frame: pd.DataFrame = pd.DataFrame(columns)
    return frame


def _plain(value: Any) -> Any:
    """A value as a record holds it: None where missing."""
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _per_launch_by_hand(rows: list[dict[str, Any]], n: int) -> list[dict[str, Any] | None]:
    """What each launch's rule columns say, read row by row (the definition, no codes)."""
    out: list[dict[str, Any] | None] = [None] * n
    for launch in range(n):
        mine = [r for r in rows if r["launch"] == launch]
        if not mine:
            continue
        records = [
            {k: _plain(r[k]) for k in ("name", "type", "section", "speedup_type", "speedup_pct")}
            for r in mine
        ]
        known = [r for r in mine if not math.isnan(r["speedup_pct"])]
        best = None
        for r in known:  # the largest; of equal ones a global one, then the first
            if best is None or (r["speedup_pct"], r["speedup_type"] == "global") > (
                best["speedup_pct"],
                best["speedup_type"] == "global",
            ):
                best = r
        basis = None
        if best is not None:
            label = best["name"] if best["name"] is not None else best["section"]
            label = "ncu rule" if label is None else label
            kind = best["speedup_type"] or "unknown type"
            basis = f"{label} ({kind} {best['speedup_pct']:g}%)"
        out[launch] = {
            "records": records,
            "messages": [r["message"] for r in mine],
            "pct": best["speedup_pct"] if best is not None else None,
            "basis": basis,
        }
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_RULE_ROW, max_size=30))
# Equal records, different messages: one list of records, two of messages.
@example([{**_TAIL, "launch": 0, "message": "a"}, {**_TAIL, "launch": 1, "message": "b"}])
def test_launch_rule_columns_as_read_row_by_row(rows: list[dict[str, Any]]) -> None:
    n = 6
    frame = _rule_frame(rows)
    got = launch_rule_columns(frame, n, np.full(n, 2.0))
    want = _per_launch_by_hand(rows, n)
    for launch in range(n):
        expect = want[launch]
        if expect is None:
            assert got["ncu_rules"][launch] is None
            assert got["ncu_rule_messages"][launch] is None
            assert math.isnan(got["ncu_speedup_pct"][launch])
            continue
        assert got["ncu_rules"][launch] == expect["records"]
        assert got["ncu_rule_messages"][launch] == expect["messages"]
        assert got["ncu_recoverable_basis"][launch] == expect["basis"]
        if expect["pct"] is None:
            assert math.isnan(got["ncu_speedup_pct"][launch])
        else:
            assert math.copysign(1, got["ncu_speedup_pct"][launch]) == math.copysign(
                1, expect["pct"]
            )
            assert got["ncu_speedup_pct"][launch] == expect["pct"]
    # Equal lists are one list, unequal ones are not.
    known = [(k, w) for k, w in enumerate(want) if w is not None]
    for a, mine in known:
        for b, other in known:
            same = mine["records"] == other["records"]
            assert (got["ncu_rules"][a] is got["ncu_rules"][b]) == same
            both = same and mine["messages"] == other["messages"]
            assert (got["ncu_rule_messages"][a] is got["ncu_rule_messages"][b]) == both


def _groups_by_hand(
    listed: np.ndarray, messages: np.ndarray, gid: np.ndarray, n_groups: int
) -> list[list[dict[str, Any]] | None]:
    """Each group's rule entries, read launch by launch and row by row (the definition)."""
    entries: dict[tuple[Any, ...], dict[str, Any]] = {}
    place = 0
    for launch, records in enumerate(listed):
        if not records:
            continue
        for record, message in zip(records, messages[launch], strict=True):
            place += 1
            key = (int(gid[launch]), *((record[k] or "") for k in ("name", "type", "section")))
            pct = record["speedup_pct"]
            entry = entries.setdefault(key, {"count": 0, "record": None, "place": 0})
            entry["count"] += 1
            old = entry["record"]
            if old is None or (
                pct is not None and (old["speedup_pct"] is None or pct > old["speedup_pct"])
            ):
                entry.update(record=record, message=message, place=place)
    out: list[list[dict[str, Any]] | None] = [None] * n_groups
    for key, entry in sorted(entries.items(), key=lambda kv: kv[1]["place"]):
        r = entry["record"]
        kept = out[key[0]] = out[key[0]] or []
        kept.append(
            {
                "name": r["name"] or None,
                "type": r["type"] or None,
                "section": r["section"] or None,
                "message": entry["message"],
                "speedup_type": r["speedup_type"],
                "speedup_pct": r["speedup_pct"],
                "launches": entry["count"],
            }
        )
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_RULE_ROW, max_size=30), st.lists(st.integers(0, 2), min_size=6, max_size=6))
# Launches 1 and 2 share both lists, launch 0 only the records: the rule
# fired in three launches of the group, counted over two kinds of launch.
@example(
    [{**_TAIL, "launch": 0, "message": "a"}]
    + [{**_TAIL, "launch": k, "message": "b"} for k in (1, 2)],
    [0] * 6,
)
def test_group_rules_as_read_row_by_row(rows: list[dict[str, Any]], groups: list[int]) -> None:
    n = 6
    frame = _rule_frame(rows)
    cols = launch_rule_columns(frame, n, np.ones(n))
    gid = np.asarray(groups, dtype=np.intp)
    want = _groups_by_hand(cols["ncu_rules"], cols["ncu_rule_messages"], gid, 3)
    got = group_rules(cols["ncu_rules"], cols["ncu_rule_messages"], gid, 3)
    assert got.tolist() == want
    # Lists shared or not, the entries are the same.
    copies = np.empty(n, dtype=object)
    texts = np.empty(n, dtype=object)
    for i in range(n):
        copies[i] = (
            None if cols["ncu_rules"][i] is None else [dict(r) for r in cols["ncu_rules"][i]]
        )
        texts[i] = (
            None if cols["ncu_rule_messages"][i] is None else list(cols["ncu_rule_messages"][i])
        )
    assert group_rules(copies, texts, gid, 3).tolist() == want


def test_equal_rules_share_the_record_of_the_first_launch() -> None:
    """0.0 and -0.0 are equal estimates: the record both launches share is the first
    launch's, whatever order the rule rows come in (an export lists them by launch)."""
    rows = [
        {**_TAIL, "launch": 1, "speedup_pct": 0.0, "message": "a"},
        {**_TAIL, "launch": 0, "speedup_pct": -0.0, "message": "a"},
    ]
    got = launch_rule_columns(_rule_frame(rows), 2, np.ones(2))
    first, second = got["ncu_rules"][0][0], got["ncu_rules"][1][0]
    assert first is second
    assert math.copysign(1.0, first["speedup_pct"]) == -1.0
