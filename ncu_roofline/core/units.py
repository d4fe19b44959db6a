"""Units and numbers as ncu prints them, normalised to SI base units.

ncu prints units in two generations of spelling (``nsecond``/``ns``,
``cycle/nsecond``/``Ghz``, ``Gbyte/second``/``Gbyte/s``) and, in auto mode,
with an SI prefix chosen per value (``Mbyte 17.50`` next to ``byte 0``).
Prefixes scale by 1000 for every unit, bytes included (Nsight Compute CLI
guide, "Metrics and Units").  Everything downstream of the readers sees plain
floats in base units: seconds, bytes, hertz, bytes per second, counts;
percentages stay in percent (0-100, occasionally above).

Numbers may carry thousands separators (``"5,443,677,824.00"``), may be
``n/a`` or empty (missing, never zero), may list instance values after the
aggregate (``"32.00; 32.00"``), and in some locales swap the separators
(``"27.595.520"``, ``"9,00"``).  Only real thousands grouping is read: one to
three digits, then groups of exactly three.  Anything else with a separator
(``"1,2,3"``, ``"1,0"``, ``"1.000,5"`` in a decimal-point file) is malformed
and reads as missing: deleting the separators would turn it into a plausible
but wrong number (123, 10, 1.0005).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import false_where_null, flags, null_text, numbers, strings

_PREFIX: dict[str, float] = {
    "K": 1e3,
    "k": 1e3,
    "M": 1e6,
    "G": 1e9,
    "T": 1e12,
    "P": 1e15,
    "m": 1e-3,
    "u": 1e-6,
    "µ": 1e-6,
    "n": 1e-9,
}

# Base words ncu uses, mapped to (factor to SI, SI dimension).  Plurals appear
# in the ncu_report module's unit strings ("sectors").
_TIME = {"second": 1.0, "seconds": 1.0, "s": 1.0, "sec": 1.0}
_FREQ = {"hz": 1.0, "Hz": 1.0}
_COUNT_WORDS = {
    "byte",
    "bytes",
    "inst",
    "insts",
    "cycle",
    "cycles",
    "sector",
    "sectors",
    "warp",
    "warps",
    "thread",
    "threads",
    "block",
    "blocks",
    "register",
    "registers",
    "pass",
    "passes",
    "sample",
    "samples",
    "branch",
    "branches",
    "SM",
    "cluster",
    "clusters",
    "request",
    "requests",
    "wavefront",
    "wavefronts",
    "issue",
    "issues",
    "op",
    "ops",
    "flop",
    "transaction",
    "transactions",
    "bit",
    "bits",
    "TPC",
    "CTA",
    "instance",
    "packet",
    "packets",
    "message",
    "messages",
    "event",
    "events",
}


def _singular(word: str) -> str:
    """Canonical singular spelling, so ``sectors`` and ``sector`` agree."""
    if word in {"pass", "SM"}:
        return word
    if word.endswith("es") and word[:-2] in {"branch", "pass"}:
        return word[:-2]
    return word[:-1] if word.endswith("s") else word


_SINGULAR = {w: _singular(w) for w in _COUNT_WORDS}


@dataclass(frozen=True)
class Unit:
    """A parsed unit: multiply a printed value by ``factor`` to get ``si``."""

    factor: float
    si: str


def _word(word: str) -> tuple[float, str] | None:
    """Parse one side of a unit (``Kbyte``, ``nsecond``, ``Ghz``)."""
    if word == "":
        return 1.0, ""
    for table, dim in ((_TIME, "s"), (_FREQ, "Hz")):
        if word in table:
            return table[word], dim
    if word in _COUNT_WORDS:
        return 1.0, _SINGULAR[word]
    if len(word) > 1 and word[0] in _PREFIX:
        rest = word[1:]
        scale = _PREFIX[word[0]]
        if rest in _TIME:
            return scale * _TIME[rest], "s"
        if rest.lower() == "hz":
            return scale, "Hz"
        if rest in _COUNT_WORDS and word[0] not in "mun":
            # Sub-unit prefixes never apply to counts ("minst" is not a thing);
            # refusing them keeps "ms"-like typos from being misread.
            return scale, _SINGULAR[rest]
    return None


@lru_cache(maxsize=4096)
def parse_unit(unit: str) -> Unit | None:
    """Parse an ncu unit string; ``None`` when the unit is not recognised.

    >>> parse_unit("Mbyte")
    Unit(factor=1000000.0, si='byte')
    >>> parse_unit("cycle/nsecond")
    Unit(factor=1000000000.0, si='Hz')
    """
    text = unit.strip()
    if text == "%":
        return Unit(1.0, "%")
    if text == "":
        return Unit(1.0, "")
    parts = text.split("/")
    if len(parts) > 2:
        return None
    num = _word(parts[0])
    if num is None:
        return None
    if len(parts) == 1:
        return Unit(num[0], num[1])
    den = _word(parts[1])
    if den is None or den[1] == "":
        return None
    # Round away binary noise: cycle/nsecond must be exactly 1e9 Hz, as Ghz is.
    factor = float(f"{num[0] / den[0]:.12g}")
    # cycle/second is a frequency: express it as Hz like the newer spelling.
    if num[1] == "cycle" and den[1] == "s":
        return Unit(factor, "Hz")
    return Unit(factor, f"{num[1] or '1'}/{den[1]}")


# --- numbers ---------------------------------------------------------------

MISSING_TOKENS = frozenset({"", "n/a", "N/A", "nan", "NaN", "no data", "-", "--"})

_EN_GROUPED = re.compile(r"^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$")
_DE_GROUPED = re.compile(r"^[+-]?\d{1,3}(\.\d{3})+(,\d+)?$")
_DECIMAL_COMMA = re.compile(r"^[+-]?\d+,\d+$")

#: Per decimal separator: the grouping separator, and the only shape a value
#: holding it may have (thousands grouping, optional fraction and exponent).
_GROUPING: dict[str, tuple[str, str]] = {
    ".": (",", r"^[+-]?\d{1,3}(?:,\d{3})+(?:\.\d*)?(?:[eE][+-]?\d+)?$"),
    ",": (".", r"^[+-]?\d{1,3}(?:\.\d{3})+(?:,\d*)?(?:[eE][+-]?\d+)?$"),
}


def detect_decimal(samples: list[str]) -> str:
    """Guess a file's decimal separator from sample numeric strings.

    Most files use ``"."``.  A file is taken as decimal-comma only when some
    value is unambiguous for that locale (``"9,00"``, ``"27.595.520"``) and
    none is unambiguous the other way (``"1,234.5"``).
    """
    comma_votes = 0
    point_votes = 0
    for raw in samples:
        s = raw.strip()
        if not s:
            continue
        if _EN_GROUPED.match(s) and "." in s:
            point_votes += 1
        elif (_DE_GROUPED.match(s) and ("," in s or s.count(".") > 1)) or (
            _DECIMAL_COMMA.match(s) and len(s.split(",")[1]) != 3
        ):
            comma_votes += 1
        elif "." in s and s.count(".") == 1 and len(s.split(".")[1]) != 3:
            point_votes += 1
    return "," if comma_votes > 0 and point_votes == 0 else "."


def parse_numbers_checked(
    values: pa.Array | pa.ChunkedArray, decimal: str = "."
) -> tuple[np.ndarray, np.ndarray]:
    """Parse ncu-printed numbers over an Arrow string array, and say where a value
    was text but not a number.

    ``decimal`` is the file's decimal separator (``"."`` or ``","``); the
    other one is read as a thousands separator, and only where it groups
    thousands (``"1,234,567.5"``; ``"1,2,3"`` is NaN, not 123).  The first
    array is float64 with NaN wherever the text is missing, malformed or not
    a number.

    The second array is True for values that are neither a number nor a
    missing token (:data:`MISSING_TOKENS`): malformed digit grouping
    (``"1,2,3"``) and stray text.  Both are NaN in the first array; the
    caller says so.  Everything runs over whole columns in Arrow and pandas.
    """
    arr = values
    if pa.types.is_dictionary(arr.type):
        arr = arr.cast(pa.string())
    if not pa.types.is_string(arr.type) and not pa.types.is_large_string(arr.type):
        arr = ac.cast(arr, pa.string())
    if ac.any_true(ac.match_substring(arr, ";")):
        arr = ac.replace_substring_regex(arr, pattern=r";.*$", replacement="")
    arr = ac.utf8_trim_whitespace(arr)
    tokens = ac.is_in(arr, value_set=strings(sorted(MISSING_TOKENS)))
    missing = flags(ac.or_kleene(ac.is_null(arr), tokens))
    group, shape = _GROUPING["," if decimal == "," else "."]
    has_group = false_where_null(ac.match_substring(arr, group))
    grouped = None
    if ac.any_true(has_group):
        # Only the values holding a separator (a minority) are matched and
        # cleaned; the others are converted as they are.  A separator that
        # does not group thousands makes the value null (malformed).
        grouped = ac.filter_(arr, has_group)
        fits = false_where_null(ac.match_substring_regex(grouped, shape))
        grouped = ac.if_else(fits, ac.replace_substring(grouped, group, ""), null_text())
        arr = ac.if_else(has_group, null_text(), arr)
    if decimal == ",":
        arr = ac.replace_substring(arr, pattern=",", replacement=".")
        if grouped is not None:
            grouped = ac.replace_substring(grouped, pattern=",", replacement=".")
    out = cleaned_to_float(arr, tokens)
    if grouped is not None:
        if not out.flags.writeable:
            out = out.copy()  # a view of Arrow's buffer
        out[flags(has_group)] = cleaned_to_float(grouped)
    malformed: np.ndarray = np.isnan(out) & ~missing
    return out, malformed


#: The plain decimal spelling (sign, digits with one optional point, optional
#: exponent) on which Arrow's cast and pandas' ``to_numeric`` agree value for
#: value, but for pandas' occasional last-bit error: Arrow rounds correctly,
#: as Python's ``float()`` does.  Anything else (stray text, odd spellings)
#: goes to pandas, whose per-element rules the reader has always applied.
PLAIN_NUMBER = r"^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$"


def cleaned_to_float(
    arr: pa.Array | pa.ChunkedArray, missing: pa.Array | pa.ChunkedArray | None = None
) -> np.ndarray:
    """float64 of trimmed, separator-free number texts; NaN where null or not a number.

    Converted inside Arrow, a few times faster than Python objects through
    pandas.  When every value casts (the common case: numbers and missing
    tokens), one cast does it all; Arrow then reads only plain decimals and
    the ``inf``/``nan`` spellings, as pandas does.  Otherwise only the values
    outside :data:`PLAIN_NUMBER` take the pandas path
    (:func:`cleaned_to_float_pandas`), so each value reads as it always has.
    ``missing`` (True for missing tokens such as ``"n/a"``, which pandas
    reads as NaN too) keeps those values out of both.
    """
    if missing is not None:
        missing = false_where_null(missing)
        if ac.any_true(missing):
            arr = ac.if_else(missing, null_text(), arr)
    try:
        return numbers(ac.cast(arr, pa.float64()))
    except pa.ArrowInvalid:
        pass
    plain = false_where_null(ac.match_substring_regex(arr, PLAIN_NUMBER))
    out = np.full(len(arr), np.nan)
    if ac.any_true(plain):
        out[flags(plain)] = numbers(ac.cast(ac.filter_(arr, plain), pa.float64()))
    # Nulls are missing (already NaN); the other values are few in a real
    # export (malformed text, odd spellings).
    rest = ac.and_(ac.invert(plain), ac.is_valid(arr))
    if ac.any_true(rest):
        out[flags(rest)] = cleaned_to_float_pandas(ac.filter_(arr, rest))
    return out


def cleaned_to_float_pandas(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """:func:`cleaned_to_float` through pandas alone, value by value.

    Arrow's cast rejects a whole array on the first bad value; pandas'
    ``to_numeric`` coerces per element, which is what missing-not-zero needs.
    """
    # Only odd spellings come here: pandas is loaded for them alone.
    import pandas as pd

    series = pd.Series(arr.to_numpy(zero_copy_only=False), dtype=object)
    out: np.ndarray = pd.to_numeric(series, errors="coerce").to_numpy(
        dtype=np.float64, na_value=np.nan
    )
    return out
