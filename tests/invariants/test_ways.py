"""The way a law was broken: the kind its law gave the violation, never its sentence."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import Finding, Violation
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.laws.messages.constraints import constraints_preserved
from compactcheck.invariants.laws.messages.pairing import tool_pairing
from compactcheck.invariants.messages import (
    ChatMessage,
    SystemMessage,
    UserMessage,
    parse_messages,
)
from compactcheck.invariants.ways import rank, way_of, ways

LAW = "constraints_preserved"


@given(st.text(max_size=30), st.integers(0, 999))
def test_the_sentence_is_not_part_of_the_way(fact: str, index: int) -> None:
    because = f"current constraint {fact!r} (input index {index}) is missing from the output"
    assert way_of(Violation(LAW, because, kind="dropped")) == "dropped"
    assert way_of(Violation(LAW, because)) == ""


def test_a_finding_splits_into_its_ways_each_with_its_violation_first() -> None:
    missing = [
        Violation(LAW, f"current constraint 'c{i}' (input index {i}) is missing", kind="dropped")
        for i in (1, 2)
    ]
    lost = Violation(LAW, "the system message at input index 0 is missing", kind="system missing")
    split = ways(Finding(LAW, True, (missing[0], lost, missing[1])))
    assert list(split) == ["dropped", "system missing"]
    first, second = split.values()
    assert first.violations[0] is missing[0]
    assert second.violations[0] is lost
    # Every violation stays on each: a witness of one way still says what else was wrong.
    assert set(second.violations) == {missing[0], lost, missing[1]}


# The first call loads the lexicon the laws read prose with.
@settings(deadline=None)
@given(st.integers(0, 6), st.sampled_from(["user", "assistant"]))
def test_a_law_gives_one_kind_to_one_way_however_big_the_history(padding: int, role: str) -> None:
    # The same failure on a longer history (another index, another text) is the same way.
    before: list[ChatMessage] = [
        *(UserMessage(content=f"note {i}") for i in range(padding)),
        SystemMessage(content="Be brief."),
    ]
    demoted: list[ChatMessage] = (
        [*before[:-1], UserMessage(content="Be brief.")] if role == "user" else before[:-1]
    )
    found = constraints_preserved.check(before, demoted, Facts(goal="be brief"))
    assert [way_of(v) for v in found.violations] == (
        ["system demoted"] if role == "user" else ["system missing"]
    )
    assert {way_of(v) for v in found.violations} <= set(constraints_preserved.ways)


def test_a_law_s_ways_are_ranked_as_it_declares_them_whatever_was_met_first() -> None:
    declared = constraints_preserved.ways
    assert len(set(declared)) == len(declared)
    met = ["superseded reasserted", "dropped", "system missing"]
    for order in (met, met[::-1]):
        assert sorted(order, key=lambda way: rank(declared, way)) == [
            "system missing",
            "dropped",
            "superseded reasserted",
        ]
    # A kind the law does not declare comes after those it does, then by name: still one order.
    assert sorted(["zeta", "alpha", "dropped"], key=lambda way: rank(declared, way)) == [
        "dropped",
        "alpha",
        "zeta",
    ]
    # A law of one way.
    assert rank((), "") == (0, "")


def test_every_kind_a_law_gives_is_one_it_declares() -> None:
    # Read off each law module's source: every literal kind= it writes is declared by one of
    # the module's laws, and the rulings constraints_preserved passes as kinds are declared too.
    import inspect

    from compactcheck.invariants.catalogue import catalogue
    from compactcheck.invariants.laws.messages.constraints import BROKEN_RULINGS

    modules: dict[str, set[str]] = {}
    for law in catalogue():
        modules.setdefault(law.check.__module__, set()).update(law.ways)
    for name, declared in modules.items():
        source = inspect.getsource(__import__(name, fromlist=["_"]))
        literal = set(re.findall(r'kind="([^"]+)"', source))
        assert literal <= declared, (name, literal - declared)
    assert modules[constraints_preserved.check.__module__]
    assert set(constraints_preserved.ways) >= BROKEN_RULINGS


def test_tool_pairing_tells_an_orphaned_result_from_a_call_that_lost_its_result() -> None:
    calls = {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}
        ],
    }
    result = {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    before = parse_messages([{"role": "user", "content": "go"}, calls, result])
    orphaned = parse_messages([{"role": "user", "content": "go"}, result])
    unanswered = parse_messages([{"role": "user", "content": "go"}, calls])
    facts = Facts(goal="go")
    assert [way_of(v) for v in tool_pairing.check(before, orphaned, facts).violations] == [
        "result without its call"
    ]
    assert [way_of(v) for v in tool_pairing.check(before, unanswered, facts).violations] == [
        "call without its result"
    ]
