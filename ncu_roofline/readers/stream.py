"""A large table read batch by batch into a compact table.

Arrow's whole-table reader holds every parse block and one dictionary per
block and column before the dictionaries are unified: about the file's size
in memory.  Read batch by batch instead, each batch's dictionary columns are
re-coded at once into dictionaries shared by all batches (in order of first
appearance, as :meth:`pyarrow.Table.unify_dictionaries` orders them) and
kept as narrow integer codes; the batch itself is then dropped.  What is
left is the table the whole-table reader gives, row for row and value for
value, in a fraction of the memory: one small integer per row and column,
and the text of the value column.

The launches are pivoted from that table exactly as from a whole-table
read, so runs, cut launches and lost rows are judged over the whole table
and the launches, values and warnings are the same.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pyarrow as pa

from ncu_roofline.core.arrays import integer_array, numbers, strings


class _Dictionary:
    """One column's dictionary over all batches, in order of first appearance."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.values: list[str] = []

    def recode(self, dictionary: pa.Array) -> np.ndarray:
        """The shared code of each value of a batch's dictionary (new ones appended)."""
        codes = self.codes
        values = self.values
        out = np.empty(len(dictionary), dtype=np.int64)
        # A loop over the batch's distinct values, never over its rows.
        for i, text in enumerate(dictionary.to_pylist()):
            code = codes.get(text)
            if code is None:
                code = codes[text] = len(values)
                values.append(text)
            out[i] = code
        return out


def _index_type(size: int) -> tuple[type[np.signedinteger], pa.DataType]:
    """The narrowest index type that holds codes below ``size``."""
    if size <= np.iinfo(np.int8).max:
        return np.int8, pa.int8()
    if size <= np.iinfo(np.int16).max:
        return np.int16, pa.int16()
    return np.int32, pa.int32()


def compact_table(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    """The table of ``batches``, one chunk per batch, every dictionary column sharing one
    dictionary (with indices as narrow as it allows).

    ``schema`` is the reader's; columns that are not dictionaries are kept as read.
    """
    names = schema.names
    is_dict = [pa.types.is_dictionary(f.type) for f in schema]
    dictionaries = {i: _Dictionary() for i, d in enumerate(is_dict) if d}
    codes: dict[int, list[np.ndarray]] = {i: [] for i in dictionaries}
    plain: dict[int, list[pa.Array]] = {i: [] for i, d in enumerate(is_dict) if not d}
    for batch in batches:
        for i, shared in dictionaries.items():
            column = batch.column(i)
            lookup = shared.recode(column.dictionary)
            indices = numbers(column.indices, missing=-1)
            # Narrow now: the final dictionary is at least as large as this one.
            narrow, _ = _index_type(len(shared.values))
            codes[i].append(lookup.astype(narrow)[indices] if lookup.size else indices)
        for i, chunks in plain.items():
            chunks.append(batch.column(i))
    columns: list[pa.ChunkedArray] = []
    fields: list[pa.Field] = []
    for i, name in enumerate(names):
        if i in plain:
            columns.append(pa.chunked_array(plain[i], type=schema.field(i).type))
            fields.append(schema.field(i))
            continue
        values = strings(dictionaries[i].values)
        np_type, arrow_type = _index_type(len(values))
        dict_type = pa.dictionary(arrow_type, pa.string())
        chunks = [
            pa.DictionaryArray.from_arrays(integer_array(c.astype(np_type, copy=False)), values)
            for c in codes[i]
        ]
        codes[i] = []  # each batch's codes are in its chunk now: free them as we go
        columns.append(pa.chunked_array(chunks, type=dict_type))
        fields.append(pa.field(name, dict_type))
    return pa.Table.from_arrays(columns, schema=pa.schema(fields))
