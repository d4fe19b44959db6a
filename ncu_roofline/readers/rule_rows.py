"""ncu's rule rows on the details page, read into a :class:`~ncu_roofline.core.rules.RuleTable`.

Rule rows carry the full header's width (metric rows stop after ``Metric
Value``), so the table parse hands them to its invalid-row handler, which
keeps their text (:class:`~ncu_roofline.readers.table.SkipCounter`).  A
large export holds a few per launch, hundreds of thousands in all, so they
are parsed here as one CSV by Arrow and converted column by column: no
Python work per rule row.  ``Section Name`` holds the section identifier on
rule rows (``SpeedOfLight``).  The estimated-speedup columns exist since ncu
2023.x; older exports (three rule columns) give no estimate (NaN).
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from ncu_roofline.core import compute as ac
from ncu_roofline.core.arrays import flags, indices, numbers, strings
from ncu_roofline.core.rules import RuleTable, speedup_number

#: A whole number as ncu prints one, once blanks, thousands separators, a plus
#: and leading zeros are gone (more digits than an int64 holds: a damaged row).
_WHOLE = r"^-?[0-9]{1,19}$"
#: Digits alone, with a minus or not: what Arrow's cast to int64 reads as
#: Python's ``int`` does (it also reads ``0x10``, which is no launch number).
_DIGITS = r"^-?[0-9]+$"
#: A decimal number Arrow's cast reads exactly as Python's ``float`` does.
_DECIMAL = r"^[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$"
#: Arrow's largest parse block; rule rows are single lines far shorter.
_BLOCK = 1 << 24


def _parse(texts: list[str], header: list[str], wanted: list[int]) -> pa.Table | None:
    """The rule rows as a table of strings, the header's columns ``wanted`` (by position,
    named ``c<position>``); rows of another width left out."""
    data = "\n".join(texts).encode("utf-8")
    names = [f"c{i}" for i in range(len(header))]
    include = [names[i] for i in wanted]
    try:
        return pacsv.read_csv(
            pa.py_buffer(data),
            read_options=pacsv.ReadOptions(
                column_names=names, block_size=max(_BLOCK, len(data) + 1), use_threads=False
            ),
            # A row of another width (a damaged row) is no rule result.
            parse_options=pacsv.ParseOptions(
                newlines_in_values=False, invalid_row_handler=lambda _row: "skip"
            ),
            # Only the columns read below are converted (a kernel name, often
            # the longest text of a row, is not).
            convert_options=pacsv.ConvertOptions(
                include_columns=include,
                column_types=dict.fromkeys(include, pa.string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None


def _cleaned(column: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """Blanks and thousands separators removed."""
    return ac.replace_substring(ac.utf8_trim_whitespace(column), ",", "")


def _filled(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Which texts are not empty (no Python scalar: that would load pandas)."""
    lengths: np.ndarray = numbers(ac.utf8_length(column), missing=0) > 0
    return lengths


def _wholes(column: pa.Array | pa.ChunkedArray) -> tuple[np.ndarray, np.ndarray]:
    """Whole numbers (values, which are whole) of a text column."""
    cleaned = _cleaned(column)
    if flags(ac.match_substring_regex(cleaned, _DIGITS)).all():
        # Every value digits alone (launch numbers always are): read at once,
        # unless one is too large for an int64 (a damaged row).
        try:
            values = numbers(ac.cast(cleaned, pa.int64()), missing=-1)
            return values, np.ones(len(cleaned), dtype=bool)
        except (pa.ArrowInvalid, pa.ArrowTypeError):
            pass
    # Leading zeros go first ("0001" is 1), and Arrow's cast refuses the
    # leading plus Python's int reads.
    cleaned = ac.replace_substring_regex(cleaned, r"^(-?)\+?0*([0-9])", r"\1\2")
    ok = flags(ac.match_substring_regex(cleaned, _WHOLE))
    # 19 digits may exceed an int64 (which no launch number does): read those
    # few in Python; a larger one is a damaged row.
    long = ok & (numbers(ac.utf8_length(cleaned), missing=0) >= 19)
    for i in np.flatnonzero(long).tolist():
        text = cleaned[i].as_py()
        ok[i] = text is not None and -(2**63) <= int(text) < 2**63
    values = np.full(len(cleaned), -1, dtype=np.int64)
    if ok.any():
        picked = ac.take(cleaned, indices(np.flatnonzero(ok)))
        values[ok] = numbers(ac.cast(picked, pa.int64()), missing=-1)
    return values, ok


def _speedups(column: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """ncu's estimates as :func:`~ncu_roofline.core.rules.speedup_number` reads them, column-wise."""
    cleaned = _cleaned(column)
    out = np.full(len(cleaned), np.nan)
    plain = flags(ac.match_substring_regex(cleaned, _DECIMAL))
    if plain.any():
        out[plain] = numbers(
            ac.cast(ac.take(cleaned, indices(np.flatnonzero(plain))), pa.float64())
        )
    # What the pattern leaves (``inf``, ``1_0``...) is rare: read one by one.
    other = ~plain & _filled(cleaned)
    for i in np.flatnonzero(other):
        out[i] = speedup_number(cleaned[int(i)].as_py())
    # A negative or infinite estimate is no estimate.
    with np.errstate(invalid="ignore"):
        out[~((out >= 0.0) & (out < np.inf))] = np.nan
    return out


#: Rule rows parsed at once: their text, its copies and the parsed table stay
#: a few tens of MB above the texts however many rule rows there are.
CHUNK_ROWS = 20_000


def rule_table(texts: list[str], header: list[str]) -> RuleTable:
    """The rule results among ``texts`` (rule rows as printed), by launch.

    Rows without a rule name or a whole-number ``ID`` (a damaged row) are
    not rule results and are left out.  Read :data:`CHUNK_ROWS` at a time.
    """
    table = RuleTable()
    if not texts or "Rule Name" not in header or "ID" not in header:
        return table
    for start in range(0, len(texts), CHUNK_ROWS):
        table.extend(_rule_chunk(texts[start : start + CHUNK_ROWS], header))
    return table


#: The columns a rule result is read from.
_READ = (
    "ID",
    "Process ID",
    "Rule Name",
    "Rule Type",
    "Section Name",
    "Rule Description",
    "Estimated Speedup Type",
    "Estimated Speedup",
)


def _rule_chunk(texts: list[str], header: list[str]) -> RuleTable:
    """:func:`rule_table` of a few rule rows."""
    # The first column of a name, as a row read by name gives it.
    at = {name: i for i, name in reversed(list(enumerate(header)))}
    table = _parse(texts, header, sorted({at[name] for name in _READ if name in at}))
    if table is None or table.num_rows == 0:
        return RuleTable()
    n = table.num_rows

    def column(name: str) -> pa.Array | pa.ChunkedArray | None:
        i = at.get(name)
        return None if i is None else table.column(f"c{i}")

    def stripped(name: str) -> pa.Array | pa.ChunkedArray:
        col = column(name)
        return strings([""] * n) if col is None else ac.utf8_trim_whitespace(col)

    names = stripped("Rule Name")
    id_col = column("ID")
    launch, whole = _wholes(strings([""] * n) if id_col is None else id_col)
    keep = whole & _filled(names)
    pid_col = column("Process ID")
    pid = np.full(n, -1, dtype=np.int64)
    if pid_col is not None:
        values, ok = _wholes(pid_col)
        pid[ok] = values[ok]
    speed_col = column("Estimated Speedup")
    speedup = np.full(n, np.nan) if speed_col is None else _speedups(speed_col)
    kept = indices(np.flatnonzero(keep))

    def texts_of(name: str) -> list[str | None]:
        # One string object per distinct text (the same message on every
        # launch of a kernel is held once); empty text is no value, as
        # RuleTable.add keeps it.
        encoded = ac.dictionary_encode(ac.take(stripped(name), kept))
        if isinstance(encoded, pa.ChunkedArray):
            encoded = encoded.combine_chunks()
        values = np.array([t or None for t in encoded.dictionary.to_pylist()], dtype=object)
        picked: list[str | None] = values[numbers(encoded.indices, missing=0)].tolist()
        return picked

    return RuleTable(
        process_id=pid[keep].tolist(),
        launch_id=launch[keep].tolist(),
        name=ac.take(names, kept).to_pylist(),
        type=texts_of("Rule Type"),
        section=texts_of("Section Name"),
        message=texts_of("Rule Description"),
        speedup_type=texts_of("Estimated Speedup Type"),
        speedup_pct=speedup[keep].tolist(),
    )


__all__ = ["rule_table"]
