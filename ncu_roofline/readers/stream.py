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
        return self.recode_texts(dictionary.to_pylist())

    def recode_texts(self, texts: list[str]) -> np.ndarray:
        """The shared code of each of ``texts`` (distinct values; new ones appended)."""
        codes = self.codes
        values = self.values
        out = np.empty(len(texts), dtype=np.int64)
        # A loop over the batch's distinct values, never over its rows.
        for i, text in enumerate(texts):
            code = codes.get(text)
            if code is None:
                code = codes[text] = len(values)
                values.append(text)
            out[i] = code
        return out


def _unchanged(lookup: np.ndarray) -> bool:
    """Whether a re-coding maps each code to itself (nothing to re-code)."""
    return bool((lookup == np.arange(len(lookup))).all())


def _index_type(size: int) -> tuple[type[np.signedinteger], pa.DataType]:
    """The narrowest index type that holds codes below ``size``."""
    if size <= np.iinfo(np.int8).max:
        return np.int8, pa.int8()
    if size <= np.iinfo(np.int16).max:
        return np.int16, pa.int16()
    return np.int32, pa.int32()


class CompactParts:
    """One stretch of a table read batch by batch: its own dictionaries and narrow codes.

    The stretches of one table (read one after another, or side by side on
    threads) are joined in order by :meth:`absorb` into the first, whose
    :meth:`table` is then the table a single read gives.
    """

    def __init__(self, schema: pa.Schema) -> None:
        self.schema = schema
        is_dict = [pa.types.is_dictionary(f.type) for f in schema]
        self.dictionaries = {i: _Dictionary() for i, d in enumerate(is_dict) if d}
        self.codes: dict[int, list[np.ndarray]] = {i: [] for i in self.dictionaries}
        self.plain: dict[int, list[pa.Array]] = {i: [] for i, d in enumerate(is_dict) if not d}

    def add(self, batch: pa.RecordBatch) -> None:
        """Keep one batch as codes into this stretch's dictionaries (the batch may then go)."""
        for i, shared in self.dictionaries.items():
            column = batch.column(i)
            lookup = shared.recode(column.dictionary)
            indices = numbers(column.indices, missing=-1)
            # Narrow now: the final dictionary is at least as large as this one.
            narrow, _ = _index_type(len(shared.values))
            if _unchanged(lookup):
                self.codes[i].append(indices.astype(narrow))
            else:
                self.codes[i].append(lookup.astype(narrow)[indices])
        for i, chunks in self.plain.items():
            chunks.append(batch.column(i))

    def absorb(self, later: CompactParts) -> None:
        """The next stretch's batches appended to this one's, its codes re-coded into this
        stretch's dictionaries (its new values follow, in its own order of first
        appearance); ``later`` is emptied.

        Called on each stretch as it is read, while the next ones are still
        being read: the re-coding overlaps their parse.
        """
        for i, shared in self.dictionaries.items():
            own = later.dictionaries[i].values
            lookup = shared.recode_texts(own)
            if _unchanged(lookup):
                # Its values first seen in the same order (the names of metrics,
                # kernels, units in every stretch): its codes are already ours.
                # Copied all the same: arrays made on a parse thread and kept
                # would pin that thread's heap (about 40 MB more at the peak).
                self.codes[i].extend(c.copy() for c in later.codes[i])
            else:
                narrow, _ = _index_type(len(shared.values))
                recoded = lookup.astype(narrow)
                self.codes[i].extend(recoded[c] for c in later.codes[i])
            later.codes[i] = []
        for i, chunks in self.plain.items():
            chunks.extend(later.plain[i])
            later.plain[i] = []

    def table(self) -> pa.Table:
        """The batches kept so far as one table (the codes are handed over: call once)."""
        schema = self.schema
        columns: list[pa.ChunkedArray] = []
        fields: list[pa.Field] = []
        for i, name in enumerate(schema.names):
            if i in self.plain:
                columns.append(pa.chunked_array(self.plain[i], type=schema.field(i).type))
                fields.append(schema.field(i))
                continue
            values = strings(self.dictionaries[i].values)
            np_type, arrow_type = _index_type(len(values))
            dict_type = pa.dictionary(arrow_type, pa.string())
            codes = self.codes[i]
            chunks = [
                pa.DictionaryArray.from_arrays(integer_array(c.astype(np_type, copy=False)), values)
                for c in codes
            ]
            self.codes[i] = []  # each batch's codes are in its chunk now: free them as we go
            columns.append(pa.chunked_array(chunks, type=dict_type))
            fields.append(pa.field(name, dict_type))
        return pa.Table.from_arrays(columns, schema=pa.schema(fields))


def compact_parts(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> CompactParts:
    """``batches`` kept as one stretch of codes (:class:`CompactParts`)."""
    parts = CompactParts(schema)
    for batch in batches:
        parts.add(batch)
    return parts


def compact_table(batches: Iterable[pa.RecordBatch], schema: pa.Schema) -> pa.Table:
    """The table of ``batches``, one chunk per batch, every dictionary column sharing one
    dictionary (with indices as narrow as it allows).

    ``schema`` is the reader's; columns that are not dictionaries are kept as read.
    """
    return compact_parts(batches, schema).table()
