"""One judged pair at a terminal (`compactcheck check`): the facts it inferred, what the output
did to each fact, each law's verdict, and the count of violations."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from compactcheck.observed.judging import Judgement
from compactcheck.report import untrusted
from compactcheck.verdicts import pair_verdict

# How a ruling is coloured: faithful ones green, those a law fails on red, weakened yellow.
_COLOURS = {
    "kept": "green",
    "reworded": "green",
    "retired": "green",
    "weakened": "yellow",
}


def print_judgement(judgement: Judgement, view: str, console: Console) -> None:
    """The judgement of one pair on ``view``, as `compactcheck check` prints it."""
    where = f"{view}" + (f", {judgement.format}" if judgement.format else "")
    console.print(escape(f"compactcheck check [{where}]"), highlight=False)
    if judgement.inferred:
        console.print(
            f"facts inferred from BEFORE, not declared: {_counted(judgement)}",
            style="dim",
            highlight=False,
        )
    for read in judgement.inferences:
        if read.field == "must_keep":
            continue
        sure = "" if read.certainty == "certain" else ", unsure"
        said = untrusted.safe_line(f"{read.field.rstrip('s')} {read.text!r} ({read.source}{sure})")
        console.print(f"  [dim]inferred[/dim] {escape(said)}", highlight=False)
    if judgement.rulings:
        console.print("rulings (what AFTER did to each fact of BEFORE):", highlight=False)
    for made in judgement.rulings:
        colour = _COLOURS.get(made.ruling, "yellow")
        said = f": {made.sentence!r}" if made.sentence and made.ruling != "kept" else ""
        kind = "new claim" if made.kind == "invented" else made.kind
        # An unsure ruling says so, and why: no law fails on it.
        unsure = f" (unsure: {made.reason})" if not made.certain else ""
        line = untrusted.safe_line(f"{kind} {made.fact!r}{said}{unsure}")
        console.print(
            f"  [{colour}]{made.ruling:<12}[/{colour}] {escape(line)}",
            highlight=False,
        )
    for finding in judgement.findings:
        verdict = pair_verdict(finding)
        if verdict == "violation":
            for violation in finding.violations:
                because = untrusted.safe_line(violation.because)
                console.print(
                    f"[red]violation[/red] {finding.invariant}: {escape(because)}",
                    highlight=False,
                )
        elif verdict == "pass":
            console.print(f"[green]pass[/green] {finding.invariant}", highlight=False)
        elif verdict == "review":
            count = len(finding.review)
            console.print(
                f"[yellow]review[/yellow] {finding.invariant}: held wherever it could be judged; "
                f"{count} item{'s' if count != 1 else ''} for a reader",
                highlight=False,
            )
        else:
            console.print(
                f"[dim]not exercised {finding.invariant} (this pair could not break it)[/dim]",
                highlight=False,
            )
        for item in finding.review:
            # What the reading could not settle, never a pass in silence.
            said = untrusted.safe_line(
                f"{item.kind} {item.fact!r}, leaning {item.leans}: {item.reason}"
            )
            console.print(f"  [yellow]for review[/yellow] {escape(said)}", highlight=False)
    broken = len(judgement.violations)
    exercised = sum(1 for f in judgement.findings if f.exercised)
    reviewed = sum(1 for f in judgement.findings if f.review and not f.violations)
    console.print(
        f"{broken} violation{'s' if broken != 1 else ''}; "
        + (f"{reviewed} law{'s' if reviewed != 1 else ''} left for review; " if reviewed else "")
        + f"{exercised} of {len(judgement.findings)} laws exercised",
        highlight=False,
    )


def _counted(judgement: Judgement) -> str:
    """The inferred facts, each with how many were found: none found is a law with nothing to
    hold on to, which a reader must see ("constraints (0)")."""
    facts = judgement.facts
    named = []
    for name in judgement.inferred:
        value = getattr(facts, name, None) if facts is not None else None
        if isinstance(value, tuple):
            named.append(f"{name} ({len(value)})")
        else:
            named.append(name if value else f"{name} (none)")
    return ", ".join(named)
