"""How the rulings agree with the labelled corpus: a confusion matrix and the two release rates.

The corpus (``tests/data/rulings.jsonl``) holds (fact, summary, expected ruling) triples, and
(input, summary, "invented" or "none") pairs for constraints a summary adds. A false pass is a
real loss (changed, contradicted, stale, dropped, weakened, invented) ruled as faithful; a false
alarm is a faithful rewording (kept, reworded, retired, none) ruled as anything else.

    .venv/bin/python -m benchmarks.rulings
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from compactcheck.invariants.rulings import RULINGS, invented, rule_text

CORPUS = Path(__file__).resolve().parent.parent / "tests" / "data" / "rulings.jsonl"
# Expected rulings of a faithful summary, and what an invented-constraint row expects when the
# summary adds nothing.
FAITHFUL = frozenset({"kept", "reworded", "retired", "none"})
_ORDER = (*RULINGS, "none")
# The role and list marker an input line of an invented-constraint row opens with.
_ITEM = re.compile(r"^\w+:\s*(?:-\s+)?")


@dataclass(frozen=True)
class Agreement:
    """The rulings made on a labelled corpus beside the labels: every (expected, ruled) pair."""

    pairs: tuple[tuple[str, str, str], ...]  # expected, ruled, what was read

    @property
    def false_passes(self) -> list[tuple[str, str, str]]:
        """Real losses ruled faithful."""
        return [p for p in self.pairs if p[0] not in FAITHFUL and p[1] in FAITHFUL]

    @property
    def false_alarms(self) -> list[tuple[str, str, str]]:
        """Faithful summaries ruled a loss."""
        return [p for p in self.pairs if p[0] in FAITHFUL and p[1] not in FAITHFUL]

    @property
    def faithful(self) -> int:
        """How many rows are faithful."""
        return sum(p[0] in FAITHFUL for p in self.pairs)

    @property
    def false_alarm_rate(self) -> float:
        """Faithful rows ruled a loss, as a share of the faithful rows."""
        return len(self.false_alarms) / self.faithful if self.faithful else 0.0

    @property
    def false_pass_rate(self) -> float:
        """Loss rows ruled faithful, as a share of the loss rows."""
        losses = len(self.pairs) - self.faithful
        return len(self.false_passes) / losses if losses else 0.0

    def matrix(self) -> str:
        """The confusion matrix as text: a row per expected ruling, a column per ruling made."""
        counts = Counter((p[0], p[1]) for p in self.pairs)
        used = [name for name in _ORDER if any(name in key for key in counts)]
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
        """Both release rates, with counts."""
        losses = len(self.pairs) - self.faithful
        return (
            f"{len(self.pairs)} labelled rows: false passes {len(self.false_passes)}/{losses} "
            f"({self.false_pass_rate:.1%}), false alarms on faithful rewordings "
            f"{len(self.false_alarms)}/{self.faithful} ({self.false_alarm_rate:.1%})"
        )


def agreement(path: Path = CORPUS) -> Agreement:
    """The rulings made on every row of the corpus at ``path``."""
    pairs: list[tuple[str, str, str]] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        row = json.loads(line)
        if "input" in row:
            facts = [_ITEM.sub("", line) for line in row["input"].splitlines()]
            found = invented([row["summary"]], [row["input"]], facts)
            ruled = "invented" if found else "none"
            pairs.append((row["ruling"], ruled, f"{row['input']!r} -> {row['summary']!r}"))
        else:
            ruled = rule_text(row["fact"], row["summary"], row["kind"])
            pairs.append((row["ruling"], ruled, f"{row['fact']!r} -> {row['summary']!r}"))
    return Agreement(tuple(pairs))


def rulings_section() -> None:
    """The benchmark section: both rates, the matrix and every disagreement."""
    found = agreement()
    print("## rulings (labelled corpus)")
    print(found.summary())
    print(found.matrix())
    for expected, ruled, read in found.pairs:
        if expected != ruled:
            print(f"  expected {expected}, ruled {ruled}: {read}")


if __name__ == "__main__":
    rulings_section()
