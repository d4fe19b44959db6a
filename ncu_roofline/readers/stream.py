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

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import integer_array, numbers, strings

#: A column whose dictionary would grow past this many values is kept as each
#: piece's own dictionary and codes, unified once by Arrow at the end: a column
#: with a value per launch (launch IDs, a summary's process IDs) would cost a
#: Python lookup per launch for every batch and again for every stretch.
ARROW_VALUES = 1024


class _Dictionary:
    """One column's dictionary over all batches, in order of first appearance."""

    def __init__(self) -> None:
        self.codes: dict[str, int] = {}
        self.values: list[str] = []

    def __len__(self) -> int:
        return len(self.values)

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


class _Column:
    """One dictionary column of a stretch: codes into one shared dictionary while it is
    small; past :data:`ARROW_VALUES`, pieces that each keep their own dictionary.

    The pieces are in row order; :meth:`texts_and_chunks` unifies them once,
    so the values and codes are those one shared dictionary gives.
    """

    def __init__(self) -> None:
        self.shared = _Dictionary()
        self.codes: list[np.ndarray] = []
        #: Once large: (dictionary, codes into it) per piece, in order.
        self.pieces: list[tuple[pa.Array, list[np.ndarray]]] | None = None

    def _go_large(self) -> list[tuple[pa.Array, list[np.ndarray]]]:
        """The pieces, the shared dictionary and its codes made the first of them."""
        if self.pieces is None:
            self.pieces = []
            if self.codes:
                self.pieces.append((strings(self.shared.values), self.codes))
            self.shared, self.codes = _Dictionary(), []
        return self.pieces

    def add(self, column: pa.DictionaryArray) -> None:
        """One batch's column kept as codes."""
        dictionary = column.dictionary
        indices = numbers(column.indices, missing=-1)
        if self.pieces is None and len(self.shared) + len(dictionary) <= ARROW_VALUES:
            lookup = self.shared.recode(dictionary)
            # Narrow now: the final dictionary is at least as large as this one.
            narrow, _ = _index_type(len(self.shared))
            if _unchanged(lookup):
                self.codes.append(indices.astype(narrow))
            else:
                self.codes.append(lookup.astype(narrow)[indices])
            return
        narrow, _ = _index_type(len(dictionary))
        self._go_large().append((dictionary, [indices.astype(narrow)]))

    def absorb(self, later: _Column) -> None:
        """The next stretch's codes appended (``later`` is emptied).

        Arrays made on a parse thread are copied here: kept, they would pin
        that thread's heap (about 40 MB more at the peak).
        """
        small = self.pieces is None and later.pieces is None
        if small and len(self.shared) + len(later.shared) <= ARROW_VALUES:
            lookup = self.shared.recode_texts(later.shared.values)
            if _unchanged(lookup):
                # Its values first seen in the same order (the names of metrics,
                # kernels, units in every stretch): its codes are already ours.
                self.codes.extend(c.copy() for c in later.codes)
            else:
                narrow, _ = _index_type(len(self.shared))
                recoded = lookup.astype(narrow)
                self.codes.extend(recoded[c] for c in later.codes)
        else:
            pieces = self._go_large()
            for dictionary, codes in later._go_large():
                pieces.append((dictionary, [c.copy() for c in codes]))
        later.shared, later.codes, later.pieces = _Dictionary(), [], None

    def texts_and_chunks(self) -> tuple[pa.Array, list[np.ndarray]]:
        """The column's distinct values (in order of first appearance) and its codes into
        them, a chunk per batch (handed over: call once)."""
        if self.pieces is None:
            values, codes = strings(self.shared.values), self.codes
            self.codes = []
            return values, codes
        pieces, self.pieces = self.pieces, []
        if not pieces:
            return strings([]), []
        # The pieces' dictionaries in order, hashed once: the first appearance
        # of each value among them is its first appearance among the rows.
        joined = pa.concat_arrays(
            [d if d.type == pa.string() else ac.cast(d, pa.string()) for d, _ in pieces]
        )
        encoded = ac.dictionary_encode(joined)
        position = numbers(encoded.indices, missing=-1).astype(np.int64)
        narrow, _ = _index_type(len(encoded.dictionary))
        chunks: list[np.ndarray] = []
        at = 0
        for dictionary, codes in pieces:
            lookup = position[at : at + len(dictionary)].astype(narrow)
            at += len(dictionary)
            chunks.extend(lookup[c] for c in codes)
            codes.clear()  # re-coded: the piece's own codes go as we go
        return encoded.dictionary, chunks


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
        self.columns = {i: _Column() for i, d in enumerate(is_dict) if d}
        self.plain: dict[int, list[pa.Array]] = {i: [] for i, d in enumerate(is_dict) if not d}

    def add(self, batch: pa.RecordBatch) -> None:
        """Keep one batch as codes into this stretch's dictionaries (the batch may then go)."""
        for i, column in self.columns.items():
            column.add(batch.column(i))
        for i, chunks in self.plain.items():
            chunks.append(batch.column(i))

    def absorb(self, later: CompactParts) -> None:
        """The next stretch's batches appended to this one's, its codes re-coded into this
        stretch's dictionaries (its new values follow, in its own order of first
        appearance); ``later`` is emptied.

        Called on each stretch as it is read, while the next ones are still
        being read: the re-coding overlaps their parse.
        """
        for i, column in self.columns.items():
            column.absorb(later.columns[i])
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
            values, codes = self.columns[i].texts_and_chunks()
            np_type, arrow_type = _index_type(len(values))
            dict_type = pa.dictionary(arrow_type, pa.string())
            chunks = []
            while codes:
                # Each batch's codes go into its chunk: freed as we go.
                c = codes.pop(0)
                chunks.append(
                    pa.DictionaryArray.from_arrays(
                        integer_array(c.astype(np_type, copy=False)), values
                    )
                )
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
