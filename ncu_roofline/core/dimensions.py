"""The dimension of each metric the launch model keeps, and whether a unit fits it.

A unit of the wrong dimension (``msecond`` on ``dram__bytes.sum``, ``byte``
on ``gpu__time_duration.sum``) cannot be converted into the metric's SI
unit: multiplying by its factor would give a number of the wrong kind
(milliseconds read as bytes).  The readers leave such values out.

The dimension follows from the metric id (ncu's naming is regular): the
``gpu__time_*`` metrics are times, ``.per_second`` metrics and the kHz device
attributes are rates, ``pct`` metrics are percentages; every other kept
metric is a count (or a per-cycle or peak ratio of one), whose unit is never
a time, a frequency, a per-second rate or a percentage, and whose counted
thing shows in its name (``bytes``, ``sectors``, ``inst``, ``cycles``).  An
empty unit fits every metric: ncu prints counts such as
``launch__grid_size`` and ``sm__ops_path_tensor_*`` without one.
"""

from __future__ import annotations

import re

from ncu_roofline.core.metrics import KHZ_METRICS

_PERCENT = re.compile(r"(?:\.pct_of_peak_sustained_\w+|\.pct|_pct)$")

#: Words of a counter's name and the unit its numerator must then be, in the
#: order tried (``sm__inst_executed_pipe_tensor`` counts instructions).
_COUNTED: tuple[tuple[str, str], ...] = (
    ("bytes", "byte"),
    ("sectors", "sector"),
    ("inst", "inst"),
    ("cycles", "cycle"),
)


def metric_dimension(metric_id: str) -> str:
    """``time``, ``rate``, ``percent``, or the counted unit (``byte``, ``inst``, ...; ``count`` when unnamed)."""
    if metric_id.startswith("gpu__time_"):
        return "time"
    if metric_id.endswith(".per_second") or metric_id in KHZ_METRICS:
        return "rate"
    if _PERCENT.search(metric_id):
        return "percent"
    counter = metric_id.split(".", 1)[0]
    words = set(re.split(r"_+", counter))
    return next((unit for word, unit in _COUNTED if word in words), "count")


def unit_fits(metric_id: str, si_unit: str) -> bool:
    """Whether a value printed in a unit of SI dimension ``si_unit`` can be the metric's.

    ``si_unit`` is :func:`~ncu_roofline.core.units.parse_unit`'s ``si``
    (``"s"``, ``"byte"``, ``"byte/s"``, ``"Hz"``, ``"inst/cycle"``, ``"%"``, ``""``).
    """
    if si_unit == "":
        return True
    num, _, den = si_unit.partition("/")
    kind = metric_dimension(metric_id)
    if kind == "time":
        return si_unit == "s"
    if kind == "rate":
        return si_unit == "Hz" or den == "s"
    if kind == "percent":
        return si_unit == "%"
    if num in ("s", "Hz", "%") or den == "s":
        return False
    return kind == "count" or num == kind


def base_unit(metric_id: str) -> str:
    """The unit ncu prints a metric in with ``--print-units base``.

    Times in nanoseconds, rates per second, percentages in ``%``, counts in
    the thing counted (``""`` where unnamed, and for the kHz device
    attributes, which ncu prints without a unit).  A raw page that lost its
    units row is read in these.
    """
    kind = metric_dimension(metric_id)
    if kind == "time":
        return "nsecond"
    if kind == "percent":
        return "%"
    if kind == "rate":
        if metric_id in KHZ_METRICS:
            return ""
        counted = metric_dimension(metric_id.removesuffix(".per_second"))
        return ("" if counted == "count" else counted) + "/second"
    counted = "" if kind == "count" else kind
    if ".per_cycle" in metric_id and counted:
        return counted + "/cycle"
    return counted
