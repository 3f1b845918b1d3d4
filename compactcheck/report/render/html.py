"""The report as one self-contained HTML page: no scripts, no external resources, inline CSS."""

from __future__ import annotations

from html import escape

from compactcheck.report.compare import summary
from compactcheck.report.model import Report
from compactcheck.report.render._digest import (
    calls_line,
    counts_line,
    header_fields,
    input_problems_line,
    problems,
    unconcluded,
    violations,
    where,
)
from compactcheck.report.untrusted import block, json_block, safe_line

# The policy forbids every script, frame, form target, font and remote fetch: even if some text
# escaped the escaping below, the browser would refuse to run or load it.
_CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

_STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2rem auto; max-width: 72rem; color: #1d2430;
       padding: 0 1rem; }
h1 { margin-bottom: .3rem; }
.meta span { margin-right: 1.2rem; } .meta b { color: #5a6472; font-weight: 500; }
.incomplete { background: #fff4d6; border-left: 4px solid #d9a400; padding: .5rem .8rem; }
table { border-collapse: collapse; margin: 1rem 0; }
th, td { border: 1px solid #d5dae1; padding: .3rem .6rem; text-align: left; vertical-align: top; }
th { background: #f3f5f8; }
td.pass { background: #e4f6e8; } td.violation { background: #fde2e1; font-weight: 600; }
td.waived { background: #e3ecfb; color: #23407a; }
td.errored { background: #f5e3fb; } td.skipped, td.unknown { background: #fff4d6; }
td.none { color: #9aa3ad; }
article { border: 1px solid #f0b4b0; border-radius: 6px; padding: .2rem 1rem 1rem; margin: 1rem 0; }
article.problem { border-color: #d9b3e6; }
pre { background: #f6f8fa; padding: .7rem; overflow-x: auto; white-space: pre-wrap;
      word-break: break-all; max-height: 40rem; }
.dim { color: #5a6472; }
"""


def _e(value: str, limit: int = 500) -> str:
    # quote=True escapes both quote characters, so the same call is safe inside attributes.
    return escape(safe_line(value, limit), quote=True)


def _pre(value: str) -> str:
    return f"<pre>{escape(value, quote=True)}</pre>"


def _where(invariant: str, target: str, view: str) -> str:
    return f"{_e(invariant, 120)} on {_e(target, 200)} [{_e(view, 40)}]"


def render_html(report: Report) -> str:
    """The report as a complete HTML document."""
    out: list[str] = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="referrer" content="no-referrer">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>compactcheck report · seed {report.seed}</title>",
        f"<style>{_STYLE}</style>",
        "</head>",
        "<body>",
        "<header>",
        "<h1>compactcheck report</h1>",
        '<p class="meta">'
        + "".join(
            f"<span><b>{_e(name)}</b> {_e(value)}</span>" for name, value in header_fields(report)
        )
        + "</p>",
    ]
    if not report.complete:
        out.append(
            '<p class="incomplete"><strong>Incomplete:</strong> '
            "the run was interrupted; the results are partial.</p>"
        )
    out.append("</header>")

    numbered = violations(report)
    links = {(t.target, t.view, r.invariant): n for n, (t, r, _) in numbered}
    table = summary([report])
    out += ["<main>", "<section>", "<h2>Results</h2>", "<table>", "<thead><tr><th>invariant</th>"]
    out += [f"<th>{_e(target, 120)} [{_e(view, 40)}]</th>" for target, view in table.rows]
    out += ["</tr></thead>", "<tbody>"]
    for invariant in table.invariants:
        out.append(f"<tr><th>{_e(invariant, 120)}</th>")
        for row in table.rows:
            cell = table.cell(row, invariant)
            if cell is None:
                out.append('<td class="none">—</td>')
                continue
            result = cell.result
            # Verdicts are a closed set of words, safe as class names; the tooltip is escaped.
            title = _e(f"{result.examples} examples, {result.exercised} exercised")
            number = links.get((row[0], row[1], invariant))
            label: str = result.verdict
            if number is not None:
                label = f'<a href="#violation-{number}">violation {number}</a>'
            elif result.because:
                title = _e(result.because)
            out.append(f'<td class="{result.verdict}" title="{title}">{label}</td>')
        out.append("</tr>")
    out += ["</tbody>", "</table>", f"<p>{_e(counts_line(report))}</p>"]
    counted = [(target, calls_line(target)) for target in report.targets]
    out += [
        f'<p class="dim">{_e(target.target, 200)} [{_e(where(target), 60)}] {_e(calls)}</p>'
        for target, calls in counted
        if calls
    ]
    out.append("</section>")

    if numbered:
        out += ["<section>", "<h2>Violations</h2>"]
    for number, (target, result, example) in numbered:
        out += [
            f'<article id="violation-{number}">',
            f"<h3>{number}. {_where(result.invariant, target.target, where(target))}</h3>",
            f"<p><strong>Because:</strong> {_e(example.because, 2000)}</p>",
            f'<p class="dim">round {example.round} · history of {example.history_size} · '
            f"reproduced: {example.reproduced} · {result.examples} examples, "
            f"{result.exercised} exercised</p>",
            f"<p><strong>Minimal witness</strong> ({len(example.witness)} item(s)):</p>",
            _pre(json_block(example.witness)),
        ]
        if example.diff:
            out += ["<p><strong>Diff:</strong></p>", _pre(json_block(example.diff))]
        rejected = input_problems_line(example)
        if rejected:
            out.append(f"<p><strong>Input:</strong> {_e(rejected, 2000)}</p>")
        out += [
            "<details><summary>Input handed to the backend</summary>",
            _pre(json_block(example.input)),
            "</details>",
            "<details><summary>What the backend answered</summary>",
            _pre(json_block(example.output)),
            "</details>",
        ]
        if example.corpus_file:
            out.append(f"<p><strong>Corpus file:</strong> {_e(example.corpus_file)}</p>")
        out.append("</article>")
    if numbered:
        out.append("</section>")

    others = unconcluded(report)
    if others:
        out += ["<section>", "<h2>Not concluded</h2>", "<ul>"]
        for target, result in others:
            reason = _e(result.because, 1000) if result.because else "no reason given"
            place = _where(result.invariant, target.target, where(target))
            out.append(f"<li><strong>{result.verdict}</strong>: {place}: {reason}</li>")
        out += ["</ul>", "</section>"]

    for target in problems(report):
        out += [
            '<section><article class="problem">',
            f"<h2>Target problems: {_e(target.target, 200)} [{_e(where(target), 60)}]</h2>",
        ]
        out += [f"<p>{_e(error, 1000)}</p>" for error in target.errors]
        if target.stderr:
            out += [
                "<p><strong>stderr (tail):</strong></p>",
                _pre(block(target.stderr.rstrip(), 4000)),
            ]
        out.append("</article></section>")
    out += ["</main>", "</body>", "</html>", ""]
    return "\n".join(out)
