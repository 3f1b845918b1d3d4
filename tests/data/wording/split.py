"""Split the labelled wording corpus once, at random, into a development half and a held-out half.

Every item of ``corpus.jsonl`` goes to ``dev.jsonl`` or ``heldout.jsonl``, its line copied as it
is. Within each style the items are ordered by the SHA-256 of the seed and their id, and the
first half (rounded up) is the development half: a random split, stratified by style, that is the
same on every machine and every Python. Which half an item is in depends on its id and its style
only, never on its label, so a label corrected later (README.md, changelog) does not move it.

    .venv/bin/python tests/data/wording/split.py          # writes both halves
    .venv/bin/python tests/data/wording/split.py --check  # exits 1 unless both are its output
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "corpus.jsonl"
HALVES = {"dev": HERE / "dev.jsonl", "heldout": HERE / "heldout.jsonl"}
# Fixed once, when the corpus was split (the number of the issue that asked for it).
SEED = 46


def _draw(item_id: str) -> str:
    return hashlib.sha256(f"{SEED}:{item_id}".encode()).hexdigest()


def split(lines: list[str]) -> dict[str, list[str]]:
    """The corpus's lines as the two halves, each in the corpus's own order."""
    by_style: dict[str, list[str]] = {}
    for line in lines:
        item = json.loads(line)
        by_style.setdefault(item["style"], []).append(item["id"])
    dev: set[str] = set()
    for ids in by_style.values():
        drawn = sorted(ids, key=_draw)
        dev.update(drawn[: (len(drawn) + 1) // 2])
    halves: dict[str, list[str]] = {"dev": [], "heldout": []}
    for line in lines:
        halves["dev" if json.loads(line)["id"] in dev else "heldout"].append(line)
    return halves


def corpus_lines(path: Path = CORPUS) -> list[str]:
    """The corpus's non-blank lines."""
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def rendered(lines: list[str]) -> str:
    """A half as its file holds it."""
    return "".join(f"{line}\n" for line in lines)


def main() -> int:
    """Write both halves, or with --check say whether the files on disk are this split."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare, do not write")
    options = parser.parse_args()
    halves = split(corpus_lines())
    stale = []
    for name, path in HALVES.items():
        text = rendered(halves[name])
        if options.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
    for name, lines in halves.items():
        print(f"{name}: {len(lines)} items")
    if stale:
        print(f"not the split of corpus.jsonl: {', '.join(stale)} (run without --check)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
