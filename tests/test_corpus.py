"""How much of every real export the report explains: the corpus figures, pinned.

For each export in ``../shared/ncu-samples/`` (read as a user would, with no
``--gpu``), two shares of its kernel time (duration x invocations; launches
are counted instead where the export holds no duration):

* **named**: launches whose ``limiter`` is a unit or a latency verdict, not
  ``unknown``;
* **judged**: launches with a bound class other than ``not placeable``
  (placed on the roofline, or judged by bandwidth alone where the export
  has no FLOP counters);
* **drawn**: launches with a point on the chart (``placement``: measured
  counters, bandwidth for kernels without floating-point work, or theory).

The exports that stay at 0% lack what no reading can supply: a duration
(the summary page), a GPU to take roofs from (no device name, no compute
capability and no peaks in the file), or FLOP counters (without ``--model``
or ``--theory``).

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

#: Saved name -> (named, judged, drawn) shares of kernel time.
EXPECTED: dict[str, tuple[float, float, float]] = {
    "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv": (
        1.0,
        1.0,
        1.0,
    ),
    "Gardenia-Tian__LearningNote4Dev__CUDA_gemm_output_share_tile.csv": (1.0, 1.0, 1.0),
    # A summary page without a duration: launches are counted, none is judged.
    "Giotyp__GPU-Roofline-Python__multi_kernels_metrics.csv": (0.0, 0.0, 0.0),
    # No device name, no compute capability: no roofs without --gpu.
    "Lakoc__Nbody_CUDA__profile_1.out": (0.0, 0.0, 0.0),
    "Lakoc__Nbody_CUDA__step4_profile_out.ncu-rep": (1.0, 1.0, 1.0),
    # daxpy and friends: no FLOP counters, DRAM at 88-91% by ncu's SOL.
    "NVIDIA__nsight-training__cuda_nsight_compute_sample_reports_manual_nvtx.ncu-rep": (
        1.0,
        1.0,
        0.0,
    ),
    "YKTian-x2b__AI4Materials_EvaluationTool__CodeInstrumentation_TestCase_GCN_res_TorchRes_"
    "ncu_metrics_show_torch.txt": (1.0, 0.0, 0.0),
    "leleucas__Actual-Parameter-Collection-for-Machine-Learning-Operators__attention_actual_"
    "parameter_analysis_data_5-9_bert_torch_nsight.csv": (1.0, 0.0, 0.0),
    "lukas-ruettgers__dphpc-gemm__ncu_benchmark_output.csv": (1.0, 1.0, 1.0),
    # B200 raw page: pipe and issue utilisations, no FLOP or byte counters.
    "meinie0826__Roofline-Analysis__decodebench_results_ncu_flashinfer_paged_decode__gqa_bf16_"
    "b128_ctx2k_p64.ncu.csv": (1.0, 0.0, 0.0),
    "wangzy0327__cuda-roofline__src_output.csv": (1.0, 1.0, 1.0),
    "wangzy0327__cuda-roofline__src_output_A100.csv": (1.0, 0.872, 0.0),
}

#: Figures are shares of time: two decimals say all that matters here.
TOLERANCE = 0.005


def _shares(path: Path) -> tuple[float, float, float]:
    analysis = ncu_roofline.analyze(ncu_roofline.load([str(path)]))
    launches = analysis.launches
    weight = launches["total_duration_s"].to_numpy(dtype=np.float64, na_value=np.nan)
    if not np.nansum(weight) > 0:
        weight = launches["invocations"].to_numpy(dtype=np.float64, na_value=1.0)
    weight = np.nan_to_num(weight)
    total = weight.sum()
    limiter = launches["limiter"].astype(object).to_numpy()
    bound = launches["bound"].astype(object).to_numpy()
    drawn = launches["placement"].notna().to_numpy(dtype=bool)
    named = weight[(limiter != "unknown") & (limiter != None)].sum() / total  # noqa: E711
    judged = weight[(bound != "not placeable") & (bound != None)].sum() / total  # noqa: E711
    return float(named), float(judged), float(weight[drawn].sum() / total)


def test_corpus_shares_named_judged_and_drawn(samples_dir: Path) -> None:
    files = sorted(p for p in samples_dir.iterdir() if p.is_file() and p.name != "INDEX.md")
    assert files, "no exports in the samples folder"
    measured = {p.name: _shares(p) for p in files}
    width = max(len(n) for n in measured)
    print()
    for name, (named, judged, drawn) in measured.items():
        print(f"{name:{width}}  named {named:6.1%}  judged {judged:6.1%}  drawn {drawn:6.1%}")
    means = [float(np.mean([v[i] for v in measured.values()])) for i in range(3)]
    print(f"{'mean':{width}}  named {means[0]:6.1%}  judged {means[1]:6.1%}  drawn {means[2]:6.1%}")
    assert set(measured) == set(EXPECTED), "the samples folder changed: update EXPECTED"
    for name, shares in measured.items():
        assert shares == pytest.approx(EXPECTED[name], abs=TOLERANCE), name
    assert means == pytest.approx(list(MEANS), abs=TOLERANCE)


#: The corpus means (named, judged, drawn).  Before the verdicts read every
#: pipe and issue utilisation, 72.8% of the time had a named limiter.
MEANS = (0.833, 0.573, 0.417)
