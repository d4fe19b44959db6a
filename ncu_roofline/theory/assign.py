"""Join theory to profiled launches and compare it with the measurement.

Two sources, tried in order for each launch configuration (kernel, NVTX
range, grid, block):

1. the estimates file (``--theory``): the first matching rule, confidence
   ``user``;
2. the model (``--model`` / ``--model-config``): the kernel-name family
   (:mod:`ncu_roofline.theory.families`) picks the candidate ops of one
   layer; several candidates (the four projections of a layer are all GEMMs)
   are told apart by the measured FLOPs, else the measured DRAM bytes, else
   the order in which they first run.  Confidence ``high`` when the measured
   work is within 25% of the chosen op's, ``medium`` within 2x or for a
   family with a single candidate, ``low`` otherwise.

Kernels that match nothing get no theory and are listed; an invented
estimate would be worse than none.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
import pandas as pd

from ncu_roofline.core.frame import column, floats
from ncu_roofline.theory.config import TheoryConfig
from ncu_roofline.theory.estimates import TheoryFile
from ncu_roofline.theory.families import classify_names
from ncu_roofline.theory.models import ModelOp
from ncu_roofline.theory.ops import OpEstimate

#: Model roles each kernel-name family can stand for, most likely first.
FAMILY_ROLES: dict[str, tuple[str, ...]] = {
    "gemm": ("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head"),
    "gemv": ("qkv_proj", "o_proj", "gate_up_proj", "down_proj", "lm_head"),
    "grouped_gemm": ("moe_gate_up", "moe_down"),
    "attention_decode": ("attention",),
    "attention_prefill": ("attention",),
    "rmsnorm": ("rmsnorm", "add_rmsnorm", "final_norm"),
    "add_rmsnorm": ("add_rmsnorm", "rmsnorm"),
    "act_and_mul": ("act_and_mul",),
    "rope": ("rope",),
    "kv_append": ("kv_append",),
    "embedding": ("embedding",),
    "topk_sample": ("sampling",),
    "communication": ("allreduce",),
}
#: A GEMM launch whose measured FLOPs differ from every projection by more
#: than this factor is not one of the model's projections.
MAX_GEMM_MISMATCH = 4.0
#: ... or whose FLOPs fall below this fraction of a projection's (no GEMM
#: does less math than its shape needs) ...
MIN_FLOP_RATIO = 0.8
#: ... or whose DRAM bytes fall below this fraction of its minimal bytes
#: (the weights alone are read once per launch) is not that projection.
MIN_BYTE_RATIO = 0.7

#: Phase each attention family belongs to.
_ATTENTION_PHASE = {"attention_decode": "decode", "attention_prefill": "prefill"}


@dataclass
class _Choice:
    estimate: OpEstimate
    source: str
    confidence: str
    family: str | None


def apply_theory(
    launches: pd.DataFrame, config: TheoryConfig
) -> tuple[dict[str, npt.NDArray[np.generic]], list[str]]:
    """Theory columns for every launch, and the kernels left without theory.

    Rules and single-candidate families are resolved once per launch
    configuration.  GEMMs are resolved per launch, vectorised: one kernel
    with one grid often serves several projections of different shapes.
    """
    keys, gid, first = _launch_configs(launches)
    choices = _rule_choices(config.file, keys, first)
    assignments: list[_GemmAssignment] = []
    if config.model is not None:
        assignments = _assign_model(config, keys, first, choices)
    if config.file is not None:
        _add_rule_families(keys, first, choices)
    cols = _choice_columns(choices, gid)
    done: set[int] = set()
    for assignment in assignments:
        done |= _fill_gemm_launches(launches, gid, assignment, cols)
    _distrust_low_bytes(launches, cols)
    unmatched = [
        str(keys["kernel"].iat[first[g]])
        for g in range(len(choices))
        if choices[g] is None and g not in done
    ]
    return cols, list(dict.fromkeys(unmatched))


def _launch_configs(
    launches: pd.DataFrame,
) -> tuple[pd.DataFrame, npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """The (kernel, NVTX range, grid, block) key of every launch, its
    configuration number, and the first launch of each configuration."""
    n = len(launches)
    keys = pd.DataFrame(
        {
            "kernel": launches["kernel"].astype(object).fillna(""),
            "nvtx": launches["nvtx"].astype(object).fillna("") if "nvtx" in launches else "",
            "grid": launches["grid"].astype(object).fillna(""),
            "block": launches["block"].astype(object).fillna(""),
        }
    )
    gid = keys.groupby(["kernel", "nvtx", "grid", "block"], sort=False).ngroup().to_numpy()
    first = (
        pd.Series(np.arange(n)).groupby(gid).first().to_numpy() if n else np.array([], dtype=int)
    )
    return keys, gid, first


def _rule_choices(
    file: TheoryFile | None, keys: pd.DataFrame, first: npt.NDArray[np.int64]
) -> list[_Choice | None]:
    """Per configuration, the first rule of the estimates file that matches it."""
    choices: list[_Choice | None] = [None] * len(first)
    if file is None:
        return choices
    for g, row in enumerate(first):
        found = file.find(
            str(keys["kernel"].iat[row]),
            str(keys["nvtx"].iat[row]) or None,
            str(keys["grid"].iat[row]) or None,
            str(keys["block"].iat[row]) or None,
        )
        if found is not None:
            rule, est = found
            choices[g] = _Choice(est, f"{rule.origin} ({rule.label})", "user", None)
    return choices


def _add_rule_families(
    keys: pd.DataFrame, first: npt.NDArray[np.int64], choices: list[_Choice | None]
) -> None:
    """Rule-assigned kernels still get their family, for the likely causes."""
    if not any(c is not None and c.family is None for c in choices):
        return
    fams = classify_names(str(keys["kernel"].iat[row]) for row in first)
    for g, c in enumerate(choices):
        if c is not None and c.family is None:
            fam = fams[str(keys["kernel"].iat[first[g]])].family
            c.family = None if fam == "unknown" else fam


def _choice_columns(
    choices: list[_Choice | None], gid: npt.NDArray[np.int64]
) -> dict[str, npt.NDArray[np.generic]]:
    """The theory columns of every launch from its configuration's choice."""
    n = len(gid)
    cols: dict[str, npt.NDArray[np.generic]] = {
        "theory_flops": np.full(n, np.nan),
        "theory_bytes": np.full(n, np.nan),
    }
    g_flops = np.array([c.estimate.flops if c else np.nan for c in choices], dtype=np.float64)
    g_bytes = np.array([c.estimate.bytes if c else np.nan for c in choices], dtype=np.float64)
    if n:
        cols["theory_flops"] = g_flops[gid]
        cols["theory_bytes"] = g_bytes[gid]
    getters: dict[str, Callable[[_Choice], str | None]] = {
        "theory_op": lambda c: c.estimate.op,
        "theory_label": lambda c: c.estimate.label,
        "theory_precision": lambda c: c.estimate.precision,
        "theory_source": lambda c: c.source,
        "confidence": lambda c: c.confidence,
        "family": lambda c: c.family,
    }
    for name, getter in getters.items():
        values: npt.NDArray[np.object_] = np.empty(len(choices), dtype=object)
        values[:] = [getter(c) if c else None for c in choices]
        cols[name] = values[gid] if n else np.full(n, None, dtype=object)
    return cols


def _distrust_low_bytes(launches: pd.DataFrame, cols: dict[str, npt.NDArray[np.generic]]) -> None:
    """A launch moving under half its minimal bytes contradicts its theory
    (wrong phase, batch or sequence length, or an L2-resident input)."""
    if "dram_bytes" not in launches:
        return
    measured = floats(launches["dram_bytes"])
    with np.errstate(divide="ignore", invalid="ignore"):
        low = (measured / np.asarray(cols["theory_bytes"], dtype=np.float64)) < 0.5
    cols["confidence"][low & (cols["confidence"] != "user")] = "low"


@dataclass
class _GemmAssignment:
    """GEMM launch configurations left for per-launch assignment."""

    groups: list[int]
    roles: list[str]
    estimates: list[OpEstimate]
    label: str
    families: dict[int, str]


def _fill_gemm_launches(
    launches: pd.DataFrame,
    gid: npt.NDArray[np.int64],
    gemm: _GemmAssignment,
    cols: dict[str, npt.NDArray[np.generic]],
) -> set[int]:
    """Pick each GEMM launch's projection by its measured FLOPs and bytes together.

    A candidate is admissible when the launch's FLOPs are between
    :data:`MIN_FLOP_RATIO` and :data:`MAX_GEMM_MISMATCH` times its theory
    and its DRAM bytes between :data:`MIN_BYTE_RATIO` and
    :data:`MAX_GEMM_MISMATCH` times its minimal bytes (a GEMM's bytes are
    mostly its weights, read about once); the closest admissible one (sum
    of the two log ratios) wins.  A
    launch with no admissible candidate, or with neither measurement, gets no
    theory.  Returns the configurations that got some.
    """
    rows = np.nonzero(np.isin(gid, gemm.groups))[0]
    if rows.size == 0:
        return set()
    choice, matched, confidence = _pick_projections(launches, rows, gemm.estimates)
    rows, choice, confidence = rows[matched], choice[matched], confidence[matched]
    est = gemm.estimates
    cols["theory_flops"][rows] = np.array([e.flops for e in est])[choice]
    cols["theory_bytes"][rows] = np.array([e.bytes for e in est])[choice]
    for name, values in (
        ("theory_op", [e.op for e in est]),
        ("theory_label", [e.label for e in est]),
        ("theory_precision", [e.precision for e in est]),
        ("theory_source", [f"{gemm.label}: {r}" for r in gemm.roles]),
    ):
        arr: npt.NDArray[np.object_] = np.empty(len(values), dtype=object)
        arr[:] = values
        cols[name][rows] = arr[choice]
    cols["confidence"][rows] = confidence
    fam: npt.NDArray[np.object_] = np.empty(rows.size, dtype=object)
    fam[:] = [gemm.families[g] for g in gid[rows]]
    cols["family"][rows] = fam
    return set(np.unique(gid[rows]).tolist())


def _pick_projections(
    launches: pd.DataFrame, rows: npt.NDArray[np.intp], estimates: list[OpEstimate]
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.bool_], npt.NDArray[np.object_]]:
    """For each launch of ``rows``: the closest admissible candidate, whether
    there is one, and the confidence of the pick."""
    # Measured over theory, per launch and candidate.  Minimal bytes are a
    # floor (mostly weights, whatever the batch), so a launch that moves far
    # fewer bytes is not that projection; FLOPs may exceed theory (tile
    # padding counts) but not fall far below it.
    th_f = np.asarray([e.flops for e in estimates], dtype=np.float64)
    th_b = np.asarray([e.bytes for e in estimates], dtype=np.float64)
    meas_f = column(launches, "flops")[rows]
    meas_b = column(launches, "dram_bytes")[rows]
    with np.errstate(divide="ignore", invalid="ignore"):
        f = meas_f[:, None] / th_f[None, :]
        b = meas_b[:, None] / th_b[None, :]
    f_known = np.isfinite(f) & (f > 0)
    b_known = np.isfinite(b) & (b > 0)
    admissible = (f_known | b_known) & (
        ~f_known | ((f >= MIN_FLOP_RATIO) & (f <= MAX_GEMM_MISMATCH))
    )
    admissible &= ~b_known | ((b >= MIN_BYTE_RATIO) & (b <= MAX_GEMM_MISMATCH))
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(f_known, np.abs(np.log(f)), 0.0) + np.where(
            b_known, np.abs(np.log(b)), 0.0
        )
    score = np.where(admissible, score, np.inf)
    choice = score.argmin(axis=1)
    pick = np.arange(rows.size)
    matched = np.isfinite(score[pick, choice])
    cf, cb = f[pick, choice], b[pick, choice]
    cf_known, cb_known = f_known[pick, choice], b_known[pick, choice]
    confidence = np.full(rows.size, "low", dtype=object)
    medium = (cf_known & (cf <= 2.0)) | (cb_known & (cb <= 1.5))
    high = cf_known & (cf >= MIN_FLOP_RATIO) & (cf <= 1.25) & cb_known & (cb <= 2.0)
    confidence[medium] = "medium"
    confidence[high] = "high"
    return choice, matched, confidence


def _assign_model(
    config: TheoryConfig,
    keys: pd.DataFrame,
    first: npt.NDArray[np.int64],
    choices: list[_Choice | None],
) -> list[_GemmAssignment]:
    """Choose the model op of every configuration no rule matched.

    Single-candidate families get their op here (in ``choices``); GEMM and
    grouped-GEMM configurations come back for per-launch assignment.
    """
    ops = config.model_ops()
    by_role: dict[str, ModelOp] = {}
    for op in ops:
        by_role.setdefault(op.role, op)
    assert config.model is not None
    model_label = f"model {config.model.key} {config.phase} b={config.batch} seq={config.seq}"
    families = classify_names(str(keys["kernel"].iat[i]) for i in first)
    per_launch: dict[str, list[int]] = {"gemm": [], "grouped_gemm": []}
    for g, row in enumerate(first):
        if choices[g] is not None:
            continue
        kf = families[str(keys["kernel"].iat[row])]
        fam = kf.family
        phase = _ATTENTION_PHASE.get(fam)
        if phase is not None and phase != config.phase:
            continue
        if kf.details.get("op") == "moe_gating":
            # Router top-k over experts, not token sampling over the vocabulary.
            continue
        roles = [r for r in FAMILY_ROLES.get(fam, ()) if r in by_role]
        if not roles:
            continue
        if fam in ("gemm", "gemv"):
            per_launch["gemm"].append(g)
            continue
        if fam == "grouped_gemm":
            per_launch["grouped_gemm"].append(g)
            continue
        # The family says which op it is (a plain RMSNorm is not the fused
        # add + RMSNorm); later roles only stand in when the model lacks it.
        role = roles[0]
        choices[g] = _Choice(by_role[role].estimate, f"{model_label}: {role}", "medium", fam)

    out = []
    for kind, candidates in (
        ("gemm", [*FAMILY_ROLES["gemm"], "moe_router"]),
        ("grouped_gemm", list(FAMILY_ROLES["grouped_gemm"])),
    ):
        roles = [r for r in candidates if r in by_role]
        groups = per_launch[kind]
        if not roles or not groups:
            continue
        out.append(
            _GemmAssignment(
                groups=groups,
                roles=roles,
                estimates=[by_role[r].estimate for r in roles],
                label=model_label,
                families={g: families[str(keys["kernel"].iat[first[g]])].family for g in groups},
            )
        )
    return out
