"""Option groups, the renderer registry and the output write path, below the commands."""

from __future__ import annotations

from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from ncu_roofline.cli.options import (
    OutputOptions,
    RoofOptions,
    format_from_name,
    option_group,
    roof_options,
)
from ncu_roofline.errors import OutputError, UsageError
from ncu_roofline.render import FORMATS, RENDERERS, render_document
from ncu_roofline.render.output import refuse_existing, write_output


def test_a_group_passes_one_dataclass_and_knows_what_was_defaulted() -> None:
    got: list[RoofOptions] = []

    @click.command()
    @roof_options
    def cmd(roofs: RoofOptions) -> None:
        got.append(roofs)

    result = CliRunner().invoke(cmd, ["--gpu", "h100_sxm5"])
    assert result.exit_code == 0, result.output
    roofs = got[0]
    assert (roofs.gpu, roofs.roofs_file, roofs.clocks) == ("h100_sxm5", None, "measured")
    assert roofs.defaulted == {"roofs_file", "clocks"}
    settings = {"gpu": "a100_80gb_sxm", "clocks": "datasheet", "roofs": "r.toml"}
    configured = roofs.configured(settings, "gpu", "clocks")
    # The command line wins; only what it left at the default is filled.
    assert (configured.gpu, configured.clocks, configured.roofs_file) == (
        "h100_sxm5",
        "datasheet",
        None,
    )


def test_fields_without_an_option_keep_their_default() -> None:
    got: list[OutputOptions] = []

    @click.command()
    @option_group(OutputOptions, "out", click.option("-o", "--output"))
    def cmd(out: OutputOptions) -> None:
        got.append(out)

    assert CliRunner().invoke(cmd, ["-o", "x.md"]).exit_code == 0
    assert got[0] == OutputOptions(output="x.md")
    assert got[0].format() == "md"
    assert got[0].target("runs/p.csv.gz", "md") == "x.md"
    assert OutputOptions().target("runs/p.csv.gz", "junit", infix=".diff") == "p.diff.xml"


def test_one_suffix_table_decides_the_format_of_every_output_name() -> None:
    assert format_from_name("runs/Report.HTM") == "html"
    assert format_from_name("ci/results.xml") == "junit"
    assert format_from_name("notes.markdown") == "md"
    assert [format_from_name(p) for p in (None, "-", "", "report.pdf", "html")] == [None] * 5
    # A command offering fewer formats (theory: text, json, html) never gets another one.
    assert format_from_name("t.md", ("text", "json", "html")) is None
    assert format_from_name("t.json", ("text", "json", "html")) == "json"
    # The default file of a format carries that format's first suffix.
    for fmt in ("html", "junit"):
        assert OutputOptions().target("p.csv", fmt) == "p" + FORMATS[fmt][0]
    assert OutputOptions(output="a.json", fmt="md").implied_format() == "json"
    assert OutputOptions(output="a.md", fmt="md").implied_format() is None
    assert OutputOptions(output="-", fmt="md").implied_format() is None
    with pytest.raises(UsageError, match="cannot tell the format"):
        OutputOptions(output="report.pdf").format()


def test_every_written_format_has_a_renderer() -> None:
    for kind in ("report", "comparison"):
        assert {f for k, f in RENDERERS if k == kind} >= set(FORMATS)
    with pytest.raises(ValueError, match="no 'pdf' renderer for 'report'"):
        render_document("report", "pdf", {})


def test_write_output_refuses_existing_files_and_writes_stdout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "out.md"
    assert write_output("one\n", str(target)) is True
    with pytest.raises(OutputError, match="already exists"):
        refuse_existing(str(target), force=False)
    with pytest.raises(OutputError, match="already exists"):
        write_output("two\n", str(target))
    refuse_existing(str(target), force=True)
    refuse_existing("-", force=False)
    assert write_output(b"two\n", str(target), force=True) is True
    assert target.read_text() == "two\n"
    assert write_output(b"to stdout\n", "-") is False
    assert capsys.readouterr().out == "to stdout\n"
