"""Locate the Jinja templates and render them.

Templates live in the repository's top-level ``templates/`` folder.  A wheel
ships them inside the package (``ncu_roofline/templates``), so both a source
checkout (or editable install) and an installed wheel find them.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import sys
import uuid
from functools import lru_cache
from pathlib import Path
from typing import Any, BinaryIO, TypedDict

import jinja2
import jinja2.bccache
from markupsafe import Markup

from ncu_roofline.core.user_cache import cache_dir, cache_off
from ncu_roofline.render.json_report import dumps
from ncu_roofline.render.safe_text import json_shows_otherwise, safe_data, safe_text
from ncu_roofline.version import NAME, __version__

#: The package root (``ncu_roofline/``), one level above this stage.
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


def templates_dir() -> Path:
    """The folder holding the templates, installed or in a checkout."""
    for candidate in (_PACKAGE_DIR / "templates", _PACKAGE_DIR.parent / "templates"):
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(f"{NAME} templates not found next to the package or in the source tree")


#: Templates whose output is markup, and so is escaped: ``report.html.j2``.
_MARKUP_SUFFIXES = (".html", ".htm", ".xml", ".svg")


def _autoescape(template_name: str | None) -> bool:
    """Escape every markup template; text templates (``*.txt.j2``) stay raw.

    Jinja's ``select_autoescape`` looks at the last suffix only, which for
    ``report.html.j2`` is ``.j2``: it would leave the HTML report unescaped.
    """
    if template_name is None:
        return True
    name = template_name.lower()
    if name.endswith(".j2"):
        name = name[: -len(".j2")]
    return name.endswith(_MARKUP_SUFFIXES) or not name.endswith(".txt")


class _Layout(TypedDict):
    """The environment's whitespace settings, which shape a template's compiled code."""

    trim_blocks: bool
    lstrip_blocks: bool
    keep_trailing_newline: bool


_SETTINGS = _Layout(trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=False)


def _signature() -> str:
    """What a compiled template depends on besides its source (which Jinja checks itself)."""
    parts = (
        __version__,
        jinja2.__version__,
        sys.version,
        sorted(_SETTINGS.items()),
        _autoescape.__qualname__,
        _finalize.__qualname__,
    )
    return hashlib.sha1(repr(parts).encode(), usedforsecurity=False).hexdigest()[:16]


class CompiledTemplates(jinja2.BytecodeCache):
    """Compiled templates kept in the user cache folder (``templates/``) between runs.

    Compiling the report's template takes about a tenth of a second, a
    fair share of a re-report that reads its input from the parse cache.
    Jinja checks each file's source checksum and its own format; the file
    name carries :func:`_signature`, so a new version of the tool, of Jinja
    or of Python never reads another's code.  The folder is looked up on
    each use (:func:`~ncu_roofline.core.user_cache.cache_dir`, off with
    :data:`~ncu_roofline.core.user_cache.OFF_VARIABLE`); a file that cannot
    be read or written leaves the template compiled as without the cache.
    """

    def _file(self, bucket: jinja2.bccache.Bucket) -> Path | None:
        if cache_off():
            return None
        try:
            folder = cache_dir()
        except (RuntimeError, OSError, ValueError):  # no home folder to find
            return None
        return folder / "templates" / f"{_signature()}-{bucket.key}.jinja"

    def load_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Fill ``bucket`` from its file, where one was kept and is whole."""
        file = self._file(bucket)
        if file is None:
            return
        try:
            with open(file, "rb") as fh:
                _load(bucket, fh)
        except OSError:
            bucket.reset()

    def dump_bytecode(self, bucket: jinja2.bccache.Bucket) -> None:
        """Keep ``bucket``'s code: a temporary file, then renamed (readers see all or nothing)."""
        file = self._file(bucket)
        if file is None:
            return
        tmp = file.with_name(f".tmp-{os.getpid()}-{uuid.uuid4().hex}")
        try:
            file.parent.mkdir(parents=True, exist_ok=True)
            with open(tmp, "wb") as fh:
                bucket.write_bytecode(fh)
            os.replace(tmp, file)
        except OSError:
            with contextlib.suppress(OSError):
                tmp.unlink()


def _load(bucket: jinja2.bccache.Bucket, fh: BinaryIO) -> None:
    """``bucket``'s code from ``fh``; a damaged file leaves it empty (compiled again)."""
    try:
        bucket.load_bytecode(fh)
    # Jinja unpickles the checksum: a damaged file can raise nearly anything.
    except Exception:
        bucket.reset()


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    """The Jinja environment: autoescape for HTML, undefined names are errors.

    Every template can name the program as ``{{ program }}``.  Every value a
    template writes (``{{ ... }}``) is made safe to show first
    (:func:`_finalize`), and so is every string of the data a page embeds
    (``tojson``): no control or bidirectional character of a name reaches a
    document raw.
    """
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(templates_dir())),
        autoescape=_autoescape,
        undefined=jinja2.StrictUndefined,
        finalize=_finalize,
        bytecode_cache=CompiledTemplates(),
        **_SETTINGS,
    )
    env.globals["program"] = NAME
    # ``tojson`` (data embedded in pages) through the writers' one JSON encoder;
    # Jinja then escapes ``<``, ``>``, ``&`` and ``'``.
    env.policies["json.dumps_function"] = script_json
    return env


class Code(Markup):
    """Code a page embeds as it is (its stylesheet, its scripts, plotly.js): never altered."""

    __slots__ = ()


def _finalize(value: Any) -> Any:
    """What ``{{ value }}`` writes: text with its unsafe characters shown as escapes.

    Tab and newline stay (a page or a document has lines).  Markup (an
    escaped value, joined cells, embedded JSON) is text too and is treated
    alike; only :class:`Code` is written untouched.
    """
    if not isinstance(value, str) or isinstance(value, Code):
        return value
    shown = safe_text(value, lines=True)
    if shown is value:
        return value
    # The escapes hold no markup characters: escaped text stays escaped.
    return Markup(shown) if isinstance(value, Markup) else shown


def script_json(value: Any, **kwargs: Any) -> str:
    """JSON for a ``<script>`` element: the writers' encoding, every string shown safely.

    The page's scripts show the data's strings (hover boxes, tables): a
    control or bidirectional character in one would reach the page as what
    the browser decodes, so the strings are :func:`~ncu_roofline.render.safe_text.safe_data`
    first, as the page's text is.  The writers' encoding escapes U+2028 and
    U+2029, valid in JSON but ending string literals in JavaScript before
    ES2019: the data stays valid wherever a script reads it.
    """
    text = dumps(value, **kwargs)
    if json_shows_otherwise(text):
        text = dumps(safe_data(value), **kwargs)
    return text


def shown_data(value: Any) -> Any:
    """Plain data as a page's scripts receive it through :func:`script_json`.

    Its strings are :func:`~ncu_roofline.render.safe_text.safe_data` where any
    needs it, and ``value`` itself is returned where none does: a figure handed
    to a notebook shows every name as the page does.
    """
    return safe_data(value) if json_shows_otherwise(dumps(value)) else value


def render(name: str, **context: Any) -> str:
    """Render template ``name`` with plain-data ``context``."""
    return environment().get_template(name).render(**context)
