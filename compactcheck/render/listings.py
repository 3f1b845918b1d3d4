"""Console tables of what the toolkit knows and of its quick checks (not of a run's report)."""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Group
from rich.table import Table
from rich.text import Text

from compactcheck.base.call_law import call_law
from compactcheck.corpus.replay import ReplayResult
from compactcheck.invariants import VIEWS, Invariant, View, catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS
from compactcheck.reference_engine.golden import CaseResult
from compactcheck.reference_engine.snapshot import ALL_RULES, RULE_STATEMENTS, SEED_RULES
from compactcheck.render._digest import view_label
from compactcheck.render.console import NARROW, shortened
from compactcheck.report import untrusted
from compactcheck.targets.registry import builtin_targets

# Below NARROW (the console's) a listing is cut into one table per view (and per format), titled
# with it, so that what is left for the text beside a name is wide enough to read.


def targets_table(width: int = NARROW) -> Group:
    """The built-in targets; one table per view on a narrow terminal."""
    title = "Built-in targets (also: py:module:attr, py:file.py:attr, cmd:COMMAND)"
    listed = builtin_targets()
    if width >= NARROW:
        table = _names_table(title, ["target", "view"], "what it is")
        for name, (view, description) in listed.items():
            table.add_row(name, view, description)
        return Group(table)
    tables = []
    for each in VIEWS:
        rows = [(name, text) for name, (view, text) in listed.items() if view == each]
        if rows:
            table = _names_table(f"{title}: {each} view", ["target"], "what it is")
            for row in rows:
                table.add_row(*row)
            tables.append(table)
    return Group(*tables)


def invariants_table(view: View | None, width: int = NARROW) -> Group:
    """The invariant catalogue (of one view, or of all); one table per view and format on a
    narrow terminal."""
    views = VIEWS if view is None else (view,)
    # The call law first: a run judges it beside the catalogue's on every view.
    laws = [*(call_law(each) for each in views), *catalogue(view, ALL_FORMATS)]
    if width >= NARROW:
        table = _names_table("Invariant catalogue", ["view", "id", "format"])
        for law in laws:
            table.add_row(law.view, law.id, law_formats(law), _statement(law))
        return Group(table)
    groups: dict[str, list[Invariant]] = {}
    for law in laws:
        formats = law_formats(law)
        title = f"{law.view} view" + {"": "", "all": ", all formats"}.get(formats, f", {formats}")
        groups.setdefault(title, []).append(law)
    tables = []
    for title, members in groups.items():
        table = _names_table(f"Invariant catalogue: {title}", ["id"])
        for law in members:
            table.add_row(law.id, _statement(law))
        tables.append(table)
    return Group(*tables)


def _names_table(title: str, columns: Sequence[str], text: str = "statement") -> Table:
    """A table of short columns that never wrap, ending in a column of text that does."""
    table = Table(title=title, title_justify="left")
    # A law id or target name is copied into commands: it is never broken across lines.
    for column in columns:
        table.add_column(column, no_wrap=True)
    table.add_column(text, ratio=1, overflow="fold")
    return table


def _statement(law: Invariant) -> str:
    return law.statement + (f" (mirrors {law.mirrors})" if law.mirrors else "")


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
    """What re-running each corpus entry gave: a table per target, view and format, titled with
    them (cut to ``width`` in the middle), so that no target name or law id is broken across
    lines; in each, the entries of one law together, the law named once with how many it has."""
    groups: dict[tuple[str, str], list[ReplayResult]] = {}
    for item in results:
        groups.setdefault((item.target, view_label(item.view, item.format)), []).append(item)
    titles = [
        f"{untrusted.safe_line(target)} [{untrusted.safe_line(label)}]"
        if target
        else "entries that cannot be read"
        for target, label in groups
    ]
    colour = {"fixed": "green", "still failing": "red"}
    count = f"{len(results)} corpus entr{'y' if len(results) == 1 else 'ies'}"
    parts: list[Text | Table] = [Text(f"Replay of {count}", style="bold")]
    for title, items in zip(shortened(titles, width - 4), groups.values(), strict=True):
        table = Table(title=Text(title), title_justify="left", expand=True)
        table.add_column("invariant", no_wrap=True)
        table.add_column("entry", no_wrap=True)
        table.add_column("verdict", no_wrap=True)
        table.add_column("detail", ratio=1)
        by_law: dict[str, list[ReplayResult]] = {}
        for item in items:
            by_law.setdefault(item.invariant, []).append(item)
        for law, entries in by_law.items():
            for index, item in enumerate(entries):
                named = untrusted.safe_line(law) or "-"
                if len(entries) > 1:
                    named += f" ({len(entries)})"
                table.add_row(
                    Text(named if index == 0 else ""),
                    Text(untrusted.safe_line(item.path.stem.rpartition("-")[2][:8]), style="dim"),
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
