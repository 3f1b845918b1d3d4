"""Gemini contents survive a trip through google-genai and ADK session events unchanged."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants.formats import parse_request
from compactcheck.invariants.formats.projection import Features, project_format
from compactcheck.strategies import Projected, message_histories, scenarios
from compactcheck.strategies.features import feature_values
from compactcheck.strategies.messages_view import MessageHistory

pytest.importorskip("google.adk", reason="needs the 'google-adk' extra")

from google.adk.flows.llm_flows.context._contents import _get_contents

from compactcheck.adapters.convert_adk import from_genai, to_events, to_genai

# Histories a provider accepts, as the runner draws them by default.
VALID = message_histories(scenarios(late_results=False, pending_calls=False))


def _request(history: Projected[MessageHistory], features: int) -> dict[str, Any]:
    return project_format("gemini", history.view.messages, Features(features))


@settings(max_examples=60, deadline=None)
@given(VALID, feature_values())
def test_generated_contents_round_trip(history: Projected[MessageHistory], features: int) -> None:
    contents = _request(history, features)["contents"]
    assert from_genai(to_genai(contents)) == contents


@settings(max_examples=60, deadline=None)
@given(VALID, feature_values())
def test_adk_builds_the_same_request_from_the_session(
    history: Projected[MessageHistory], features: int
) -> None:
    # With nothing compacted, ADK's own request builder hands the contents back as they were:
    # authors, invocations and client ids are as ADK's runner would have recorded them.
    request = _request(history, features)
    events = to_events(to_genai(request["contents"]), "agent")
    rebuilt = {**request, "contents": from_genai(_get_contents(None, events, "agent"))}
    assert parse_request("gemini", rebuilt) == parse_request("gemini", request)


@given(st.binary(min_size=1, max_size=64))
def test_signatures_stay_in_standard_base64(signature: bytes) -> None:
    import base64

    encoded = base64.b64encode(signature).decode()
    contents = [{"role": "model", "parts": [{"text": "x", "thoughtSignature": encoded}]}]
    assert from_genai(to_genai(contents)) == contents


def test_calls_without_ids_get_client_ids_for_the_session_only() -> None:
    contents = [
        {"role": "user", "parts": [{"text": "Go on."}]},
        {"role": "model", "parts": [{"functionCall": {"name": "f", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "f", "response": {}}}]},
    ]
    events = to_events(to_genai(contents), "agent")
    call, response = events[1].get_function_calls()[0], events[2].get_function_responses()[0]
    assert call.id is not None
    assert call.id.startswith("adk-")
    assert response.id == call.id
    assert [event.author for event in events] == ["user", "agent", "agent"]
    assert from_genai(_get_contents(None, events, "agent")) == contents


def test_fields_genai_does_not_know_are_refused() -> None:
    with pytest.raises(ValueError, match="google-genai"):
        to_genai([{"role": "user", "parts": [{"text": "x", "cacheControl": {}}]}])
