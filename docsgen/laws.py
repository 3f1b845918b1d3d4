"""The laws page: every law per view and format, its level, and the provider rule it mirrors."""

from __future__ import annotations

from collections import Counter

from compactcheck.base.call_law import call_law
from compactcheck.invariants import VIEWS, Invariant, View, catalogue
from compactcheck.invariants.catalogue import ALL_FORMATS
from compactcheck.invariants.formats import FORMATS
from compactcheck.invariants.levels import LEVELS, PROVIDER_RULES, level_of
from docsgen.markdown import cell, code, page, table


def _laws(view: View) -> list[Invariant]:
    """A view's laws as a run judges them: the call law first, then the catalogue's."""
    return [call_law(view), *catalogue(view, ALL_FORMATS)]


def _formats(law: Invariant) -> tuple[str, ...]:
    """The wire formats a law judges: its own, or every one (messages view); none otherwise."""
    if law.view != "messages":
        return ()
    return law.formats or FORMATS


def _levels(law: Invariant) -> dict[str, int]:
    """The law's level in each format it judges ("" for a view without formats)."""
    structural = bool(law.formats)
    formats = _formats(law)
    if not formats:
        return {"": level_of(law.id, structural)}
    return {each: level_of(law.id, structural, each) for each in formats}


def _by_format(words: dict[str, str]) -> str:
    """A value per format as the most common one, with the formats that differ after it."""
    common = Counter(words.values()).most_common(1)[0][0]
    others = [f"{word} in {name}" for name, word in words.items() if word != common]
    return common + (f" ({', '.join(others)})" if others else "")


def _level_text(levels: dict[str, int]) -> str:
    return _by_format({name: str(level) for name, level in levels.items()})


def _waivable(levels: dict[str, int]) -> str:
    return _by_format({name: "no" if level == 1 else "yes" for name, level in levels.items()})


def _view_table(view: View) -> str:
    rows = []
    for law in _laws(view):
        levels = _levels(law)
        row = [f"[{law.id}](#{law.id})"]
        if view == "messages":
            row.append(", ".join(law.formats) or "all")
        row += [_level_text(levels), _waivable(levels), cell(law.statement)]
        rows.append(row)
    header = ["law", *(["formats"] if view == "messages" else []), "level", "waivable", "statement"]
    return f"## The {view} view\n\n" + table(header, rows)


def _law_section(law_id: str, laws: list[Invariant]) -> str:
    """One law id's section: what it says in each view, its levels, what it mirrors."""
    parts = [f"### {code(law_id)}"]
    for law in laws:
        formats = _formats(law)
        where = f"{law.view} view" + (f" ({', '.join(law.formats)})" if law.formats else "")
        levels = _levels(law)
        lines = [
            f"- {where}: {cell(law.statement)}",
            f"  - level: {_level_text(levels)}; waivable: {_waivable(levels)}",
        ]
        if law.requires_budget:
            lines.append("  - judged only against a declared budget (`--budget`)")
        if law.mirrors:
            lines.append(f"  - mirrors: {cell(law.mirrors)}")
        for name in formats:
            rule = PROVIDER_RULES.get((law.id, name))
            if rule:
                lines.append(f"  - {name}: {cell(rule)}")
        parts.append("\n".join(lines))
    return "\n\n".join(parts)


def render() -> str:
    """The page ``reference/laws.md``."""
    levels = table(
        ["level", "promise"], [[str(number), cell(text)] for number, text in LEVELS.items()]
    )
    intro = (
        "Every law a run judges, per view, generated from the catalogue (`compactcheck "
        "invariants` lists the same). A target reaches level N when every applicable law of "
        "levels 1 to N held and none of them is waived; a law of level 1 cannot be waived, "
        "since a provider's rejection is never a design choice. A law's level can depend on "
        "the wire format, where providers differ. A format's own structural laws name the "
        "provider rule they mirror and the error that rule gives."
    )
    by_id: dict[str, list[Invariant]] = {}
    for view in VIEWS:
        for law in _laws(view):
            by_id.setdefault(law.id, []).append(law)
    return page(
        "Laws",
        intro,
        "## Levels",
        levels,
        *(_view_table(view) for view in VIEWS),
        "## Every law",
        *(_law_section(law_id, laws) for law_id, laws in by_id.items()),
    )
