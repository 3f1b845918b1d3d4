"""The report as JUnit XML: a testsuite per target and view, a testcase per invariant."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from compactcheck.render._digest import calls_line, header_fields, where
from compactcheck.render.points import junit_points
from compactcheck.render.review import review_lines
from compactcheck.render.violation import history_text, input_problems_line, same_cause_parts
from compactcheck.report.model import InvariantResult, Report, TargetReport
from compactcheck.report.untrusted import block, json_block, safe_line
from compactcheck.verdicts.causes import Cause, causes

# ElementTree escapes &, <, > and quotes (so "]]>" cannot end anything), but happily writes
# characters XML 1.0 forbids; clean() has already turned every one of those into a visible escape.


def _properties(parent: ET.Element, items: list[tuple[str, str]]) -> None:
    properties = ET.SubElement(parent, "properties")
    for name, value in items:
        ET.SubElement(properties, "property", name=name, value=safe_line(value))


def _failure_text(result: InvariantResult, target: TargetReport, cause: Cause | None) -> str:
    example = result.counterexample
    if example is None:
        return safe_line(result.because or "violation without a counterexample", 2000)
    if cause is not None and cause.result is not result:
        # Folded into another law's cause: its witness is told there, once.
        return (
            f"because: {safe_line(example.because, 2000)}\n"
            f"the same cause as {safe_line(cause.result.invariant, 200)} (violation "
            f"{cause.number}): its witness and corpus file are in that testcase"
        )
    others = same_cause_parts(cause.also) if cause is not None else []
    parts = [
        f"because: {safe_line(example.because, 2000)}",
        *(f"{part.label}{part.text}" for part in others),
        f"round {example.round}, {history_text(example, target)}, reproduced: {example.reproduced}",
        "witness:",
        json_block(example.witness),
    ]
    if example.diff:
        parts += ["diff:", json_block(example.diff)]
    rejected = input_problems_line(example)
    if rejected:
        parts.append(safe_line(rejected, 2000))
    if example.corpus_file:
        parts.append(f"corpus file: {safe_line(example.corpus_file)}")
    return "\n".join(parts)


def _testcase(
    suite: ET.Element,
    target: TargetReport,
    result: InvariantResult,
    strict_review: bool,
    cause: Cause | None,
) -> None:
    case = ET.SubElement(
        suite,
        "testcase",
        name=safe_line(result.invariant, 200),
        classname=f"{safe_line(target.target, 200)} [{safe_line(where(target), 60)}]",
    )
    _properties(
        case,
        [
            ("verdict", result.verdict),
            ("examples", str(result.examples)),
            ("exercised", str(result.exercised)),
            ("compactions", str(result.compactions)),
        ],
    )
    because = safe_line(result.because or "", 1000)
    if result.verdict == "violation":
        example = result.counterexample
        message = safe_line(example.because, 1000) if example is not None else because
        if cause is not None and len(cause.laws) > 1:
            message += f" (violation {cause.number}: {safe_line(' and '.join(cause.laws), 240)})"
        failure = ET.SubElement(case, "failure", message=message, type="violation")
        failure.text = _failure_text(result, target, cause)
    elif result.verdict == "errored":
        error = ET.SubElement(case, "error", message=because or "the backend errored")
        error.set("type", "errored")
        error.text = "\n".join(
            [because, *(safe_line(line, 1000) for line in target.errors)]
        ).strip()
    elif result.verdict == "review" and strict_review:
        # --strict-review: an item for review fails its law (compactcheck.verdicts).
        failure = ET.SubElement(case, "failure", message=because, type="review")
        failure.text = "\n".join(review_lines(result))
    elif result.verdict in ("skipped", "unknown", "waived"):
        reason = because or "no reason given"
        ET.SubElement(case, "skipped", message=f"{result.verdict}: {reason}")
    if result.review and not (result.verdict == "review" and strict_review):
        # Held, with items a reader must see: listed beside the passing test.
        ET.SubElement(case, "system-out").text = "\n".join(review_lines(result))


def render_junit(report: Report) -> str:
    """The report as a JUnit XML document (UTF-8, with its declaration)."""
    root = ET.Element("testsuites", name="compactcheck")
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    # Each law stays a test of its own; one that found another law's cause says so and points
    # there rather than telling the witness again.
    cause_of = {id(r): cause for cause in causes(report) for r in (cause.result, *cause.also)}
    for target in report.targets:
        verdicts = [result.verdict for result in target.results]
        numbers = {
            "tests": len(verdicts),
            "failures": verdicts.count("violation")
            + (verdicts.count("review") if report.strict_review else 0),
            "errors": verdicts.count("errored"),
            "skipped": verdicts.count("skipped") + verdicts.count("unknown"),
        }
        suite = ET.SubElement(
            root,
            "testsuite",
            name=f"{safe_line(target.target, 200)} [{safe_line(where(target), 60)}]",
            timestamp=safe_line(report.started_at, 60),
            time=f"{target.seconds:.3f}",
        )
        for name, value in numbers.items():
            suite.set(name, str(value))
        fields = [*header_fields(report), ("complete", str(report.complete).lower())]
        calls = calls_line(target, report.max_examples)
        if calls:
            fields.append(("calls", calls.removeprefix("calls: ")))
        if target.implementation is not None:
            implementation = target.implementation
            fields.append(("implementation", f"{implementation.name} {implementation.version}"))
        _properties(suite, fields)
        for result in target.results:
            _testcase(suite, target, result, report.strict_review, cause_of.get(id(result)))
        if target.stderr:
            ET.SubElement(suite, "system-err").text = block(target.stderr, 4000)
        for name in totals:
            totals[name] += numbers[name]
    junit_points(report, root)
    for name, value in totals.items():
        root.set(name, str(value))
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return f'<?xml version="1.0" encoding="UTF-8"?>\n{body}\n'
