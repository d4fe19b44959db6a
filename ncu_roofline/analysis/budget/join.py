"""Joining trace kernels to ncu kernel groups.

An nsys trace and an ncu export name one kernel in slightly different ways:
nsys may spell the return type (``std::enable_if<...>::type``) where ncu says
``void``, a parameter list of template parameters (``(T1::Params)``) where
ncu has ``(Params)``, a namespace ncu left out (``cutlass::Kernel2`` and
``Kernel2``), casts in template arguments (``(int)128``, ``(bool)0``) where
the other writes ``128``, ``false``, and anonymous namespaces as
``<unnamed>`` or ``(anonymous namespace)`` (both become ``{anon}``).  Three passes, each only for the
kernels the previous one left:

1. **exact**: the same name, grid and block as an ncu group (several ncu
   groups on that key, from several inputs: the highest ranked);
2. **by name**: the same name, where exactly one ncu group has it (the
   launch configuration differs, or the trace has none);
3. **normalised**: the same :func:`join_key` (and grid and block where that
   is unique), else the same key alone where exactly one group has it.

Ambiguous names join nothing rather than the wrong group.  The passes run
once per distinct (name, grid, block) of the trace, never per launch.
"""

from __future__ import annotations

import re
from collections import Counter

import pandas as pd

from ncu_roofline.core.names import strip_balanced_suffix

__all__ = ["JOIN_KINDS", "NOT_JOINED", "join_groups", "join_key"]

NOT_JOINED = "not joined"
#: Join kinds, in the order the passes try them.
JOIN_KINDS: tuple[str, ...] = ("exact", "by name", "normalised")

_CAST = re.compile(r"\((?:unsigned |signed )?(?:int|long long|long|short|char|bool)\)\s*(-?\d)")
_INT_SUFFIX = re.compile(r"(?<=\d)[uUlL]+\b")
_OPEN = "<(["
_CLOSE = ">)]"


def _top_level_split(text: str) -> tuple[int, int]:
    """The index after the last top-level space, and of the first top-level ``<`` after it (-1: none)."""
    depth = 0
    last_space = -1
    for i, ch in enumerate(text):
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE and depth:
            depth -= 1
        elif ch == " " and depth == 0:
            last_space = i
    start = last_space + 1
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "<" and depth == 0:
            return start, i
        if text[i] in "([":
            depth += 1
        elif text[i] in ")]" and depth:
            depth -= 1
    return start, -1


def join_key(name: str) -> str:
    """A kernel name stripped of what nsys and ncu spell differently.

    No return type, no parameter list, the function without its namespace,
    template arguments without casts, integer suffixes or spaces.

    >>> join_key("void cutlass::Kernel2<cutlass_80_gemm>(T1::Params)")
    'Kernel2<cutlass_80_gemm>'
    >>> join_key("std::enable_if<!T7, void>::type gemvx::kernel<int, (bool)0, (int)7>(T13)")
    'kernel<int,0,7>'
    """
    # Anonymous namespaces in either spelling, without angle brackets (they
    # would read as a template argument list).
    text = name.strip().replace("(anonymous namespace)", "{anon}").replace("<unnamed>", "{anon}")
    text = strip_balanced_suffix(text, "(", ")").strip()
    start, angle = _top_level_split(text)
    text = text[start:]
    angle = angle - start if angle >= 0 else -1
    base, args = (text[:angle], text[angle:]) if angle >= 0 else (text, "")
    base = base.rsplit("::", 1)[-1]
    args = _CAST.sub(r"\1", args)
    args = _INT_SUFFIX.sub("", args)
    args = re.sub(r"\btrue\b", "1", re.sub(r"\bfalse\b", "0", args))
    return base + re.sub(r"\s+", "", args)


def _unique(keys: list[object]) -> dict[object, int]:
    """Key -> its one position, for the keys that occur once."""
    counts = Counter(keys)
    return {k: i for i, k in enumerate(keys) if counts[k] == 1}


def join_groups(
    names: list[str], grids: list[str | None], blocks: list[str | None], groups: pd.DataFrame
) -> tuple[list[int], list[str]]:
    """The ncu group (row position in ``groups``, -1 for none) and join kind of each distinct trace kernel.

    ``groups`` is an analysis's ``kernels`` frame (``kernel``, ``grid``,
    ``block``), in rank order.
    """
    g_names = [str(k) for k in groups["kernel"].astype(object)]
    g_grids = [None if pd.isna(x) else str(x) for x in groups["grid"].astype(object)]
    g_blocks = [None if pd.isna(x) else str(x) for x in groups["block"].astype(object)]
    exact: dict[tuple[str, str | None, str | None], int] = {}
    for i, key in enumerate(zip(g_names, g_grids, g_blocks, strict=True)):
        exact.setdefault(key, i)  # the highest ranked of equal keys
    by_name = _unique(list(g_names))
    g_keys = [join_key(n) for n in g_names]
    by_key_config = _unique(list(zip(g_keys, g_grids, g_blocks, strict=True)))
    by_key = _unique(list(g_keys))

    found: list[int] = []
    kinds: list[str] = []
    for name, grid, block in zip(names, grids, blocks, strict=True):
        nkey = join_key(name)
        for kind, pos in (
            ("exact", exact.get((name, grid, block))),
            ("by name", by_name.get(name)),
            ("normalised", by_key_config.get((nkey, grid, block))),
            ("normalised", by_key.get(nkey)),
        ):
            if pos is not None:
                found.append(pos)
                kinds.append(kind)
                break
        else:
            found.append(-1)
            kinds.append(NOT_JOINED)
    return found, kinds
