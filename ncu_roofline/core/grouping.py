"""Launches told apart by the values of a few text columns, hashing each column once.

The launch table repeats a handful of texts on every launch: kernel names
(up to a kilobyte each), sources, devices, launch shapes.  Rules that read
those texts, and the kernel groups, need each launch's distinct value,
not the text itself; converting every row to a Python object, filling its
missing values or hashing its text again per row costs far more than the
rule.  These helpers give codes per row and the distinct values once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa

from ncu_roofline.core.arrays import integer_array, numbers
from ncu_roofline.core.compute import dictionary_encode
from ncu_roofline.core.table import is_missing, object_ids

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "concat_texts",
    "distinct_codes",
    "distinct_objects",
    "distinct_rows",
    "per_distinct",
    "row_groups",
    "shared_texts",
    "text_codes",
    "text_mask",
]


#: Combined group keys stay below this (products of distinct counts), else renumbered.
_KEY_LIMIT = 1 << 62


def distinct_objects(items: np.ndarray) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.int64]]:
    """Each element's object (an index among the distinct objects of an object array) and
    the first row holding each object, in order of first appearance.

    Objects are told apart by identity, never hashed by value: equal values
    held in different objects are different objects here.
    """
    ids = object_ids(items)
    if ids.size and (ids == ids[0]).all():
        # One object throughout (a constant column): nothing to hash.
        return np.zeros(ids.size, dtype=np.intp), np.zeros(1, dtype=np.int64)
    codes, _ = _factorized(ids)
    # Codes are numbered in order of first appearance: a row holds its
    # object's first appearance where its code exceeds every earlier one.
    new = np.zeros(codes.size, dtype=bool)
    if codes.size:
        new[0] = True
        np.greater(codes[1:], np.maximum.accumulate(codes)[:-1], out=new[1:])
    return codes, np.flatnonzero(new).astype(np.int64)


def distinct_codes(values: pd.Series | np.ndarray) -> tuple[npt.NDArray[np.int64], list[Any]]:
    """Each value's code (-1 where missing) and the distinct values, in order of first appearance.

    An object column is hashed by object first: the launch model's text
    columns hold one object per distinct text, and pandas would hash each
    row's text anew (a kilobyte kernel name, 100,000 times).  The few
    objects are then told apart by value, so equal texts held in different
    objects still share a code.  Other columns (Arrow strings, categories,
    numbers), and object columns holding unhashable values, are factorised
    by pandas.
    """
    if values.dtype == object and not len(values):
        return np.zeros(0, dtype=np.int64), []
    if values.dtype == object:
        items = values if isinstance(values, np.ndarray) else values.to_numpy(dtype=object)
        # The first row of each object: its value, and whether it is missing.
        object_codes, firsts = distinct_objects(items)
        code_of: dict[Any, int] = {}
        uniques: list[Any] = []
        object_code = np.empty(len(firsts), dtype=np.int64)
        try:
            for j, value in enumerate(items[firsts].tolist()):
                if is_missing(value):
                    object_code[j] = -1
                    continue
                code = code_of.get(value)
                if code is None:
                    code = code_of[value] = len(uniques)
                    uniques.append(value)
                object_code[j] = code
        except TypeError:  # an unhashable value: pandas tells them apart
            pass
        else:
            out: npt.NDArray[np.int64] = object_code[object_codes]
            return out, uniques
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        # Numbers (NaN missing): hashed by Arrow, in order of first appearance.
        codes, distinct = _factorized(values)
        return codes.astype(np.int64), distinct.tolist()
    # A pandas column (Arrow strings, categories) or unhashable objects: its own
    # library tells them apart; whoever holds such a column has loaded it.
    import pandas as pd

    codes, found = pd.factorize(values, use_na_sentinel=True)
    return np.asarray(codes, dtype=np.int64), list(found)


def per_distinct(
    values: pd.Series | np.ndarray,
    fn: Callable[[Any], Any],
    missing: Any,
    dtype: npt.DTypeLike = object,
) -> np.ndarray:
    """``fn`` of each value, called once per distinct value; ``missing`` where a value is missing."""
    codes, uniques = distinct_codes(values)
    table = np.empty(len(uniques) + 1, dtype=dtype)
    # One at a time: ``fn`` may return sequences, which numpy would spread.
    for i, value in enumerate(uniques):
        table[i] = fn(value)
    table[-1] = missing  # code -1 (missing) reads the last entry
    out: np.ndarray = table[codes]
    return out


def shared_texts(values: npt.NDArray[np.object_]) -> npt.NDArray[np.object_]:
    """An object column with equal texts held in one object; ``values`` itself when a
    sample of it shows no text held twice, or when it holds other values than texts
    and missing ones (which keep their rows' objects).

    Texts made row by row (a basis per launch, ``"a" + "; " + b`` over an
    array, a value pandas hands out as a new object per row) are one object
    per row though a handful are distinct: hundreds of thousands of copies,
    each hashed again wherever the column is read.  Here they are hashed
    once, by value, in C; equal texts are then the first one's object (a
    text subclass's value, equal, may become a plain text).
    """
    sample = [v for v in values[:: max(1, len(values) // _SAMPLE)].tolist() if type(v) is str]
    if len({id(v) for v in sample}) == len(set(sample)):
        return values
    coded = text_codes(values)
    if coded is None:
        return values
    codes, uniques = coded
    out: npt.NDArray[np.object_] = np.asarray(uniques, dtype=object)[np.maximum(codes, 0)]
    missing = codes < 0
    out[missing] = values[missing]
    return out


def text_codes(values: npt.NDArray[np.object_]) -> tuple[npt.NDArray[np.intp], list[str]] | None:
    """Each value's code (-1 where missing) and the distinct texts, in order of first
    appearance, found by hashing in C; None when the column holds anything but texts
    and missing values.

    Only the distinct values are looked at: a value equal to a text is a text
    (or a subclass of one, held by its first equal), so no row is looked at
    on its own.  A column holding a few objects many times over (the launch
    model's texts: one object per distinct text) is told apart by object
    first, its rows' addresses hashed as integers rather than their texts.
    """
    if len(values) >= _BY_OBJECT_ROWS:
        coded = _text_codes_by_object(values)
        if coded is not None:
            return coded
    return _text_codes_by_value(values)


def _text_codes_by_value(
    values: npt.NDArray[np.object_],
) -> tuple[npt.NDArray[np.intp], list[str]] | None:
    """:func:`text_codes` hashing every value: a dict of the distinct values (built in C),
    then each row's code looked up in it (in C too); None where a distinct value is no
    plain text (a text subclass equal to a text before it is that text)."""
    rows = values.tolist()
    code_of: dict[Any, int] = {}
    texts: list[str] = []
    try:
        distinct = dict.fromkeys(rows)
    except TypeError:  # lists or dicts among them
        return None
    for value in distinct:
        if is_missing(value):
            code_of[value] = -1
        elif type(value) is str:
            code_of[value] = len(texts)
            texts.append(value)
        else:
            return None  # numbers too: equal ones (1 and True) are not the same value
    codes = np.fromiter(map(code_of.__getitem__, rows), dtype=np.intp, count=len(rows))
    return codes, texts


#: Columns shorter than this are hashed by value at once.
_BY_OBJECT_ROWS = 64


def _text_codes_by_object(
    values: npt.NDArray[np.object_],
) -> tuple[npt.NDArray[np.intp], list[str]] | None:
    """:func:`text_codes` by object first; None where hashing by value is to answer: too
    many objects for this to pay, or any but plain texts and missing values among them."""
    object_codes, first_rows = distinct_objects(values)
    if len(first_rows) * 4 > len(values):
        return None
    firsts = values[first_rows]
    missing = [is_missing(v) for v in firsts.tolist()]
    code_of: dict[str, int] = {}
    texts: list[str] = []
    table = np.empty(len(firsts), dtype=np.intp)
    for j, value in enumerate(firsts.tolist()):
        if missing[j]:
            table[j] = -1
            continue
        if type(value) is not str:
            # Not a text, or a text subclass (which may equal a text held
            # before it): left to the hashing by value.
            return None
        code = code_of.get(value)
        if code is None:
            code = code_of[value] = len(texts)
            texts.append(value)
        table[j] = code
    return table[object_codes], texts


def concat_texts(*parts: str | npt.NDArray[np.object_]) -> npt.NDArray[np.object_]:
    """Row by row, the text ``parts[0] + parts[1] + ...`` (texts given once, and arrays
    of texts of one length), each distinct combination made once and held in one object
    by every row that has it.

    What ``"busiest unit: " + units`` over object arrays gives, without a new
    text per row: the arrays' rows are told apart by object (the texts a
    stage makes per distinct value are a few objects), so a launch table of
    100,000 rows costs a hash of integers, not 100,000 texts made and later
    hashed again (:func:`shared_texts`).
    """
    arrays = [p for p in parts if not isinstance(p, str)]
    if not arrays:
        raise ValueError("concat_texts needs at least one array")
    n = len(arrays[0])
    if any(len(a) != n for a in arrays):
        raise ValueError("the arrays differ in length")
    if n == 0:
        return np.empty(0, dtype=object)
    coded = []
    for values in arrays:
        codes, firsts = distinct_objects(values)
        coded.append((codes.astype(np.int64), len(firsts)))
    groups = _combined(coded, n)
    # Groups are numbered in order of first appearance: their first rows in order.
    first_rows = np.unique(groups, return_index=True)[1]
    made = np.empty(len(first_rows), dtype=object)
    for i, row in enumerate(first_rows.tolist()):
        made[i] = "".join(p if isinstance(p, str) else p[row] for p in parts)
    out: npt.NDArray[np.object_] = made[groups]
    return out


def text_mask(
    values: pd.Series | npt.NDArray[np.object_], test: Callable[[str], bool]
) -> npt.NDArray[np.bool_]:
    """``test`` of each row's text, called once per distinct text; False where a value is
    missing or no text, as pandas' ``.str`` methods with ``na=False`` give.

    The texts are told apart in C (:func:`text_codes`), so a column of one
    object per row (a basis written per launch) costs a hash per row, not a
    Python call.
    """
    items = (
        np.asarray(values, dtype=object)
        if isinstance(values, np.ndarray)
        else values.to_numpy(dtype=object)
    )
    coded = text_codes(items)
    if coded is None:  # other values among them, or text subclasses
        try:
            return per_distinct(items, lambda v: isinstance(v, str) and bool(test(v)), False, bool)
        except TypeError:  # unhashable values (lists): each row on its own
            return np.fromiter(
                (isinstance(v, str) and bool(test(v)) for v in items), dtype=bool, count=len(items)
            )
    codes, texts = coded
    # Code -1 (missing) reads the False at the end.
    table = np.array([bool(test(t)) for t in texts] + [False], dtype=bool)
    out: npt.NDArray[np.bool_] = table[codes]
    return out


#: Rows of a column looked at to tell whether its texts are held once each.
_SAMPLE = 64


def row_groups(columns: Sequence[pd.Series | np.ndarray], blank: Any = "") -> npt.NDArray[np.intp]:
    """Each row's group over the values of ``columns``, numbered in order of first appearance.

    A missing value counts as ``blank`` (the same group as a row holding
    ``blank``), as grouping the columns filled with it does: the numbers
    are those of ``groupby(sort=False).ngroup()`` over the filled columns.
    """
    coded = []
    for values in columns:
        codes, uniques = distinct_codes(values)
        missing = codes < 0
        if missing.any():
            at = [i for i, u in enumerate(uniques) if type(u) is type(blank) and u == blank]
            codes[missing] = at[0] if at else len(uniques)
        coded.append((codes, len(uniques) + 1))
    return _combined(coded, len(columns[0]) if columns else 0)


def distinct_rows(
    columns: Sequence[pd.Series | np.ndarray],
) -> tuple[npt.NDArray[np.intp], list[list[Any]]]:
    """Each row's distinct row of ``columns`` (numbered in order of first appearance), and
    each distinct row's values as plain Python values, a missing one as ``None``.

    What building a record per row and sharing equal ones would give, with
    no Python object made per row: a long table repeating a few rows (ncu's
    rule results, the same on every launch of a kernel) costs its distinct
    rows only.
    """
    n = len(columns[0]) if columns else 0
    coded = []
    plain: list[list[Any]] = []
    for values in columns:
        codes, uniques = distinct_codes(values)
        # Code -1 (missing) reads the None at the end.
        plain.append([u.item() if isinstance(u, np.generic) else u for u in uniques] + [None])
        coded.append((codes + 1, len(uniques) + 1))
    groups = _combined(coded, n)
    firsts = np.full(int(groups.max()) + 1 if n else 0, n, dtype=np.int64)
    np.minimum.at(firsts, groups, np.arange(n, dtype=np.int64))
    rows = [
        [values[codes[r] - 1] for (codes, _), values in zip(coded, plain, strict=True)]
        for r in firsts.tolist()
    ]
    return groups, rows


def _combined(coded: Sequence[tuple[npt.NDArray[np.int64], int]], n: int) -> npt.NDArray[np.intp]:
    """Groups over several columns of codes (each in ``range(width)``), numbered in order
    of first appearance."""
    key = np.zeros(n, dtype=np.int64)
    span = 1
    for codes, width in coded:
        if span * width >= _KEY_LIMIT:
            renumbered, distinct = _factorized(key)
            key, span = renumbered.astype(np.int64), len(distinct)
        key = key * width + codes
        span *= width
    groups, _ = _factorized(key)
    return groups


def _factorized(values: npt.NDArray[Any]) -> tuple[npt.NDArray[np.intp], npt.NDArray[Any]]:
    """Each value's code (-1 where NaN) and the distinct values, both in order of first
    appearance, of an array of numbers or flags: Arrow's hash table, as
    ``pandas.factorize`` gives them.

    The Arrow array is made from the numpy buffers, never through pyarrow's
    conversions (which would load pandas, :mod:`ncu_roofline.core.arrays`).
    """
    if len(values) == 0:
        return np.zeros(0, dtype=np.intp), values[:0]
    kind = values.dtype.kind
    if kind == "b":
        codes, found = _factorized(values.astype(np.int8))
        return codes, found.astype(bool)
    if kind == "f":
        data = np.ascontiguousarray(values, dtype=np.float64)
        negative_zero = (data == 0.0) & np.signbit(data)
        if negative_zero.any():
            # Arrow hashes a float's bits, so -0.0 and 0.0 would be two values;
            # they are equal (as pandas codes them): coded as 0.0, each distinct
            # value is then the one first seen.
            codes, _ = _factorized(np.where(negative_zero, 0.0, data))
            firsts = np.full(int(codes.max()) + 1, len(data), dtype=np.int64)
            seen = codes >= 0
            np.minimum.at(firsts, codes[seen], np.flatnonzero(seen))
            return codes, values[firsts]
        valid = ~np.isnan(data)
        validity = None if valid.all() else pa.py_buffer(np.packbits(valid, bitorder="little"))
        arr = pa.Array.from_buffers(pa.float64(), len(data), [validity, pa.py_buffer(data)])
    else:
        arr = integer_array(values)
    encoded = dictionary_encode(arr)
    codes = numbers(encoded.indices, missing=-1).astype(np.intp)
    found = numbers(encoded.dictionary, missing=np.nan if kind == "f" else -1)
    return codes, found.astype(values.dtype)
