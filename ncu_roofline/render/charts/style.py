"""How the charts look: colours, marker sizes, arrows and the markup of their text.

Escaping: Plotly renders hover text, trace names, titles and annotations as
a small subset of HTML, and kernel names are C++ (``k<float, 4>``) or, from a
hostile export, markup.  Every string in a figure that comes from the
profile (kernel names, sources, device names, bound reasons, theory labels)
passes through :func:`escape_markup` before it goes in.
"""

from __future__ import annotations

import html
import math
from typing import Any

from ncu_roofline.render.charts.types import PlotlyJSON
from ncu_roofline.render.charts.values import finite

#: Colour of each bound class: the Okabe-Ito palette, which stays distinct
#: under the common colour-vision deficiencies and reads on light and dark
#: page backgrounds alike.
BOUND_COLOURS: dict[str, str] = {
    "memory": "#0072B2",
    "compute": "#D55E00",
    "latency": "#CC79A7",
    "communication": "#009E73",
    "not placeable": "#999999",
}

#: Mid-luminance colours for compute ceilings (Paul Tol's "muted" set),
#: picked to be visible on white and on near-black backgrounds.
COMPUTE_COLOURS: tuple[str, ...] = (
    "#44AA99",
    "#999933",
    "#AA4499",
    "#88CCEE",
    "#CC6677",
    "#DDCC77",
    "#117733",
    "#882255",
    "#6699CC",
    "#AA7744",
)
MEMORY_COLOURS: dict[str, str] = {"dram": "#8C8C8C", "l2": "#B07AA1", "l1": "#76B7B2"}
#: One colour per compute ceiling, so a precision looks the same on every
#: GPU's chart; unknown keys take the rest of the palette in order.
KEY_COLOURS: dict[str, str] = dict(
    zip(
        (
            "tensor_fp8", "tensor_bf16", "tensor_fp16", "tensor_tf32", "fp16",
            "fp32", "tensor_fp64", "fp64", "tensor_int8", "tensor_fp4",
        ),
        COMPUTE_COLOURS,
        strict=True,
    )
)  # fmt: skip
OTHER_MEMORY_COLOUR = "#A0A0A0"
NEUTRAL = "rgba(128,128,128,0.9)"
GRID_COLOUR = "rgba(128,128,128,0.25)"
TRANSPARENT = "rgba(0,0,0,0)"

#: Marker diameter bounds in pixels; area grows with the share of time.
MIN_MARKER_PX = 6.0
MAX_MARKER_PX = 44.0

#: Arrows shorter than this (in decades of intensity) would be a dot under
#: the marker; the hollow theory marker already says "theory agrees".
MIN_ARROW_DECADES = 0.02

#: Full kernel names are wrapped at this many characters in hover boxes, so a
#: 2,000-character C++ name makes a tall box rather than one wider than the page.
_WRAP = 100

_MARKUP_SAFE = {'"': "&#34;", "'": "&#39;"}


def escape_markup(text: object) -> str:
    """``text`` with ``& < > " '`` replaced by character references.

    Equivalent to :func:`html.escape`, except that quotes become numeric
    references: plotly.js decodes numeric references and a handful of named
    ones (``&amp; &lt; &gt;``) in hover text but not ``&quot;``, which would
    show up literally.
    """
    out = html.escape(str(text), quote=False)
    if '"' in out or "'" in out:
        out = out.replace('"', _MARKUP_SAFE['"']).replace("'", _MARKUP_SAFE["'"])
    return out


def wrapped(text: str, width: int = _WRAP) -> str:
    """Escaped ``text`` broken into ``<br>``-separated lines of about ``width`` characters.

    Lines break after ``", "`` or a space where one falls in the second half
    of a line, else hard at ``width``.  The raw text is cut before escaping
    so that no character reference is split across lines.
    """
    lines: list[str] = []
    rest = text
    while len(rest) > width:
        cut = rest.rfind(" ", width // 2, width)
        cut = width if cut < 0 else cut + 1
        lines.append(rest[:cut])
        rest = rest[cut:]
    lines.append(rest)
    return "<br>".join(escape_markup(line) for line in lines)


def marker_size(share: Any) -> float:
    """Diameter in px with the marker *area* proportional to the share of time."""
    s = finite(share) or 0.0
    return float(min(MAX_MARKER_PX, max(MIN_MARKER_PX, MAX_MARKER_PX * math.sqrt(max(s, 0.0)))))


def arrow(
    tail: tuple[float, float], head: tuple[float, float], colour: str, hovertext: str
) -> PlotlyJSON:
    """An annotation arrow between two chart points given in data units.

    On log axes plotly places annotations in log10 units, and with
    axref/ayref set to the axes the tail (``ax``, ``ay``) is in those units too.
    """
    return {
        "x": math.log10(head[0]),
        "y": math.log10(head[1]),
        "ax": math.log10(tail[0]),
        "ay": math.log10(tail[1]),
        "xref": "x",
        "yref": "y",
        "axref": "x",
        "ayref": "y",
        "text": "",
        "showarrow": True,
        "arrowhead": 2,
        "arrowsize": 1,
        "arrowwidth": 1.5,
        "arrowcolor": colour,
        "standoff": 4,
        "hovertext": hovertext,
        "visible": True,
    }
