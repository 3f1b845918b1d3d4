"""What every renderer takes from a report in the same way: header fields, violations, counts."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from compactcheck.invariants import dump_messages
from compactcheck.report.levels import target_level_text
from compactcheck.report.model import (
    CALL_STATUSES,
    MIN_COMPACTED_PERCENT,
    VERDICTS,
    Counterexample,
    Fidelity,
    InvariantResult,
    Report,
    Spread,
    TargetReport,
)
from compactcheck.report.render.conversation import reading

Violation = tuple[TargetReport, InvariantResult, Counterexample]


def where(target: TargetReport) -> str:
    """The view a target was judged on, with its wire format when that is not chat completions."""
    if target.format and target.format != "openai-chat":
        return f"{target.view}, {target.format}"
    return target.view


def header_fields(report: Report) -> list[tuple[str, str]]:
    """The run's identity, in the order every header shows it."""
    fields = [
        ("seed", str(report.seed)),
        ("profile", report.profile),
        ("toolkit", report.toolkit_version),
        ("max examples", str(report.max_examples)),
        ("rounds", str(report.rounds)),
        ("started", report.started_at),
    ]
    if report.malformed:
        fields.append(("malformed input", ", ".join(report.malformed)))
    exposed = sorted({t.target for t in report.targets if t.isolation == "in-process"})
    if exposed:
        fields.append(
            ("in-process", f"{', '.join(exposed)}: a crash or hang of the compactor ends the run")
        )
    if report.shards:
        missing = report.missing_shards()
        held = ", ".join(report.shards) + (f" (missing {', '.join(missing)})" if missing else "")
        fields.append(("shards", held))
    return fields


def violations(report: Report) -> list[tuple[int, Violation]]:
    """Violations that carry a counterexample, numbered from 1 in report order."""
    found = [
        (target, result, result.counterexample)
        for target in report.targets
        for result in target.results
        if result.verdict == "violation" and result.counterexample is not None
    ]
    return list(enumerate(found, start=1))


def problems(report: Report) -> list[TargetReport]:
    """Targets with target-level errors, or stderr that tells of a problem (see stderr_parts)."""
    return [target for target in report.targets if target.errors or stderr_parts(target)[1]]


def outputs(report: Report) -> list[TargetReport]:
    """Targets whose stderr holds what the compactor itself wrote (its prints, its logs)."""
    return [target for target in report.targets if stderr_parts(target)[0]]


# compactcheck's note of a restart in the stderr tail (subprocess_backend), a worker's own line
# (targets.isolated), and the first line of a Python crash report and of a traceback.
_NOTE = re.compile(r"^\[compactcheck: .*\]$")
_WORKER_LINE = "compactcheck worker: "
_FATAL = "Fatal Python error:"
_TRACEBACK = "Traceback (most recent call last):"
# A line of a faulthandler dump (a frame has no comma before "in", unlike a traceback's), which
# a stderr tail cut before its "Fatal Python error" line still shows.
_FAULT_LINE = re.compile(
    r'^(  File ".*", line \d+ in \S+|(Current thread|Thread) 0x[0-9a-f]+ .*|Extension modules: .*)$'
)
# How much of the stderr a report keeps (engine.results).
_TAIL = 4000
# The most lines after a traceback's frames that still read as its exception's message.
_EXCEPTION_LINES = 5


def stderr_parts(target: TargetReport) -> tuple[str, str]:
    """A target's stderr tail as what its compactor wrote, and what tells of a problem.

    A ``py:`` worker sends the compactor's prints (and native writes to its stdout) to stderr,
    and so does a harness its diagnostics: they are its output, not a problem. Problems are
    compactcheck's notes of a restart and the worker's own lines, and the tail of a crash: a
    Python fatal error (faulthandler) up to the restart, and a traceback the process ended on.
    """
    # Split at newlines only: other line breaks (CR, NEL) are shown escaped, as anywhere else.
    lines = target.stderr.split("\n")
    problem = [False] * len(lines)
    crashed_from: int | None = None
    for index, line in enumerate(lines):
        if line.startswith(_FATAL) and crashed_from is None:
            crashed_from = index
        if _NOTE.match(line):
            start = crashed_from if crashed_from is not None else _traceback_before(lines, index)
            for marked in range(start if start is not None else index, index + 1):
                problem[marked] = True
            crashed_from = None
        elif line.startswith(_WORKER_LINE) or _FAULT_LINE.match(line):
            problem[index] = True
    if len(target.stderr) >= _TAIL and len(lines) > 1:
        # The tail was cut: its first line is the end of one, of the kind of the line after it.
        problem[0] = problem[1]
    if crashed_from is not None:
        # It crashed on its last call: nothing restarted it yet.
        for marked in range(crashed_from, len(lines)):
            problem[marked] = True
    output = [line for line, marked in zip(lines, problem, strict=True) if not marked]
    shown = [line for line, marked in zip(lines, problem, strict=True) if marked]
    return "\n".join(output).strip("\n"), "\n".join(shown).strip("\n")


def _traceback_before(lines: list[str], note: int) -> int | None:
    """Where the traceback a process ended on starts, when one ends just before ``note``: its
    header, its indented frames, then at most a few lines of the exception."""
    for start in range(note - 1, -1, -1):
        if _NOTE.match(lines[start]):
            return None
        if lines[start].startswith(_TRACEBACK):
            after = start + 1
            while after < note and lines[after].startswith(" "):
                after += 1
            rest = [line for line in lines[after:note] if line.strip()]
            return start if len(rest) <= _EXCEPTION_LINES else None
    return None


def counts_line(report: Report) -> str:
    """For example "3 pass, 1 violation" (verdicts that occur, in the model's order)."""
    verdicts = report.verdicts()
    parts = [f"{verdicts.count(v)} {v}" for v in VERDICTS if v in verdicts]
    return ", ".join(parts) if parts else "no results"


def calls_line(target: TargetReport, max_examples: int | None = None) -> str | None:
    """What a target's calls came to, e.g. "calls: 180 compacted, 20 unchanged, 2 errored".

    With the run's ``max_examples``, also why it ran more histories than that, where it did.
    None for a report that recorded no calls (one written before reports counted them).
    """
    counted = [
        f"{target.calls[status]} {status}" for status in CALL_STATUSES if target.calls.get(status)
    ]
    if not counted:
        return None
    model = f"; {target.model_calls.counts()}" if target.model_calls is not None else ""
    where = f" (in a {target.isolation})" if target.isolation.endswith(" process") else ""
    failed = "; ".join(f"{count} x {kind}" for kind, count in target.failures.items())
    inferred = (
        f"; facts inferred from the history, not declared: {', '.join(target.inferred_facts)}"
        if target.inferred_facts
        else ""
    )
    what = "pairs" if target.isolation == "recorded" else "calls"
    level = target_level_text(target)
    waived = waived_text(target)
    declared = f"; waived by the target: {waived}" if waived else ""
    return (
        f"{what}{where}: {', '.join(counted)}"
        + (f"; failed calls: {failed}" if failed else "")
        + model
        + inferred
        + (f"; {level}" if level else "")
        + declared
        + explored_past(target, max_examples)
    )


def explored_past(target: TargetReport, max_examples: int | None) -> str:
    """Why a target ran more histories than --max-examples asked for ("" when it did not)."""
    ran = max((result.examples for result in target.results), default=0)
    if max_examples is None or ran <= max_examples:
        return ""
    return (
        f"; ran {ran} histories, past --max-examples {max_examples}: a run explores on while "
        f"the target compacts in under {MIN_COMPACTED_PERCENT} % of its calls or an applicable "
        "law was exercised fewer than --min-exercised times, up to --max-total-examples"
    )


def waived_text(target: TargetReport) -> str:
    """The laws a target waived with their reasons ("facts_preserved (a sliding window ...)")."""
    return "; ".join(f"{r.invariant} ({r.waived})" for r in target.results if r.waived is not None)


def input_problems_line(example: Counterexample) -> str | None:
    """The provider rules a witness's input breaks, or None when a provider accepts it."""
    if not example.input_problems:
        return None
    return (
        "input a provider would reject (from --malformed or the target's own earlier answer): "
        + ("; ".join(example.input_problems))
    )


def fix_lines(example: Counterexample) -> list[str]:
    """A witness's fix: a head line, then one line per repair; empty when it has none."""
    fix = example.fix
    if fix is None:
        return []
    sizes = f"{fix.size_answer} -> {fix.size_repaired} {fix.counter}, the input {fix.size_input}"
    if fix.lawful:
        head = f"{len(fix.changes)} repair(s) make this answer lawful ({sizes})"
        if fix.note:
            head += f"; but {fix.note}"
    else:
        head = f"no lawful repair: {fix.note}"
        if fix.changes:
            head += f" (after {len(fix.changes)} repair(s): {sizes})"
    return [
        head,
        *(
            f"{c.law}: {c.what} ({c.repair}; {c.size_before} -> {c.size_after})"
            for c in fix.changes
        ),
    ]


def unconcluded(report: Report) -> list[tuple[TargetReport, InvariantResult]]:
    """Every (target, result) that ended neither in a pass nor in a violation."""
    return [
        (target, result)
        for target in report.targets
        for result in target.results
        if result.verdict in ("errored", "skipped", "unknown")
    ]


_RETURNED_KEYS = ("messages", "input", "contents", "rawTail", "appended")
RETURNED_LINES = 12


def _one_line(item: object) -> str:
    """A message, item or event as one short line: its role or type, then its text."""
    if not isinstance(item, dict):
        return str(item)[:70]
    kind = item.get("role") or item.get("type") or "?"
    calls = item.get("tool_calls")
    if isinstance(calls, list) and calls:
        ids = ", ".join(str(c.get("id")) for c in calls if isinstance(c, dict))
        return f"{kind}: calls {ids}"
    if item.get("tool_call_id"):
        return f"{kind} for {item['tool_call_id']}: {_text(item.get('content'))}"
    for key in ("content", "parts", "text", "output", "payload"):
        if key in item:
            return f"{kind}: {_text(item[key])}"
    return str(kind)


def _text(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def history_count(example: Counterexample, target: TargetReport) -> int:
    """How many messages the failing round's input held, counted as its indexes are.

    In the messages view, the messages as the laws read them (a provider's system prompt is
    one, each tool result is one), so that "output index N" and the witness's "#N" agree with
    it; elsewhere the events or log records handed in.
    """
    if target.view == "messages":
        messages, _ = reading(example.input, target.format)
        if messages:
            return len(messages)
    return example.history_size


def history_text(example: Counterexample, target: TargetReport) -> str:
    """The failing round's input size as every renderer says it ("history of 6 messages")."""
    unit = " messages" if target.view == "messages" else ""
    return f"history of {history_count(example, target)}{unit}"


def returned_lines(example: Counterexample, target: TargetReport | None = None) -> list[str] | None:
    """What the compactor answered in the failing round, a line per message (None if unknown).

    In the messages view each line is numbered as the laws index the output ("output index N"),
    with the provider request's path beside it where the format has one ("3 (messages.2)").
    At most RETURNED_LINES lines: the first ones and the last, with how many are left out.
    """
    if target is not None and target.view == "messages":
        messages, paths = reading(example.output, target.format)
        if messages:
            return _cut(
                [
                    f"{index}{f' ({path})' if path else ''}: {_one_line(item)}"
                    for index, (item, path) in enumerate(
                        zip(dump_messages(messages), paths, strict=True)
                    )
                ]
            )
    output = example.output
    if isinstance(output, dict) and isinstance(output.get("request"), dict):
        output = output["request"]
    if not isinstance(output, dict):
        return None
    found = next((output[k] for k in _RETURNED_KEYS if isinstance(output.get(k), list)), None)
    listed: list[Any] | None = found if isinstance(found, list) else None
    if listed is None:
        return None
    return _cut([f"{index}: {_one_line(item)}" for index, item in enumerate(listed)])


def _cut(lines: list[str]) -> list[str]:
    if len(lines) > RETURNED_LINES:
        kept = RETURNED_LINES - 2
        lines = [*lines[:kept], f"... {len(lines) - kept - 1} more", lines[-1]]
    return lines


# The fidelity measures by kind, in report order, as every renderer names them.
FIDELITY_LABELS = {
    "must_keep": "must-keep facts kept",
    "constraints": "current constraints kept",
    "pending": "pending steps kept",
    "changed_files": "changed files kept",
    "reasserted": "superseded reasserted",
    "pruned": "result text pruned",
    "compression": "size out / size in",
}


def measure_text(kind: str, spread: Spread | None) -> str:
    """A measure's mean as a reader takes it in: a percentage, or a ratio for compression."""
    if spread is None:
        return "-"
    if kind == "compression":
        return f"{spread.mean:.2f}"
    return f"{spread.mean * 100:.0f}%"


def range_text(kind: str, spread: Spread) -> str:
    """A measure's lowest and highest value over the compactions, e.g. "0-100%"."""
    if kind == "compression":
        return f"{spread.low:.2f}-{spread.high:.2f}"
    return f"{spread.low * 100:.0f}-{spread.high * 100:.0f}%"


@dataclass(frozen=True)
class FidelityRow:
    """One measure of a target beside the reference's: mean, range, count, by round."""

    kind: str
    label: str
    mean: str
    range: str
    n: int
    sd: str
    reference: str
    by_round: list[str]


def fidelity_rows(target: TargetReport) -> list[FidelityRow]:
    """The rows of a target's fidelity table (empty when nothing was measured)."""
    fidelity = target.fidelity
    if fidelity is None:
        return []
    theirs = fidelity.reference.overall.measures if fidelity.reference is not None else {}
    rows: list[FidelityRow] = []
    for kind, label in FIDELITY_LABELS.items():
        spread = fidelity.target.overall.measures.get(kind)
        if spread is None:
            continue
        sd = f"{spread.sd:.2f}" if kind == "compression" else f"{spread.sd * 100:.0f}%"
        rows.append(
            FidelityRow(
                kind,
                label,
                measure_text(kind, spread),
                range_text(kind, spread),
                spread.n,
                sd,
                measure_text(kind, theirs.get(kind)) if fidelity.reference is not None else "",
                [measure_text(kind, r.measures.get(kind)) for r in fidelity.target.rounds],
            )
        )
    rows.extend(_ruling_rows(fidelity))
    return rows


def _ruling_rows(fidelity: Fidelity) -> list[FidelityRow]:
    """A row per ruling the goals and constraints got: how many, over the run and by round."""
    ours = fidelity.target.overall.rulings
    theirs = fidelity.reference.overall.rulings if fidelity.reference is not None else {}
    rows: list[FidelityRow] = []
    for ruling, count in ours.items():
        rows.append(
            FidelityRow(
                f"ruling:{ruling}",
                f"facts ruled {ruling}",
                str(count),
                "",
                count,
                "",
                str(theirs.get(ruling, 0)) if fidelity.reference is not None else "",
                [str(r.rulings.get(ruling, 0)) for r in fidelity.target.rounds],
            )
        )
    return rows


def fidelity_gaps(target: TargetReport) -> dict[str, str]:
    """Where the target keeps less than the reference on the same inputs, widest gap first.

    By kind, a line such as "changed files kept 58% (100%)": this target's mean, then the
    reference's.
    """
    fidelity = target.fidelity
    if fidelity is None or fidelity.reference is None:
        return {}
    ours, theirs = fidelity.target.overall.measures, fidelity.reference.overall.measures
    gaps: list[tuple[float, str, str]] = []
    for kind, label in FIDELITY_LABELS.items():
        if kind == "compression" or kind not in ours or kind not in theirs:
            continue
        gap = ours[kind].mean - theirs[kind].mean
        worse = gap > 0.005 if kind in ("reasserted", "pruned") else gap < -0.005
        if worse:
            gaps.append(
                (
                    -abs(gap),
                    kind,
                    f"{label} {measure_text(kind, ours[kind])} "
                    f"({measure_text(kind, theirs[kind])})",
                )
            )
    return {kind: text for _, kind, text in sorted(gaps)}
