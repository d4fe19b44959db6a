"""The Arrow compute kernels the readers call, without importing ``pyarrow.compute``.

Importing ``pyarrow.compute`` builds a Python wrapper, with a parsed
docstring and signature, for each of the ~290 kernels of Arrow's registry:
about 25 ms, a twentieth of reading a 300 MB raw export.  The wrappers only
turn their arguments into an options object and call the registry, so the
readers do that here for the dozen kernels they use, with the same options
and defaults as the wrappers.  ``call_function`` and the options classes
are ``pyarrow.compute``'s own public names; they are defined in the
extension module ``pyarrow._compute``, which this module reads them from
(and, should a pyarrow release move them, from ``pyarrow.compute``).
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

try:
    import pyarrow._compute as _kernels
except ImportError:  # pragma: no cover - a pyarrow release that moved them
    import pyarrow.compute as _kernels

CastOptions = _kernels.CastOptions
DictionaryEncodeOptions = _kernels.DictionaryEncodeOptions
FilterOptions = _kernels.FilterOptions
MatchSubstringOptions = _kernels.MatchSubstringOptions
ReplaceSubstringOptions = _kernels.ReplaceSubstringOptions
ScalarAggregateOptions = _kernels.ScalarAggregateOptions
SetLookupOptions = _kernels.SetLookupOptions
TakeOptions = _kernels.TakeOptions
call_function = _kernels.call_function

__all__ = [
    "and_",
    "and_kleene",
    "any_true",
    "cast",
    "dictionary_encode",
    "filter_",
    "if_else",
    "invert",
    "is_in",
    "is_null",
    "is_valid",
    "match_substring",
    "match_substring_regex",
    "or_kleene",
    "replace_substring",
    "replace_substring_regex",
    "take",
    "utf8_length",
    "utf8_trim_whitespace",
]

#: An Arrow array, chunked array or scalar (what the kernels take and give).
Datum = Any


def cast(values: Datum, target_type: pa.DataType) -> Datum:
    """``values`` as ``target_type``; a value that does not convert raises (a safe cast)."""
    return call_function("cast", [values], CastOptions.safe(target_type))


def any_true(values: Datum) -> bool:
    """Whether any value of a boolean array is true (nulls skipped)."""
    result = call_function("any", [values], ScalarAggregateOptions(skip_nulls=True, min_count=1))
    return bool(result.as_py())


def match_substring(strings: Datum, pattern: str) -> Datum:
    """Whether each string holds ``pattern`` (a literal); null for a null."""
    return call_function("match_substring", [strings], MatchSubstringOptions(pattern))


def match_substring_regex(strings: Datum, pattern: str) -> Datum:
    """Whether each string matches the RE2 ``pattern`` somewhere; null for a null."""
    return call_function("match_substring_regex", [strings], MatchSubstringOptions(pattern))


def replace_substring(strings: Datum, pattern: str, replacement: str) -> Datum:
    """Each string with every occurrence of the literal ``pattern`` replaced."""
    options = ReplaceSubstringOptions(pattern, replacement)
    return call_function("replace_substring", [strings], options)


def replace_substring_regex(strings: Datum, pattern: str, replacement: str) -> Datum:
    """Each string with every match of the RE2 ``pattern`` replaced."""
    options = ReplaceSubstringOptions(pattern, replacement)
    return call_function("replace_substring_regex", [strings], options)


def utf8_trim_whitespace(strings: Datum) -> Datum:
    """Each string without leading and trailing Unicode whitespace."""
    return call_function("utf8_trim_whitespace", [strings])


def utf8_length(strings: Datum) -> Datum:
    """Each string's length in characters (int32; a null stays null)."""
    return call_function("utf8_length", [strings])


def is_in(values: Datum, value_set: pa.Array) -> Datum:
    """Whether each value is one of ``value_set`` (a null matches a null in the set)."""
    return call_function("is_in", [values], SetLookupOptions(value_set, skip_nulls=False))


def dictionary_encode(values: Datum) -> Datum:
    """``values`` dictionary-encoded; nulls stay nulls (not dictionary entries)."""
    return call_function("dictionary_encode", [values], DictionaryEncodeOptions("mask"))


def filter_(values: Datum, mask: Datum) -> Datum:
    """The values where ``mask`` is true; a null in the mask drops the value."""
    return call_function("filter", [values, mask], FilterOptions("drop"))


def take(values: Datum, indices: Datum) -> Datum:
    """The values at ``indices`` (an integer array); an index out of range raises.

    ``Array.take`` and its kin import ``pyarrow.compute`` on first use: call this instead.
    """
    return call_function("take", [values, indices], TakeOptions(boundscheck=True))


def if_else(cond: Datum, left: Datum, right: Datum) -> Datum:
    """``left`` where ``cond`` is true, ``right`` where false, null where null."""
    return call_function("if_else", [cond, left, right])


def is_null(values: Datum) -> Datum:
    """Whether each value is null (a NaN is not)."""
    return call_function("is_null", [values])


def is_valid(values: Datum) -> Datum:
    """Whether each value is not null."""
    return call_function("is_valid", [values])


def invert(values: Datum) -> Datum:
    """Logical not of a boolean array; null stays null."""
    return call_function("invert", [values])


def and_(left: Datum, right: Datum) -> Datum:
    """Logical and; null where either side is null."""
    return call_function("and", [left, right])


def and_kleene(left: Datum, right: Datum) -> Datum:
    """Logical and in Kleene logic: false and null is false."""
    return call_function("and_kleene", [left, right])


def or_kleene(left: Datum, right: Datum) -> Datum:
    """Logical or in Kleene logic: true or null is true."""
    return call_function("or_kleene", [left, right])
