"""What every renderer takes from a report in the same way: header fields, counts, problems."""

from __future__ import annotations

from compactcheck.render._stderr import stderr_parts
from compactcheck.report.model import (
    CALL_STATUSES,
    MIN_COMPACTED_PERCENT,
    VERDICTS,
    Counterexample,
    InvariantResult,
    Report,
    TargetReport,
)
from compactcheck.verdicts.causes import folded_into
from compactcheck.verdicts.levels import target_level_text


def where(target: TargetReport) -> str:
    """The view a target was judged on, with its wire format when that is not chat completions."""
    return view_label(target.view, target.format)


def view_label(view: str, format: str) -> str:
    """A view with its wire format when that is not chat completions ("messages, anthropic")."""
    if format and format != "openai-chat":
        return f"{view}, {format}"
    return view


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


def way_note(result: InvariantResult, example: Counterexample) -> str:
    """Which of a law's distinct ways a counterexample shows ("way 2 of 3 (dropped), 14 rounds;
    2 more ways seen, not kept"), or "" for a law that broke in one way."""
    kept = (result.counterexample, *result.other_ways)
    if len(kept) < 2 and result.ways < 2:
        return ""
    index = next((i for i, shown in enumerate(kept, start=1) if shown is example), 1)
    rounds = f", {plural(example.failed, 'round')}" if example.failed else ""
    beyond = result.ways - len(kept)
    more = f"; {plural(beyond, 'more way')} seen, not kept" if beyond > 0 else ""
    named = f" ({example.way})" if example.way else ""
    return f"way {index} of {max(result.ways, len(kept))}{named}{rounds}{more}"


def see_violations(first: int, result: InvariantResult) -> str:
    """The table's pointer to a result's violations: "see violation 3", "see violations 3-4"
    for a law broken in two ways."""
    more = len(result.other_ways)
    return f"see violations {first}-{first + more}" if more else f"see violation {first}"


def plural(count: int, noun: str) -> str:
    """ "1 round", "2 rounds"."""
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def problems(report: Report) -> list[TargetReport]:
    """Targets with target-level errors, or stderr that tells of a problem (see stderr_parts)."""
    return [target for target in report.targets if target.errors or stderr_parts(target)[1]]


def outputs(report: Report) -> list[TargetReport]:
    """Targets whose stderr holds what the compactor itself wrote (its prints, its logs)."""
    return [target for target in report.targets if stderr_parts(target)[0]]


# The verdicts that are nouns, counted in the plural; the others read as adjectives ("3 pass").
_NOUNS = ("review", "violation")


def verdict_count(count: int, verdict: str) -> str:
    """A number of one verdict: "1 violation", "5 violations", "3 pass", "2 skipped"."""
    plural = "s" if verdict in _NOUNS and count != 1 else ""
    return f"{count} {verdict}{plural}"


def counts_line(report: Report) -> str:
    """For example "3 pass, 1 violation", "2 pass, 5 violations" (verdicts that occur, in the
    model's order); "8 violations of 7 causes" where two laws found one cause, shown once;
    "6 violations (constraints_preserved broke in 2 ways, a witness each)"."""
    verdicts = report.verdicts()
    parts = [verdict_count(verdicts.count(v), v) for v in VERDICTS if v in verdicts]
    if "violation" not in verdicts:
        return ", ".join(parts) if parts else "no results"
    at = [v for v in VERDICTS if v in verdicts].index("violation")
    folded = len(folded_into(report))
    if folded:
        found = verdicts.count("violation") - folded
        parts[at] += f" of {found} cause{'s' if found != 1 else ''}"
    # A law broken in several ways has a witness for each: the entries below outnumber laws.
    several = [
        f"{result.invariant} broke in {1 + len(result.other_ways)} ways"
        for target in report.targets
        for result in target.results
        if result.verdict == "violation" and result.other_ways
    ]
    if several:
        parts[at] += f" ({', '.join(several)}, a witness each)"
    return ", ".join(parts)


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


def unconcluded(report: Report) -> list[tuple[TargetReport, InvariantResult]]:
    """Every (target, result) that ended neither in a pass nor in a violation."""
    return [
        (target, result)
        for target in report.targets
        for result in target.results
        if result.verdict in ("errored", "skipped", "unknown")
    ]
