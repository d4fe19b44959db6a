"""Short, readable kernel names.

ncu prints demangled C++ names that run to thousands of characters
(``void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)``).
Tables and charts need a short handle; the full name always stays available.
These functions run once per *distinct* name, never per launch.
"""

from __future__ import annotations

import re

# Names so generic that the first template argument says more than they do.
_GENERIC = re.compile(
    r"^(?:kernel\d*|Kernel\d*|device_kernel|cutlass_kernel|GemmKernel|gemm_kernel|"
    r"sm\d+_xmma_\w*|elementwise_kernel|vectorized_elementwise_kernel|unrolled_elementwise_kernel|"
    r"reduce_kernel|launch_kernel|global_kernel|generic_kernel)$"
)

MAX_SHORT = 96

_PRIMITIVE = frozenset(
    {
        "float",
        "double",
        "half",
        "__half",
        "__nv_bfloat16",
        "int",
        "long",
        "unsigned",
        "char",
        "bool",
        "short",
        "Half",
        "BFloat16",
        "half_t",
        "bfloat16_t",
        "float4",
        "unsigned int",
        "unsigned long",
        "long long",
        "signed char",
        "int64_t",
        "int32_t",
        "Array",
        "OffsetCalculator",
        "TrivialOffsetCalculator",
        "LoadWithoutCast",
        "StoreWithoutCast",
    }
)


def _informative_arg(template_args: str) -> str:
    """The first template argument that names something (not a number or scalar type)."""
    for arg in split_top_level(template_args):
        a = arg.strip()
        if not re.search(r"[A-Za-z_]", a) or re.fullmatch(r"\(\w+\)\s*-?\d+|true|false", a):
            continue
        stem = _last_scope(strip_balanced_suffix(a, "<", ">")).strip()
        if not stem or stem in _PRIMITIVE or stem.endswith("*") or "lambda" in stem:
            continue
        return stem
    return ""


def strip_balanced_suffix(text: str, open_ch: str, close_ch: str) -> str:
    """``text`` without its trailing balanced ``(...)`` or ``<...>`` group."""
    if not text.endswith(close_ch):
        return text
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        ch = text[i]
        if ch == close_ch:
            depth += 1
        elif ch == open_ch:
            depth -= 1
            if depth == 0:
                return text[:i].rstrip()
    return text


def closing_bracket(text: str, start: int, open_ch: str, close_ch: str) -> int:
    """Index of the bracket closing the one at ``start`` (``len(text)`` when unclosed)."""
    depth = 0
    for i in range(start, len(text)):
        ch = text[i]
        if ch == open_ch:
            depth += 1
        elif ch == close_ch:
            depth -= 1
            if depth == 0:
                return i
    return len(text)


def split_top_level(text: str, sep: str = ",") -> list[str]:
    """``text`` split at ``sep`` outside any bracket, each part stripped.

    Closers without an opener are ignored: ncu's renaming can leave
    unbalanced brackets (``<unnamed>::f``).
    """
    parts: list[str] = []
    depth = 0
    start = 0
    for i, ch in enumerate(text):
        if ch in "<([{":
            depth += 1
        elif ch in ">)]}":
            depth = max(0, depth - 1)
        elif ch == sep and depth == 0:
            parts.append(text[start:i].strip())
            start = i + len(sep)
    parts.append(text[start:].strip())
    return parts


def template_args_at(text: str, open_idx: int) -> list[str]:
    """Top-level arguments of the template whose ``<`` is at ``open_idx``."""
    end = closing_bracket(text, open_idx, "<", ">")
    return split_top_level(text[open_idx + 1 : end])


def _last_scope(name: str) -> str:
    """``a::b<c::d>::e`` -> ``e`` (scopes inside template arguments ignored)."""
    depth = 0
    cut = 0
    i = 0
    while i < len(name):
        ch = name[i]
        if ch in "<(":
            depth += 1
        elif ch in ">)":
            # ncu's renaming can leave unbalanced brackets ("unnamed>::f").
            depth = max(0, depth - 1)
        elif depth == 0 and name.startswith("::", i):
            cut = i + 2
            i += 1
        i += 1
    return name[cut:]


def short_name(full: str) -> str:
    """A short, readable handle for a kernel name.

    >>> short_name("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, at::detail::Array<char *, 1>>(int, T2, T3)")
    'vectorized_elementwise_kernel<FillFunctor>'
    >>> short_name("ampere_h16816gemm_256x128_ldg8_stages_32x3_tn")
    'ampere_h16816gemm_256x128_ldg8_stages_32x3_tn'
    """
    name = full.strip()
    if not name:
        return name
    if name.startswith("void "):
        name = name[5:]
    name = strip_balanced_suffix(name, "(", ")")
    # A trailing " const" or return-type prefix rarely appears in ncu output;
    # keep the text after the last top-level space as the function.
    base = _last_scope(name)
    template_args = ""
    stem = strip_balanced_suffix(base, "<", ">")
    if stem != base:
        template_args = base[len(stem) + 1 : -1]
    stem = stem.split(" ")[-1] or stem
    result = stem
    if _GENERIC.match(stem):
        # "gemvx::kernel" says more than "kernel".
        scope = _last_scope(name[: max(len(name) - len(base) - 2, 0)]) if name != base else ""
        scope = strip_balanced_suffix(scope, "<", ">").split(" ")[-1]
        if scope and scope not in {"cutlass", "native", "at", "cub", "thrust", "detail"}:
            stem = f"{scope}::{stem}"
            result = stem
    if template_args and (
        _GENERIC.match(stem.split("::")[-1]) or "elementwise" in stem or "reduce" in stem
    ):
        best = _informative_arg(template_args)
        if best:
            result = f"{stem}<{best}>"
    if not result.strip():
        # Names made only of a bracketed tag ("<unnamed>", "<tag ...>") leave
        # nothing outside the brackets: the whole name is the handle then.
        result = name or full.strip()
    if len(result) > MAX_SHORT:
        result = result[: MAX_SHORT - 1] + "…"
    return result
