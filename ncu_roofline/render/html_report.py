"""The HTML report: one self-contained page rendered with Jinja.

plotly.js is inlined once (clusters are often offline) or, with
``plotly_js="cdn"``, loaded from the Plotly CDN for a small file.  All data
reaches the page as one JSON document in a ``<script type="application/json">``
element, serialised by Jinja's ``tojson`` (which escapes ``<``, ``>``, ``&``
and ``'``), so no kernel name can end the script or open a tag.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import importlib.util
import os
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, TypedDict

from ncu_roofline.core.user_cache import cache_dir, cache_off, code_stamp, write_atomic
from ncu_roofline.render.options import PLOTLY_MODES
from ncu_roofline.render.safe_text import escape_unsafe
from ncu_roofline.render.templates import Code, environment, templates_dir

if TYPE_CHECKING:
    from ncu_roofline.render.page_views import PageView
    from ncu_roofline.render.theory_views import TheoryHtmlView


@lru_cache(maxsize=1)
def _plotly_inline() -> str:
    """plotly.js as a page inlines it: from the cache folder when it was kept there."""
    kept = _kept_plotly()
    if kept is not None:
        text = _read_kept(*kept)
        if text is not None:
            return text
    text = _escaped_plotly()
    if kept is not None:
        file, key = kept
        data = text.encode("utf-8")
        digest = hashlib.sha256(data).digest()
        write_atomic(file, lambda fh: fh.writelines((_KEPT_MAGIC, key, digest, data)))
    return text


def _escaped_plotly() -> str:
    from plotly.offline import get_plotlyjs

    source: str = get_plotlyjs()
    # The library is inlined as it is, but: a literal "</script" inside it would
    # end the element early, so break any such sequence.  Its few raw control
    # characters (in string literals: a PNG signature's SUB) are written as
    # their JavaScript escapes, which mean the same: no page holds one raw.
    return escape_unsafe(source.replace("</script", "<\\/script"))


#: The start of a kept plotly.js: then the key's SHA-256, the text's SHA-256, the text.
_KEPT_MAGIC = b"NCURJS\x00\x02"


def _kept_plotly() -> tuple[Path, bytes] | None:
    """Where the escaped plotly.js is kept, and the key it must carry; None when off.

    Escaping its 4.6 MB takes about 0.07 s, a tenth of a re-report served
    from the report cache.  One file, ``templates/plotly.js`` beside the
    compiled templates; its key (the tool's code, the bundled file's path,
    size and modification time) is a hash inside it, so a new plotly or a
    new escape writes over it rather than beside it.
    """
    if cache_off():
        return None
    try:
        spec = importlib.util.find_spec("plotly")
        places = list(spec.submodule_search_locations or []) if spec else []
        if not places:
            return None
        bundled = os.path.join(places[0], "package_data", "plotly.min.js")
        st = os.stat(bundled)
        folder = cache_dir()
    except (ImportError, RuntimeError, OSError, ValueError):  # no plotly file, no home folder
        return None
    parts = (code_stamp(), bundled, st.st_size, st.st_mtime_ns)
    return folder / "templates" / "plotly.js", hashlib.sha256(repr(parts).encode()).digest()


def _read_kept(file: Path, key: bytes) -> str | None:
    """The kept text, when the file carries ``key`` and is whole; None otherwise."""
    try:
        with open(file, "rb") as fh:
            data = fh.read()
    except OSError:
        return None
    at = len(_KEPT_MAGIC)
    body = data[at + 64 :]
    if (
        data[:at] != _KEPT_MAGIC
        or data[at : at + 32] != key
        or hashlib.sha256(body).digest() != data[at + 32 : at + 64]
    ):
        return None  # another version, or damaged: made again and written over
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return None


def plotly_cdn_url() -> str:
    """The CDN address of the plotly.js version bundled with plotly.py."""
    from plotly.offline import get_plotlyjs_version

    version: str = get_plotlyjs_version()
    return f"https://cdn.plot.ly/plotly-{version}.min.js"


@lru_cache(maxsize=4)
def _asset(name: str) -> str:
    return (templates_dir() / "assets" / name).read_text(encoding="utf-8")


class PageAssets(TypedDict):
    """A page's stylesheet, script and plotly.js (:func:`page_assets`), as template variables."""

    css: Code
    js: Code
    #: The CDN address of plotly.js, when linked.
    plotly_src: str | None
    #: plotly.js itself, when embedded; empty otherwise.
    plotly_inline: Code | str


def page_assets(plotly_js: str) -> PageAssets:
    """The stylesheet, script and plotly.js of a page, as template variables.

    ``plotly_js`` is one of :data:`PLOTLY_MODES`: ``"inline"`` embeds the
    library, ``"cdn"`` links it.  First-party assets and plotly.js are code,
    not data: they are not escaped and never pass through the template
    engine's parser; they are :class:`~ncu_roofline.render.templates.Code`,
    which the template engine writes untouched.
    """
    if plotly_js not in PLOTLY_MODES:
        raise ValueError(f"plotly_js must be one of {PLOTLY_MODES}, not {plotly_js!r}")
    return {
        "css": Code(_asset("report.css")),
        "js": Code(_asset("report.js")),
        "plotly_src": plotly_cdn_url() if plotly_js == "cdn" else None,
        "plotly_inline": Code(_plotly_inline()) if plotly_js == "inline" else "",
    }


def generated_at_text(generated_at: str | None = None) -> str:
    """``generated_at``, or the current UTC time to the second in ISO 8601."""
    return generated_at or _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


def render_html(page: PageView) -> str:
    """Render the report page from :func:`ncu_roofline.render.page.build_page` output."""
    assets = page_assets(page.get("plotly_js", "inline"))
    data = {"charts": page["chart_data"], "counts": page["counts"]}
    template = environment().get_template("report.html.j2")
    return template.render(
        **{k: v for k, v in page.items() if k != "chart_data"}, data=data, **assets
    )


def render_theory_html(
    page: TheoryHtmlView,
    generated_at: str,
    version: str,
    plotly_js: str = "inline",
) -> str:
    """Render the ``theory`` page from :func:`~ncu_roofline.render.theory.theory_html_context`."""
    assets = page_assets(plotly_js)
    template = environment().get_template("theory.html.j2")
    charts = page["charts"]
    calculator = page["calculator"]
    return template.render(
        **{k: v for k, v in page.items() if k not in ("charts", "calculator")},
        with_calculator=calculator is not None,
        theory_js=Code(_asset("theory.js")) if calculator is not None else "",
        generated_at=generated_at,
        version=version,
        charts=[
            {"id": c["id"], "title": c["title"], "not_plotted": c.get("not_plotted", [])}
            for c in charts
        ],
        data={"charts": {c["id"]: c["figure"] for c in charts}, "calculator": calculator},
        **assets,
    )
