"""A CSV table's identity columns (ID, process, kernel, launch shape...) over its launches.

The readers keep each text identity column as codes into its dictionary
(:class:`~ncu_roofline.core.launches.Coded`) and convert the integer ones
once per distinct value, so that no step here runs per launch in Python.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias

import numpy as np
import pyarrow as pa

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import flags, indices, integer_array
from ncu_roofline.core.arrays import numbers as arrow_numbers
from ncu_roofline.core.columns import LAUNCH_MODEL_COLUMNS
from ncu_roofline.core.launches import Coded, first_set
from ncu_roofline.core.units import cleaned_to_float_pandas
from ncu_roofline.readers.nvtx import NVTX_PUSHPOP as _NVTX_PUSHPOP
from ncu_roofline.readers.nvtx import NVTX_STARTEND as _NVTX_STARTEND
from ncu_roofline.readers.nvtx import parse_nvtx_cell
from ncu_roofline.readers.table import codes_of, dict_codes, dictionary_size, distinct_codes

#: One launch's identity value as a reader reads it: a text, a number, or missing.
IdentityValue: TypeAlias = str | float | None

#: Identity columns over launches, by registry name: a text column's codes
#: (:class:`~ncu_roofline.core.launches.Coded`), an array, or a list of values;
#: :func:`~ncu_roofline.core.launches.finalize_columns` converts each.
IdentityColumns: TypeAlias = dict[str, Coded | np.ndarray | list[IdentityValue]]

#: Metric columns over launches, by metric id: numbers (float64, NaN missing),
#: or texts (codes, or an object array with ``None`` missing).
MetricColumns: TypeAlias = dict[str, np.ndarray | Coded]

__all__ = [
    "IDENTITY_HEADERS",
    "IdentityColumns",
    "IdentityValue",
    "MetricColumns",
    "NotWhole",
    "encode_identity",
    "identity_columns",
]

#: Identity columns the launch frame holds as integers.
_INT_IDENTITY = frozenset(c.name for c in LAUNCH_MODEL_COLUMNS if c.dtype == "int")

#: ncu header -> canonical identity column.
IDENTITY_HEADERS: dict[str, str] = {
    "ID": "id",
    "Process ID": "process_id",
    "Process Name": "process_name",
    "Host Name": "host",
    "Kernel Name": "kernel",
    "Kernel Time": "kernel_time",
    "Context": "context",
    "Stream": "stream",
    "Block Size": "block",
    "Grid Size": "grid",
    "Device": "device",
    "CC": "cc",
}


@dataclass(frozen=True)
class NotWhole:
    """Launches whose integer identity field (``Stream``...) holds no whole number."""

    column: str
    count: int
    first_launch: int
    text: str


def identity_columns(
    table: pa.Table,
    first_rows: np.ndarray,
    header: list[str],
    not_whole: list[NotWhole] | None = None,
) -> IdentityColumns:
    """Identity columns over launches, from each column's codes at the launches' first rows.

    Integer columns are converted once per distinct value present (the same
    values, so the same conversion, as over all launches); text columns stay
    codes into their dictionary (:class:`~ncu_roofline.core.launches.Coded`).
    A value of an integer column that is text, ``inf`` or too large for a
    double (``1e400``) is missing, and noted in ``not_whole`` for a warning.
    """
    ident: IdentityColumns = {}
    for col_name, canon in IDENTITY_HEADERS.items():
        if col_name not in table.column_names:
            continue
        col = table.column(col_name)
        if not dictionary_size(col):
            ident[canon] = []
            continue
        if canon in _INT_IDENTITY:
            # Only the texts present are converted: no Python string per launch.
            at = codes_of(col)[first_rows]
            if at.size and at.min() >= 0:
                present, inverse = distinct_codes(at, dictionary_size(col))
            else:  # a null (code -1) has no slot in distinct_codes' table
                present, inverse = np.unique(at, return_inverse=True)
            texts = ac.take(col.chunks[0].dictionary, indices(present))
            numbers = _whole_numbers(texts)
            inverse = inverse.reshape(-1)
            if numbers.dtype.kind == "f":
                numbers = _finite(col_name, texts, numbers, inverse, not_whole)
            ident[canon] = numbers[inverse]
        else:
            codes, dictionary = dict_codes(col)
            ident[canon] = Coded(codes[first_rows].astype(np.int64), list(dictionary))
    nvtx: Coded | None = None
    for prefix in (_NVTX_PUSHPOP, _NVTX_STARTEND):
        cols = [h for h in header if h.startswith(prefix)]
        if not cols or cols[0] not in table.column_names:
            continue
        codes, dictionary = dict_codes(table.column(cols[0]))
        parsed = Coded(codes[first_rows].astype(np.int64), [parse_nvtx_cell(d) for d in dictionary])
        nvtx = parsed if nvtx is None else first_set(nvtx, parsed)
    if nvtx is not None:
        ident["nvtx"] = nvtx
    return ident


def _finite(
    column: str,
    texts: pa.Array,
    numbers: np.ndarray,
    inverse: np.ndarray,
    not_whole: list[NotWhole] | None,
) -> np.ndarray:
    """``numbers`` (one per distinct text) with the infinite ones missing; the launches
    (``inverse``) whose text is not blank but reads as no finite number noted in
    ``not_whole``."""
    lost = ~np.isfinite(numbers)
    if not lost.any():
        return numbers
    numbers = np.where(lost, np.nan, numbers)
    blank = flags(ac.match_substring_regex(ac.utf8_trim_whitespace(texts), "^$"))
    bad = lost & ~blank
    if not_whole is not None and bad.any():
        launches = np.flatnonzero(bad[inverse])
        first = int(launches[0])
        text = str(ac.take(texts, indices(inverse[first : first + 1])).to_pylist()[0])
        not_whole.append(NotWhole(column, int(launches.size), first, text.strip()))
    return numbers


def _whole_numbers(texts: pa.Array) -> np.ndarray:
    """Identity numbers (IDs, devices, streams) from their texts; NaN where not a number.

    Integers as printed come back as int64 (exact beyond 2**53, and no float
    round trip for the launch model's integer columns); other plain
    spellings are cast to float64 by Arrow; any other goes through
    ``pandas.to_numeric`` with coercion, which has always decided them.
    """
    if not texts.null_count:
        try:
            return arrow_numbers(ac.cast(texts, pa.int64()), missing=0)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass  # not all integers as printed
    try:
        return arrow_numbers(ac.cast(texts, pa.float64()))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return cleaned_to_float_pandas(texts)


def encode_identity(table: pa.Table, columns: list[str]) -> pa.Table:
    """``table`` with ``columns`` dictionary-encoded after the parse, one dictionary each.

    A raw page has one row per launch, so its identity columns are parsed as
    plain strings: Arrow's CSV reader builds a dictionary per block (to be
    unified afterwards), which costs more than the parse of such a column;
    encoding the whole column once gives the same codes (in order of first
    appearance) at a fraction of that.
    """
    for name in columns:
        i = table.schema.get_field_index(name)
        col = table.column(i)
        if not pa.types.is_dictionary(col.type):
            texts = col.combine_chunks()
            encoded = _counted_up(texts) if name == "ID" else None
            if encoded is None:
                encoded = ac.dictionary_encode(texts)
            table = table.set_column(i, name, encoded)
    return table.unify_dictionaries()


def _counted_up(texts: pa.Array) -> pa.DictionaryArray | None:
    """The IDs as their own dictionary when they are integers that only go up; else None.

    ncu numbers a raw page's launches 0, 1, 2, ...: each ID is new, so its
    code is its row and the dictionary is the column itself, the codes that
    hashing every ID (the slowest step after the parse) would give.
    Integers that only go up are distinct, so their texts are too.
    """
    if texts.null_count or len(texts) < 2:
        return None
    try:
        ids = arrow_numbers(ac.cast(texts, pa.int64()), missing=0)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    if not bool((ids[1:] > ids[:-1]).all()):
        return None
    rows = integer_array(np.arange(len(texts), dtype=np.int32))
    return pa.DictionaryArray.from_arrays(rows, texts)
