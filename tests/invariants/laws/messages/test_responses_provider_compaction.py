"""The Responses laws on the compaction item ``responses.compact`` returns, and on forged ones."""

from __future__ import annotations

from typing import Any

from compactcheck.invariants import Facts
from compactcheck.invariants.catalogue import ALL_FORMATS, catalogue
from compactcheck.invariants.formats import parse_request
from compactcheck.invariants.verdict import Finding

Item = dict[str, Any]

FACTS = Facts(goal="Goal: fix the bug")
LAWS = ("responses_item_ids_issued", "responses_opaque_items_carried")


def _check(law_id: str, before: list[Item], after: list[Item]) -> Finding:
    # A format law judges the parsed requests; the catalogue types its laws by the messages view.
    [law] = [law for law in catalogue("messages", ALL_FORMATS) if law.id == law_id]
    judge: Any = law.check
    finding: Finding = judge(
        parse_request("openai-responses", {"input": before}),
        parse_request("openai-responses", {"input": after}),
        FACTS,
    )
    return finding


DEVELOPER: Item = {"type": "message", "role": "developer", "content": "Use uv."}
USER: Item = {"type": "message", "role": "user", "content": "Goal: fix the bug"}
REASONING: Item = {
    "type": "reasoning",
    "id": "rs_1",
    "summary": [],
    "encrypted_content": "gAAA" * 8,
}
ANSWER: Item = {
    "type": "message",
    "role": "assistant",
    "id": "msg_1",
    "content": [{"type": "output_text", "text": "Fixed."}],
}
ISSUED: Item = {"type": "compaction", "id": "cmp_e286d0a3", "encrypted_content": "gAAAAABpZ" * 4}


def test_the_compaction_item_the_provider_issued_is_neither_a_forged_id_nor_a_forged_item() -> None:
    # What OpenAIResponsesCompactionSession stores after responses.compact: the user messages,
    # then the one compaction item the endpoint returned for them.
    for before in ([DEVELOPER, USER], [USER, REASONING, ANSWER]):
        for law_id in LAWS:
            finding = _check(law_id, before, [USER, ISSUED])
            assert finding.exercised, law_id
            assert finding.holds, (law_id, finding.violations)
    # A second round replaces the first round's compaction item with a new one.
    older: Item = {**ISSUED, "id": "cmp_0ld", "encrypted_content": "gAAAAABold" * 4}
    for law_id in LAWS:
        assert _check(law_id, [USER, older, ANSWER], [USER, ISSUED]).holds, law_id


def test_compaction_items_the_provider_never_returns_are_still_forged() -> None:
    before = [USER, REASONING, ANSWER]
    forged: dict[str, Item] = {
        "an id of the compactor's making": {**ISSUED, "id": "summary-1"},
        "an input item's id": {**ISSUED, "id": "rs_1"},
        "an input item's payload": {**ISSUED, "encrypted_content": REASONING["encrypted_content"]},
        "no payload": {**ISSUED, "encrypted_content": ""},
    }
    for what, item in forged.items():
        assert not _check("responses_opaque_items_carried", before, [USER, item]).holds, what
    assert not _check(
        "responses_item_ids_issued", before, [USER, forged["an id of the compactor's making"]]
    ).holds
    second: Item = {**ISSUED, "id": "cmp_2", "encrypted_content": "gAAAAABtwo" * 4}
    for law_id in LAWS:
        assert not _check(law_id, before, [USER, ISSUED, second]).holds, law_id
    # An input compaction item edited in place keeps its id but not its payload.
    edited: Item = {**ISSUED, "encrypted_content": ISSUED["encrypted_content"][:-4]}
    assert not _check("responses_opaque_items_carried", [USER, ISSUED], [USER, edited]).holds
    # A summary message given an id of its own making (the mutant) is still caught.
    summary: Item = {"type": "message", "role": "user", "id": "msg_summary", "content": "Summary"}
    assert not _check("responses_item_ids_issued", before, [summary, ISSUED]).holds
