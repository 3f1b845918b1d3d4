"""The labelled wording corpus keeps its own shape: its vocabulary, its styles, its split.

The corpus measures how the meaning laws read a summary (tests/data/wording/README.md); these
tests check the data, not any reading of it.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

import pytest

from tests.data.wording import split

KINDS = frozenset({"goal", "constraint", "superseded", "invented"})
FAITHFUL = frozenset({"kept", "reworded", "retired", "none"})
LOSSES = frozenset({"weakened", "changed", "contradicted", "stale", "dropped", "invented"})
# Which rulings each kind of item may expect.
RULINGS_OF = {
    "goal": {"kept", "reworded", "weakened", "changed", "contradicted", "dropped"},
    "constraint": {"kept", "reworded", "weakened", "changed", "contradicted", "dropped"},
    "superseded": {"retired", "stale"},
    "invented": {"invented", "none"},
}
# What a loss item says was lost (README.md, "Labels").
LOSS_KINDS = frozenset(
    """number version amount date id path name member polarity condition broadened dropped stale
    lapsed narrowed hedge relaxed invented""".split()  # noqa: SIM905
)
# Every real loss kind the corpus must hold at least once.
REQUIRED_LOSSES = frozenset(
    """number version amount id path name polarity dropped stale lapsed narrowed hedge member
    invented""".split()  # noqa: SIM905
)
FIELDS = {"id", "style", "kind", "fact", "summary", "ruling", "note"}
OPTIONAL = {"current", "input", "loss"}
MIN_ITEMS, MIN_STYLES, MIN_PER_STYLE = 400, 10, 25
# The role and list marker an input line of an invented item opens with (benchmarks/rulings.py).
_ITEM = re.compile(r"^\w+:\s*(?:-\s+)?")


def _items() -> list[dict[str, Any]]:
    return [json.loads(line) for line in split.corpus_lines()]


ITEMS = _items()


@pytest.mark.parametrize("item", ITEMS, ids=[item["id"] for item in ITEMS])
def test_every_item_has_its_fields_and_a_label_of_the_vocabulary(item: dict[str, Any]) -> None:
    assert FIELDS <= set(item) <= FIELDS | OPTIONAL
    assert all(isinstance(item[name], str) and item[name].strip() for name in FIELDS)
    assert item["kind"] in KINDS
    assert item["ruling"] in RULINGS_OF[item["kind"]]
    assert item["id"].startswith(f"{item['style']}-")
    assert "\n" not in item["note"]
    # A loss says what was lost; a faithful item says nothing was.
    if item["ruling"] in LOSSES:
        assert item.get("loss") in LOSS_KINDS
    else:
        assert "loss" not in item
    assert ("current" in item) == (item["kind"] == "superseded")
    assert ("input" in item) == (item["kind"] == "invented")
    if item["kind"] == "invented":
        # The input's lines are the history's rules, one a line, as the old format reads them.
        read = [_ITEM.sub("", line) for line in item["input"].splitlines()]
        assert read == item["fact"].splitlines()
        assert (item.get("loss") == "invented") == (item["ruling"] == "invented")


def test_ids_are_unique() -> None:
    counts = Counter(item["id"] for item in ITEMS)
    assert [name for name, count in counts.items() if count > 1] == []


def test_each_style_has_its_minimum_and_both_faithful_and_lossy_items() -> None:
    assert len(ITEMS) >= MIN_ITEMS
    styles = Counter(item["style"] for item in ITEMS)
    assert len(styles) >= MIN_STYLES
    for style, count in styles.items():
        rulings = {item["ruling"] for item in ITEMS if item["style"] == style}
        assert count >= MIN_PER_STYLE, style
        assert rulings & FAITHFUL, style
        assert rulings & LOSSES, style


def test_about_half_the_items_are_faithful_and_every_loss_kind_is_there() -> None:
    faithful = sum(item["ruling"] in FAITHFUL for item in ITEMS)
    assert 0.4 <= faithful / len(ITEMS) <= 0.6
    found = {item["loss"] for item in ITEMS if "loss" in item}
    assert found >= REQUIRED_LOSSES, REQUIRED_LOSSES - found


def test_the_halves_on_disk_are_the_split_scripts_output() -> None:
    halves = split.split(split.corpus_lines())
    for name, path in split.HALVES.items():
        assert path.read_text(encoding="utf-8") == split.rendered(halves[name]), name


def test_the_halves_partition_the_corpus_and_each_holds_every_style() -> None:
    halves = split.split(split.corpus_lines())
    ids = {name: [json.loads(line)["id"] for line in lines] for name, lines in halves.items()}
    assert not set(ids["dev"]) & set(ids["heldout"])
    assert sorted(ids["dev"] + ids["heldout"]) == sorted(item["id"] for item in ITEMS)
    styles = {item["style"] for item in ITEMS}
    for lines in halves.values():
        assert {json.loads(line)["style"] for line in lines} == styles


def test_a_corrected_label_does_not_move_an_item_to_the_other_half() -> None:
    lines = split.corpus_lines()
    relabelled = [json.dumps({**json.loads(line), "ruling": "dropped"}) for line in lines]

    def placed(halves: dict[str, list[str]]) -> dict[str, str]:
        return {json.loads(line)["id"]: name for name, part in halves.items() for line in part}

    assert placed(split.split(relabelled)) == placed(split.split(lines))
