"""Turn an input's bytes into the UTF-8 text the table readers parse.

Three repairs, each with a warning, none on the common path (a plain UTF-8
file is mapped and parsed as it is):

* gzip: every member of a multi-member file, the text of a stream that was
  cut off, and a complete stream followed by trailing garbage (which
  ``gzip -t`` accepts) without losing a row;
* UTF-16/UTF-32 text (a PowerShell ``>`` redirect writes UTF-16 with a
  byte-order mark), recoded to UTF-8;
* bytes that are not UTF-8 (a cp1252/Latin-1 kernel name, a stray line of
  program output), replaced with U+FFFD, naming the lines.
"""

from __future__ import annotations

import codecs
import csv
import zlib
from collections.abc import Iterator
from contextlib import contextmanager

GZIP_MAGIC = b"\x1f\x8b"
_CHUNK = 16 << 20

#: Byte-order marks, longest first (the UTF-32-LE mark starts with UTF-16-LE's).
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF32_BE, "utf-32", "UTF-32"),
    (codecs.BOM_UTF16_LE, "utf-16", "UTF-16"),
    (codecs.BOM_UTF16_BE, "utf-16", "UTF-16"),
)


def gunzip(data: bytes) -> tuple[bytes, bool, str | None]:
    """Decompress gzip data: the text, whether the stream was cut off, and a note.

    Members are decompressed in turn; text read before damage or a cut is
    kept.  Bytes after the last complete member that are not another member
    are trailing garbage: ignored, with a note (zero padding silently).
    """
    out: list[bytes] = []
    pos = 0
    while True:
        dec = zlib.decompressobj(wbits=31)
        end = pos
        try:
            while not dec.eof and end < len(data):
                chunk_end = min(end + _CHUNK, len(data))
                out.append(dec.decompress(data[end:chunk_end]))
                end = chunk_end
        except zlib.error:
            return (
                b"".join(out),
                True,
                "the gzip data is damaged: the text before the damage is read",
            )
        if not dec.eof:
            return b"".join(out), True, None
        pos = end - len(dec.unused_data)
        rest = data[pos:]
        if rest.startswith(GZIP_MAGIC):
            continue
        text = b"".join(out)
        if rest.strip(b"\x00"):
            return (
                text,
                False,
                f"{len(rest):,} byte(s) of trailing garbage after the gzip data were ignored "
                "(the compressed text itself is complete)",
            )
        return text, False, None


def needs_recoding(head: bytes) -> bool:
    """Whether text starting with ``head`` is UTF-16/32 rather than UTF-8."""
    return _wide_codec(head) is not None


def _wide_codec(head: bytes) -> tuple[str, str] | None:
    for bom, codec, label in _BOMS:
        if head.startswith(bom):
            return codec, label
    # Without a mark: ASCII text in UTF-16 has every other byte zero.
    sample = head[:64] if len(head) % 2 == 0 else head[: len(head) - 1][:64]
    if len(sample) >= 8:
        even, odd = sample[0::2], sample[1::2]
        if not odd.strip(b"\x00") and b"\x00" not in even:
            return "utf-16-le", "UTF-16"
        if not even.strip(b"\x00") and b"\x00" not in odd:
            return "utf-16-be", "UTF-16"
    return None


def recode_wide(data: bytes) -> tuple[bytes, str | None]:
    """UTF-16/32 text recoded to UTF-8, and a note; other data unchanged, no note."""
    found = _wide_codec(data[:64])
    if found is None:
        return data, None
    codec, label = found
    text = data.decode(codec, errors="replace")
    note = f"the file is {label} text (a PowerShell `>` redirect?): decoded"
    if "\ufffd" in text:
        note += "; bytes that are not " + label + " were replaced with U+FFFD"
    return text.encode("utf-8"), note


def replace_invalid_utf8(data: bytes) -> tuple[bytes, str]:
    """``data`` with every byte that is not UTF-8 replaced by U+FFFD, and a warning naming the lines."""
    text = data.decode("utf-8", errors="replace")
    lines: list[int] = []
    line, counted = 1, 0
    pos = text.find("\ufffd")
    while pos >= 0 and len(lines) <= 5:
        line += text.count("\n", counted, pos)
        counted = pos
        if not lines or lines[-1] != line:
            lines.append(line)
        pos = text.find("\ufffd", pos + 1)
    shown = ", ".join(str(n) for n in lines[:5])
    more = " and more" if len(lines) > 5 else ""
    return text.encode("utf-8"), (
        f"bytes that are not UTF-8 (cp1252/Latin-1 text?) on line {shown}{more} "
        "were replaced with U+FFFD"
    )


@contextmanager
def long_csv_fields() -> Iterator[None]:
    """Let the csv module read fields of any length (its default limit is 131,072 characters)."""
    old = csv.field_size_limit()
    # 2**31 - 1 is the largest limit every platform's C long holds.
    csv.field_size_limit((1 << 31) - 1)
    try:
        yield
    finally:
        csv.field_size_limit(old)
