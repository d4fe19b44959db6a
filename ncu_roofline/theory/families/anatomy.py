"""Name anatomy: a demangled kernel name normalised and cut into its parts.

The bracket-aware splitting itself lives in :mod:`ncu_roofline.core.names`;
this module adds what the recognisers need on top: the qualified base,
leaf, namespace, template and parameter text, and argument readers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ncu_roofline.core.names import closing_bracket, split_top_level

_PRIM_CAST = re.compile(
    r"\((?:unsigned |signed )?(?:long long|long|int|bool|short|char|unsigned|size_t|"
    r"u?int(?:8|16|32|64)_t)\)\s*(?=[-\d])"
)
_ANON = re.compile(r"\(anonymous namespace\)::|<unnamed>::|\{anonymous\}::|`anonymous namespace'::")
_SPACES = re.compile(r"\s+")
_LEADING_VOID = re.compile(r"^(?:void|__global__ void)\s+")
_INT_ARG = re.compile(r"^(?:\([^()]*\))?\s*(-?\d+)[uUlL]*$")


@dataclass
class Name:
    """A normalised kernel name cut into its parts."""

    s: str  # normalised full name
    base: str  # qualified function name (``at::native::reduce_kernel``)
    leaf: str  # last scope of ``base`` (``reduce_kernel``)
    ns: str  # scopes before the leaf (``at::native``)
    targs: str | None  # text inside the outer template brackets
    params: str | None  # text inside the parameter list
    _args: list[str] | None = None

    @property
    def args(self) -> list[str]:
        """Top-level template arguments."""
        if self._args is None:
            self._args = split_top_level(self.targs) if self.targs else []
        return self._args

    @property
    def jit_like(self) -> bool:
        """No parameter list, template or scope: an extern-C / Triton JIT name."""
        return (
            self.targs is None and self.params is None and "::" not in self.s and " " not in self.s
        )


def normalise(name: str) -> str:
    """Collapse spaces and drop ``void``, anonymous namespaces and integer casts."""
    s = _SPACES.sub(" ", name).strip()
    s = _LEADING_VOID.sub("", s)
    s = _ANON.sub("", s)
    s = _PRIM_CAST.sub("", s)
    return s


def parse(s: str) -> Name:
    """Cut a normalised name into base, leaf, namespace, template and parameter text."""
    i = 0
    n = len(s)
    while i < n and s[i] not in "<(":
        i += 1
    base = s[:i].strip()
    targs: str | None = None
    params: str | None = None
    if i < n and s[i] == "<":
        end = closing_bracket(s, i, "<", ">")
        targs = s[i + 1 : end]
        i = end + 1
    if i < n and s[i] == "(":
        end = closing_bracket(s, i, "(", ")")
        params = s[i + 1 : end]
    leaf = base.rsplit("::", 1)[-1].strip()
    ns = base[: len(base) - len(leaf)].rstrip(":").strip()
    return Name(s=s, base=base, leaf=leaf, ns=ns, targs=targs, params=params)


def int_arg(arg: str) -> int | None:
    """The integer a template argument spells (``(int)4``, ``128u``), else ``None``."""
    m = _INT_ARG.match(arg.strip())
    return int(m.group(1)) if m else None


def bool_arg(arg: str) -> bool | None:
    """The boolean a template argument spells (``true``, ``0``), else ``None``."""
    a = arg.strip()
    if a in ("true", "1"):
        return True
    if a in ("false", "0"):
        return False
    return None


def int_args(args: list[str]) -> list[int]:
    """The integer arguments among ``args``, in order."""
    return [v for v in (int_arg(a) for a in args) if v is not None]


def parse_dims(text: str) -> tuple[int, ...]:
    """``"2x1x1"`` -> ``(2, 1, 1)``."""
    return tuple(int(p) for p in text.split("x") if p.isdigit())


_CUTE_TRIPLE = re.compile(
    r"tuple<\s*(?:cute::)?C<(\d+)>,\s*(?:cute::)?C<(\d+)>,\s*(?:cute::)?C<(\d+)>\s*>"
)


def cute_tile(s: str) -> tuple[int, ...] | None:
    """The first cute tile triple whose dims are all >= 16 (the first is often the cluster)."""
    for m in _CUTE_TRIPLE.finditer(s):
        dims = tuple(int(g) for g in m.groups())
        if min(dims) >= 16:
            return dims
    return None
