"""The shipped JSON Schema files match their models."""

from __future__ import annotations

import json

import jsonschema
import pytest

from compactcheck.reference_engine.golden import DEFAULT_CORPUS, case_files
from compactcheck.schemas import MODELS, generate, render, shipped


@pytest.mark.parametrize("name", sorted(MODELS))
def test_shipped_schema_has_not_drifted_from_its_model(name: str) -> None:
    fresh = generate(name)
    assert shipped(name) == fresh, (
        f"schemas/{name}.json is stale: run `python -m compactcheck.schemas` and commit"
    )
    jsonschema.Draft202012Validator.check_schema(fresh)
    assert render(fresh).endswith("}\n")


def test_golden_states_and_events_validate_against_the_shipped_schemas() -> None:
    state = jsonschema.Draft202012Validator(shipped("agent-state"))
    agent_event = jsonschema.Draft202012Validator(shipped("agent-event"))
    checked = 0
    for path in case_files(DEFAULT_CORPUS):
        for round_ in json.loads(path.read_text())["rounds"]:
            state.validate(round_["state"])
            for item in round_.get("newEvents", []):
                agent_event.validate(item)
                checked += 1
    assert checked > 100


def test_schema_rejects_what_the_model_rejects() -> None:
    validator = jsonschema.Draft202012Validator(shipped("chat-messages"))
    assert validator.is_valid([{"role": "user", "content": "hi"}])
    assert not validator.is_valid([{"role": "robot", "content": "hi"}])
    assert not validator.is_valid([{"role": "tool", "content": "no id"}])
