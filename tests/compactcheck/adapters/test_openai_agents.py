"""The OpenAI Agents SDK's reducers on a known Responses history; responses.compact answered by
a local transport."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from compactcheck.adapters import ADAPTERS, MissingExtraError
from compactcheck.invariants.formats.conversion import convert
from tests.compactcheck.adapters.frameworks_history import HISTORY

LONG = "x = 1\n" * 100
# The first tool result is long enough for the trimmer to cut.
REQUEST: dict[str, Any] = convert(
    [*HISTORY[:3], {**HISTORY[3], "content": LONG}, *HISTORY[4:]], "openai-chat", "openai-responses"
)
ITEMS: list[dict[str, Any]] = REQUEST["input"]


def _apply(name: str, parameters: dict[str, Any], request: dict[str, Any] = REQUEST) -> Any:
    pytest.importorskip("agents", reason="needs the 'openai-agents' extra")
    from compactcheck.adapters.openai_agents_compaction import ADAPTERS as KINDS

    return KINDS[name](name).apply(request, parameters)


def test_the_targets_are_registered_in_the_responses_format() -> None:
    names = sorted(name for name in ADAPTERS if name.startswith("openai-agents:"))
    assert names == [
        "openai-agents:compaction-session",
        "openai-agents:sandbox-compaction",
        "openai-agents:tool-output-trimmer",
    ]
    pytest.importorskip("agents", reason="needs the 'openai-agents' extra")
    for name in names:
        backend = ADAPTERS[name](timeout=30.0, budget=None)
        assert backend.implementation.formats == ["openai-responses"]


def test_the_trimmer_cuts_an_older_output_to_its_preview() -> None:
    parameters = {"recent_turns": 1, "max_output_chars": 100, "preview_chars": 10}
    answer = _apply("openai-agents:tool-output-trimmer", parameters)
    assert answer["instructions"] == "Be careful."
    assert answer["input"][:2] == ITEMS[:2]
    assert answer["input"][3:] == ITEMS[3:]
    trimmed = answer["input"][2]
    assert trimmed["call_id"] == "c1"
    assert trimmed["output"].startswith("[Trimmed: read_file output")
    assert trimmed["output"].endswith(LONG[:10] + "...")


def test_the_sandbox_capability_drops_what_precedes_the_last_compaction_item() -> None:
    marker = {"type": "compaction", "id": "cmp_1", "encrypted_content": "opaque"}
    request = {**REQUEST, "input": [*ITEMS[:4], marker, *ITEMS[4:]]}
    answer = _apply("openai-agents:sandbox-compaction", {"policy": "default"}, request)
    assert answer["input"] == [marker, *ITEMS[4:]]
    # Without a compaction item it keeps everything.
    assert _apply("openai-agents:sandbox-compaction", {"policy": "default"}) == REQUEST


def test_the_session_keeps_the_user_messages_and_the_compaction_item_it_was_answered() -> None:
    answer = _apply("openai-agents:compaction-session", {"compaction_mode": "input"})
    users = [item for item in ITEMS if item.get("role") == "user"]
    assert answer["instructions"] == "Be careful."
    assert answer["input"][: len(users)] == users
    (compacted,) = answer["input"][len(users) :]
    assert compacted["type"] == "compaction"
    assert compacted["encrypted_content"].startswith("fake:")


def test_the_fake_endpoint_answers_only_responses_compact() -> None:
    pytest.importorskip("agents", reason="needs the 'openai-agents' extra")
    import httpx2 as httpx

    from compactcheck.adapters.openai_agents_compaction import compact_endpoint

    elsewhere = httpx.Request("POST", "http://compactcheck.invalid/v1/responses", json={})
    assert compact_endpoint(elsewhere).status_code == 404
    request = httpx.Request(
        "POST", "http://compactcheck.invalid/v1/responses/compact", json={"input": ITEMS}
    )
    output = compact_endpoint(request).json()["output"]
    assert [item.get("role") or item["type"] for item in output] == ["user", "user", "compaction"]


def test_a_missing_extra_is_one_line_naming_it(monkeypatch: pytest.MonkeyPatch) -> None:
    for module in [m for m in sys.modules if m == "agents" or m.startswith("agents.")]:
        monkeypatch.setitem(sys.modules, module, None)
    monkeypatch.setitem(sys.modules, "agents", None)
    monkeypatch.delitem(
        sys.modules, "compactcheck.adapters.openai_agents_compaction", raising=False
    )
    with pytest.raises(MissingExtraError, match=r"pip install -e '\.\[openai-agents\]'"):
        ADAPTERS["openai-agents:tool-output-trimmer"](timeout=1.0, budget=None)
