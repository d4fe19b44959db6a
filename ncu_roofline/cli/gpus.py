"""``ncu-roofline gpus``: the GPUs whose roofs are known."""

from __future__ import annotations

import click

from ncu_roofline.cli.options import json_flag, roofs_option
from ncu_roofline.core.hardware import builtin_gpus, load_roofs_file
from ncu_roofline.render import render_document
from ncu_roofline.render.output import write_output
from ncu_roofline.report.schema import GpusDocument


@click.command()
@json_flag("Print machine-readable JSON (SI units).")
@roofs_option("List the GPUs of a roofs file instead.")
def gpus(as_json: bool, roofs_file: str | None) -> None:
    """List the GPUs whose roofs are known (names usable with --gpu)."""
    specs = load_roofs_file(roofs_file) if roofs_file else builtin_gpus()
    context: GpusDocument = {"gpus": [s.to_dict() for s in specs]}
    write_output(render_document("gpus", "json" if as_json else "text", context), None)
