"""fuzz() takes the run options of `compactcheck run` that shape what a target is handed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import compactcheck
from compactcheck.base.errors import CompactcheckError


def test_a_callable_is_fuzzed_in_a_provider_format(tmp_path: Path) -> None:
    seen: list[Any] = []

    def compact(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return request

    report = compactcheck.fuzz(
        compact, format="anthropic", max_examples=5, corpus_dir=tmp_path / "corpus"
    )
    # Handed an Anthropic request (system apart, messages of content blocks), not chat dicts.
    assert seen
    assert all(isinstance(request, dict) and "messages" in request for request in seen)
    assert report.targets[0].format == "anthropic"
    laws = {result.invariant for result in report.targets[0].results}
    assert "anthropic_thinking_unmodified" in laws


def test_a_format_mutant_is_caught_through_fuzz(tmp_path: Path) -> None:
    report = compactcheck.fuzz(
        "mutant:anthropic-strip-thinking",
        format="anthropic",
        max_examples=100,
        corpus_dir=tmp_path / "corpus",
    )
    verdicts = {result.invariant: result.verdict for result in report.targets[0].results}
    assert "violation" in verdicts.values()


def _reworded(line: str) -> str:
    """'- [c1] Use Python 3.11' -> '- [c1] Use (rule) Python 3.11': every token kept."""
    marker, verb, rest = [*line.strip(" -").split(" ", 2), "", ""][:3]
    return f"- {marker} {verb} (rule) {rest}"


def reword_constraints(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rewords every constraint line of the system prompt, keeping its tokens."""
    return [
        {**m, "content": "\n".join(_reworded(t) if t.startswith("- ") else t for t in text)}
        if m["role"] == "system"
        and isinstance(m.get("content"), str)
        and (text := m["content"].splitlines())
        else m
        for m in messages
    ]


def test_verbatim_reads_each_fact_by_its_exact_text(tmp_path: Path) -> None:
    def verdict(verbatim: bool) -> str:
        report = compactcheck.fuzz(
            reword_constraints,
            invariants=["constraints_preserved"],
            verbatim=verbatim,
            max_examples=30,
            corpus_dir=tmp_path / str(verbatim),
        )
        [law] = [r for r in report.targets[0].results if r.invariant == "constraints_preserved"]
        return law.verdict

    assert verdict(verbatim=False) == "pass"
    assert verdict(verbatim=True) == "violation"


def test_malformed_reaches_the_run_and_bad_names_are_refused(tmp_path: Path) -> None:
    report = compactcheck.fuzz(
        "reference-messages",
        malformed=["late-results"],
        max_examples=5,
        corpus_dir=str(tmp_path / "corpus"),  # a str is a path too
    )
    assert report.malformed == ["late-results"]
    with pytest.raises(CompactcheckError, match="unknown malformed-input scenario"):
        compactcheck.fuzz("reference-messages", malformed=["late-result"], max_examples=1)
    with pytest.raises(CompactcheckError, match="unknown format"):
        compactcheck.fuzz("reference-messages", format="anthropik", max_examples=1)  # type: ignore[arg-type]


def test_a_budget_is_a_number_or_a_budget_as_the_cli_takes_it(tmp_path: Path) -> None:
    def verdicts(**given: Any) -> dict[str, str]:
        report = compactcheck.fuzz(
            "reference-messages",
            invariants=["budget_respected", "progress"],
            max_examples=10,
            corpus_dir=tmp_path / "corpus",
            **given,
        )
        return {result.invariant: result.verdict for result in report.targets[0].results}

    by_number = verdicts(budget=2000)
    assert by_number == verdicts(budget="2000") == verdicts(budget=compactcheck.Budget(limit=2000))
    assert by_number == verdicts(budget=2000, counter="approx_tokens")
    # Judged against the budget (without one the law cannot fail, and is not exercised).
    assert by_number["budget_respected"] in ("pass", "violation")
    assert verdicts()["budget_respected"] not in ("pass", "violation")


def test_a_counter_of_ones_own_is_what_the_budget_laws_count_in(tmp_path: Path) -> None:
    counted: list[str] = []

    def one_per_text(text: str) -> int:
        counted.append(text)
        return 1

    def budget_respected(**given: Any) -> str:
        report = compactcheck.fuzz(
            lambda messages: messages[1:],
            invariants=["budget_respected"],
            max_examples=10,
            min_exercised=0,
            corpus_dir=tmp_path / "corpus",
            **given,
        )
        [law] = [r for r in report.targets[0].results if r.invariant == "budget_respected"]
        return law.verdict

    # A history of several messages, its first dropped: more than one text, never a thousand.
    assert budget_respected(budget=1, counter=one_per_text) == "violation"
    assert counted
    assert budget_respected(budget=compactcheck.Budget(limit=1000, counter=one_per_text)) == "pass"


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ({"budget": 0}, "fuzz(budget=0): expected a number of at least 1, found 0"),
        ({"budget": 2.5}, "fuzz(budget=2.5): expected a whole number, found '2.5'"),
        ({"counter": "bogus"}, "fuzz(counter='bogus'): unknown budget counter 'bogus'"),
        (
            {"budget": compactcheck.Budget(limit=9, counter="characters"), "counter": "messages"},
            "its counter characters differs from fuzz(counter='messages'); give the counter once",
        ),
        ({"budget": 9, "counter": lambda: 1}, "a counter takes one text (str)"),
    ],
)
def test_a_budget_fuzz_cannot_take_is_one_line(
    tmp_path: Path, given: dict[str, Any], said: str
) -> None:
    with pytest.raises(CompactcheckError) as raised:
        compactcheck.fuzz("reference-messages", corpus_dir=tmp_path / "corpus", **given)
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)
