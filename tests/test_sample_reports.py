"""The committed sample export matches the script that makes it."""

from __future__ import annotations

import importlib.util
import sys

from ncu_roofline import load
from tests.helpers import REPO


def _script(name: str):  # type: ignore[no-untyped-def]
    """The module of ``sample_reports/NAME.py``, loaded from its file."""
    spec = importlib.util.spec_from_file_location(name, REPO / "sample_reports" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the class is built
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _module():  # type: ignore[no-untyped-def]
    return _script("make_simulated")


def test_simulated_sample_is_current() -> None:
    mod = _module()
    committed = mod.OUT.read_text(encoding="utf-8")
    assert committed == mod.render(), "run python sample_reports/make_simulated.py"


def test_simulated_sample_is_labelled_and_reads() -> None:
    mod = _module()
    text = mod.OUT.read_text(encoding="utf-8")
    assert "SIMULATED SAMPLE" in text.splitlines()[1]
    profile = load(mod.OUT)
    df = profile.launches
    assert len(df) == 44
    # Launch 1 is the QKV GEMV: N = 4096 + 2*8*128 = 6144, K = 4096, so one
    # FMA per weight element.
    assert df.loc[1, "sm__sass_thread_inst_executed_op_ffma_pred_on.sum"] == 6144 * 4096
    assert df.loc[1, "kernel_short"] == "gemvx::kernel<cublasGemvParamsEx>"
    assert (df["duration_basis"] == "gpu__time_duration").all()


def _reports_module():  # type: ignore[no-untyped-def]
    return _script("make_reports")


def test_sample_reports_are_current() -> None:
    mod = _reports_module()
    for name, text in mod.reports().items():
        committed = (REPO / "sample_reports" / name).read_text(encoding="utf-8")
        assert committed == text, f"{name} is stale: run python sample_reports/make_reports.py"


def test_sample_html_report_names_its_findings() -> None:
    html = (REPO / "sample_reports" / "simulated_llama3_8b_decode_h100.report.html").read_text(
        encoding="utf-8"
    )
    # The simulated decode attention reads 4x its minimal KV bytes.
    assert "excess-traffic" in html
    assert "flash_fwd_splitkv_kernel" in html
    assert "https://cdn.plot.ly/plotly-" in html


def _timeline_module():  # type: ignore[no-untyped-def]
    return _script("make_timeline")


def test_simulated_timeline_is_current_and_joins() -> None:
    mod = _timeline_module()
    texts = mod.render()
    for name, text in texts.items():
        committed = (REPO / "sample_reports" / name).read_text(encoding="utf-8")
        assert committed == text, f"{name} is stale: run python sample_reports/make_timeline.py"
    from ncu_roofline import analyze
    from ncu_roofline.analysis.budget import attach_timeline
    from ncu_roofline.readers.nsys import load_timeline

    timeline = load_timeline([REPO / "sample_reports" / n for n in texts])
    analysis = attach_timeline(analyze(load(REPO / mod.SAMPLE)), timeline)
    assert analysis.budget is not None
    cap = analysis.budget
    per_step = 44 + 2 * 44 + 1  # profiled launches, two elementwise kernels after each, argmax
    assert cap["kernels"] == mod.STEPS * per_step
    assert len(analysis.budget["steps"]) == mod.STEPS
    # Every profiled launch of every step joins its group; the rest are not profiled.
    joins = analysis.budget["joins"]
    assert joins is not None
    assert joins["joined_exact"] == mod.STEPS * 44
    assert joins["not_joined"] == mod.STEPS * (2 * 44 + 1)
    parts = cap["kernel_s"] + (cap["memcpy_s"] or 0) + (cap["gaps_s"] or 0)
    assert cap["span_s"] is not None and abs(parts - cap["span_s"]) < 1e-12


def test_notebook_analyze_takes_a_timeline() -> None:
    import ncu_roofline

    mod = _timeline_module()
    paths = [REPO / "sample_reports" / n for n in mod.render()]
    analysis = ncu_roofline.analyze(ncu_roofline.load(REPO / mod.SAMPLE), nsys=paths)
    assert analysis.budget is not None and len(analysis.budget["steps"]) == mod.STEPS
    # Every group of the sample ran in every step: real time for all of them.
    assert set(analysis.kernels["time_basis"]) == {"nsys"}
    assert (analysis.kernels["nsys_instances"] % mod.STEPS == 0).all()
