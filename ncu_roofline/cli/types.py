"""Value types of the options a settings file can also give, defined once.

The command line and ``pyproject.toml`` / ``--config`` go through the same
click types (:mod:`ncu_roofline.cli.config` checks every setting with them),
so a value refused on the command line is refused in a file too.
"""

from __future__ import annotations

import math
from typing import Any

import click

from ncu_roofline.analysis.compare.basis import BASES
from ncu_roofline.core.gpu_spec import CLOCK_MODES
from ncu_roofline.render import PLOTLY_MODES


class FiniteFloatRange(click.FloatRange):
    """A :class:`click.FloatRange` that refuses NaN and infinity.

    ``nan`` passes every comparison-based bound (``nan < 0`` is false), and
    an infinite threshold or noise level means nothing.
    """

    name = "finite float range"

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        """The float, refused unless finite and within the range."""
        number = super().convert(value, param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number.", param, ctx)
        return number


#: --noise: a fraction of time; changes below it count as unchanged.
NOISE = FiniteFloatRange(min=0.0)
#: --excess-threshold: a multiple of the minimal DRAM bytes.
EXCESS_THRESHOLD = FiniteFloatRange(min=1.0)
#: --top and the other counts of rows, sequences and ranks.
COUNT = click.IntRange(min=1)
#: --clocks.
CLOCKS = click.Choice(CLOCK_MODES)
#: --plotly-js.
PLOTLY_JS = click.Choice(PLOTLY_MODES)

#: ``--basis`` of ``compare``.
BASIS = click.Choice(BASES)

#: The click type of each setting a file can give (settings not listed are strings or lists).
SETTING_TYPES: dict[str, click.ParamType[Any]] = {
    "noise": NOISE,
    "excess_threshold": EXCESS_THRESHOLD,
    "top": COUNT,
    "clocks": CLOCKS,
    "plotly_js": PLOTLY_JS,
    "basis": BASIS,
}
