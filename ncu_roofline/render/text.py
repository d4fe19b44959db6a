"""Plain-text documents for the terminal: ``inspect``, ``gpus`` and ``theory``.

Design: each function takes the command's plain-data context and returns the
whole text, ending in one newline.  The layout lives in a Jinja template
(``templates/*.txt.j2``); what is computed here are the cells the template
prints as they are (formatted numbers, the ``gpus`` table's padded lines,
the ``ncu`` command line to run), so no template does arithmetic, alignment
or quoting.
"""

from __future__ import annotations

from ncu_roofline.render.format import TEXT, collect_command, plural
from ncu_roofline.render.safe_text import terminal_safe_lines
from ncu_roofline.render.templates import render
from ncu_roofline.report.schema import GpuRecord, InspectDocument, TheoryTable

__all__ = ["gpus_text", "inspect_text", "theory_text"]


def _one_newline(text: str) -> str:
    # Templates end in a variable number of blank lines; the terminal gets
    # one.  Names and warnings in the document must not drive the terminal.
    return terminal_safe_lines(text.rstrip("\n")) + "\n"


def inspect_text(data: InspectDocument) -> str:
    """What ``inspect`` prints for :func:`~ncu_roofline.report.inspect.inspect_profile` data."""
    items = []
    for item in data["inputs"]:
        extras = []
        if item.get("ncu_version"):
            extras.append(f"ncu {item['ncu_version']}")
        if item.get("units"):
            extras.append(f"{item['units']} units")
        if item.get("aggregated"):
            extras.append("aggregated per kernel")
        command = collect_command(item["ncu_options"])
        items.append(
            {
                **item,
                "extras": extras,
                "collect_command": command,
                "launches_text": TEXT.count(item["launches"]),
                "kernels_text": plural(item["kernels"], "distinct kernel"),
            }
        )
    return _one_newline(render("inspect.txt.j2", inputs=items))


#: The ``gpus`` table's columns: title, row field, right-aligned, fixed width
#: (``None``: as wide as the widest value).
_GPU_COLUMNS: tuple[tuple[str, str, bool, int | None], ...] = (
    ("KEY", "key", False, None),
    ("NAME", "name", False, None),
    ("CC", "cc", False, 4),
    ("FP64", "fp64", True, 13),
    ("FP32", "fp32", True, 13),
    ("FP16/BF16 TC", "tensor", True, 13),
    ("DRAM", "dram", True, 10),
)


#: The ``gpus`` table's mark of a device ncu cannot profile (a TPU, an AMD GPU).
THEORY_ONLY_MARK = "[theory only]"


def _gpu_cells(g: GpuRecord) -> dict[str, str]:
    compute, memory = g["compute"], g["memory"]
    return {
        "key": g["key"],
        "name": g["name"],
        "cc": g["cc"] or ("-" if g["theory_only"] else "?"),
        "fp64": TEXT.si(compute.get("fp64"), "FLOP/s"),
        "fp32": TEXT.si(compute.get("fp32"), "FLOP/s"),
        "tensor": TEXT.si(compute.get("tensor_bf16") or compute.get("tensor_fp16"), "FLOP/s"),
        "dram": TEXT.si(memory.get("dram"), "B/s"),
    }


def gpus_text(gpus: list[GpuRecord]) -> str:
    """The ``gpus`` table: one row per GPU (``GpuSpec.to_dict()`` data), dense peaks."""
    rows = [_gpu_cells(g) for g in gpus]
    # Titles do not widen a column; a cell wider than its column widens its line only.
    widths = [
        fixed if fixed is not None else max((len(r[field]) for r in rows), default=0)
        for _, field, _, fixed in _GPU_COLUMNS
    ]
    titles = {field: title for title, field, _, _ in _GPU_COLUMNS}
    lines = [
        "  ".join(
            cells[field].rjust(width) if right else cells[field].ljust(width)
            for (_, field, right, _), width in zip(_GPU_COLUMNS, widths, strict=True)
        )
        for cells in [titles, *rows]
    ]
    # A device ncu cannot profile is marked at the end of its row, and a note says why.
    for at, g in enumerate(gpus, start=1):
        if g["theory_only"]:
            lines[at] += f"  {THEORY_ONLY_MARK}"
    theory_only = any(g["theory_only"] for g in gpus)
    return _one_newline(render("gpus.txt.j2", lines=lines, theory_only=theory_only))


def theory_text(table: TheoryTable) -> str:
    """The ``theory`` table (:func:`~ncu_roofline.report.theory.build_theory_table`)."""
    # The theory context reaches the floor arithmetic (numpy): the other
    # listings, which share this module, do not wait for it.
    from ncu_roofline.render.theory import theory_text_context

    return _one_newline(render("theory.txt.j2", **theory_text_context(table)))
