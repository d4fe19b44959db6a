"""What ``inspect`` reports about each input, as plain data.

The document's shape is :class:`~ncu_roofline.report.schema.InspectDocument`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ncu_roofline.core.metrics import ncu_options_for, requirement_status

if TYPE_CHECKING:
    # Types only: the schema's ~100 TypedDicts cost ~3 ms to build at import.
    from ncu_roofline.core.model import Profile
    from ncu_roofline.report.schema import InspectDocument, InspectInput


def inspect_profile(profile: Profile) -> InspectDocument:
    """Per input: layout, counts, devices, roofline inputs present/missing, ncu options."""
    inputs: list[InspectInput] = []
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
                "ncu_options": ncu_options_for(missing, profile.compute_capability(info.path)),
                "ncu_version": info.ncu_version,
                "units": info.units,
                "aggregated": info.aggregated,
                "metrics": sorted(present_metrics),
                "warnings": list(info.warnings),
                "passes": [
                    {
                        "path": p["path"],
                        "rows": p["rows"],
                        "present": requirement_status(set(p["metrics"]))[0],
                    }
                    for p in info.passes
                ],
            }
        )
    return {"inputs": inputs}
