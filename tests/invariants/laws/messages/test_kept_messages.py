"""Compactors that summarise as real ones do: several spans, a summary in the system prompt,
results pruned to placeholders. Each is judged by the one law it may break, and only once."""

from __future__ import annotations

import json
from typing import Any

import compactcheck
from compactcheck.invariants.catalogue import select
from compactcheck.invariants.facts import Facts
from compactcheck.invariants.fidelity import messages_fidelity
from compactcheck.invariants.levels import level_of
from compactcheck.invariants.messages import parse_messages
from compactcheck.invariants.verdict import Finding

Message = dict[str, Any]

SYSTEM = {"role": "system", "content": "You are a coding agent.\nConstraints:\n- [c1] Use uv"}
GOAL = {"role": "user", "content": "Goal: fix the login bug"}
FACTS = Facts(goal="fix the login bug", constraints=("Use uv",))


def call(call_id: str, path: str) -> Message:
    arguments = json.dumps({"path": path})
    function = {"name": "read_file", "arguments": arguments}
    tool_call = {"id": call_id, "type": "function", "function": function}
    return {"role": "assistant", "tool_calls": [tool_call]}


def result(call_id: str, text: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


def text(role: str, content: str) -> Message:
    return {"role": role, "content": content}


# Three turns of tool work, then the current turn: 0 system, 1 goal, 2..7 old tool groups,
# 8 "Go on.", 9..10 the current step, 11 the answer.
HISTORY: list[Message] = [
    SYSTEM,
    GOAL,
    call("call_1", "a.py"),
    result("call_1", "def a(): " + "x" * 200),
    text("user", "Go on."),
    call("call_2", "b.py"),
    result("call_2", "def b(): " + "y" * 200),
    text("assistant", "Read b.py."),
    text("user", "Go on."),
    call("call_3", "c.py"),
    result("call_3", "def c(): ..."),
    text("assistant", "Done."),
]


def check(law: str, after: list[Message], before: list[Message] = HISTORY) -> Finding:
    (found,) = select("messages", [law])
    return found.check(parse_messages(before), parse_messages(after), FACTS)


def test_an_honest_summary_of_dropped_groups_is_no_worse_than_dropping_them() -> None:
    # The same code, once silent, once with a summary of what it dropped, around the kept
    # "Go on." (input 4): the summary replaces 2..3 and 5..7, which are not contiguous.
    silent = [SYSTEM, GOAL, HISTORY[4], *HISTORY[8:]]
    summary = text("user", "Summary: read a.py and b.py.")
    honest = [SYSTEM, GOAL, summary, HISTORY[4], *HISTORY[8:]]
    assert check("order_preserved", silent).holds
    finding = check("order_preserved", honest)
    assert finding.exercised
    assert finding.holds, finding.violations


def test_one_summary_per_compacted_span_keeps_the_order() -> None:
    # ADK writes one summary per compacted invocation; Haystack one before and one after the
    # kept current-turn message.
    per_span = [
        SYSTEM,
        GOAL,
        text("assistant", "Summary of invocation 1"),
        HISTORY[4],
        text("assistant", "Summary of invocation 2"),
        *HISTORY[8:],
    ]
    assert check("order_preserved", per_span).holds
    adjacent = [SYSTEM, GOAL, text("user", "S1"), text("user", "S2"), *HISTORY[8:]]
    assert check("order_preserved", adjacent).holds


def test_a_summary_merged_into_the_system_message_keeps_order_and_constraints() -> None:
    # A rolling-summary memory rewrites the system prompt to hold its summary, keeping the
    # constraint word for word but not the prompt's text as it was.
    merged = text(
        "system",
        "You are a coding agent. Conversation so far: read a.py and b.py.\n- [c1] Use uv",
    )
    after = [merged, GOAL, *HISTORY[8:]]
    for law in ("order_preserved", "constraints_preserved", "kept_messages_verbatim"):
        assert check(law, after).holds, (law, check(law, after).violations)


def test_a_prompt_without_current_constraints_may_be_reworded_line_by_line() -> None:
    # Its one constraint was superseded, so the prompt's lines are what must survive: read as
    # facts are read, a reworded line keeps them; the exact reading asks for the exact lines.
    before = [SYSTEM, GOAL, *HISTORY[2:]]
    reworded = text("system", "You are a coding agent.\nConstraints:\n- [c1] Use (rule) uv")
    after = [reworded, GOAL, *HISTORY[8:]]
    superseded = Facts(goal="fix the login bug", superseded_constraints=("Use uv",))
    (law,) = select("messages", ["constraints_preserved"])
    assert law.check(parse_messages(before), parse_messages(after), superseded).holds
    exact = superseded.model_copy(update={"reading": "verbatim"})
    assert not law.check(parse_messages(before), parse_messages(after), exact).holds


def test_a_rewritten_system_prompt_that_demotes_its_constraint_is_named_once() -> None:
    rewritten = text("system", "You are a coding agent. Summary: read a.py.")
    demoted = text("user", "Remember: [c1] Use uv")
    finding = check("constraints_preserved", [rewritten, GOAL, demoted, *HISTORY[8:]])
    assert [v.because for v in finding.violations] == [
        "the system message at input index 0 was rewritten without its constraint 'Use uv', "
        "which only a non-system message still says"
    ]
    lost = check("constraints_preserved", [rewritten, GOAL, *HISTORY[8:]])
    assert [v.because for v in lost.violations] == [
        "current constraint 'Use uv' (input index 0) is missing from the output"
    ]


def test_a_placeholder_result_breaks_only_its_own_waivable_law() -> None:
    # Haystack's tool-result pruning and LangChain's ClearToolUsesEdit: the result keeps its
    # call id, its text becomes a placeholder.
    placeholder = result("call_1", "[pruned: call read_file again]")
    after = [*HISTORY[:3], placeholder, *HISTORY[4:]]
    for law in ("order_preserved", "kept_messages_verbatim", "tool_pairing"):
        assert check(law, after).holds, law
    finding = check("tool_results_unpruned", after)
    assert [v.because for v in finding.violations] == [
        "the tool result call_1 at output index 3 was pruned from 209 to 30 characters "
        "(input index 3)"
    ]
    # Level 3: the provider takes it and the agent can call the tool again; a compactor that
    # prunes by design may waive it.
    assert level_of("tool_results_unpruned") == 3


def test_pruned_result_text_is_measured() -> None:
    placeholder = result("call_1", "[pruned]")
    after = [*HISTORY[:3], placeholder, *HISTORY[4:]]
    measured = messages_fidelity(1, parse_messages(HISTORY), parse_messages(after), FACTS)
    assert measured.pruned.present == 209 + 209 + 12
    # A placeholder that shares no word with the result took the place of all of its text.
    assert measured.pruned.kept == 209
    assert measured.share("pruned") == 209 / (209 + 209 + 12)
    # A result cut short lost what was cut.
    truncated = [*HISTORY[:3], result("call_1", "def a(): " + "x" * 50), *HISTORY[4:]]
    cut = messages_fidelity(1, parse_messages(HISTORY), parse_messages(truncated), FACTS)
    assert cut.pruned.kept == 150
    whole = messages_fidelity(1, parse_messages(HISTORY), parse_messages(HISTORY), FACTS)
    assert whole.share("pruned") == 0.0


def test_a_kept_call_with_changed_arguments_breaks_the_verbatim_law_not_the_order() -> None:
    edited = call("call_2", "elsewhere.py")
    after = [*HISTORY[:5], edited, *HISTORY[6:]]
    assert check("order_preserved", after).holds
    finding = check("kept_messages_verbatim", after)
    assert [v.because for v in finding.violations] == [
        "the assistant call call_2 at output index 5 changed its content from input index 5"
    ]
    assert level_of("kept_messages_verbatim") == 2
    # A result rewritten to a longer text is a changed message, not a placeholder.
    longer = [*HISTORY[:10], result("call_3", "def c(): ... and more"), HISTORY[11]]
    assert not check("kept_messages_verbatim", longer).holds
    assert check("tool_results_unpruned", longer).holds


def test_a_placeholder_longer_than_a_short_result_is_still_a_placeholder() -> None:
    # "def c(): ..." (12 characters) cleared to a longer note that shares none of its words.
    cleared = [*HISTORY[:10], result("call_3", "[result pruned to save context]"), HISTORY[11]]
    assert check("kept_messages_verbatim", cleared).holds
    finding = check("tool_results_unpruned", cleared)
    assert [v.because for v in finding.violations] == [
        "the tool result call_3 at output index 10 was replaced by a placeholder of 31 "
        "characters (its 12 were the result) (input index 10)"
    ]
    # A note that rewords the result ("def c(): pass") is an edit of it, judged as one.
    reworded = [*HISTORY[:10], result("call_3", "def c(): pass"), HISTORY[11]]
    assert not check("kept_messages_verbatim", reworded).holds
    assert check("tool_results_unpruned", reworded).holds


def test_kept_messages_out_of_order_still_break_order() -> None:
    swapped = [SYSTEM, GOAL, HISTORY[7], HISTORY[4], *HISTORY[8:]]
    assert not check("order_preserved", swapped).holds
    summary_on_top = [text("user", "Summary"), SYSTEM, GOAL, *HISTORY[8:]]
    assert not check("order_preserved", summary_on_top).holds


def test_repeated_identical_texts_are_new_messages_not_moved_ones() -> None:
    note = text("assistant", "Skipped earlier messages.")
    before = [SYSTEM, GOAL, note, text("user", "one"), text("user", "two"), text("user", "go")]
    after = [SYSTEM, GOAL, note, note, text("user", "go")]
    assert check("order_preserved", after, before).holds


def test_a_dropped_parallel_result_is_one_violation() -> None:
    # One cause (call_2's result dropped beside a summary of the message before the calls), one
    # violation: the order law does not also name a span the summary did not cover.
    calls = {
        "role": "assistant",
        "tool_calls": [
            {"id": i, "type": "function", "function": {"name": n, "arguments": "{}"}}
            for i, n in (("call_1", "read_file"), ("call_2", "grep"))
        ],
    }
    before = [
        SYSTEM,
        GOAL,
        text("assistant", "Looking."),
        calls,
        result("call_1", "def login(): ..."),
        result("call_2", "3 matches"),
        text("user", "Go on."),
        text("assistant", "Done."),
    ]
    after = [SYSTEM, GOAL, text("user", "Summary: Looking."), *before[3:5], *before[6:]]
    judgement = compactcheck.check(before, after)
    assert [v.invariant for v in judgement.violations] == ["tool_pairing"]
