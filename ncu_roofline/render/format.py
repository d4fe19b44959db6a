"""Display formatting of report values: the one place renderers turn numbers into text.

Report contexts hold plain numbers in SI base units and ``None`` where a
value is unknown.  Every renderer shows them through a :class:`Formatter`,
which owns two decisions: how each kind of value is written (SI values
through :func:`~ncu_roofline.core.units.format_si`, fractions as
percentages, counts with thousands separators, signed changes) and what an
unknown value (``None``, NaN or infinity) reads as.

Two styles exist: :data:`TEXT` writes ``n/a`` for an unknown value (the
Markdown, JUnit and terminal reports and chart hover text, where the cell
may be read without its column) and :data:`TABLE` writes an en dash (the
HTML page and the comparison reports, where an empty-looking cell reads
better in a dense table).

``format_si`` itself stays in :mod:`ncu_roofline.core.units`: the analysis
stage writes finding messages with it.
"""

from __future__ import annotations

import math
import re
import shlex
from dataclasses import dataclass

from ncu_roofline.core.files import MERGED_SEPARATOR
from ncu_roofline.core.si import format_si

#: How the Markdown, JUnit and terminal reports show an unknown value.
NOT_AVAILABLE = "n/a"
#: How the HTML tables show an unknown value.
DASH = "–"
#: How every report shows a recoverable time nothing bounds (see ``recoverable_basis``).
UNKNOWN_RECOVERABLE = "?"


def unknown(value: object) -> bool:
    """Whether a context value has nothing to show: ``None``, NaN or infinity."""
    return value is None or (isinstance(value, float) and not math.isfinite(value))


@dataclass(frozen=True)
class Formatter:
    """Formats report values; every method returns :attr:`missing` for an unknown value."""

    missing: str = NOT_AVAILABLE

    def si(self, value: object, unit: str = "") -> str:
        """An SI value with its unit (``1.23 GB/s``)."""
        if unknown(value):
            return self.missing
        return format_si(float(value), unit)  # type: ignore[arg-type]

    def duration(self, value: object) -> str:
        """A time in seconds, with an SI prefix (``65.1 µs``)."""
        return self.si(value, "s")

    def pct(self, value: object, digits: int = 1, sign: bool = False) -> str:
        """A fraction as a percentage (``0.123`` -> ``12.3%``), with a ``+`` when ``sign``."""
        if unknown(value):
            return self.missing
        return f"{100 * float(value):{'+' if sign else ''}.{digits}f}%"  # type: ignore[arg-type]

    def points(self, value: object) -> str:
        """A change of a fraction in percentage points (``0.05`` -> ``+5.0 points``)."""
        if unknown(value):
            return self.missing
        return f"{100 * float(value):+.1f} points"  # type: ignore[arg-type]

    def number(self, value: object, digits: int = 3) -> str:
        """A plain number to ``digits`` significant digits (``16``, ``0.741``, ``1.2e+04``)."""
        if unknown(value):
            return self.missing
        return f"{float(value):.{digits}g}"  # type: ignore[arg-type]

    def fixed(self, value: object) -> str:
        """Three significant digits without an exponent in the usual range (``16.0``, ``12,300``).

        Chart hover text shows intensities this way: ``1.23e+04`` reads
        badly next to a log axis labelled ``10k``.
        """
        if unknown(value):
            return self.missing
        x = float(value)  # type: ignore[arg-type]
        mag = abs(x)
        if x == 0 or mag < 1e-4 or mag >= 1e7:
            return f"{x:.3g}"
        decimals = max(0, 2 - math.floor(math.log10(mag)))
        return f"{x:,.{decimals}f}"

    def decimals(self, value: object, digits: int = 2) -> str:
        """A number with ``digits`` digits after the point (``2.50``), for a fixed-width look."""
        if unknown(value):
            return self.missing
        return f"{float(value):.{digits}f}"  # type: ignore[arg-type]

    def ratio(self, value: object, mark: str = "×") -> str:
        """A multiple to three significant digits (``2.5×``)."""
        if unknown(value):
            return self.missing
        return self.number(value) + mark

    def count(self, value: object) -> str:
        """A whole number with thousands separators (``12,345``)."""
        if unknown(value):
            return self.missing
        return f"{int(value):,}"  # type: ignore[call-overload]

    def recoverable(self, value: object) -> str:
        """A recoverable time; ``?`` when unknown (nothing the export measured bounds it)."""
        return UNKNOWN_RECOVERABLE if unknown(value) else self.duration(value)

    def recoverable_total(self, value: object, unknowns: object) -> str:
        """A sum of recoverable times that says it excludes ``unknowns`` launches.

        ``?`` when nothing is known; ``≥ 1.2 ms (3 launches unknown)`` when some are.
        """
        count = 0 if unknown(unknowns) else int(unknowns)  # type: ignore[call-overload]
        if unknown(value):
            return UNKNOWN_RECOVERABLE
        text = self.duration(value)
        if count:
            many = "launch" if count == 1 else "launches"
            text = f"≥ {text} ({count:,} {many} unknown)"
        return text

    def signed(self, value: object, unit: str = "", *, typographic: bool = False) -> str:
        """A signed change in SI units.

        Plain: ``+1.2 µs``, ``-3 ms``, ``0 s``, as hover text shows it.
        ``typographic``: a true minus sign and ``±`` for no change
        (``−3 ms``, ``±0 s``), as the comparison tables show it.
        """
        if unknown(value):
            return self.missing
        v = float(value)  # type: ignore[arg-type]
        if not typographic:
            return ("+" if v > 0 else "") + format_si(v, unit)
        sign = "+" if v > 0 else "−" if v < 0 else "±"
        return sign + format_si(abs(v), unit)


#: Unknown values as ``n/a``: Markdown, JUnit, terminal, chart hover text.
TEXT = Formatter(NOT_AVAILABLE)
#: Unknown values as an en dash: the HTML page and the comparison reports.
TABLE = Formatter(DASH)


def file_name(path: object, missing: str = "unknown input") -> str:
    """The last component of a path, whichever separator it uses; ``missing`` when empty.

    Inputs joined with ``--merge`` (``a/t.csv + a/m.csv``) give each file's name.
    """
    if not path:
        return missing
    parts = str(path).split(MERGED_SEPARATOR)
    return MERGED_SEPARATOR.join(re.split(r"[\\/]", p)[-1] for p in parts)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``n`` with thousands separators and ``word`` in the number it takes (``1 kernel``)."""
    return f"{n:,} {word if n == 1 else (many or word + 's')}"


def collect_command(ncu_options: list[str]) -> str:
    """The ``ncu`` command line that collects what ``ncu_options`` name, shell-quoted."""
    return "ncu " + " ".join(shlex.quote(o) for o in ncu_options) + " --csv --page raw <app>"
