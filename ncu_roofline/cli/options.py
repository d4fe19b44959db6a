"""Command-line options, each defined once, and the groups the commands share.

Design: every option is made by one factory here (a command that words its
help differently passes the text), and options that travel together form a
group.  A group decorator adds its options in help order and hands the
command one frozen dataclass of their values (:class:`OutputOptions`,
:class:`RoofOptions`, :class:`TheoryOptions`, :class:`GateOptions`) instead of
one parameter each.

Settings from ``pyproject.toml`` or ``--config`` (:mod:`ncu_roofline.cli.config`)
fill only the values the command line left at their default: each dataclass
records those names in ``defaulted``, and :meth:`Options.configured` applies
the settings a command honours.
"""

from __future__ import annotations

import dataclasses
import functools
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

import click

from ncu_roofline.cli import types
from ncu_roofline.cli.config import load_config
from ncu_roofline.cli.messages import warn
from ncu_roofline.errors import UsageError
from ncu_roofline.render import FORMATS, RenderOptions
from ncu_roofline.render.output import is_stdout
from ncu_roofline.theory import defaults as theory_defaults
from ncu_roofline.theory.phases import PHASES
from ncu_roofline.version import NAME

if TYPE_CHECKING:
    from ncu_roofline.report.gates import Gate
    from ncu_roofline.theory.config import TheoryConfig

F = TypeVar("F", bound=Callable[..., Any])
Decorator = Callable[[F], F]
OptionsT = TypeVar("OptionsT", bound="Options")

#: Option fields a setting can fill: the setting's key and its conversion.
_SETTINGS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "gpu": ("gpu", str),
    "roofs_file": ("roofs", str),
    "clocks": ("clocks", str),
    "plotly_js": ("plotly_js", str),
    "excess_threshold": ("excess_threshold", float),
    "noise": ("noise", float),
    "top": ("top", int),
    "basis": ("basis", str),
    "allow_cross_gpu": ("allow_cross_gpu", bool),
    "pair_implementations": ("pair_implementations", bool),
}

_UNSET = (None, click.core.ParameterSource.DEFAULT)


@dataclass(frozen=True)
class Options:
    """Base of the option groups: which values the command line left at their default."""

    defaulted: frozenset[str] = field(default=frozenset(), kw_only=True, repr=False)

    def configured(self: OptionsT, settings: Mapping[str, Any], *names: str) -> OptionsT:
        """A copy with the settings for ``names`` wherever the command line gave none."""
        changes = {}
        for name in names:
            key, convert = _SETTINGS[name]
            if name in self.defaulted and key in settings:
                changes[name] = convert(settings[key])
        return dataclasses.replace(self, **changes)

    def values(self) -> dict[str, Any]:
        """The options' values by field name (not where they came from)."""
        return {
            f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "defaulted"
        }


def option_group(cls: type[OptionsT], name: str, *options: Decorator[Any]) -> Decorator[F]:
    """Add ``options`` (in help order) and pass their values as one ``cls`` named ``name``.

    The values are the parameters named like ``cls``'s fields, so two groups
    of one command must not share a field name; a field no option sets keeps
    its default.
    """
    fields = {f.name for f in dataclasses.fields(cls)} - {"defaulted"}

    def decorate(func: F) -> F:
        @functools.wraps(func)
        def collect(*args: Any, **kwargs: Any) -> Any:
            ctx = click.get_current_context()
            values = {k: kwargs.pop(k) for k in list(kwargs) if k in fields}
            defaulted = frozenset(k for k in values if ctx.get_parameter_source(k) in _UNSET)
            kwargs[name] = cls(**values, defaulted=defaulted)
            return func(*args, **kwargs)

        decorated: Any = collect
        for option in reversed(options):
            decorated = option(decorated)
        return cast(F, decorated)

    return decorate


# -- single options -------------------------------------------------------------


def _progress_flag(ctx: click.Context, param: click.Parameter, value: str) -> bool | None:
    return {"auto": None, "always": True, "never": False}[value]


#: ``--progress``, passed to the command as ``progress``: None (auto), True or False.
progress_option = click.option(
    "--progress",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    callback=_progress_flag,
    help="Progress bar on stderr for large inputs (auto: only on a terminal).",
)

#: ``--merge``: join inputs that are passes of one run per launch.
merge_option = click.option(
    "--merge",
    is_flag=True,
    help="Join inputs that are passes of one run (the same launches, different metrics) "
    "per launch: e.g. one export with durations, another with byte counters.",
)

#: Where ``--no-cache`` is recorded: the context's ``meta``, shared by its subcommands.
_NO_CACHE = "ncu_roofline.no_cache"


def _no_cache_flag(ctx: click.Context, param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[_NO_CACHE] = True


#: ``--no-cache``: parse every input, neither reading nor writing the parse cache.
#: Not passed to the command: it asks :func:`use_cache` where it reads its inputs.
cache_option = click.option(
    "--no-cache",
    is_flag=True,
    expose_value=False,
    callback=_no_cache_flag,
    help="Parse every input again: neither read nor write the parse cache "
    "(also NCU_ROOFLINE_NO_CACHE=1).",
)


def use_cache() -> bool:
    """Whether the running command may use the parse cache (False after ``--no-cache``)."""
    ctx = click.get_current_context(silent=True)
    return ctx is None or not ctx.meta.get(_NO_CACHE, False)


#: The input files of ``inspect``, ``report`` and ``summary``.
inputs_argument = click.argument("inputs", nargs=-1, required=True, metavar="FILE...")

#: ``--force``.
force_option = click.option("--force", is_flag=True, help="Overwrite an existing output file.")


def json_flag(help: str) -> Decorator[Any]:
    """``--json``, passed as ``as_json``."""
    return click.option("--json", "as_json", is_flag=True, help=help)


def gpu_option(help: str, *, dest: str = "gpu", multiple: bool = False) -> Decorator[Any]:
    """``--gpu NAME`` (repeatable with ``multiple``)."""
    return click.option("--gpu", dest, multiple=multiple, metavar="NAME", help=help)


def roofs_option(help: str) -> Decorator[Any]:
    """``--roofs FILE``, passed as ``roofs_file``."""
    return click.option("--roofs", "roofs_file", metavar="FILE", help=help)


def clocks_option(help: str) -> Decorator[Any]:
    """``--clocks``: table compute roofs at the measured SM clock or the datasheet's."""
    return click.option(
        "--clocks", type=types.CLOCKS, default="measured", show_default=True, help=help
    )


def _not_empty(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    # "" would name the current directory ("."): a slip, never an output.
    if value is not None and not value.strip():
        raise click.BadParameter("empty output path", ctx=ctx, param=param)
    return value


def output_option(help: str) -> Decorator[Any]:
    """``-o/--output OUT``."""
    return click.option("-o", "--output", metavar="OUT", callback=_not_empty, help=help)


def format_option(choices: Sequence[str], help: str, default: str | None = None) -> Decorator[Any]:
    """``--format``, passed as ``fmt``."""
    extra: dict[str, Any] = {} if default is None else {"default": default, "show_default": True}
    return click.option("--format", "fmt", type=click.Choice(list(choices)), help=help, **extra)


def plotly_option(help: str) -> Decorator[Any]:
    """``--plotly-js``: inline plotly.js or load it from the CDN."""
    return click.option(
        "--plotly-js",
        type=types.PLOTLY_JS,
        default="inline",
        show_default=True,
        help=help,
    )


def _count_option(flag: str, default: int, help: str) -> Decorator[Any]:
    return click.option(flag, type=types.COUNT, default=default, show_default=True, help=help)


def top_option(default: int, help: str) -> Decorator[Any]:
    """``--top N``."""
    return _count_option("--top", default, help)


# -- output ---------------------------------------------------------------------

_INPUT_SUFFIXES = (".gz", ".csv", ".ncu-rep", ".txt", ".out", ".log")


def format_from_name(path: str | None, formats: Iterable[str] = FORMATS) -> str | None:
    """The format among ``formats`` that ``path``'s suffix implies, or None.

    The suffixes are :data:`~ncu_roofline.render.FORMATS`', compared ignoring
    case; standard output and a name no format claims give None.  Formats
    without a suffix (the terminal ``text``) never match: a command that
    offers one uses it as its fallback.
    """
    if not path or is_stdout(path):
        return None
    name = path.lower()
    return next((f for f in formats if name.endswith(FORMATS.get(f, ()))), None)


def _stem(first_input: str) -> str:
    """``runs/profile.csv.gz`` -> ``profile``: the input's name less its input suffixes."""
    name = f"{NAME}-report" if first_input == "-" else os.path.basename(first_input)
    stripped = True
    while stripped:
        stripped = False
        for suffix in _INPUT_SUFFIXES:
            if name.lower().endswith(suffix) and len(name) > len(suffix):
                name = name[: -len(suffix)]
                stripped = True
    return name


@dataclass(frozen=True)
class OutputOptions(Options):
    """Where and how to write the document."""

    output: str | None = None
    fmt: str | None = None
    plotly_js: str = "inline"
    force: bool = False
    html_url: str | None = None
    top: int = 10

    def format(self) -> str:
        """The report format: --format, else the output name's suffix, else HTML."""
        if self.fmt is not None:
            return self.fmt
        if not self.output or is_stdout(self.output):
            return "html"
        implied = format_from_name(self.output)
        if implied is None:
            raise UsageError(
                f"{self.output}: cannot tell the format from the name; add --format "
                + " or --format ".join(sorted(FORMATS))
            )
        return implied

    def implied_format(self) -> str | None:
        """The format the output's name implies when --format names another one."""
        if not self.fmt:
            return None
        implied = format_from_name(self.output)
        return implied if implied != self.fmt else None

    def target(self, first_input: str, out_format: str, infix: str = "") -> str | None:
        """The output path; HTML and JUnit default to a file named after ``first_input``.

        ``runs/profile.csv.gz`` -> ``profile{infix}.html`` (or ``.xml``) in the
        current directory; other formats default to standard output (None).
        """
        if self.output is not None or out_format not in ("html", "junit"):
            return self.output
        return f"{_stem(first_input)}{infix}{FORMATS[out_format][0]}"

    def render_options(self) -> RenderOptions:
        """The renderer's options (tripped gates travel in the context's ``gates`` record)."""
        return RenderOptions(plotly_js=self.plotly_js, html_url=self.html_url, top=self.top)


def output_options(output_help: str) -> Decorator[F]:
    """-o, --format, --plotly-js, --force, --html-url and --top, as report and compare share them."""
    return option_group(
        OutputOptions,
        "out",
        output_option(output_help),
        format_option(sorted(FORMATS), "Output format (default: from the output name, else html)."),
        plotly_option(
            "Inline plotly.js (works offline) or load it from the Plotly CDN (small file)."
        ),
        force_option,
        click.option(
            "--html-url", metavar="URL", help="For --format md: link to the HTML version."
        ),
        top_option(10, "Rows of top tables."),
    )


# -- roofs ----------------------------------------------------------------------


@dataclass(frozen=True)
class RoofOptions(Options):
    """Which roofs to place the launches under."""

    gpu: str | None = None
    roofs_file: str | None = None
    clocks: str = "measured"


#: --gpu, --roofs and --clocks, as ``roofs``.
roof_options: Decorator[Any] = option_group(
    RoofOptions,
    "roofs",
    gpu_option("Use this GPU's roofs (see `ncu-roofline gpus`)."),
    roofs_option("Use roofs from a TOML file (same schema as the built-in table)."),
    clocks_option(
        "Scale table compute roofs to the SM clock the export measured, or keep datasheet values."
    ),
)


# -- theory ---------------------------------------------------------------------

_PHASES = PHASES


@dataclass(frozen=True)
class TheoryOptions(Options):
    """Where theory comes from: an estimates file or a model, and the model's shapes.

    The defaults of the options are :class:`~ncu_roofline.theory.config.TheoryConfig`'s
    (:mod:`ncu_roofline.theory.defaults`).
    """

    theory_file: str | None
    model: str | None
    model_config: str | None
    phase: str
    batch: int
    seq: int
    dtype: str
    kv_dtype: str | None
    tp: int
    #: Only ``report`` has --excess-threshold.
    excess_threshold: float = theory_defaults.EXCESS_THRESHOLD

    def given(self) -> bool:
        """Whether --theory, --model or --model-config was given (:meth:`config` is not None)."""
        return not (self.theory_file is None and self.model is None and self.model_config is None)

    def files(self) -> list[str]:
        """The files the theory is read from: --theory and --model-config, where given."""
        return [f for f in (self.theory_file, self.model_config) if f is not None]

    def config(self) -> TheoryConfig | None:
        """The analysis' theory, or None without --theory, --model or --model-config.

        Bad shapes or dtypes fail here, before the (possibly long) read of the profile.
        """
        if self.model and self.model_config:
            raise UsageError("give either --model or --model-config, not both")
        if not self.given():
            return None
        # Here, not at the top: the op library and model table cost ~20 ms
        # to import, and most runs give no theory.
        from ncu_roofline.theory.config import TheoryConfig
        from ncu_roofline.theory.estimates import load_theory_file
        from ncu_roofline.theory.models import find_model, load_model_config

        cfg = None
        if self.model:
            cfg = find_model(self.model)
        elif self.model_config:
            cfg = load_model_config(self.model_config)
        config = TheoryConfig(
            file=load_theory_file(self.theory_file) if self.theory_file else None,
            model=cfg,
            phase=self.phase,
            batch=self.batch,
            seq=self.seq,
            dtype=self.dtype,
            kv_dtype=self.kv_dtype,
            tp=self.tp,
            excess_threshold=self.excess_threshold,
        )
        config.model_ops()
        return config


_THEORY_OPTIONS: tuple[Decorator[Any], ...] = (
    click.option(
        "--theory", "theory_file", metavar="FILE", help="Estimates file: [[kernel]] rules (TOML)."
    ),
    click.option(
        "--model",
        metavar="NAME",
        help="Built-in model for theory (see `ncu-roofline theory --list-models`).",
    ),
    click.option("--model-config", metavar="FILE", help="Hugging Face config.json for theory."),
    click.option(
        "--phase",
        type=click.Choice(_PHASES),
        default=theory_defaults.PHASE,
        show_default=True,
        help="Model phase.",
    ),
    _count_option("--batch", theory_defaults.BATCH, "Sequences per step."),
    _count_option(
        "--seq", theory_defaults.SEQ, "Context length (decode) or prompt length (prefill)."
    ),
    click.option(
        "--dtype",
        default=theory_defaults.DTYPE,
        show_default=True,
        help="Weights and activations dtype.",
    ),
    click.option("--kv-dtype", default=None, help="KV-cache dtype (default: --dtype)."),
    _count_option("--tp", theory_defaults.TP, "Tensor-parallel ranks."),
)

_EXCESS_THRESHOLD_OPTION = click.option(
    "--excess-threshold",
    type=types.EXCESS_THRESHOLD,
    default=theory_defaults.EXCESS_THRESHOLD,
    show_default=True,
    help="Flag kernels moving at least this many times their minimal DRAM bytes.",
)


def theory_options(excess_threshold: bool = False) -> Decorator[F]:
    """--theory, --model, --model-config and the model's shapes (and --excess-threshold), as ``theory``."""
    extra = (_EXCESS_THRESHOLD_OPTION,) if excess_threshold else ()
    return option_group(TheoryOptions, "theory", *_THEORY_OPTIONS, *extra)


# -- gates ----------------------------------------------------------------------


@dataclass(frozen=True)
class GateOptions(Options):
    """``--fail-on`` rules and the settings file they may come from."""

    fail_on: tuple[str, ...] = ()
    config_file: str | None = None

    def settings(self) -> dict[str, Any]:
        """The settings of --config FILE, else of the nearest pyproject.toml."""
        return load_config(self.config_file)

    def report_gates(self, settings: Mapping[str, Any]) -> list[Gate]:
        """Gates for a single profile: the command line's, else the configured ones.

        A configuration shared with ``compare`` may list comparison-only rules;
        they are skipped with a warning (a command-line rule of that kind is an error).
        """
        from ncu_roofline.report.gates import parse_gates

        if self.fail_on:
            return parse_gates(list(self.fail_on), comparison=False)
        gates = parse_gates(settings.get("fail_on", []), comparison=True)
        skipped = [g.text for g in gates if g.needs_comparison]
        if skipped:
            warn(f"configured gates {', '.join(skipped)} apply to `compare` only; skipped")
        return [g for g in gates if not g.needs_comparison]

    def comparison_gates(self, settings: Mapping[str, Any]) -> list[Gate]:
        """Gates for ``compare``: the command line's, else the configured ones."""
        from ncu_roofline.report.gates import parse_gates

        return parse_gates(list(self.fail_on) or settings.get("fail_on", []), comparison=True)


#: ``--config FILE``: where the settings come from.
config_option: Decorator[Any] = click.option(
    "--config",
    "config_file",
    metavar="FILE",
    help="Settings file (TOML); default: [tool.ncu-roofline] in the nearest pyproject.toml.",
)

#: --fail-on and --config, as ``gating``.
gate_options: Decorator[Any] = option_group(
    GateOptions,
    "gating",
    click.option(
        "--fail-on",
        "fail_on",
        multiple=True,
        metavar="RULE",
        help="Exit 3 after writing the output when RULE trips: efficiency<0.3, a finding kind "
        "(excess-traffic, above-roof, ...); compare also takes regression>5% and new-kernel.",
    ),
    config_option,
)
