"""The OpenAI Agents SDK's context reducers (openai-agents) as
``openai-agents:tool-output-trimmer``, ``openai-agents:sandbox-compaction`` and
``openai-agents:compaction-session``, in the Responses format the SDK speaks.

The SDK's own input items are Responses input items as JSON dicts, the very shape of our
``openai-responses`` requests, so no conversion is needed: ``input`` is handed over as a deep
copy and the answer's ``input`` is what the SDK would send next; ``instructions`` travel as the
SDK's ``ModelInputData.instructions`` (the trimmer) or unchanged (the others, which never see
them).

- tool-output-trimmer: ``agents.extensions.ToolOutputTrimmer`` called as the
  ``call_model_input_filter`` it is written to be, with a ``CallModelData`` of the input.
- sandbox-compaction: the sandbox ``Compaction`` capability's ``process_context``, which drops
  whatever precedes the last compaction item.
- compaction-session: ``OpenAIResponsesCompactionSession`` over an in-memory ``SQLiteSession``
  holding the input, compacted by ``run_compaction({"force": True})`` through the official
  ``openai`` client on an httpx2 ``MockTransport``: a local stand-in for ``responses.compact`` that
  answers as the API's own type documents (``CompactedResponse.output``: every user message,
  then a single compaction item, whose ``encrypted_content`` is opaque, here a digest of what it
  replaced). The answer is the session's items afterwards. Nothing reaches a network.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- tool-output-trimmer: ``recent_turns`` 2 (the default), 1 or 3; ``max_output_chars`` 500 (the
  default), 100 or 20; ``preview_chars`` 200 (the default), 40 or 0.
- sandbox-compaction and compaction-session: none (a forced compaction in ``input`` mode, the
  mode the SDK resolves without a stored response id).
"""

from __future__ import annotations

import asyncio
import copy
import hashlib
import json
from collections.abc import Mapping
from typing import Any, cast

# The HTTP package the pinned openai client is built on (httpx's successor, the same API).
import httpx2 as httpx
from agents import Agent, SQLiteSession
from agents.extensions import ToolOutputTrimmer
from agents.memory import OpenAIResponsesCompactionSession
from agents.run_config import CallModelData, ModelInputData
from agents.sandbox.capabilities.compaction import Compaction
from openai import AsyncOpenAI

from compactcheck.adapters.adapter import Parameters, Request, RequestAdapter
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.invariants.formats import Format

RESPONSES: Format = "openai-responses"


def _items(request: Request) -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], copy.deepcopy(request.get("input", [])))


class _Sdk(RequestAdapter):
    package = "openai-agents"
    format = RESPONSES

    def _draw(self, request: Request) -> ParameterDraw:
        # The draw is seeded by the wiring of the items, as chat roles are for other adapters.
        wiring = [{"role": str(item.get("type") or item.get("role"))} for item in _items(request)]
        return ParameterDraw(wiring, self.name, self.knobs)


class TrimmerAdapter(_Sdk):
    """``ToolOutputTrimmer`` as a ``call_model_input_filter``."""

    def parameters(self, request: Request) -> Parameters:
        """Recent turns kept, and when and how far an older output is cut."""
        draw = self._draw(request)
        draw.choice("recent_turns", (2, 1, 3))
        draw.choice("max_output_chars", (500, 100, 20))
        draw.choice("preview_chars", (200, 40, 0))
        return draw.drawn

    def apply(self, request: Request, parameters: Parameters) -> Request:
        """The request with the input the filter returns."""
        trimmer = ToolOutputTrimmer(
            recent_turns=cast(int, parameters["recent_turns"]),
            max_output_chars=cast(int, parameters["max_output_chars"]),
            preview_chars=cast(int, parameters["preview_chars"]),
        )
        data = CallModelData[None](
            model_data=ModelInputData(
                input=cast(Any, _items(request)), instructions=request.get("instructions")
            ),
            agent=Agent(name="compactcheck"),
            context=None,
        )
        filtered = trimmer(data)
        answer = {key: value for key, value in request.items() if key != "instructions"}
        answer["input"] = copy.deepcopy(list(filtered.input))
        if filtered.instructions is not None:
            answer["instructions"] = filtered.instructions
        return answer


class SandboxCompaction(_Sdk):
    """The sandbox ``Compaction`` capability's ``process_context``."""

    def parameters(self, request: Request) -> Parameters:
        """No setting changes what the capability keeps."""
        draw = self._draw(request)
        draw.fixed("policy", "default")
        return draw.drawn

    def apply(self, request: Request, parameters: Parameters) -> Request:
        """The request with the context the capability keeps."""
        kept = Compaction().process_context(cast(Any, _items(request)))
        return {**request, "input": copy.deepcopy(list(kept))}


def compact_endpoint(request: httpx.Request) -> httpx.Response:
    """A local ``responses.compact``: every user message, then one opaque compaction item."""
    if not request.url.path.endswith("/responses/compact"):
        return httpx.Response(404, json={"error": {"message": f"no route {request.url.path}"}})
    body = json.loads(request.content)
    items = body.get("input") or []
    kept = [
        item
        for item in items
        if isinstance(item, dict)
        and item.get("role") == "user"
        and item.get("type", "message") == "message"
    ]
    digest = hashlib.sha256(json.dumps(items, sort_keys=True).encode()).hexdigest()
    output = [
        *({"type": "message", **item} for item in kept),
        {"type": "compaction", "id": f"cmp_{digest[:12]}", "encrypted_content": f"fake:{digest}"},
    ]
    usage = {
        "input_tokens": 0,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 0,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 0,
    }
    return httpx.Response(
        200,
        json={
            "id": f"cmp_resp_{digest[:12]}",
            "created_at": 0,
            "object": "response.compaction",
            "output": output,
            "usage": usage,
        },
    )


def fake_client() -> AsyncOpenAI:
    """The official client, answered by ``compact_endpoint`` instead of the network."""
    return AsyncOpenAI(
        api_key="compactcheck-fake-key",
        base_url="http://compactcheck.invalid/v1",
        max_retries=0,
        http_client=httpx.AsyncClient(transport=httpx.MockTransport(compact_endpoint)),
    )


class CompactionSession(_Sdk):
    """``OpenAIResponsesCompactionSession`` forced to compact once, on a fake transport."""

    def parameters(self, request: Request) -> Parameters:
        """The compaction mode (the one the SDK resolves without a stored response)."""
        draw = self._draw(request)
        draw.fixed("compaction_mode", "input")
        return draw.drawn

    def apply(self, request: Request, parameters: Parameters) -> Request:
        """The request with the session's items after the compaction."""

        async def run() -> list[Any]:
            store = SQLiteSession("compactcheck")
            session = OpenAIResponsesCompactionSession(
                "compactcheck", store, client=fake_client(), compaction_mode="input"
            )
            await session.add_items(cast(Any, _items(request)))
            await session.run_compaction({"force": True})
            items = await session.get_items()
            store.close()
            return list(items)

        return {**request, "input": copy.deepcopy(asyncio.run(run()))}


ADAPTERS: Mapping[str, type[RequestAdapter]] = {
    "openai-agents:tool-output-trimmer": TrimmerAdapter,
    "openai-agents:sandbox-compaction": SandboxCompaction,
    "openai-agents:compaction-session": CompactionSession,
}
