"""Compiled page templates kept in the user cache folder: used when whole, never trusted blindly.

Each test builds fresh Jinja environments (``environment.__wrapped__``):
the command's environment is made once per process and keeps its templates
in memory, so only a new one shows what a later run reads from the folder.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import jinja2
import pytest

from ncu_roofline.core.user_cache import DIR_VARIABLE, OFF_VARIABLE
from ncu_roofline.render import html_report, templates

#: A page template with markup, loops and the finalize hook: the report's own.
NAME = "report.html.j2"


def _fresh() -> jinja2.Environment:
    env: jinja2.Environment = templates.environment.__wrapped__()
    return env


def _kept(folder: Path) -> list[Path]:
    where = folder / "templates"
    return (
        sorted(p for p in where.iterdir() if not p.name.startswith(".")) if where.is_dir() else []
    )


def _never_compile(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("the template was compiled, not read from the cache")

    monkeypatch.setattr(jinja2.Environment, "compile", refuse)


def _code(template: jinja2.Template) -> bytes:
    """The template's compiled body (a code object from the compiler or from the cache)."""
    code: bytes = template.root_render_func.__code__.co_code
    assert len(code) > 100
    return code


def _cache_folder() -> Path:
    return Path(os.environ[DIR_VARIABLE])


def test_a_second_run_reads_the_compiled_template(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _cache_folder()
    first = _fresh().get_template(NAME)
    (file,) = _kept(folder)
    assert file.stat().st_size > 1000
    _never_compile(monkeypatch)
    second = _fresh().get_template(NAME)
    assert second.filename == first.filename
    assert _code(second) == _code(first)


def test_the_cached_template_renders_what_a_compiled_one_renders(tmp_path: Path) -> None:
    context = {"title": "<b>x</b> \u202e", "items": [1, 2]}
    source = "{{ title }}{% for i in items %}[{{ i }}]{% endfor %}"
    (tmp_path / "t.html.j2").write_text(source, encoding="utf-8")

    def rendered() -> str:
        env = _fresh()
        env.loader = jinja2.FileSystemLoader(str(tmp_path))
        return env.get_template("t.html.j2").render(**context)

    compiled = rendered()
    assert len(_kept(_cache_folder())) == 1
    assert rendered() == compiled
    # Escaped, and the bidirectional control shown as an escape, from the cache too.
    assert "&lt;b&gt;" in compiled and "\u202e" not in compiled


def test_a_changed_template_is_compiled_again(tmp_path: Path) -> None:
    page = tmp_path / "t.html.j2"
    page.write_text("one {{ x }}", encoding="utf-8")

    def rendered() -> str:
        env = _fresh()
        env.loader = jinja2.FileSystemLoader(str(tmp_path))
        return env.get_template("t.html.j2").render(x=1)

    assert rendered() == "one 1"
    page.write_text("two {{ x }}", encoding="utf-8")
    assert rendered() == "two 1"


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda data: b"", id="empty"),
        pytest.param(lambda data: data[: len(data) // 2], id="truncated"),
        pytest.param(lambda data: data[:40] + b"\x00garbage" * 50, id="garbage-after-the-header"),
        pytest.param(lambda data: os.urandom(len(data)), id="random"),
    ],
)
def test_a_damaged_file_is_compiled_again_and_replaced(damage: Any) -> None:
    expected = _fresh().get_template(NAME)
    (file,) = _kept(_cache_folder())
    whole = file.read_bytes()
    file.write_bytes(damage(whole))
    again = _fresh().get_template(NAME)
    assert _code(again) == _code(expected)
    assert file.read_bytes() == whole


def test_off_switch_keeps_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OFF_VARIABLE, "1")
    _fresh().get_template(NAME)
    assert not (_cache_folder() / "templates").exists()


def test_a_folder_that_cannot_be_made_leaves_the_page_compiled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(DIR_VARIABLE, str(blocker / "cache"))
    template = _fresh().get_template(NAME)
    monkeypatch.setenv(OFF_VARIABLE, "1")
    assert _code(template) == _code(_fresh().get_template(NAME))
    assert list(tmp_path.iterdir()) == [blocker]


def test_another_version_never_reads_this_ones_code(monkeypatch: pytest.MonkeyPatch) -> None:
    _fresh().get_template(NAME)
    (file,) = _kept(_cache_folder())
    monkeypatch.setattr(templates, "__version__", "0.0.0-other")
    _fresh().get_template(NAME)
    files = _kept(_cache_folder())
    assert len(files) == 2 and file in files


def test_no_home_folder_leaves_the_page_compiled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(DIR_VARIABLE)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)

    def no_home() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    template = _fresh().get_template(NAME)
    monkeypatch.setenv(OFF_VARIABLE, "1")
    assert _code(template) == _code(_fresh().get_template(NAME))


# -- plotly.js, kept escaped beside the templates ---------------------------------


def _plotly(monkeypatch: pytest.MonkeyPatch, stamp: str) -> str:
    """plotly.js as a page inlines it, made or read anew under code stamp ``stamp``."""
    monkeypatch.setattr(html_report, "code_stamp", lambda: stamp)
    html_report._plotly_inline.cache_clear()
    return html_report._plotly_inline()


def test_plotly_is_kept_in_one_file_whatever_the_versions(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = _cache_folder() / "templates"
    escaped = html_report._escaped_plotly()
    assert _plotly(monkeypatch, "one") == escaped
    kept = folder / "plotly.js"
    assert kept.is_file()
    # Read back, not escaped again.
    real = html_report._escaped_plotly
    monkeypatch.setattr(html_report, "_escaped_plotly", lambda: pytest.fail("escaped again"))
    assert _plotly(monkeypatch, "one") == escaped
    monkeypatch.setattr(html_report, "_escaped_plotly", real)
    # Another version of the tool writes over the file instead of beside it.
    assert _plotly(monkeypatch, "two") == escaped
    assert sorted(p.name for p in folder.iterdir() if "plotly" in p.name) == ["plotly.js"]
    # A damaged file is made again and written over.
    data = bytearray(kept.read_bytes())
    data[len(data) // 2] ^= 0x20
    kept.write_bytes(bytes(data))
    assert _plotly(monkeypatch, "two") == escaped
    assert kept.read_bytes() != bytes(data)
    html_report._plotly_inline.cache_clear()
