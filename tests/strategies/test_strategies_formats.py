"""Every history in every provider format is one its provider accepts, and reads back as itself."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import AssistantMessage, ToolMessage, UserMessage
from compactcheck.invariants.formats import FORMATS, Format, parse_request, read
from compactcheck.invariants.formats.conversion import ConversionError, convert
from compactcheck.invariants.formats.projection import FORMAT_FEATURES, Features, project_format
from compactcheck.invariants.laws.messages.provider_rules import provider_problems
from compactcheck.strategies.features import failed_calls, feature_values
from compactcheck.strategies.messages_view import project_messages
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.scenarios import scenarios
from compactcheck.strategies.statistics import format_statistics_of

NATIVE: tuple[Format, ...] = ("anthropic", "openai-responses", "gemini")
VALID = scenarios(late_results=False, pending_calls=False)


def _projected(scenario: Scenario, value: int, format: Format) -> dict[str, Any]:
    messages = project_messages(scenario).messages
    return project_format(format, messages, Features(value), failed_calls(scenario))


@pytest.mark.parametrize("format", NATIVE)
@settings(max_examples=150, deadline=None)
@given(scenario=VALID, value=feature_values())
def test_every_projection_is_one_its_provider_accepts(
    format: Format, scenario: Scenario, value: int
) -> None:
    request = _projected(scenario, value, format)
    assert provider_problems(format, request) == []


@pytest.mark.parametrize("format", NATIVE)
@settings(max_examples=60, deadline=None)
@given(scenario=scenarios(late_results=False, pending_calls=True), value=feature_values())
def test_calls_left_without_results_are_rejected_in_every_format(
    format: Format, scenario: Scenario, value: int
) -> None:
    # --malformed pending-calls: the history ends on calls whose results have not arrived,
    # which every provider rejects (a late result, by contrast, can be valid: Anthropic and
    # Gemini join the assistant turns around it).
    native = provider_problems(format, _projected(scenario, value, format))
    assert bool(native) == (scenario.pending_batch is not None), native


@pytest.mark.parametrize("format", ["anthropic", "openai-responses"])
@settings(max_examples=100, deadline=None)
@given(scenario=VALID, value=feature_values())
def test_a_projection_reads_back_as_the_chat_history_it_came_from(
    format: Format, scenario: Scenario, value: int
) -> None:
    messages = project_messages(scenario).messages
    request = parse_request(format, _projected(scenario, value, format))
    assert read(request) == messages


@settings(max_examples=100, deadline=None)
@given(scenario=VALID, value=feature_values())
def test_a_gemini_projection_reads_back_with_the_same_turns_calls_and_results(
    scenario: Scenario, value: int
) -> None:
    # Gemini joins consecutive assistant messages into one model turn; nothing else changes.
    messages = project_messages(scenario).messages
    reading = read(parse_request("gemini", _projected(scenario, value, "gemini")))

    def users(items: Any) -> list[Any]:
        return [m for m in items if isinstance(m, UserMessage)]

    def calls(items: Any) -> list[tuple[str, str]]:
        return [
            (call.function.name, call.function.arguments)
            for m in items
            if isinstance(m, AssistantMessage)
            for call in m.tool_calls or ()
        ]

    def results(items: Any) -> list[str]:
        return [str(m.content) for m in items if isinstance(m, ToolMessage)]

    assert users(reading) == users(messages)
    assert calls(reading) == calls(messages)
    assert results(reading) == results(messages)


def test_every_format_feature_is_drawn_often_enough() -> None:
    statistics = format_statistics_of(300)
    assert statistics.rare(0.05) == []
    assert set(statistics.features) == set(FORMAT_FEATURES)


@settings(max_examples=60, deadline=None)
@given(scenario=VALID, source=st.sampled_from(FORMATS), target=st.sampled_from(FORMATS))
def test_converters_round_trip_where_the_formats_overlap(
    scenario: Scenario, source: Format, target: Format
) -> None:
    # A history without any format's own parts (features 0) in the source format; a Gemini
    # source, whose model turns are joined already, comes back as it was through any format.
    start = project_format(source, project_messages(scenario).messages, Features(0))
    if source == "gemini" or target != "gemini":
        there = convert(start, source, target)
        assert convert(there, target, source) == start


@pytest.mark.parametrize("format", NATIVE)
def test_a_converter_refuses_what_the_target_format_has_no_place_for(format: Format) -> None:
    scenario = next(iter([_first_with_calls()]))
    request = _projected(scenario, 0b111111111111111, format)
    with pytest.raises(ConversionError, match="without losing"):
        convert(request, format, "openai-chat")


def _first_with_calls() -> Scenario:
    found: list[Scenario] = []

    @settings(max_examples=50, deadline=None, database=None)
    @given(VALID)
    def look(scenario: Scenario) -> None:
        if not found and any(scenario.batches()):
            found.append(scenario)

    look()
    return found[0]
