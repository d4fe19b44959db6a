"""The roofs as plain data (:meth:`~ncu_roofline.analysis.roofs.assign.DeviceRoofs.to_dict`).

Built here, in the analysis stage, and carried unchanged into the report's
``roofs``: their one home is here; :mod:`ncu_roofline.report.schema`
re-exports them beside the other report types.
"""

from __future__ import annotations

from typing import TypedDict

__all__ = ["CeilingRecord", "DeviceRoofsRecord", "RoofGpuRecord"]


class CeilingRecord(TypedDict):
    """One roof: a compute ceiling or a memory bandwidth."""

    uncertain: bool
    key: str
    kind: str
    unit: str
    value: float
    min: float | None
    max: float | None
    source: str
    clock_hz: float | None
    launches: int


class RoofGpuRecord(TypedDict):
    """The table GPU a device's roofs came from: its key, name, and where its figures come from."""

    key: str
    name: str
    origin: str
    sources: str


class DeviceRoofsRecord(TypedDict):
    """The roofs used for one device of one input."""

    source: str
    device_name: str | None
    cc: str | None
    gpu: RoofGpuRecord | None
    measured_sm_clock_hz: float | None
    ceilings: list[CeilingRecord]
    notes: list[str]
