"""Theory that contradicts the measurement by orders of magnitude is ignored, with a warning.

The theory efficiency is the theoretical time floor over the measured
duration.  Above 1 the launch ran faster than its theory allows, which small
errors explain (a measured clock above the datasheet's, an L2-resident
input); a thousand times faster is no error of measurement but of the theory:
a rule's sizes off by orders of magnitude (``M = N = K = 1e20``), a model
config for another model.  Such theory would rank the kernel first among the
"recoverable" ones and set off every comparison, so its numbers are dropped,
its confidence is ``low``, and the input gets a warning naming the kernels.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from ncu_roofline.core.frame import floats
from ncu_roofline.core.model import SourceInfo

#: Largest theory efficiency (floor / measured time) that is believed.
MAX_THEORY_EFFICIENCY = 1e3

#: The theory numbers dropped for a launch whose theory is not believed.
_THEORY_NUMBERS = (
    "theory_flops",
    "theory_bytes",
    "theory_ai",
    "byte_excess",
    "flop_excess",
    "excess_bytes",
    "theory_floor_s",
    "theory_efficiency",
)


def distrust_absurd_theory(frame: pd.DataFrame, sources: Sequence[SourceInfo]) -> None:
    """Drop theory whose floor exceeds :data:`MAX_THEORY_EFFICIENCY` times the launch's time, in place."""
    if "theory_efficiency" not in frame:
        return
    efficiency = floats(frame["theory_efficiency"])
    absurd = efficiency > MAX_THEORY_EFFICIENCY
    if not absurd.any():
        return
    by_path = {s.path: s for s in sources}
    for path in pd.unique(frame["source"][absurd]):
        rows = absurd & (frame["source"] == path).to_numpy()
        kernels = list(dict.fromkeys(frame["kernel_short"][rows].astype(str)))
        named = ", ".join(kernels[:3]) + (
            f" and {len(kernels) - 3} more" if len(kernels) > 3 else ""
        )
        info = by_path.get(str(path))
        if info is not None:
            info.warn(
                f"theory for {int(rows.sum())} launch(es) of {named} sets a time floor up to "
                f"{np.nanmax(efficiency[rows]):.3g} times the measured duration (more than "
                f"{MAX_THEORY_EFFICIENCY:g}x): not this kernel's work (check the rule's sizes "
                "or the model); that theory is ignored"
            )
    for col in _THEORY_NUMBERS:
        if col in frame:
            values = floats(frame[col]).copy()
            values[absurd] = np.nan
            frame[col] = values
    if "confidence" in frame:
        frame.loc[absurd, "confidence"] = "low"
