"""The JUnit XML report: one test case per kernel group, for CI dashboards.

Each kernel group (one kernel name with one grid and block) is a test case;
tripped CI gates become ``<failure>`` elements of the test case of the kernel
they name, and gates about the whole profile (``kernel`` is ``None``), or
about a kernel the profile does not hold, fail one extra test case named
``profile``.  Kernel groups that could not be placed on the roofline are
skipped, unless a gate failed them.

The document is built with :mod:`lxml.etree`, which escapes every string.
A control or bidirectional character is shown as its escape (``\\x1b``,
``\\u202e``: :func:`~ncu_roofline.render.safe_text.safe_text`), as on every
page; what XML 1.0 cannot hold at all besides (lone surrogates, U+FFFE and
U+FFFF) is removed, since lxml refuses it.
"""

from __future__ import annotations

import importlib
import math
import re
from collections import defaultdict
from typing import Any, TypedDict

from ncu_roofline.render.compare_text import change_text, context_lines
from ncu_roofline.render.format import TEXT, file_name, plural
from ncu_roofline.render.safe_text import safe_text
from ncu_roofline.report.schema import (
    ComparisonContext,
    GateRecord,
    KernelRecord,
    ReportContext,
    tripped_gates,
)
from ncu_roofline.version import NAME

# lxml ships no type information and the project's mypy settings do not
# exempt it; imported by name, it is simply untyped here.
etree: Any = importlib.import_module("lxml.etree")

#: Name of the extra test case that carries gates about the whole profile.
PROFILE_CASE = "profile"

# Everything outside XML 1.0's Char production.
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


class JunitCase(TypedDict):
    """What a test case shows of a kernel group (a report's, or a comparison's candidate side)."""

    source: str | None
    kernel: str | None
    kernel_short: str | None
    grid: str | None
    block: str | None
    total_duration_s: float | None
    launches: int | None
    efficiency: float | None
    bound: str | None
    bound_reason: str | None
    recoverable_s: float | None
    recoverable_basis: str | None
    byte_excess: float | None


class JunitSuite(TypedDict):
    """A suite: its test cases, the lines said before any result, its time and tripped gates."""

    cases: list[JunitCase]
    header: list[str]
    total_duration_s: float | None
    gates: list[GateRecord] | None


def xml_text(value: Any) -> str:
    """A string XML 1.0 can hold, safe to show: controls escaped, what XML forbids dropped."""
    return _NOT_XML.sub("", safe_text(value, lines=True))


def _seconds(value: Any) -> str:
    """A JUnit ``time`` attribute: decimal seconds, no exponent."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "0"
    text = f"{float(value):.9f}".rstrip("0").rstrip(".")
    return text or "0"


def _stem(path: Any) -> str:
    """The file name of an input without its last suffix, whichever separator it uses."""
    name = file_name(path, missing="")
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    return stem or "unknown"


#: Said once, in the suite's output, when no kernel group has a launch shape.
LAUNCH_SHAPE_MISSING = "launch shape not exported"


def _case_name(k: JunitCase) -> str:
    short = k.get("kernel_short") or k.get("kernel") or "unnamed kernel"
    if not k.get("grid") and not k.get("block"):
        return str(short)
    return f"{short} grid {k.get('grid') or '?'} block {k.get('block') or '?'}"


def _system_out(k: JunitCase) -> str:
    bound = k.get("bound") or "n/a"
    reason = k.get("bound_reason")
    lines = [
        f"bound: {bound}" + (f" ({reason})" if reason else ""),
        f"efficiency: {TEXT.pct(k.get('efficiency'))} of its roof",
    ]
    if k.get("recoverable_s") is not None or k.get("recoverable_basis"):
        lines.append(
            f"recoverable: {TEXT.recoverable(k.get('recoverable_s'))} of "
            f"{TEXT.duration(k.get('total_duration_s'))} over {plural(int(k.get('launches') or 0), 'launch', 'launches')}"
            + (f" ({k['recoverable_basis']})" if k.get("recoverable_basis") else "")
        )
    if k.get("byte_excess") is not None:
        lines.append(f"bytes over theory minimum: {TEXT.ratio(k['byte_excess'], mark='x')}")
    lines.append(f"kernel: {k.get('kernel') or ''}")
    return "\n".join(lines) + "\n"


def _failure(case: Any, gate: GateRecord, prefix: str = "") -> None:
    message = prefix + str(gate.get("message") or "")
    failure = etree.SubElement(
        case,
        "failure",
        message=xml_text(message),
        type=xml_text(gate.get("rule") or "gate"),
    )
    failure.text = xml_text(message)


def _case(k: KernelRecord) -> JunitCase:
    return {
        "source": k.get("source"),
        "kernel": k.get("kernel"),
        "kernel_short": k.get("kernel_short"),
        "grid": k.get("grid"),
        "block": k.get("block"),
        "total_duration_s": k.get("total_duration_s"),
        "launches": k.get("launches"),
        "efficiency": k.get("efficiency"),
        "bound": k.get("bound"),
        "bound_reason": k.get("bound_reason"),
        "recoverable_s": k.get("recoverable_s"),
        "recoverable_basis": k.get("recoverable_basis"),
        "byte_excess": k.get("byte_excess"),
    }


def report_suite(context: ReportContext) -> JunitSuite:
    """A report's kernel groups as test cases, failed by the context's tripped gates."""
    return {
        "cases": [_case(k) for k in context.get("kernels") or []],
        "header": [],
        "total_duration_s": (context.get("summary") or {}).get("total_duration_s"),
        "gates": tripped_gates(context),
    }


def render_junit(context: ReportContext, *, suite_name: str = NAME) -> bytes:
    """Render a report context as JUnit XML (UTF-8 bytes with an XML declaration).

    The tripped gates of the context's ``gates`` record fail the test cases
    of the kernels they name.
    """
    return render_suite(report_suite(context), suite_name=suite_name)


def render_suite(suite_data: JunitSuite, *, suite_name: str = NAME) -> bytes:
    """Render a suite as JUnit XML (UTF-8 bytes with an XML declaration).

    The suite's ``failures`` counts failed test cases (one test case may
    carry several ``<failure>`` elements, one per gate).
    """
    gates = suite_data["gates"]
    kernels = suite_data["cases"]
    header = list(suite_data["header"])
    if kernels and not any(k.get("grid") or k.get("block") for k in kernels):
        header.append(LAUNCH_SHAPE_MISSING)
    known = {str(k.get("kernel")) for k in kernels}
    by_kernel: dict[str, list[GateRecord]] = defaultdict(list)
    profile_gates: list[tuple[GateRecord, str]] = []
    for gate in gates or []:
        target = gate.get("kernel")
        if target is None:
            profile_gates.append((gate, ""))
        elif str(target) in known:
            by_kernel[str(target)].append(gate)
        else:
            profile_gates.append((gate, f"kernel not in the profile: {target}: "))

    root = etree.Element("testsuites", name=xml_text(suite_name))
    suite = etree.SubElement(root, "testsuite", name=xml_text(suite_name))
    if header:
        # First in the suite: what differs besides the code, before any result.
        props = etree.SubElement(suite, "properties")
        for i, line in enumerate(header):
            etree.SubElement(props, "property", name=f"context.{i + 1}", value=xml_text(line))
    failed = skipped = 0
    for k in kernels:
        case = etree.SubElement(
            suite,
            "testcase",
            classname=xml_text(f"{NAME}.{_stem(k.get('source'))}"),
            name=xml_text(_case_name(k)),
            time=_seconds(k.get("total_duration_s")),
        )
        # A gate that names the launch configuration fails only that group.
        own = [
            g
            for g in by_kernel.get(str(k.get("kernel")), [])
            if g.get("grid") is None
            or (g.get("grid") == k.get("grid") and g.get("block") == k.get("block"))
        ]
        for gate in own:
            _failure(case, gate)
        if own:
            failed += 1
        elif k.get("bound") == "not placeable":
            etree.SubElement(
                case,
                "skipped",
                message=xml_text(k.get("bound_reason") or "not placeable on the roofline"),
            )
            skipped += 1
        out = etree.SubElement(case, "system-out")
        out.text = xml_text(_system_out(k))
    if profile_gates:
        case = etree.SubElement(suite, "testcase", classname=NAME, name=PROFILE_CASE, time="0")
        for gate, prefix in profile_gates:
            _failure(case, gate, prefix)
        failed += 1

    if header:
        # What the reader must know before any test result (comparison context).
        etree.SubElement(suite, "system-out").text = xml_text("\n".join(header) + "\n")
    total = suite_data["total_duration_s"]
    suite.set("tests", str(len(kernels) + (1 if profile_gates else 0)))
    suite.set("failures", str(failed))
    suite.set("errors", "0")
    suite.set("skipped", str(skipped))
    suite.set("time", _seconds(total))
    for key in ("tests", "failures", "errors", "skipped", "time"):
        root.set(key, suite.get(key) or "0")
    result: bytes = etree.tostring(root, pretty_print=True, xml_declaration=True, encoding="UTF-8")
    return result


def comparison_suite(cmp: ComparisonContext, candidate: ReportContext) -> JunitSuite:
    """The comparison's groups (merged over inputs) as test cases, failed by its tripped gates.

    ``cmp`` is :func:`~ncu_roofline.report.compare.comparison_context`, ``candidate`` the candidate's report
    context; removed groups have no test case, and each case's reason names
    its status and kernel-time change.  The comparison's context comes first.
    """
    kernels: list[JunitCase] = []
    for r in cmp["kernels"]:
        if r.get("status") == "removed":
            continue
        kernels.append(
            {
                "kernel": r.get("kernel"),
                "kernel_short": r.get("kernel_short"),
                "grid": r.get("candidate_grid"),
                "block": r.get("candidate_block"),
                "total_duration_s": r.get("candidate_total_duration_s"),
                "launches": r.get("candidate_launches"),
                "efficiency": r.get("candidate_efficiency"),
                "bound": r.get("candidate_bound"),
                "bound_reason": f"{r.get('status')}: {change_text(r)}",
                "source": r.get("candidate_source"),
                "recoverable_s": None,
                "recoverable_basis": None,
                "byte_excess": None,
            }
        )
    return {
        "cases": kernels,
        "header": context_lines(cmp),
        "total_duration_s": candidate["summary"]["total_duration_s"],
        "gates": tripped_gates(cmp),
    }
