"""What ``inspect`` reports about each input, as plain data."""

from __future__ import annotations

from typing import Any

from ncu_roofline.core.metrics import ncu_options_for, requirement_status
from ncu_roofline.core.model import Profile


def inspect_profile(profile: Profile) -> dict[str, Any]:
    """Per input: layout, counts, devices, roofline inputs present/missing, ncu options."""
    inputs: list[dict[str, Any]] = []
    for info in profile.sources:
        present_metrics = profile.present_metrics(info.path)
        present, missing = requirement_status(present_metrics)
        inputs.append(
            {
                "path": info.path,
                "layout": info.layout,
                "launches": info.launches,
                "rows": info.rows,
                "kernels": info.kernels,
                "devices": list(info.devices),
                "present": present,
                "missing": [m.key for m in missing],
                "missing_detail": {m.key: m.title for m in missing},
                "ncu_options": ncu_options_for(missing),
                "ncu_version": info.ncu_version,
                "units": info.units,
                "aggregated": info.aggregated,
                "metrics": sorted(present_metrics),
                "warnings": list(info.warnings),
            }
        )
    return {"inputs": inputs}
