"""Unique short kernel names: siblings keep what tells them apart, in every output.

:func:`~ncu_roofline.core.names.unique_short_names` maps each distinct full
name of a profile to a short name; no two distinct full names may share one.
The cases below are names printed by ncu in real exports (the template
arguments of ``InitializeMatrix_kernel``, PyTorch's ``FillFunctor``
instances, CUTLASS kernels differing in their tile suffix).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from ncu_roofline.core.model import short_names
from ncu_roofline.core.names import middle_cut, short_name, unique_short_names
from ncu_roofline.readers import load

FILL = (
    "void at::native::vectorized_elementwise_kernel<(int)4, at::native::FillFunctor<{t}>, "
    "at::detail::Array<char *, (int)1>>(int, T2, T3)"
)
INIT = "void InitializeMatrix_kernel<{t}, (bool)1>(T1 *, int, int, int)"
CUTLASS = (
    "void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_{t}_tn_align8>(T1::Params)"
)


def test_template_argument_tells_initialize_matrix_apart() -> None:
    names = unique_short_names([INIT.format(t="__half"), INIT.format(t="float")])
    assert names == {
        INIT.format(t="__half"): "InitializeMatrix_kernel<__half>",
        INIT.format(t="float"): "InitializeMatrix_kernel<float>",
    }


def test_functor_argument_tells_fill_functors_apart() -> None:
    fulls = [FILL.format(t=t) for t in ("float", "int", "long")]
    names = unique_short_names(fulls)
    assert [names[f] for f in fulls] == [
        "vectorized_elementwise_kernel<FillFunctor<float>>",
        "vectorized_elementwise_kernel<FillFunctor<int>>",
        "vectorized_elementwise_kernel<FillFunctor<long>>",
    ]


def test_unique_names_stay_as_short_name() -> None:
    # A name with no sibling keeps its plain short name.
    fulls = [FILL.format(t="float"), INIT.format(t="float")]
    assert unique_short_names(fulls) == {f: short_name(f) for f in fulls}


def test_differing_text_when_template_arguments_end_alike() -> None:
    # Both differ only inside a lambda-ending template argument (BERT export).
    a = (
        "void at::native::elementwise_kernel<(int)128, (int)2, void at::native::gpu_kernel_impl<"
        "at::native::CUDAFunctor_add<float>>(at::TensorIteratorBase &, const T1 &)::"
        "[lambda(int) (instance 1)]>(int, T3)"
    )
    b = a.replace("at::native::CUDAFunctor_add<float>", "at::native::direct_copy_kernel_cuda")
    names = unique_short_names([a, b])
    assert names[a] == "elementwise_kernel<…CUDAFunctor_add<float…>"
    assert names[b] == "elementwise_kernel<…direct_copy_kernel_cuda…>"


def test_overloads_are_numbered_as_last_resort() -> None:
    a, b = "void f(int)", "void f(float)"
    assert unique_short_names([b, a]) == {a: "f #2", b: "f"}


def test_middle_cut_keeps_both_ends() -> None:
    names = [CUTLASS.format(t=t) for t in ("256x128_32x3", "128x256_64x3", "64x64_64x4")]
    cut = [middle_cut(unique_short_names(names)[n], 32) for n in names]
    assert cut == [
        "Kernel2<cutlass_…32x3_tn_align8>",
        "Kernel2<cutlass_…64x3_tn_align8>",
        "Kernel2<cutlass_…64x4_tn_align8>",
    ]
    assert middle_cut("abcdef", 6) == "abcdef"
    assert middle_cut("abcdefg", 5) == "ab…fg"
    assert middle_cut("abc", 1) == "…"


_PART = st.sampled_from(
    ["float", "int", "__half", "at::native::FillFunctor<float>", "(int)4", "(bool)1", "ns::T<int>"]
)


@st.composite
def _kernel_name(draw: st.DrawFn) -> str:
    scope = draw(st.sampled_from(["", "at::native::", "cutlass::", "a::b<int>::"]))
    stem = draw(
        st.sampled_from(["kernel", "Kernel2", "InitializeMatrix_kernel", "elementwise_kernel"])
    )
    args = draw(st.lists(_PART, max_size=3))
    params = draw(st.sampled_from(["", "(int)", "(float *, int)", "(T1::Params)"]))
    template = f"<{', '.join(args)}>" if args else ""
    return f"void {scope}{stem}{template}{params}"


@settings(max_examples=300, deadline=None)
@given(st.lists(_kernel_name(), min_size=1, max_size=12, unique=True))
def test_distinct_full_names_never_share_a_short_name(fulls: list[str]) -> None:
    names = unique_short_names(fulls)
    assert set(names) == set(fulls)
    assert len(set(names.values())) == len(fulls)
    assert all(n.strip() for n in names.values())


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=40), min_size=1, max_size=8, unique=True))
def test_arbitrary_names_never_share_a_short_name(fulls: list[str]) -> None:
    names = unique_short_names(fulls)
    assert len(set(names.values())) == len(set(names))


def test_launch_frame_maps_each_launch_once_per_distinct_name() -> None:
    kernels = pd.Series([INIT.format(t="float"), INIT.format(t="__half"), INIT.format(t="float")])
    assert short_names(kernels).tolist() == [
        "InitializeMatrix_kernel<float>",
        "InitializeMatrix_kernel<__half>",
        "InitializeMatrix_kernel<float>",
    ]


def test_real_export_names_are_distinct(samples_dir: Path) -> None:
    profile = load(samples_dir / "wangzy0327__cuda-roofline__src_output.csv")
    pairs = profile.launches[["kernel", "kernel_short"]].drop_duplicates()
    assert pairs["kernel"].nunique() == pairs["kernel_short"].nunique() == len(pairs)
    assert {"InitializeMatrix_kernel<__half>", "InitializeMatrix_kernel<float>"} <= set(
        pairs["kernel_short"]
    )
