"""No control or bidirectional character of an export reaches a written document raw.

A real details export (``../shared/ncu-samples/``) is copied with its kernel
name, a rule's name and message and its process name made hostile: ESC sequences,
BEL, BS, NUL and the right-to-left override, and the copy is given a file
name holding ESC and U+202E too.  Every document the ``report`` command
writes (HTML, Markdown, JUnit XML, JSON) and the terminal summary must then
hold none of those characters as bytes, and still show the name, its
characters as escapes (``\\x1b``, ``\\u202e``); the JSON keeps the true name,
escaped as JSON escapes it.  The writers' one filter
(:mod:`ncu_roofline.render.safe_text`) is checked on its own too.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from ncu_roofline.cli import cli
from ncu_roofline.readers import read_source
from ncu_roofline.render.safe_text import (
    escape_unsafe,
    json_escape_unsafe,
    json_escape_unsafe_bytes,
    safe_data,
    safe_text,
    terminal_safe_lines,
)
from ncu_roofline.render.templates import environment, script_json

#: A details export with one kernel and ncu's rule rows.
DETAILS = "CodeGandee__llm-perf-opt__reports_20251107-dsocr_ncu-v2_kernel_0005_ncu.details.csv"
KERNEL = (
    "void Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_256x128_32x3_tn_align8>(Params)"
)
RULE = "IssueSlotUtilization"
MESSAGE = "This workload exhibits low compute throughput"

#: The hostile kernel name and how every document for people shows it.
EVIL = "void evil\x1b[31mred\x07\x08\x00_abc\u202edef<int>(Params)"
EVIL_SHORT_SHOWN = "evil\\x1b[31mred\\x07\\x08\\x00_abc\\u202edef"
#: The hostile rule name (shown with ncu's estimates), rule message and process name.
EVIL_RULE = "Issue\x1b]0;title\x07Slot\u2066Util\u2069"
EVIL_RULE_SHOWN = "Issue\\x1b]0;title\\x07Slot\\u2066Util\\u2069"
EVIL_MESSAGE = "This\x1b[8m workload\u202e exhibits"
EVIL_PROCESS = "py\x1b[2Jthon\u200f"
#: The copy's file name.
EVIL_FILE = "in\x1b[1m\u202eput.csv"

#: Bytes no document may hold: C0 but tab, newline and carriage return; DEL; C1,
#: the bidirectional controls and the Arabic letter mark as UTF-8.
RAW = re.compile(
    rb"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]|\xc2[\x80-\x9f]|\xd8\x9c"
    rb"|\xe2\x80[\x8e\x8f\xaa-\xae]|\xe2\x81[\xa6-\xa9]"
)


@pytest.fixture
def hostile(samples_dir: Path, tmp_path: Path) -> Path:
    """A copy of the real export with a hostile kernel name, rule message and process name."""
    text = (samples_dir / DETAILS).read_text(encoding="utf-8")
    assert KERNEL in text and RULE in text and MESSAGE in text and '"python3.12"' in text
    text = text.replace(KERNEL, EVIL).replace(RULE, EVIL_RULE).replace(MESSAGE, EVIL_MESSAGE)
    text = text.replace('"python3.12"', f'"{EVIL_PROCESS}"')
    path = tmp_path / EVIL_FILE
    path.write_text(text, encoding="utf-8")
    return path


def _invoke(*args: str) -> tuple[int, bytes, bytes]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout_bytes, result.stderr_bytes


def _assert_inert(data: bytes, what: str) -> None:
    found = RAW.search(data)
    assert found is None, f"{what}: raw {found.group()!r} at byte {found.start()}"


@pytest.mark.parametrize("fmt", ["html", "md", "junit", "json"])
def test_written_documents_hold_no_raw_controls(hostile: Path, tmp_path: Path, fmt: str) -> None:
    suffix = {"html": "html", "md": "md", "junit": "xml", "json": "json"}[fmt]
    out = tmp_path / f"report.{suffix}"
    code, _, err = _invoke("report", str(hostile), "--format", fmt, "-o", str(out))
    assert code == 0, err
    data = out.read_bytes()
    _assert_inert(data, fmt)
    # The wrote line names the file, shown safely too.
    _assert_inert(err, f"{fmt}: stderr")
    assert b"in\\x1b[1m\\u202eput.csv" in err
    if fmt == "json":
        # Lossless: the true names, escaped as JSON escapes them.
        assert b"\\u001b[31mred\\u0007\\b\\u0000_abc\\u202edef" in data
        doc = json.loads(data)
        assert EVIL in {launch["kernel"] for launch in doc["launches"]}
        assert doc["inputs"][0]["path"] == str(hostile)
        return
    text = data.decode("utf-8")
    assert EVIL_SHORT_SHOWN in text  # a code span in Markdown
    if fmt == "md":
        # Outside code spans Markdown escapes the backslashes and brackets too.
        assert _markdown(EVIL_RULE_SHOWN) in text
    elif fmt == "html":
        assert EVIL_RULE_SHOWN in text


def _markdown(shown: str) -> str:
    for char in "\\[]_":
        shown = shown.replace(char, "\\" + char)
    return shown


def test_the_page_shows_escapes_in_its_text_and_its_data(hostile: Path, tmp_path: Path) -> None:
    out = tmp_path / "report.html"
    code, _, err = _invoke("report", str(hostile), "-o", str(out))
    assert code == 0, err
    page = out.read_text(encoding="utf-8")
    # The page's text: the short name, the rule's name, the file name.
    for shown in (EVIL_SHORT_SHOWN, EVIL_RULE_SHOWN, "in\\x1b[1m\\u202eput.csv"):
        assert shown in page, shown
    # The data the page's scripts show (hover boxes) decodes to the shown text.
    blob = re.search(r'<script type="application/json" id="ncu-roofline-data">(.*?)</script>', page)
    assert blob is not None
    strings = json.dumps(json.loads(blob.group(1)), ensure_ascii=False)
    assert "\\\\x1b[31mred\\\\x07\\\\x08\\\\x00_abc\\\\u202edef" in strings
    assert "\u202e" not in strings and "\x1b" not in strings


def test_the_terminal_summary_and_its_warnings_hold_no_raw_controls(hostile: Path) -> None:
    code, out, err = _invoke("summary", str(hostile), "--width", "200")
    assert code == 0, err
    _assert_inert(out, "summary")
    _assert_inert(err, "stderr")
    assert EVIL_SHORT_SHOWN.encode() in out


def test_comparison_documents_hold_no_raw_controls(hostile: Path, tmp_path: Path) -> None:
    for fmt, suffix in (("html", "html"), ("md", "md"), ("junit", "xml"), ("json", "json")):
        out = tmp_path / f"cmp.{suffix}"
        code, _, err = _invoke(
            "compare", str(hostile), str(hostile), "--format", fmt, "-o", str(out)
        )
        assert code == 0, err
        _assert_inert(out.read_bytes(), f"comparison {fmt}")


def test_a_nul_in_a_name_is_kept_wherever_it_lies(hostile: Path, tmp_path: Path) -> None:
    """The reader keeps a NUL of the table's text, in the first 8 KiB or later alike."""
    early, _ = read_source(str(hostile), progress=False)
    text = hostile.read_text(encoding="utf-8")
    late = tmp_path / "late.csv"
    # Program output before the table pushes the name past the first 8 KiB.
    late.write_text("output line\n" * 1000 + text, encoding="utf-8")
    later, _ = read_source(str(late), progress=False)
    assert set(early["kernel"]) == set(later["kernel"]) == {EVIL}


def test_nul_before_any_table_is_binary_data(tmp_path: Path) -> None:
    from ncu_roofline.errors import InputFormatError

    path = tmp_path / "binary.csv"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + b'\n"ID","Kernel Name"\n')
    with pytest.raises(InputFormatError, match="binary data"):
        read_source(str(path), progress=False)


# --- the filter ---------------------------------------------------------------------------


def test_shown_forms() -> None:
    assert safe_text("\x1b[31mred\x07\x08\x00") == "\\x1b[31mred\\x07\\x08\\x00"
    assert safe_text("abc\u202edef\u061c\u200e\u2066\x7f\x9b") == (
        "abc\\u202edef\\u061c\\u200e\\u2066\\x7f\\x9b"
    )
    # One line: breaks are spaces; lines: tab and newline (and separators) stay.
    assert safe_text("a\tb\nc\rd\u2028e") == "a b c d e"
    assert safe_text("a\tb\nc\rd\u2028e", lines=True) == "a\tb\nc d\u2028e"
    assert terminal_safe_lines("a\tb\nc\rd\u2028e") == "a\tb\nc d e"
    # Nothing to change: the same object back.
    name = "void k<int>(float*)"
    assert safe_text(name) is name
    assert safe_text(None) == "" and safe_text(3) == "3"


@given(st.text())
def test_shown_text_is_inert_and_stable(text: str) -> None:
    for shown in (safe_text(text), safe_text(text, lines=True), terminal_safe_lines(text)):
        _assert_inert(shown.encode("utf-8", "surrogatepass"), repr(text))
        assert safe_text(shown, lines=True) == shown


@given(st.text())
def test_json_escaping_is_lossless(text: str) -> None:
    encoded = json.dumps({"k": text}, ensure_ascii=False)
    escaped = json_escape_unsafe(encoded)
    assert json.loads(escaped) == {"k": text}
    assert "\u202e" not in escaped and "\x7f" not in escaped
    raw = encoded.encode("utf-8", "surrogatepass")
    assert json_escape_unsafe_bytes(raw) == escaped.encode("utf-8", "surrogatepass")


def test_script_data_and_template_text_are_shown_safely() -> None:
    value = {"n\x1b": ["a\u202eb", 1.5, None, "keep\u2028this"]}
    assert safe_data(value) == {"n\\x1b": ["a\\u202eb", 1.5, None, "keep\u2028this"]}
    assert json.loads(script_json(value)) == safe_data(value)
    page = environment().from_string("<p title='{{ v }}'>{{ v }}|{{ [v, v] | join }}</p>")
    out = page.render(v="x\x1b\u202e<")
    assert out == (
        "<p title='x\\x1b\\u202e&lt;'>x\\x1b\\u202e&lt;|x\\x1b\\u202e&lt;x\\x1b\\u202e&lt;</p>"
    )


def test_inlined_plotly_holds_no_raw_controls() -> None:
    from ncu_roofline.render.html_report import _plotly_inline

    source = _plotly_inline()
    _assert_inert(source.encode("utf-8"), "plotly.js")
    assert escape_unsafe(source) == source
