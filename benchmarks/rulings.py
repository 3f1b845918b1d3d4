"""How the rulings agree with labelled corpora: confusion matrices, and the rates that matter.

A corpus is JSON Lines of (fact, output sentence, expected ruling) rows: ``fact``, ``summary``
(or ``sentence`` / ``output``), ``ruling`` (or ``expected``), ``kind`` (constraint by default:
goal, constraint, superseded), and optionally ``style`` (the wording style it was written in);
and (input, summary, "invented" or "none") rows for constraints a summary adds. A false pass is a
real loss (changed, contradicted, stale, dropped, weakened, invented) ruled faithful; a false
alarm is a faithful rewording (kept, reworded, retired, none) ruled a loss.

Each ruling is certain or unsure (``compactcheck.invariants.certainty``): a law fails only on a
certain one, so what counts is the false alarms and false passes **among certain rulings**, and
the share ruled unsure (left for review). Both are printed per corpus, and per style where rows
name one.

    .venv/bin/python -m benchmarks.rulings                      # the labelled corpus
    .venv/bin/python -m benchmarks.rulings PATH [PATH ...]      # each corpus named, in turn
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from compactcheck.invariants.claims import stated_claims
from compactcheck.invariants.rulings import RULINGS, FactKind, invented, ruling_of

DATA = Path(__file__).resolve().parent.parent / "tests" / "data"
CORPUS = DATA / "rulings.jsonl"
# Expected rulings of a faithful summary, and what an invented-constraint row expects when the
# summary adds nothing.
FAITHFUL = frozenset({"kept", "reworded", "retired", "none"})
_ORDER = (*RULINGS, "none")
# The role and list marker an input line of an invented-constraint row opens with.
_ITEM = re.compile(r"^\w+:\s*(?:-\s+)?")
_KINDS: frozenset[str] = frozenset({"goal", "constraint", "superseded"})


@dataclass(frozen=True)
class Ruled:
    """One labelled row beside what the reading made of it."""

    expected: str
    ruled: str
    certain: bool
    read: str
    style: str = ""
    reason: str = ""

    @property
    def false_pass(self) -> bool:
        """A real loss ruled faithful."""
        return self.expected not in FAITHFUL and self.ruled in FAITHFUL

    @property
    def false_alarm(self) -> bool:
        """A faithful summary ruled a loss."""
        return self.expected in FAITHFUL and self.ruled not in FAITHFUL


@dataclass(frozen=True)
class Agreement:
    """The rulings made on a labelled corpus beside the labels."""

    rows: tuple[Ruled, ...]
    name: str = ""

    @property
    def pairs(self) -> tuple[tuple[str, str, str], ...]:
        """Every (expected, ruled, what was read), whatever its certainty."""
        return tuple((r.expected, r.ruled, r.read) for r in self.rows)

    @property
    def false_passes(self) -> list[tuple[str, str, str]]:
        """Real losses ruled faithful, certain or not (the lean of the reading)."""
        return [(r.expected, r.ruled, r.read) for r in self.rows if r.false_pass]

    @property
    def false_alarms(self) -> list[tuple[str, str, str]]:
        """Faithful summaries ruled a loss, certain or not."""
        return [(r.expected, r.ruled, r.read) for r in self.rows if r.false_alarm]

    @property
    def faithful(self) -> int:
        """How many rows are faithful."""
        return sum(r.expected in FAITHFUL for r in self.rows)

    @property
    def false_alarm_rate(self) -> float:
        """Faithful rows ruled a loss, as a share of the faithful rows."""
        return len(self.false_alarms) / self.faithful if self.faithful else 0.0

    @property
    def false_pass_rate(self) -> float:
        """Loss rows ruled faithful, as a share of the loss rows."""
        losses = len(self.rows) - self.faithful
        return len(self.false_passes) / losses if losses else 0.0

    @property
    def certain(self) -> list[Ruled]:
        """The rows ruled for certain: the only ones a law fails on."""
        return [r for r in self.rows if r.certain]

    @property
    def certain_false_alarms(self) -> list[Ruled]:
        """Faithful rows a certain ruling calls a loss: each one a law reported wrongly."""
        return [r for r in self.certain if r.false_alarm]

    @property
    def certain_false_passes(self) -> list[Ruled]:
        """Loss rows a certain ruling calls faithful: each one a law passed wrongly."""
        return [r for r in self.certain if r.false_pass]

    @property
    def unsure_share(self) -> float:
        """The share of rows ruled unsure (left for review)."""
        return 1 - len(self.certain) / len(self.rows) if self.rows else 0.0

    def matrix(self, rows: Sequence[Ruled] | None = None) -> str:
        """A confusion matrix as text: a row per expected ruling, a column per ruling made."""
        chosen = self.rows if rows is None else rows
        counts = Counter((r.expected, r.ruled) for r in chosen)
        used = [name for name in _ORDER if any(name in key for key in counts)] or ["none"]
        width = max(len(name) for name in used) + 1
        head = "expected \\ ruled".ljust(width + 4) + "".join(n[:7].rjust(8) for n in used)
        lines = [head]
        for expected in used:
            row = [counts.get((expected, ruled), 0) for ruled in used]
            if any(row):
                cells = "".join((str(c) if c else ".").rjust(8) for c in row)
                lines.append(expected.ljust(width + 4) + cells)
        return "\n".join(lines)

    def summary(self) -> str:
        """The rates a law's verdicts rest on, with counts."""
        certain = self.certain
        faithful = sum(r.expected in FAITHFUL for r in certain)
        losses = len(certain) - faithful
        return (
            f"{len(self.rows)} labelled rows, {len(certain)} ruled certain, "
            f"{len(self.rows) - len(certain)} unsure ({self.unsure_share:.1%}); among certain "
            f"rulings: false alarms {len(self.certain_false_alarms)}/{faithful}, false passes "
            f"{len(self.certain_false_passes)}/{losses}; leaning (certain or not): false "
            f"alarms {len(self.false_alarms)}/{self.faithful}, false passes "
            f"{len(self.false_passes)}/{len(self.rows) - self.faithful}"
        )

    def by_style(self) -> list[str]:
        """One line per wording style: rows, unsure share, certain mistakes."""
        styles = sorted({r.style for r in self.rows if r.style})
        lines: list[str] = []
        for style in styles:
            own = [r for r in self.rows if r.style == style]
            unsure = sum(not r.certain for r in own)
            wrong = sum(r.certain and (r.false_alarm or r.false_pass) for r in own)
            lines.append(
                f"  {style:<24} {len(own):>4} rows  unsure {unsure / len(own):>6.1%}  "
                f"certain mistakes {wrong}"
            )
        return lines


class CorpusError(ValueError):
    """A corpus row that is not a labelled row."""


def _row(row: dict[str, object], where: str) -> Ruled:
    expected = str(row.get("ruling", row.get("expected", "")))
    style = str(row.get("style", ""))
    if expected not in _ORDER:
        raise CorpusError(f"{where}: expected ruling {expected!r} is none of {', '.join(_ORDER)}")
    if "input" in row:
        given, summary = str(row["input"]), str(row["summary"])
        facts = [_ITEM.sub("", line) for line in given.splitlines()]
        found = invented([summary], [given], facts)
        if found:
            made = found[0]
            return Ruled(expected, "invented", made.certain, f"{given!r} -> {summary!r}", style,
                         made.reason)  # fmt: skip
        # Nothing invented: certain when each claim the summary states is, for certain, one of
        # the facts restated (or it states none).
        sure = all(
            any(_restated(fact, claim) for fact in facts) for claim in stated_claims(summary)
        )
        return Ruled(expected, "none", sure, f"{given!r} -> {summary!r}", style)
    said = row.get("summary", row.get("sentence", row.get("output")))
    if not isinstance(said, str) or not isinstance(row.get("fact"), str):
        raise CorpusError(f"{where}: a row holds a 'fact' and a 'summary' (or 'sentence')")
    fact = str(row["fact"])
    kind = str(row.get("kind", "constraint"))
    if kind not in _KINDS:
        raise CorpusError(f"{where}: kind {kind!r} is none of goal, constraint, superseded")
    chosen: FactKind = (
        "goal" if kind == "goal" else "superseded" if kind == "superseded" else "constraint"
    )
    made = ruling_of(fact, said, chosen)
    return Ruled(expected, made.ruling, made.certain, f"{fact!r} -> {said!r}", style, made.reason)


def _restated(fact: str, claim: str) -> bool:
    made = ruling_of(fact, claim)
    return made.certain and made.ruling in FAITHFUL


def agreement(path: Path = CORPUS) -> Agreement:
    """The rulings made on every row of the corpus at ``path``."""
    rows: list[Ruled] = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        rows.append(_row(json.loads(line), f"{path.name}:{number}"))
    return Agreement(tuple(rows), path.name)


def report(found: Agreement) -> None:
    """One corpus's section: the rates, both matrices, the styles and every certain mistake."""
    print(f"## rulings: {found.name}")
    print(found.summary())
    print("all rulings (certain or not):")
    print(found.matrix())
    print("certain rulings only:")
    print(found.matrix(found.certain))
    for line in found.by_style():
        print(line)
    for r in found.certain_false_alarms + found.certain_false_passes:
        print(f"  CERTAIN MISTAKE expected {r.expected}, ruled {r.ruled}: {r.read} ({r.reason})")


def rulings_section(paths: Sequence[Path] = ()) -> None:
    """The benchmark section: each corpus named (the labelled corpus and the extra development
    items by default)."""
    chosen = list(paths) or [p for p in (CORPUS, DATA / "wording_dev_extra.jsonl") if p.exists()]
    for path in chosen:
        report(agreement(path))


def main(arguments: Sequence[str]) -> int:
    """Run on the corpora named, one line of error and exit 2 on a bad one."""
    try:
        rulings_section([Path(argument) for argument in arguments])
    except (OSError, ValueError) as error:
        print(f"benchmarks.rulings: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
