"""How today's rulings agree with the labelled wording corpus, on each half apart.

The corpus (``tests/data/wording/``, its README says how it was written and split) holds 448
(fact, summary, expected ruling) items in 15 wording styles. For each half this prints both
release rates, the confusion matrix, and the false alarms and false passes of each style and of
each kind of loss; the development half also lists every disagreement. The held-out half lists
none: nobody changes a reading rule while looking at it.

Today's rulings carry no certainty, and a law fails on any loss ruling, so every ruling counts
as certain here and none as unsure.

    .venv/bin/python -m benchmarks.wording_corpus
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

from benchmarks.rulings import FAITHFUL, Agreement, agreement

FOLDER = Path(__file__).resolve().parent.parent / "tests" / "data" / "wording"
HALVES = {"development": FOLDER / "dev.jsonl", "held-out": FOLDER / "heldout.jsonl"}


def _items(path: Path) -> list[dict[str, str]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def by_group(items: list[dict[str, str]], found: Agreement, key: str) -> list[str]:
    """False alarms and false passes per value of ``key`` (a style, or the kind of loss)."""
    alarms: Counter[str] = Counter()
    passes: Counter[str] = Counter()
    totals: Counter[str] = Counter()
    for item, (expected, ruled, _) in zip(items, found.pairs, strict=True):
        group = item.get(key, "faithful")
        totals[group] += 1
        if expected in FAITHFUL and ruled not in FAITHFUL:
            alarms[group] += 1
        elif expected not in FAITHFUL and ruled in FAITHFUL:
            passes[group] += 1
    width = max(len(group) for group in totals) + 2
    lines = [f"{key:<{width}}{'items':>6}{'false alarms':>14}{'false passes':>14}"]
    for group in sorted(totals):
        lines.append(f"{group:<{width}}{totals[group]:>6}{alarms[group]:>14}{passes[group]:>14}")
    return lines


def wording_corpus_section() -> None:
    """The benchmark section: each half's rates, matrix and groups; dev's disagreements."""
    print("\n## Wording corpus: the rulings on each half of the labelled wording corpus")
    for half, path in HALVES.items():
        items = _items(path)
        found = agreement(path)
        print(f"\n{half} half ({path.name}): {found.summary()}")
        print("certain rulings: all of them (today's rulings carry no certainty); unsure: 0")
        print(found.matrix())
        print("\n".join(by_group(items, found, "style")))
        print("\n".join(by_group(items, found, "loss")))
        if half == "development":
            for item, (expected, ruled, _) in zip(items, found.pairs, strict=True):
                if (expected in FAITHFUL) != (ruled in FAITHFUL):
                    print(f"  {item['id']}: expected {expected}, ruled {ruled}")
    print(
        "(false alarm: a faithful item (kept, reworded, retired, none) ruled a loss; false pass: "
        "a loss ruled faithful; the held-out half's disagreements are not listed, by the "
        "corpus's rule)"
    )


if __name__ == "__main__":
    wording_corpus_section()
