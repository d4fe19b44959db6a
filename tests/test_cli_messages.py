"""What the commands print on stderr, below the commands."""

from __future__ import annotations

from typing import Any, cast

import pytest

from ncu_roofline.analysis.catalogue import CATALOGUE
from ncu_roofline.cli.messages import print_warnings
from ncu_roofline.report.schema import ReportContext


def test_the_catalogue_decides_which_findings_reach_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    findings = [
        {"kind": kind, "severity": severity, "message": f"{kind} at {severity}"}
        for kind in ("above-roof", "below-roof", "no-roofs")
        for severity in ("error", "warning", "info")
    ]
    context: dict[str, Any] = {
        "inputs": [{"path": "p.csv", "warnings": ["truncated"]}],
        "findings": findings,
    }
    print_warnings(cast(ReportContext, context))
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        "ncu-roofline: warning: p.csv: truncated",
        "ncu-roofline: warning: above-roof at error",
        "ncu-roofline: warning: above-roof at warning",
        "ncu-roofline: warning: no-roofs at error",
        "ncu-roofline: warning: no-roofs at warning",
    ]
    # Kinds that can flag many kernels of an ordinary profile: the report has them.
    assert [k for k, entry in CATALOGUE.items() if not entry.on_stderr] == [
        "below-roof",
        "under-filled",
        "instruction-mix",
        "tail-effect",
    ]
