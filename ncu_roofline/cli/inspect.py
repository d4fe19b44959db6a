"""``ncu-roofline inspect``: what each input holds and what it lacks."""

from __future__ import annotations

import click

from ncu_roofline.cli.messages import warn
from ncu_roofline.cli.options import (
    cache_option,
    inputs_argument,
    json_flag,
    merge_option,
    progress_option,
    use_cache,
)
from ncu_roofline.render import render_document
from ncu_roofline.render.output import write_output


@click.command()
@inputs_argument
@json_flag("Print machine-readable JSON.")
@progress_option
@cache_option
@merge_option
def inspect(inputs: tuple[str, ...], as_json: bool, progress: bool | None, merge: bool) -> None:
    """Describe each input: layout, launches, devices, roofline inputs.

    Lists which roofline inputs are present and which are missing, with the
    ncu options that would collect the missing ones.  Inputs that look like
    passes of one run are named; --merge joins them and lists each pass.
    """
    # The readers load pyarrow and pandas: imported here, not for --help.
    from ncu_roofline.readers import load
    from ncu_roofline.report.inspect import inspect_profile

    data = inspect_profile(load(list(inputs), progress=progress, merge=merge, cache=use_cache()))
    write_output(render_document("inspect", "json" if as_json else "text", data), None)
    if as_json:
        return
    for item in data["inputs"]:
        for w in item["warnings"]:
            warn(f"{item['path']}: {w}")
