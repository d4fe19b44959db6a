"""Roofs checked against the export: does the DRAM roof in use agree with ncu's own DRAM %?

ncu reports a DRAM speed-of-light percentage of its own peak next to the
measured DRAM rate, so rate / (percentage / 100) is the peak ncu used.  When
that implied peak and the DRAM roof the analysis uses are more than
:data:`MISMATCH` apart, every DRAM utilisation and efficiency of the device
is off by their ratio: a wrong ``--gpu`` or roofs file is the usual cause
(``--gpu a100_40gb_pcie`` for a run on an 80 GB SXM part reads 1.31x ncu's
own DRAM %).  The check uses launches whose percentage is at least
:data:`~ncu_roofline.analysis.infer_gpu.MIN_RELIABLE_PCT` and the median of
their implied peaks per device.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pandas as pd

from ncu_roofline.analysis.catalogue import severity_of
from ncu_roofline.analysis.infer_gpu import MIN_RELIABLE_PCT, dram_pct, implied_dram_peak
from ncu_roofline.analysis.roofs import DeviceRoofs
from ncu_roofline.core.frame import column
from ncu_roofline.core.hardware import builtin_gpus
from ncu_roofline.core.si import format_si

if TYPE_CHECKING:
    from ncu_roofline.analysis.findings import Finding

#: Implied peak and roof further apart than this (relative) give a finding.
MISMATCH = 0.10


def _fitting_gpus(implied: float, cc: str | None, sms: int | None = None) -> list[str]:
    """Table GPUs whose DRAM bandwidth is within :data:`MISMATCH` of ``implied``, closest first.

    A GPU of another compute capability, or of another SM count than the
    export's ``sms``, is no fit whatever its bandwidth.
    """
    fits = []
    for spec in builtin_gpus():
        bandwidth = spec.memory.get("dram")
        if not bandwidth or (cc and spec.cc and spec.cc != cc):
            continue
        if sms and spec.sms and spec.sms != sms:
            continue
        off = abs(bandwidth / implied - 1.0)
        if off <= MISMATCH:
            fits.append((off, f"{spec.name} ({spec.key}, {format_si(bandwidth, 'B/s')})"))
    return [text for _, text in sorted(fits)]


def roof_mismatch_findings(launches: pd.DataFrame, devices: list[DeviceRoofs]) -> list[Finding]:
    """``roof-mismatch`` per device whose DRAM roof disagrees with the peak ncu's DRAM % implies."""
    # Imported here: findings imports this module to call it.
    from ncu_roofline.analysis.findings import Finding

    pct = dram_pct(launches)
    if pct is None or "peak_dram_bytes_per_s" not in launches:
        return []
    implied = implied_dram_peak(column(launches, "dram_bytes_per_s"), pct)
    roof = column(launches, "peak_dram_bytes_per_s")
    usable = np.isfinite(implied) & np.isfinite(roof) & (roof > 0)
    if not usable.any():
        return []
    keys = pd.DataFrame(
        {
            col: launches[col].astype(object).fillna("").to_numpy()
            for col in ("source", "device_name", "cc")
        }
    )
    device_cc = {(d.source, d.device_name or ""): d.cc for d in devices}
    device_sms = {(d.source, d.device_name or ""): d.export_sms for d in devices}
    found: list[Finding] = []
    for (source, name, cc), rows in (
        keys[usable].groupby(["source", "device_name", "cc"], sort=False).indices.items()
    ):
        rows = np.flatnonzero(usable)[rows]
        cc = cc or device_cc.get((source, name)) or ""
        peak = float(np.median(implied[rows]))
        used = float(np.median(roof[rows]))
        if abs(peak / used - 1.0) <= MISMATCH:
            continue
        labels = launches["roof_source_dram"].astype(object).iloc[rows].dropna()
        origin = str(labels.value_counts().index[0]) if len(labels) else "unknown source"
        sms = device_sms.get((source, name))
        fits = _fitting_gpus(peak, str(cc) or None, sms)
        where = (f" of CC {cc}" if cc else "") + (f" with {sms} SMs" if sms else "")
        suggestion = (
            f"the built-in GPU{'s' if len(fits) > 1 else ''}{where} whose DRAM bandwidth fits: "
            + "; ".join(fits)
            if fits
            else f"no built-in GPU{where} has that DRAM bandwidth"
        )
        found.append(
            Finding(
                "roof-mismatch",
                None,
                severity_of("roof-mismatch"),
                f"{source}: ncu's DRAM % implies a DRAM peak of {format_si(peak, 'B/s')} (median of "
                f"{len(rows)} launch(es) with DRAM at {MIN_RELIABLE_PCT:.0f}% or more) for device "
                f"{str(name) or 'unknown'!r}, but the DRAM roof in use is {format_si(used, 'B/s')} "
                f"({origin}): DRAM utilisations read {peak / used:.2f}x ncu's own DRAM %. "
                f"{suggestion[0].upper() + suggestion[1:]}; check --gpu / --roofs.",
                source=str(source),
            )
        )
    return found
