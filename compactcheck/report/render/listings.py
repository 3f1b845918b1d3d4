"""Console tables of what the toolkit knows and of its quick checks (not of a run's report)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from compactcheck.corpus.replay import ReplayResult
from compactcheck.engine.crash import call_law
from compactcheck.golden import CaseResult
from compactcheck.report import untrusted
from compactcheck.report.render.console import NARROW, shortened
from compactcheck.targets.registry import builtin_targets
from invariants import VIEWS, Invariant, View, catalogue
from invariants.catalogue import ALL_FORMATS
from reference_engine.snapshot import ALL_RULES, RULE_STATEMENTS, SEED_RULES


def targets_table() -> Table:
    """The built-in targets."""
    table = Table(title="Built-in targets (also: py:module:attr, py:file.py:attr, cmd:COMMAND)")
    # Folded, never cut short: two long names must stay tellable apart on a narrow terminal.
    table.add_column("target", overflow="fold")
    table.add_column("view")
    table.add_column("what it is")
    for name, (view, description) in builtin_targets().items():
        table.add_row(name, view, description)
    return table


def invariants_table(view: View | None) -> Table:
    """The invariant catalogue (of one view, or of all)."""
    table = Table(title="Invariant catalogue")
    table.add_column("view")
    table.add_column("id", overflow="fold")
    table.add_column("format", overflow="fold")
    table.add_column("statement")
    views = VIEWS if view is None else (view,)
    # The call law first: a run judges it beside the catalogue's on every view.
    for law in [*(call_law(each) for each in views), *catalogue(view, ALL_FORMATS)]:
        statement = law.statement + (f" (mirrors {law.mirrors})" if law.mirrors else "")
        table.add_row(law.view, law.id, law_formats(law), statement)
    return table


def law_formats(law: Invariant) -> str:
    """The formats a law judges, as a listing shows them ("all" for every format)."""
    if law.view != "messages":
        return ""
    return ", ".join(law.formats) if law.formats else "all"


def rules_table() -> Table:
    """The validation rules of the snapshot reference engine."""
    table = Table(title="Snapshot validation rules")
    table.add_column("rule")
    table.add_column("origin")
    table.add_column("statement")
    for rule in ALL_RULES:
        origin = "seed" if rule in SEED_RULES else "corrected mode"
        table.add_row(rule, origin, RULE_STATEMENTS[rule])
    return table


def replay_table(results: Sequence[ReplayResult], width: int = NARROW) -> Group:
    """What re-running each corpus entry gave: a table per target and view, titled with them
    (cut to ``width`` in the middle), so that no target name or law id is broken across lines."""
    groups: dict[tuple[str, str], list[ReplayResult]] = {}
    for item in results:
        groups.setdefault((item.target, item.view), []).append(item)
    titles = [
        f"{untrusted.safe_line(target)} [{view}]" if target else "entries that cannot be read"
        for target, view in groups
    ]
    colour = {"fixed": "green", "still failing": "red"}
    count = f"{len(results)} corpus entr{'y' if len(results) == 1 else 'ies'}"
    parts: list[Text | Table] = [Text(f"Replay of {count}", style="bold")]
    for title, items in zip(shortened(titles, width - 4), groups.values(), strict=True):
        table = Table(title=Text(title), title_justify="left", expand=True)
        table.add_column("invariant", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("detail", ratio=1)
        for item in items:
            table.add_row(
                Text(untrusted.safe_line(item.invariant) or "-"),
                Text(item.verdict.upper(), style=colour.get(item.verdict, "yellow")),
                Text(untrusted.safe_line(item.detail)),
            )
        parts.append(table)
    return Group(*parts)


def golden_table(results: Sequence[CaseResult]) -> Table:
    """The golden cases, round by round: what the reference engine did and whether it should."""
    table = Table(title=f"Snapshot reference engine on {len(results)} golden case(s)")
    table.add_column("case", no_wrap=True)
    for column in ("mode", "rnd", "outcome", "failed rules", "progress", "orphans", "verdict"):
        table.add_column(column)
    for result in results:
        for round_ in result.rounds:
            progress = "-" if round_.made_progress is None else str(round_.made_progress).lower()
            table.add_row(
                result.case.name if round_.index == 1 else "",
                result.case.mode.value if round_.index == 1 else "",
                str(round_.index),
                round_.outcome,
                ", ".join(round_.failed_rules) or "-",
                progress,
                ", ".join(round_.orphaned_results) or "-",
                "[red]MISMATCH[/]" if round_.mismatches else "[green]ok[/]",
            )
    return table
