"""The shapes a history's client gives its messages, and the content forms a target declines."""

from __future__ import annotations

from dataclasses import fields

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from compactcheck.invariants import UserMessage
from compactcheck.invariants.messages import ImagePart
from compactcheck.strategies import Scenario, scenarios
from compactcheck.strategies.messages_view import project_messages
from compactcheck.strategies.shapes import CONTENT_FORMS, SHAPE_RANGE, Shapes, without

_VALUES = st.integers(0, SHAPE_RANGE - 1)
_FORMS = st.sets(st.sampled_from(CONTENT_FORMS))


@given(_VALUES, _FORMS)
def test_a_declined_form_is_off_and_every_other_shape_is_as_drawn(
    value: int, forms: set[str]
) -> None:
    drawn, kept = Shapes.of(value), Shapes.of(without(value, forms))
    for shape in fields(Shapes):
        expected = False if shape.name in forms else getattr(drawn, shape.name)
        assert getattr(kept, shape.name) == expected, shape.name


def test_every_content_form_is_a_shape() -> None:
    assert set(CONTENT_FORMS) <= {shape.name for shape in fields(Shapes)}


def test_a_name_that_is_no_content_form_is_refused() -> None:
    with pytest.raises(ValueError, match="no content form named"):
        without(1, {"plan_tool"})


@settings(max_examples=40, deadline=None)
@given(scenarios(unsent=("image", "names", "null_content")))
def test_no_history_of_scenarios_with_unsent_forms_takes_them(scenario: Scenario) -> None:
    for message in project_messages(scenario).messages:
        assert not isinstance(message, UserMessage) or message.name is None
        assert not ("content" in message.model_fields_set and message.content is None)
        if isinstance(message.content, tuple):
            assert not any(isinstance(part, ImagePart) for part in message.content)


def test_scenarios_refuse_an_unsent_name_that_is_no_content_form() -> None:
    with pytest.raises(ValueError, match="names no content form"):
        scenarios(unsent=("plan_tool",))
