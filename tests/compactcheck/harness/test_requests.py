"""The requests the drivers build are protocol v1 by construction.

``compact_request`` does not check a request against the schema on the way out (it would cost a
harness round trip's worth of time on every call); these tests are that check instead: every
view's driver, over generated cases in every wire format, hands a harness only lines the shipped
request schema and the request models accept.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from compactcheck.backends.lines import compact_request
from compactcheck.backends.protocol import COMPACT_REQUESTS
from compactcheck.base.backend import Answer
from compactcheck.base.implementation import Implementation
from compactcheck.harness import (
    Case,
    MessagesDriver,
    SessionDriver,
    SnapshotDriver,
    backend_session_compactor,
    backend_snapshot_frame,
    cases,
)
from compactcheck.invariants import View
from compactcheck.invariants.formats import FORMATS, Format
from compactcheck.schemas import shipped

_SCHEMA = jsonschema.Draft202012Validator(shipped("protocol-compact-request"))


class RecordingBackend:
    """A backend in another process, as the drivers see it: it answers the messages view with
    its input unchanged, declines the others, and checks every line it would send."""

    sends_copies = True

    def __init__(self) -> None:
        self.lines = 0

    @property
    def implementation(self) -> Implementation:
        return Implementation(name="recording", views=["messages", "snapshot", "session"])

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        self.lines += 1
        line = compact_request(view, self.lines, payload)
        _SCHEMA.validate(json.loads(line))
        COMPACT_REQUESTS[view].model_validate_json(line)
        if view != "messages":
            return Answer.skip("recording only answers the messages view")
        if "request" in payload:
            return Answer.ok({"request": payload["request"]})
        return Answer.ok({"messages": payload["messages"]})

    def stderr_tail(self) -> str:
        return ""

    def close(self) -> None:
        """Nothing to release."""


@pytest.mark.parametrize("format", FORMATS)
@settings(max_examples=20, deadline=None)
@given(data=st.data())
def test_messages_requests_are_valid_in_every_format(format: Format, data: st.DataObject) -> None:
    case = data.draw(cases(3, "messages", format=format))
    backend = RecordingBackend()
    outcomes = MessagesDriver(backend, format=format).run(case)
    assert backend.lines == len(outcomes) >= 1
    assert all(outcome.answered for outcome in outcomes), [o.reason for o in outcomes]


@settings(max_examples=20, deadline=None)
@given(cases(1, "session"))
def test_session_requests_are_valid(case: Case) -> None:
    backend = RecordingBackend()
    SessionDriver(backend_session_compactor(backend)).run(case)
    assert backend.lines == 1


@settings(max_examples=20, deadline=None)
@given(cases(2, "snapshot"))
def test_snapshot_requests_are_valid(case: Case) -> None:
    backend = RecordingBackend()
    SnapshotDriver(backend_snapshot_frame(backend)).run(case)
    # A run whose events never call for a compaction sends nothing: not an example of this.
    assume(backend.lines >= 1)
