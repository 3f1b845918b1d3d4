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
