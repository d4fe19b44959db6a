"""The line of the file each row of a parsed table came from, for warnings that name it.

Arrow's CSV reader keeps no line numbers, but it numbers every row it
hands to the invalid-row handler: its place among the non-blank lines of
the parsed range, the header rows included, from 1 (a blank line, empty or
a lone carriage return, is passed over and not counted).  The rows it
keeps are the other non-blank lines, in order.  So the line of table row
``k`` follows from two sorted lists, the numbers of the skipped rows and
the blank lines, with one ``searchsorted`` each: no pass over the rows.

The numbers come with the parse when it runs on one thread (every details
export with rule rows does).  A parse on Arrow's threads numbers nothing;
when such a parse skipped rows and a warning needs a line, a few skipped
rows (a stray line of program output) are found by their text, one
``find`` each; more are numbered by parsing the range once more on one
thread, keeping only the first column.  Blank lines are looked for only
when a line is asked for (one numpy pass over the table).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ncu_roofline.readers.locate import Buffer, blank_lines, line_number, non_blank_lines
from ncu_roofline.readers.table import TEXTS_KEPT, SkipCounter, after_lines, read_table

#: Bytes scanned at a time when blank lines are enumerated.
_SCAN_BYTES = 16 << 20


def _kth_outside(taken: np.ndarray, k: np.ndarray) -> np.ndarray:
    """The ``k``-th (1-based) positive integer not in the sorted ``taken``, for each ``k``.

    ``taken[i] - i`` counts the integers below ``taken[i]`` not taken, so a
    ``searchsorted`` on it says how many taken ones come first.
    """
    if taken.size == 0:
        return k.astype(np.int64)
    free_before = taken - np.arange(taken.size)
    return k + np.searchsorted(free_before, k, side="right")


def _found_lines(buf: Buffer, start: int, end: int, texts: Sequence[str]) -> list[int] | None:
    """Where the lines of ``buf[start:end]`` holding exactly ``texts`` start, in order;
    None when one is not found.  A text found twice is looked for past the last one."""
    found: list[int] = []
    searched_from: dict[bytes, int] = {}
    for text in texts:
        needle = b"\n" + text.rstrip("\r").encode("utf-8", errors="surrogateescape")
        pos = searched_from.get(needle, start)
        while True:
            at = buf.find(needle, pos, end)
            if at < 0:
                return None
            after = buf[at + len(needle) : at + len(needle) + 1]
            if after in (b"", b"\n", b"\r"):
                break
            pos = at + 1
        searched_from[needle] = at + 1
        found.append(at + 1)
    return sorted(found)


def _lines_at(buf: Buffer, start: int, positions: list[int]) -> np.ndarray:
    """The 1-based line, counted from the one at ``start``, of each of the sorted
    ``positions``: one pass that counts newlines in slices with numpy."""
    out = np.empty(len(positions), dtype=np.int64)
    line, at = 1, start
    for k, pos in enumerate(positions):
        while at < pos:
            stop = min(pos, at + _SCAN_BYTES)
            view = np.frombuffer(buf, dtype=np.uint8, count=stop - at, offset=at)
            line += int(np.count_nonzero(view == 10))
            del view  # a memory map cannot close while a view of it is held
            at = stop
        out[k] = line
    return out


class RowLines:
    """The file's line numbers (1-based) of a parsed table's rows.

    ``start`` and ``end`` are the byte range parsed (from the header line),
    ``skip_rows`` the header rows Arrow skipped, ``counter`` the parse's
    :class:`~ncu_roofline.readers.table.SkipCounter`; ``names`` and
    ``path`` let a threaded parse be numbered again.
    """

    def __init__(
        self,
        buf: Buffer,
        path: str | None,
        start: int,
        end: int,
        names: Sequence[str],
        skip_rows: int,
        counter: SkipCounter,
    ) -> None:
        self._buf = buf
        self._path = path
        self._start = start
        self._end = end
        self._names = list(names)
        self._skip_rows = skip_rows
        # Arrow's numbers are read when a line is first asked for: a table
        # read in stretches is numbered by a scan of the file, made only then.
        self._counter: SkipCounter | None = counter
        self._skipped: np.ndarray | None = None
        # Taken now: the rule rows' texts are let go once they are read.
        self._skipped_any = counter.other_rows + len(counter.rules) > 0
        # Where Arrow numbered nothing: the few skipped rows' texts, to find.
        few = counter.other_rows <= TEXTS_KEPT and not counter.rules
        self._texts = counter.other_texts if few else None
        self._blanks: np.ndarray | None = None
        self._blank_header: int | None = None
        self._base: int | None = None

    def _numbered(self) -> None:
        """Arrow's numbers of the skipped rows taken in (once)."""
        counter, self._counter = self._counter, None
        if counter is None:
            return
        _to_non_blank(counter, self._blank_header_lines())
        counter.resolve(self._buf, self._start)
        skipped = counter.numbers
        if skipped is not None or not self._skipped_any:
            self._skipped = np.sort(np.asarray(skipped or [], dtype=np.int64))

    def other_lines(self, counter: SkipCounter) -> np.ndarray:
        """The file's lines of the rows ``counter`` skipped that are not rule rows."""
        self._numbered()
        if counter.numbers is not None:
            return self.skipped_lines(counter.other_numbers)
        # A threaded parse skips no rule rows: every row numbered again is one.
        return self.skipped_lines(self._skipped_numbers())

    def _skipped_numbers(self) -> np.ndarray:
        self._numbered()
        if self._skipped is None and self._texts is not None:
            starts = _found_lines(self._buf, self._start, self._end, self._texts)
            if starts is not None:
                within = _lines_at(self._buf, self._start, starts)
                blanks = self._blank_lines()
                self._skipped = within - np.searchsorted(blanks, within)
        if self._skipped is None:
            # Numbered again on one thread: only the first column is converted.
            _, counter = read_table(
                self._buf,
                self._path,
                self._start,
                self._end,
                self._names,
                self._names[:1],
                set(),
                self._skip_rows,
                None,
                None,
                numbered=True,
            )
            _to_non_blank(counter, self._blank_header_lines())
            self._skipped = np.sort(np.asarray(counter.numbers or [], dtype=np.int64))
        return self._skipped

    def _blank_header_lines(self) -> int:
        """How many of the ``skip_rows`` lines Arrow skipped are blank (read from those
        lines alone: the whole range is scanned for blank lines only when a row's
        line is asked for)."""
        if self._blank_header is None:
            self._blank_header = self._skip_rows - non_blank_lines(
                self._buf,
                self._start,
                after_lines(self._buf, self._start, self._end, self._skip_rows),
            )
        return self._blank_header

    def in_range(self, rows: np.ndarray) -> np.ndarray:
        """The 1-based line, within the parsed range, of each table row in ``rows``."""
        header_rows = self._skip_rows - self._blank_header_lines()
        taken = np.concatenate(
            [np.arange(1, header_rows + 1, dtype=np.int64), self._skipped_numbers()]
        )
        non_blank = _kth_outside(np.sort(taken), np.asarray(rows, dtype=np.int64) + 1)
        return _kth_outside(self._blank_lines(), non_blank)

    def _blank_lines(self) -> np.ndarray:
        if self._blanks is None:
            self._blanks = blank_lines(self._buf, self._start, self._end)
        return self._blanks

    def skipped_lines(self, numbers: Sequence[int] | np.ndarray) -> np.ndarray:
        """The file's lines of skipped rows, from Arrow's numbers of them."""
        lines = _kth_outside(self._blank_lines(), np.asarray(numbers, dtype=np.int64))
        return lines + self.base - 1

    @property
    def base(self) -> int:
        """The file's line number of the parsed range's first line."""
        if self._base is None:
            self._base = line_number(self._buf, self._start)
        return self._base

    def of(self, rows: np.ndarray) -> np.ndarray:
        """The file's 1-based line number of each table row in ``rows``."""
        return self.in_range(rows) + self.base - 1

    def one(self, row: int) -> int:
        """The file's line number of one table row."""
        return int(self.of(np.array([row]))[0])


def _to_non_blank(counter: SkipCounter, blank_header_lines: int) -> None:
    """Arrow's numbers of the rows a parse of the range skipped, in place, as places among
    the range's non-blank lines.

    Arrow counts the ``skip_rows`` lines it skips as rows, a blank one too,
    and only the non-blank lines after them: a number past the header rows
    is ``blank_header_lines`` more than its place among the non-blank
    lines.  Only the numbers of the parse from the range's start are
    Arrow's own here (a later stretch's are made the range's by
    :meth:`~ncu_roofline.readers.table.SkipCounter.resolve`, from counts of
    non-blank lines).
    """
    if not blank_header_lines or counter.numbers is None:
        return
    counter.numbers = [n - blank_header_lines for n in counter.numbers]
    counter.other_numbers = [n - blank_header_lines for n in counter.other_numbers]


def ranges(lines: Sequence[int] | np.ndarray, most: int = 3) -> str:
    """Line numbers as sorted ranges: ``"12-30, 41 and 2 more"``."""
    numbers = np.unique(np.asarray(lines, dtype=np.int64))
    if numbers.size == 0:
        return ""
    cut = np.flatnonzero(np.diff(numbers) != 1)
    firsts = np.concatenate([numbers[:1], numbers[cut + 1]]).tolist()
    lasts = np.concatenate([numbers[cut], numbers[-1:]]).tolist()
    shown = ", ".join(
        f"{a:,}" if a == b else f"{a:,}-{b:,}"
        for a, b in zip(firsts[:most], lasts[:most], strict=True)
    )
    more = len(firsts) - most
    return shown + (f" and {more} more" if more > 0 else "")


def lines_text(lines: Sequence[int] | np.ndarray, most: int = 3) -> str:
    """``"line 12"`` or ``"lines 12-30, 41"``: :func:`ranges` with its noun."""
    many = np.unique(np.asarray(lines, dtype=np.int64)).size > 1
    return ("lines " if many else "line ") + ranges(lines, most)
