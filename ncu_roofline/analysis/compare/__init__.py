"""Compare two analyses kernel group by kernel group: what got slower, faster, appeared or went.

:func:`compare` matches the kernel groups of a *base* and a *candidate*
:class:`~ncu_roofline.analysis.Analysis` and reports, per group, the change
in total and per-launch time, intensity, achieved FLOP/s, efficiency and
bound class; :func:`comparison_context` turns the result into plain data
for renderers (see :mod:`ncu_roofline.report.compare`), like :func:`ncu_roofline.report.context.build_context` does for one
analysis.

Matching
    The two sides come from different files (and perhaps different GPUs), so
    groups are keyed by ``(kernel, grid, block)`` only; input file and device
    are ignored.  When one side holds several inputs, the groups sharing a
    key are first aggregated (times, launches, FLOPs and bytes summed; rates
    and intensity recomputed; efficiency time-weighted; the bound class and
    identity of the group with the most time kept).  A second pass pairs the
    groups still unmatched by kernel name alone, where exactly one unmatched
    group of that name is left on each side (the launch configuration
    changed); those rows have ``match == "name only"``.  A third pass pairs
    a removed and an added group whose kernel names differ only in template
    arguments (``Kernel<Gemm<MmaPipelined<…>>>`` and
    ``Kernel<Gemm<MmaMultistage<…>>>``) and which share grid, block and
    launch count, where exactly one group on each side has that key (several
    pair none): one template whose instantiation changed.  Those rows have
    ``match == "implementation"``, both names in ``base_kernel`` and
    ``candidate_kernel`` and ``kernel_short`` ``"base → candidate"``, and
    are judged like any matched row (``compare(pair_implementations=False)``,
    ``--no-pair-implementations``, turns the pass off).  Whatever remains is
    ``"added"`` (candidate only) or ``"removed"`` (base only).

Signs and units
    Every delta is *candidate minus base*; ``delta_pct`` and
    ``delta_duration_pct`` are fractions of the base value (``0.5`` is
    +50 %), like the ``noise`` threshold.  For an added group ``delta_s`` is
    its candidate time and for a removed one minus its base time, so the
    ``delta_s`` of all rows add up to the change in total kernel time.

The package: :mod:`.match` matches the groups and builds the
:class:`Comparison`; :mod:`.basis` holds the bases and the default noise
(plain Python, for the command line's options); :mod:`.judge` judges each
matched group; :mod:`.context` says what changed between the two profiles
besides the code (GPU, clocks, ncu, metrics, work); :mod:`.why` says why each
matched group changed (its ``why``, reasons from :data:`WHY_REASONS`); :mod:`.story` tells
the whole profile's change as four questions (``Comparison.story``); :mod:`.records` types
the plain data the comparison's report carries (totals, facts, differences).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline._lazy import lazy_attributes

if TYPE_CHECKING:
    from ncu_roofline.analysis.compare.basis import BASES, DEFAULT_NOISE
    from ncu_roofline.analysis.compare.context import DIFFERENCE_KINDS
    from ncu_roofline.analysis.compare.match import (
        COMPARISON_FIELDS,
        MATCH_EXACT,
        MATCH_IMPLEMENTATION,
        MATCH_NAME_ONLY,
        STATUSES,
        Comparison,
        compare,
    )
    from ncu_roofline.analysis.compare.why import WHY_REASONS

_BASIS = "ncu_roofline.analysis.compare.basis"
_MATCH = "ncu_roofline.analysis.compare.match"

#: Public name -> the module it comes from, imported when the name is first read.
_LAZY = {
    "BASES": _BASIS,
    "DEFAULT_NOISE": _BASIS,
    "DIFFERENCE_KINDS": "ncu_roofline.analysis.compare.context",
    "COMPARISON_FIELDS": _MATCH,
    "MATCH_EXACT": _MATCH,
    "MATCH_IMPLEMENTATION": _MATCH,
    "MATCH_NAME_ONLY": _MATCH,
    "STATUSES": _MATCH,
    "Comparison": _MATCH,
    "compare": _MATCH,
    "WHY_REASONS": "ncu_roofline.analysis.compare.why",
}

__getattr__, __dir__ = lazy_attributes(globals(), _LAZY)

__all__ = [
    "BASES",
    "COMPARISON_FIELDS",
    "DEFAULT_NOISE",
    "DIFFERENCE_KINDS",
    "MATCH_EXACT",
    "MATCH_IMPLEMENTATION",
    "MATCH_NAME_ONLY",
    "STATUSES",
    "WHY_REASONS",
    "Comparison",
    "compare",
]
