"""The public API for notebooks: profiles, analyses and comparisons that show themselves.

:func:`load`, :func:`analyze` and :func:`compare` (``ncu_roofline.load``...)
return a :class:`NotebookProfile`, :class:`NotebookAnalysis` and
:class:`NotebookComparison`: the engine's own objects, subclassed, so every
attribute and every function taking a ``Profile`` or an ``Analysis`` works
on them unchanged.  What they add is how a notebook shows them: a short
``repr`` (one line, never a frame), a summary card (``_repr_html_``) and,
for an analysis and a comparison, ``figure()``: the report page's roofline
as a Plotly figure.  :func:`report_html` returns the HTML page that
``ncu-roofline report`` writes.

Design: an analysis may not import the writers (the stages run one way,
``core <- ... <- analysis <- report <- render``), and the card, the chart
and the page are the writers'.  So this module, above the writers like the
command line, is where the engine's objects meet them: the base classes
keep their stages' imports, the behaviour a notebook needs is here, and
each thing shown has one home below (the card's numbers and table are the
page's, :mod:`ncu_roofline.render.notebook`; the figure is the page's
chart).  The command line does not use these classes; both build the page
the same way (:func:`~ncu_roofline.report.context.build_context`, then the
``("report", "html")`` renderer), so :func:`report_html` writes the
command's bytes.

The writers, the template engine and plotly are imported when something
is shown, not when this module is: ``ncu_roofline.load`` costs what the
readers cost.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import fields
from typing import TYPE_CHECKING, TypeAlias

from ncu_roofline.analysis.budget.attach import attach_timeline
from ncu_roofline.analysis.compare import Comparison
from ncu_roofline.analysis.compare import compare as compare_analyses
from ncu_roofline.analysis.compare.basis import DEFAULT_NOISE
from ncu_roofline.analysis.engine import Analysis, Thresholds
from ncu_roofline.analysis.engine import analyze as analyze_profile
from ncu_roofline.core.files import unique_inputs
from ncu_roofline.core.hardware import GpuSpec
from ncu_roofline.core.model import Profile
from ncu_roofline.core.timeline import Timeline
from ncu_roofline.errors import UsageError
from ncu_roofline.readers import load as read_exports
from ncu_roofline.readers.nsys import load_timeline
from ncu_roofline.theory.config import TheoryConfig

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from ncu_roofline.render.charts.types import PlotlyJSON
    from ncu_roofline.report.card import AnalysisCard, ProfileCard
    from ncu_roofline.report.schema import ComparisonContext

__all__ = [
    "NotebookAnalysis",
    "NotebookComparison",
    "NotebookProfile",
    "analyze",
    "compare",
    "load",
    "report_html",
]

#: What :func:`load` reads: one path or several.
Paths: TypeAlias = "str | os.PathLike[str] | Iterable[str | os.PathLike[str]]"


def _figure(spec: PlotlyJSON) -> go.Figure:
    """A Plotly figure of a plotly.js figure dict (validated by plotly)."""
    import plotly.graph_objects as go

    return go.Figure(spec)


class NotebookProfile(Profile):
    """A :class:`~ncu_roofline.core.model.Profile` shown as a card: what :func:`load` returns."""

    @classmethod
    def of(cls, profile: Profile) -> NotebookProfile:
        """``profile`` as a notebook profile, sharing its launches and sources (no copy)."""
        if isinstance(profile, cls):
            return profile
        shown = cls.__new__(cls)
        # The same state: the launch columns, the frame built from them, the sources.
        shown.__dict__.update(vars(profile))
        return shown

    def _card(self) -> ProfileCard:
        from ncu_roofline.render.notebook import CARD_ROWS
        from ncu_roofline.report.card import profile_card

        return profile_card(self, CARD_ROWS)

    def __repr__(self) -> str:
        from ncu_roofline.render.notebook import profile_line

        return profile_line(self._card())

    def _repr_html_(self) -> str:
        """The card Jupyter shows: inputs, GPU, launches, kernels, time, top kernels by time."""
        from ncu_roofline.render.notebook import profile_html

        return profile_html(self._card())


class NotebookAnalysis(Analysis):
    """An :class:`~ncu_roofline.analysis.Analysis` with a card and the page's roofline.

    What :func:`analyze` returns.
    """

    @classmethod
    def of(cls, analysis: Analysis) -> NotebookAnalysis:
        """``analysis`` as a notebook analysis, sharing its frames (no copy)."""
        if isinstance(analysis, cls):
            return analysis
        values = {f.name: getattr(analysis, f.name) for f in fields(Analysis)}
        # The frames already built are shared; one set on either later is its own.
        values["frames"] = dict(analysis.frames)
        return cls(**values)

    def _card(self) -> AnalysisCard:
        from ncu_roofline.render.notebook import CARD_ROWS
        from ncu_roofline.report.card import analysis_card

        return analysis_card(self, CARD_ROWS)

    def __repr__(self) -> str:
        from ncu_roofline.render.notebook import analysis_line

        return analysis_line(self._card())

    def _repr_html_(self) -> str:
        """The card Jupyter shows: GPU, totals, the groups with the most recoverable time."""
        from ncu_roofline.render.notebook import analysis_html

        return analysis_html(self._card())

    def figure(self, view: str = "groups", device: int = 0) -> go.Figure:
        """The report page's roofline chart as a Plotly figure.

        ``view`` is the chart's menu button: ``"groups"`` (one marker per
        kernel group), ``"levels"`` (each group at DRAM, L2 and L1 intensity)
        or ``"launches"`` (one point per launch).  ``device`` numbers the
        page's charts (one per device with roofs) from 0.  Raises
        :class:`~ncu_roofline.errors.UsageError` for an unknown view or
        device, :class:`~ncu_roofline.errors.NcuRooflineError` where the
        page has no chart (saying what the export lacks).
        """
        from ncu_roofline.render.notebook import roofline_chart
        from ncu_roofline.report.context import build_context

        return _figure(roofline_chart(build_context(self), view, device))


class NotebookComparison(Comparison):
    """A :class:`~ncu_roofline.analysis.compare.Comparison` with a card and its roofline.

    What :func:`compare` returns.
    """

    @classmethod
    def of(cls, comparison: Comparison) -> NotebookComparison:
        """``comparison`` as a notebook comparison, sharing its analyses and frames (no copy)."""
        if isinstance(comparison, cls):
            return comparison
        return cls(**{f.name: getattr(comparison, f.name) for f in fields(Comparison)})

    def _context(self) -> ComparisonContext:
        from ncu_roofline.report.compare import comparison_context

        return comparison_context(self)

    def __repr__(self) -> str:
        from ncu_roofline.render.notebook import comparison_line

        return comparison_line(self._context())

    def _repr_html_(self) -> str:
        """The card Jupyter shows: both sides, the change of kernel time, the largest changes."""
        from ncu_roofline.render.notebook import comparison_html

        return comparison_html(self._context())

    def figure(self, device: int = 0) -> go.Figure:
        """The comparison page's roofline: where each kernel group was and where it is now.

        ``device`` numbers the candidate's devices with roofs from 0.
        """
        from ncu_roofline.render.notebook import comparison_chart
        from ncu_roofline.report.compare import comparison_document

        return _figure(comparison_chart(comparison_document(self), device))


def load(
    paths: Paths,
    progress: bool | None = None,
    merge: bool = False,
    jobs: int | None = None,
    cache: bool = True,
) -> NotebookProfile:
    """Read one or more ncu exports; see :func:`ncu_roofline.readers.load` for the arguments.

    ``cache``: read unchanged inputs back from the parse cache, and keep new ones there.
    """
    return NotebookProfile.of(
        read_exports(paths, progress=progress, merge=merge, jobs=jobs, cache=cache)
    )


def analyze(
    profile: Profile,
    gpu: str | GpuSpec | None = None,
    roofs: str | os.PathLike[str] | Sequence[GpuSpec] | None = None,
    clocks: str = "measured",
    thresholds: Thresholds | None = None,
    theory: TheoryConfig | None = None,
    nsys: Paths | Timeline | None = None,
) -> NotebookAnalysis:
    """Place every launch of ``profile`` on the roofline.

    The engine's :func:`ncu_roofline.analysis.analyze` (which documents the
    arguments); the result also shows itself in a notebook.  ``nsys`` (an
    Nsight Systems timeline of the same program: paths as ``report --nsys``
    reads them, or a :class:`~ncu_roofline.core.timeline.Timeline`) joins it:
    the result's ``budget`` says where each step's time goes, and its groups
    are weighted by real time (:func:`ncu_roofline.analysis.budget.attach_timeline`).
    """
    analysis = analyze_profile(
        profile, gpu=gpu, roofs=roofs, clocks=clocks, thresholds=thresholds, theory=theory
    )
    if nsys is not None:
        if not isinstance(nsys, Timeline):
            items = [nsys] if isinstance(nsys, (str, os.PathLike)) else list(nsys)
            nsys = load_timeline([str(p) for p in items])
        analysis = attach_timeline(analysis, nsys)
    return NotebookAnalysis.of(analysis)


def compare(
    base: Analysis | Sequence[Analysis],
    candidate: Analysis | Sequence[Analysis],
    noise: float = DEFAULT_NOISE,
    basis: str = "auto",
    allow_cross_gpu: bool = False,
    same_gpu: bool = False,
    pair_implementations: bool = True,
) -> NotebookComparison:
    """Match the kernel groups of two analyses and measure what changed.

    The engine's :func:`ncu_roofline.analysis.compare.compare` (which
    documents the arguments; ``ncu-roofline compare`` takes the same); the
    result also shows itself in a notebook.  A side given as several analyses
    is several trials (runs) of one program: medians, and each change's
    interval from their spread::

        base = [analyze(load(p)) for p in ("run1.csv", "run2.csv", "run3.csv")]
    """
    cmp = compare_analyses(
        base,
        candidate,
        noise=noise,
        basis=basis,
        allow_cross_gpu=allow_cross_gpu,
        same_gpu=same_gpu,
        pair_implementations=pair_implementations,
    )
    return NotebookComparison.of(cmp)


def report_html(
    data: Paths | Profile | Analysis,
    *,
    gpu: str | None = None,
    roofs: str | os.PathLike[str] | None = None,
    clocks: str = "measured",
    theory: TheoryConfig | None = None,
    merge: bool = False,
    plotly_js: str = "inline",
) -> str:
    """The HTML report page, as ``ncu-roofline report`` writes it for the same inputs.

    ``data`` is what to report on: export paths (read as the command reads
    them: each file once, ``merge`` joining passes of one run), a profile,
    or an analysis.  ``gpu``, ``roofs``, ``clocks`` and ``theory`` are the
    command's ``--gpu``, ``--roofs``, ``--clocks`` and theory options (a
    :class:`~ncu_roofline.theory.config.TheoryConfig`); they apply to what
    is analysed here, so they cannot come with an analysis.  ``plotly_js``
    is ``"inline"`` (the page works offline) or ``"cdn"``.  The page carries
    the time it was generated, as the command's does.
    """
    from ncu_roofline.render import RenderOptions, render_document
    from ncu_roofline.report.context import build_context

    if isinstance(data, Analysis):
        if gpu is not None or roofs is not None or theory is not None or clocks != "measured":
            raise UsageError(
                "gpu, roofs, clocks and theory apply when analysing: give them to analyze(), "
                "or give report_html() the profile or the paths"
            )
        analysis = data
    else:
        if isinstance(data, Profile):
            profile = data
        else:
            paths = [data] if isinstance(data, (str, os.PathLike)) else list(data)
            profile = read_exports(unique_inputs([str(p) for p in paths])[0], merge=merge)
        analysis = analyze_profile(profile, gpu=gpu, roofs=roofs, clocks=clocks, theory=theory)
    page = render_document(
        "report", "html", build_context(analysis), RenderOptions(plotly_js=plotly_js)
    )
    return page if isinstance(page, str) else page.decode("utf-8")
