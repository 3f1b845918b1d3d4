"""The wire models: camelCase JSON, snake_case Python, frozen, validated."""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from compactcheck.invariants import (
    AgentEvent,
    AgentState,
    AssistantMessage,
    ChatMessage,
    CompactionSnapshot,
    FunctionCall,
    PlanStep,
    SourceEventRange,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    dump_messages,
    parse_messages,
)
from compactcheck.invariants.events import EventType
from compactcheck.strategies import Projected, SnapshotHistory, snapshot_histories


def test_state_round_trips_through_camel_case_json() -> None:
    data = {
        "runId": "r1",
        "task": "ship it",
        "plan": {"steps": [{"id": "a", "status": "pending"}], "acceptanceCriteria": []},
        "changedFiles": ["x.py"],
        "pendingUserInput": {"question": "ok?"},
        "skills": {"activeSkills": {"lint": {"name": "lint"}}},
    }
    state = AgentState.from_json_data(data)
    assert state.changed_files == ("x.py",)
    assert state.pending_user_input is not None
    again = state.to_json_data()
    assert again["changedFiles"] == ["x.py"]
    assert again["skills"]["activeSkills"]["lint"]["name"] == "lint"
    assert AgentState.from_json_data(again) == state


def test_models_are_frozen() -> None:
    step = PlanStep(id="a", status="pending")
    with pytest.raises(ValidationError):
        step.status = "completed"  # type: ignore[misc]


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(ValidationError, match="sneaky"):
        PlanStep.from_json_data({"id": "a", "status": "pending", "sneaky": 1})


def test_source_range_uses_from_on_the_wire() -> None:
    source = SourceEventRange.from_json_data({"from": 3, "to": 9})
    assert (source.from_, source.to) == (3, 9)
    assert source.to_json_data() == {"from": 3, "to": 9}


def test_event_payload_must_carry_its_keys() -> None:
    with pytest.raises(ValidationError, match="callId"):
        AgentEvent.from_json_data(
            {"eventId": "e1", "sequence": 1, "type": "tool_result", "payload": {"output": "x"}}
        )
    with pytest.raises(ValidationError):
        AgentEvent.from_json_data({"eventId": "e1", "sequence": 1, "type": "nonsense"})


def test_snapshot_requires_every_sealed_field() -> None:
    with pytest.raises(ValidationError, match="checksum"):
        CompactionSnapshot.from_json_data(
            {"id": "s", "createdAt": "t", "sourceEventRange": {"from": 1, "to": 2}, "goal": "g"}
        )


def test_chat_messages_validate_roles_and_tool_calls() -> None:
    messages = parse_messages(
        [
            {"role": "system", "content": "be brief"},
            {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "done"},
        ]
    )
    assert [message.role for message in messages] == ["system", "user", "assistant", "tool"]
    with pytest.raises(ValidationError, match="content or tool_calls"):
        parse_messages([{"role": "assistant"}])
    with pytest.raises(ValidationError):
        parse_messages([{"role": "tool", "content": "orphan without an id"}])
    with pytest.raises(ValidationError, match="repeats a tool call id"):
        AssistantMessage.model_validate(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": "c", "function": {"name": "f", "arguments": "{}"}},
                    {"id": "c", "function": {"name": "g", "arguments": "{}"}},
                ],
            }
        )
    with pytest.raises(ValidationError):
        parse_messages([{"role": "robot", "content": "x"}])


@given(
    st.lists(st.text(max_size=20), max_size=5),
    st.lists(st.sampled_from(["pending", "in_progress", "completed", "blocked", "failed"])),
)
def test_state_json_round_trip_is_lossless(files: list[str], statuses: list[str]) -> None:
    data = {
        "runId": "r",
        "task": "t",
        "changedFiles": files,
        "plan": {"steps": [{"id": str(i), "status": s} for i, s in enumerate(statuses)]},
    }
    state = AgentState.from_json_data(data)
    assert AgentState.from_json_data(state.to_json_data()) == state


@given(
    st.sampled_from(["user_input", "tool_result"]),
    st.integers(1, 10),
    st.dictionaries(st.sampled_from(["text", "callId", "output", "isError"]), st.text(max_size=3)),
)
def test_a_trusted_agent_event_is_what_model_construct_builds(
    kind: EventType, sequence: int, payload: dict[str, Any]
) -> None:
    trusted = AgentEvent.trusted(f"ev-{sequence}", sequence, kind, payload)
    constructed = AgentEvent.model_construct(
        event_id=f"ev-{sequence}", sequence=sequence, type=kind, payload=payload
    )
    assert trusted == constructed
    assert trusted.__dict__ == constructed.__dict__
    assert trusted.model_fields_set == constructed.model_fields_set
    assert trusted.__pydantic_extra__ == constructed.__pydantic_extra__
    assert trusted.__pydantic_private__ == constructed.__pydantic_private__
    assert trusted.to_json_data() == constructed.to_json_data()


_TEXTS = st.text(max_size=8)
_CONTENTS = st.one_of(_TEXTS, st.lists(st.builds(TextPart, text=_TEXTS), max_size=3).map(tuple))
_NAMES = st.one_of(st.none(), st.text(min_size=1, max_size=4))
_CALLS = st.lists(
    st.builds(
        ToolCall,
        id=st.text(min_size=1, max_size=4),
        function=st.builds(FunctionCall, name=st.text(min_size=1, max_size=4), arguments=_TEXTS),
    ),
    min_size=1,
    max_size=3,
    unique_by=lambda call: call.id,
)
_CHAT_MESSAGES = st.one_of(
    st.builds(SystemMessage, content=_CONTENTS, name=_NAMES),
    st.builds(UserMessage, content=_CONTENTS, name=_NAMES),
    st.builds(AssistantMessage, content=_CONTENTS, name=_NAMES),
    st.builds(AssistantMessage, tool_calls=_CALLS.map(tuple), content=st.none(), name=_NAMES),
    st.builds(AssistantMessage, tool_calls=_CALLS.map(tuple), content=_CONTENTS),
    st.builds(ToolMessage, tool_call_id=st.text(min_size=1, max_size=4), content=_CONTENTS),
)


@given(st.lists(_CHAT_MESSAGES, max_size=6), st.booleans())
def test_a_message_list_dumps_as_its_messages_dump_one_by_one(
    messages: list[ChatMessage], as_tuple: bool
) -> None:
    # dump_messages serialises the whole list in one call; each dict must be the message's own.
    given_messages = tuple(messages) if as_tuple else messages
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        dumped = dump_messages(given_messages)
    assert dumped == [message.to_json_data() for message in messages]
    assert parse_messages(dumped) == tuple(messages)


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@given(st.dictionaries(st.text(max_size=4), _json_values, max_size=4), st.sampled_from([True, 0]))
def test_wire_data_is_what_model_dump_and_model_validate_make(
    extra: dict[str, Any], answer: object
) -> None:
    # to_json_data and from_json_data call the serializer and validator without pydantic's
    # wrappers; model_dump and model_validate are the oracle.
    payload = {**extra, "text": "t", "callId": "c", "output": answer, "isError": answer}
    event = AgentEvent.from_json_data(
        {"eventId": "e", "sequence": 1, "type": "tool_result", "payload": payload}
    )
    assert event == AgentEvent.model_validate(
        {"eventId": "e", "sequence": 1, "type": "tool_result", "payload": payload}
    )
    data = event.to_json_data()
    assert data == event.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert [type(value) for value in data["payload"].values()] == [
        type(value)
        for value in event.model_dump(mode="json", by_alias=True, exclude_none=True)[
            "payload"
        ].values()
    ]


@given(snapshot_histories())
def test_wire_data_of_a_generated_state_is_what_model_dump_makes(
    projected: Projected[SnapshotHistory],
) -> None:
    state = projected.view.state
    data = state.to_json_data()
    assert data == state.model_dump(mode="json", by_alias=True, exclude_none=True)
    assert AgentState.from_json_data(data) == AgentState.model_validate(data) == state


def test_invalid_wire_data_is_rejected_as_model_validate_rejects_it() -> None:
    bad = {"eventId": "e", "sequence": "x", "type": "tool_result", "payload": {}}
    with pytest.raises(ValidationError) as ours:
        AgentEvent.from_json_data(bad)
    with pytest.raises(ValidationError) as oracle:
        AgentEvent.model_validate(bad)
    assert ours.value.errors() == oracle.value.errors()
