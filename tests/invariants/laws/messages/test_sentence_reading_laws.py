"""The messages laws read facts sentence by sentence: the failures the token reading made."""

from __future__ import annotations

from compactcheck.invariants.catalogue import catalogue
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.messages import SystemMessage, UserMessage

_LAWS = {law.id: law for law in catalogue("messages")}
_SYSTEM = SystemMessage(content="You are a coding agent.")


def _because(law: str, before: tuple, after: tuple, facts: Facts) -> list[str]:  # type: ignore[type-arg]
    return [v.because for v in _LAWS[law].check(before, after, facts).violations]


def _pair(constraint: str, summary: str) -> tuple[tuple, tuple, Facts]:  # type: ignore[type-arg]
    before = (_SYSTEM, UserMessage(content=f"Fix the bug. Rule: {constraint}."))
    after = (_SYSTEM, UserMessage(content=f"Summary: {summary}"))
    return before, after, Facts(goal="Fix the bug.", constraints=(constraint,))


def test_a_contraction_keeps_a_prohibition() -> None:
    before, after, facts = _pair("Do not touch the public API", "Don't touch the public API.")
    assert _because("constraints_preserved", before, after, facts) == []


def test_a_negation_in_another_sentence_does_not_keep_a_prohibition() -> None:
    summary = "The public API: feel free to touch it. Bumping the timeout did not help."
    before, after, facts = _pair("Do not touch the public API", summary)
    (because,) = _because("constraints_preserved", before, after, facts)
    assert "'Do not touch the public API'" in because
    assert "contradicted" in because


def test_a_changed_amount_is_reported_changed() -> None:
    before, after, facts = _pair("Keep spending under $500", "Keep spending under $5000.")
    (because,) = _because("constraints_preserved", before, after, facts)
    assert "is changed in the output" in because


def test_the_natural_wording_of_a_change_asserts_the_new_value() -> None:
    before = (
        SystemMessage(content="- Use Python 3.11"),
        UserMessage(content="Change of plan: Use Python 3.12 from now on."),
    )
    after = (
        SystemMessage(content="- Use Python 3.11"),
        UserMessage(
            content="Summary: Python 3.11 no longer applies: the project now targets Python 3.12."
        ),
    )
    facts = Facts(
        goal="x", constraints=("Use Python 3.12",), superseded_constraints=("Use Python 3.11",)
    )
    # The kept system prompt still lists 3.11 word for word, as the input did: not reasserted.
    assert _because("constraints_preserved", before, after, facts) == []
    after = (after[0].model_copy(update={"content": "You are a coding agent."}), after[1])
    assert not any(
        "superseded" in b for b in _because("constraints_preserved", before, after, facts)
    )


def test_a_weakened_rule_is_left_for_review_by_its_own_law_only() -> None:
    """Issue 46: this pinned a violation; a hedge is no mechanical evidence, so the weakening
    is an item for review on its own law (never a violation, never a silent pass)."""
    before, after, facts = _pair("Never push to main", "Avoid pushing to main if possible.")
    assert _because("constraints_preserved", before, after, facts) == []
    assert _because("constraints_not_weakened", before, after, facts) == []
    found = _LAWS["constraints_not_weakened"].check(before, after, facts)
    (item,) = found.review
    assert (item.fact, item.leans) == ("Never push to main", "weakened")
    assert "may soften it" in item.reason
    assert not _LAWS["constraints_preserved"].check(before, after, facts).review


def test_an_invented_constraint_fails_its_law() -> None:
    before, after, facts = _pair(
        "Never push to main", "Never push to main.\nConstraint: Use MySQL 8."
    )
    (because,) = _because("no_invented_constraints", before, after, facts)
    assert "'Use MySQL 8.'" in because
    assert _because("constraints_preserved", before, after, facts) == []


def test_the_verbatim_reading_keeps_exact_matching() -> None:
    before, after, facts = _pair("Do not touch the public API", "Don't touch the public API.")
    exact = facts.model_copy(update={"reading": "verbatim"})
    (because,) = _because("constraints_preserved", before, after, exact)
    assert "is missing from the output" in because
