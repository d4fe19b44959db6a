"""Short, readable kernel names.

ncu prints demangled C++ names that run to thousands of characters
(``void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)``).
Tables and charts need a short handle; the full name always stays available.
These functions run once per *distinct* name, never per launch.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Names so generic that the first template argument says more than they do.
_GENERIC = re.compile(
    r"^(?:kernel\d*|Kernel\d*|device_kernel|cutlass_kernel|GemmKernel|gemm_kernel|"
    r"sm\d+_xmma_\w*|elementwise_kernel|vectorized_elementwise_kernel|unrolled_elementwise_kernel|"
    r"reduce_kernel|launch_kernel|global_kernel|generic_kernel)$"
)

MAX_SHORT = 96
#: Longest fragment of the full name added to tell siblings apart.
_FRAGMENT = 24

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
    return middle_cut(result, MAX_SHORT)


def middle_cut(text: str, width: int) -> str:
    """``text`` cut to ``width`` characters by an ``…`` in the middle.

    The end of a kernel name (the tile shape, the layout, the last template
    argument) is what tells sibling kernels apart, so both ends survive.

    >>> middle_cut("Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_tn>", 30)
    'Kernel2<cutlass…bf16_64x64_tn>'
    """
    if width <= 0:
        return ""
    if len(text) <= width:
        return text
    if width == 1:
        return "…"
    head = width // 2
    tail = width - 1 - head
    return text[:head] + "…" + (text[-tail:] if tail else "")


def _base_name(full: str) -> str:
    """The function name of ``full`` with its template arguments: no ``void``, no parameters."""
    name = full.strip()
    if name.startswith("void "):
        name = name[5:]
    return strip_balanced_suffix(name, "(", ")")


def _template_args(full: str) -> list[str]:
    """Top-level template arguments of the function in ``full`` (``[]`` when none)."""
    base = _last_scope(_base_name(full))
    stem = strip_balanced_suffix(base, "<", ">")
    if stem == base:
        return []
    return split_top_level(base[len(stem) + 1 : -1])


def _with_argument(short: str, arg: str) -> str:
    """``short`` with template argument ``arg`` shown: ``f<A>`` + ``A<int>`` -> ``f<A<int>>``."""
    arg = middle_cut(_last_scope(arg.strip()), MAX_SHORT // 2)
    stem = strip_balanced_suffix(short, "<", ">")
    if stem != short:
        shown = short[len(stem) + 1 : -1]
        if arg.startswith(shown):
            return f"{stem}<{arg}>"
        return f"{stem}<{shown}, {arg}>"
    return f"{short}<{arg}>"


def _by_template_argument(short: str, fulls: list[str]) -> dict[str, str]:
    """Names of ``fulls`` (one short name) extended by the first template argument that differs."""
    args = [_template_args(f) for f in fulls]
    longest = max(len(a) for a in args)
    for i in range(longest):
        column = [a[i] if i < len(a) else "" for a in args]
        if len(set(column)) > 1:
            return {
                f: _with_argument(short, a) if a else short
                for f, a in zip(fulls, column, strict=True)
            }
    return {f: short for f in fulls}


def _identifier(ch: str) -> bool:
    return ch.isalnum() or ch == "_"


def _common_prefix(texts: list[str]) -> int:
    """Length of the characters all ``texts`` start with."""
    first, last = min(texts), max(texts)
    n = 0
    while n < len(first) and first[n] == last[n]:
        n += 1
    return n


def _by_difference(short: str, fulls: list[str]) -> dict[str, str]:
    """Names of ``fulls`` (one short name) extended by the part of the full name they differ in.

    The text between the group's longest common prefix and suffix, widened
    to whole identifiers: ``elementwise_kernel<…CUDAFunctor_add…>`` where the
    differing template arguments all end in the same lambda.
    """
    bases = [_base_name(f) for f in fulls]
    prefix = _common_prefix(bases)
    room = min(len(b) for b in bases) - prefix
    suffix = _common_prefix([b[::-1] for b in bases])
    suffix = max(0, min(suffix, room))
    out = {}
    for f, b in zip(fulls, bases, strict=True):
        start, end = prefix, len(b) - suffix
        while start > 0 and _identifier(b[start - 1]):
            start -= 1
        while end < len(b) and _identifier(b[end]):
            end += 1
        # Where the names start to differ says most: keep the head.
        part = b[start:end].strip(" ,<>()")[:_FRAGMENT].rstrip(" ,<>(:")
        stem = strip_balanced_suffix(short, "<", ">")
        shown = short[len(stem) + 1 : -1] if stem != short else ""
        out[f] = f"{stem}<{shown + ', ' if shown else ''}…{part}…>" if part else short
    return out


def _by_full_name(fulls: list[str]) -> dict[str, str]:
    """Names of ``fulls`` as their whole function names, cut in the middle when long."""
    return {f: middle_cut(_base_name(f) or f.strip(), MAX_SHORT) for f in fulls}


def unique_short_names(fulls: Iterable[str]) -> dict[str, str]:
    """A short name for each distinct full name, distinct names never sharing one.

    :func:`short_name` drops what sibling kernels differ in
    (``InitializeMatrix_kernel<__half>`` and ``<float>`` both read
    ``InitializeMatrix_kernel``).  Where distinct names share a short name,
    it is extended by the first template argument that differs; still equal,
    by the text the full names differ in; still equal, the function name with
    scopes and template arguments is used; still equal, a number in the
    order of the full names.  Runs once per distinct name, never per launch.

    >>> names = unique_short_names(["void f<float>(float*)", "void f<__half>(__half*)"])
    >>> names["void f<float>(float*)"], names["void f<__half>(__half*)"]
    ('f<float>', 'f<__half>')
    """
    distinct = sorted(set(fulls))
    result = {f: short_name(f) for f in distinct}
    for step in (_by_template_argument, _by_difference, None):
        groups: dict[str, list[str]] = {}
        for f in distinct:
            groups.setdefault(result[f], []).append(f)
        for short, members in groups.items():
            if len(members) < 2:
                continue
            names = _by_full_name(members) if step is None else step(short, members)
            # A step that leaves the group as alike as before is not taken:
            # the next one starts from the plain short name.
            if len(set(names.values())) > 1:
                result.update(names)
    groups = {}
    for f in distinct:
        groups.setdefault(result[f], []).append(f)
    taken = set(result.values())
    for short, members in groups.items():
        for n, f in enumerate(members[1:], start=2):
            while f"{short} #{n}" in taken:
                n += 1
            result[f] = f"{short} #{n}"
            taken.add(result[f])
    return result


def without_template_args(full: str) -> str:
    """``full`` with every ``<...>`` group removed: what two instantiations of one template share.

    ``void ns::Kernel<A<1>>(ns::P<A<1>>::Params)`` -> ``void ns::Kernel(ns::P::Params)``.
    A closer without an opener is kept (ncu's renaming can leave one).  Runs
    once per distinct name.

    >>> without_template_args("void f<MmaPipelined<int>>(Params)")
    'void f(Params)'
    """
    out: list[str] = []
    depth = 0
    for ch in full.strip():
        if ch == "<":
            depth += 1
        elif ch == ">" and depth:
            depth -= 1
        elif not depth:
            out.append(ch)
    return "".join(out)
