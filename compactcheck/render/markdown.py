"""The report as Markdown for pull-request comments: a matrix, then one section per violation."""

from __future__ import annotations

import re

from compactcheck.render._digest import (
    calls_line,
    counts_line,
    header_fields,
    outputs,
    problems,
    unconcluded,
    verdict_count,
    way_note,
    where,
)
from compactcheck.render._stderr import stderr_parts
from compactcheck.render.fidelity_rows import fidelity_gaps, fidelity_rows
from compactcheck.render.points import markdown_points
from compactcheck.render.review import REVIEW_NOTE, item_lines, review_count, reviews
from compactcheck.render.violation import (
    fix_lines,
    history_text,
    input_problems_line,
    same_cause_parts,
)
from compactcheck.report.compare import Summary, summary
from compactcheck.report.model import Report, Verdict
from compactcheck.report.untrusted import block, json_block, safe_line
from compactcheck.verdicts.causes import cause_links, causes

VERDICT_MARKS: dict[Verdict, str] = {
    "pass": "✅ pass",
    "violation": "❌ violation",
    "errored": "💥 errored",
    "skipped": "⏭️ skipped",
    "unknown": "❔ unknown",
    "waived": "🔷 waived",
    "review": "🔎 review",
}

# Every ASCII punctuation character that can start inline syntax in CommonMark or GitHub's
# extensions: emphasis, code, links and images, raw HTML, entities, table pipes, strikethrough,
# autolinks (":" and "." and "@") and math ("$"). CommonMark guarantees that a backslash before
# any ASCII punctuation shows it literally. Block syntax ("-", "+", "1.") needs nothing: text()
# is one line and never starts one.
_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#!|~&:@$.])")


def text(value: str, limit: int = 500) -> str:
    """Untrusted text as inert Markdown on one line (safe in a paragraph or a table cell)."""
    return _SPECIAL.sub(r"\\\1", safe_line(value, limit))


def fence(body: str, info: str = "") -> str:
    """A fenced code block that the body cannot close: longer than its longest backtick run."""
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}{info}\n{body}\n{marks}"


def matrix(table: Summary, links: dict[tuple[str, str, str], int] | None = None) -> str:
    """A Markdown table: one row per invariant, one column per target and view."""
    links = links or {}
    head = ["invariant", *(f"{text(t, 120)} \\[{text(v, 40)}\\]" for t, v in table.rows)]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for invariant in table.invariants:
        cells = [text(invariant, 120)]
        for row in table.rows:
            cell = table.cell(row, invariant)
            if cell is None:
                cells.append("—")
                continue
            mark = VERDICT_MARKS[cell.result.verdict]
            number = links.get((row[0], row[1], invariant))
            cells.append(mark if number is None else f"{mark} (V{number})")
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def render_summary_markdown(table: Summary) -> str:
    """The target x invariant matrix of several reports as a Markdown document."""
    counts = table.counts()
    line = ", ".join(verdict_count(counts[v], v) for v in counts if counts[v]) or "no results"
    return f"# compactcheck summary\n\n{matrix(table)}\n\n{line}\n"


def fidelity_section(report: Report, heading: str = "##") -> list[str]:
    """Each target's fidelity table, beside the reference's on the same inputs."""
    out: list[str] = []
    for target in report.targets:
        rows = fidelity_rows(target)
        fidelity = target.fidelity
        if not rows or fidelity is None:
            continue
        if not out:
            out += [f"{heading} Fidelity", ""]
        with_reference = fidelity.reference is not None
        head = ["measure", "mean", "range", "sd", "n"]
        head += ["reference"] if with_reference else []
        head += [f"round {r.round}" for r in fidelity.target.rounds]
        out += [
            f"**{text(target.target, 200)}** \\[{text(where(target), 60)}\\]",
            "",
            "| " + " | ".join(head) + " |",
            "|---|" + "---:|" * (len(head) - 1),
        ]
        for row in rows:
            cells = [row.label, row.mean, row.range, row.sd, str(row.n)]
            cells += [row.reference] if with_reference else []
            out.append("| " + " | ".join([*cells, *row.by_round]) + " |")
        out += [
            "",
            f"Sizes in {text(fidelity.counter)}; n counts the compactions whose input held such "
            f"facts. Reference: {text(fidelity.reference_note, 600)}.",
            "",
        ]
        gaps = fidelity_gaps(target)
        if gaps:
            out += [
                "Worse than the reference: " + "; ".join(text(g) for g in gaps.values()) + ".",
                "",
            ]
    return out


def render_markdown(report: Report) -> str:
    """The report as a Markdown document."""
    out = ["# compactcheck report", ""]
    out.append(" · ".join(f"**{name}** {text(value)}" for name, value in header_fields(report)))
    out.append("")
    if not report.complete:
        out += ["> **Incomplete:** the run was interrupted; the results are partial.", ""]
    numbered = causes(report)
    links = cause_links(numbered)
    out += ["## Results", "", matrix(summary([report]), links), "", counts_line(report), ""]
    counted = [(target, calls_line(target, report.max_examples)) for target in report.targets]
    out += [
        f"- {text(target.target, 200)} \\[{text(where(target), 60)}\\] {calls}"
        for target, calls in counted
        if calls
    ]
    if any(calls for _, calls in counted):
        out.append("")

    out += fidelity_section(report)
    out += markdown_points(report, text)
    listed = reviews(report)
    if listed:
        out += ["## For review", "", text(REVIEW_NOTE, 1000), ""]
    for number, (target, result) in listed:
        out += [
            f"### R{number}: {text(result.invariant, 120)} on {text(target.target, 200)} "
            f"\\[{text(where(target), 60)}\\]",
            "",
            f"{text(review_count(result), 200)}:",
            "",
        ]
        for item in result.review:
            head, *rest = item_lines(item)
            out.append(f"- {text(head, 1000)}")
            out += [f"  {text(line.strip(), 1000)}" for line in rest]
        out.append("")
    if numbered:
        out += ["## Violations", ""]
    for cause in numbered:
        target, result, example = cause.target, cause.result, cause.example
        out += [
            f"### V{cause.number}: {text(' and '.join(cause.laws), 240)} on "
            f"{text(target.target, 200)} \\[{text(where(target), 60)}\\]"
            + (f" ({way})" if (way := way_note(result, example)) else ""),
            "",
            f"**Because:** {text(example.because, 2000)}",
            "",
        ]
        for part in same_cause_parts(cause.also):
            out += [f"**{text(part.label.strip(), 200)}** {text(part.text, 2000)}", ""]
        out += [
            f"Round {example.round} · {history_text(example, target)} · "
            f"reproduced: {example.reproduced} · examples {result.examples} · "
            f"exercised {result.exercised}",
            "",
            f"**Minimal witness** ({len(example.witness)} item(s)):",
            "",
            fence(json_block(example.witness), "json"),
            "",
        ]
        if example.diff:
            out += ["**Diff:**", "", fence(json_block(example.diff), "json"), ""]
        rejected = input_problems_line(example)
        if rejected:
            out += [f"**Input:** {text(rejected, 2000)}", ""]
        fix = fix_lines(example)
        if fix:
            out += [f"**Fix:** {text(fix[0], 2000)}", ""]
            out += [*(f"- {text(line, 2000)}" for line in fix[1:]), *([""] if fix[1:] else [])]
        if example.corpus_file:
            out += [f"**Corpus file:** {text(example.corpus_file)}", ""]

    others = unconcluded(report)
    if others:
        out += ["## Not concluded", ""]
        for target, result in others:
            reason = text(result.because, 1000) if result.because else "no reason given"
            out.append(
                f"- {VERDICT_MARKS[result.verdict]}: {text(result.invariant, 120)} on "
                f"{text(target.target, 200)} \\[{text(where(target), 60)}\\]: {reason}"
            )
        out.append("")

    for target in outputs(report):
        out += [
            f"## Output of {text(target.target, 200)} \\[{text(where(target), 60)}\\]",
            "",
            "what it printed (stderr tail):",
            "",
            fence(block(stderr_parts(target)[0], 4000), "text"),
            "",
        ]

    for target in problems(report):
        out += [
            f"## Target problems: {text(target.target, 200)} \\[{text(where(target), 60)}\\]",
            "",
        ]
        out += [f"- {text(error, 1000)}" for error in target.errors]
        if target.errors:
            out.append("")
        trouble = stderr_parts(target)[1]
        if trouble:
            out += ["stderr (tail):", "", fence(block(trouble, 4000), "text"), ""]
    return "\n".join(out)
