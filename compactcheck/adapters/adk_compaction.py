"""Google ADK's events compaction (google-adk) as ``google-adk:events-compaction`` (the sliding
window) and ``google-adk:token-threshold``, both in the Gemini format ADK's provider path speaks.

Each call replays the request's ``contents`` as one ADK session (``convert_adk.to_events``) on an
``InMemorySessionService``, doing what ADK's runner and LLM flow do as a session grows: after
each completed invocation (a new user turn arrives), the runner's post-invocation compaction
(``apps.compaction._run_compaction_for_sliding_window``, which tries the token threshold first);
before each model turn, and before the request being built, the flow's compaction request
processor (``_run_compaction_for_token_threshold_config``, with the processor's own arguments).
The answer's ``contents`` are those ADK would send next,
``flows.llm_flows.context._contents._get_contents``, and every other field of the request
(``systemInstruction``: ADK keeps it on the agent, outside the session) is carried unchanged.
Each call is a fresh session: an earlier round's summary arrives as a model turn, as the
request showed it, not as ADK's compaction event.

These three functions are private to ADK; the adapter pins google-adk 2.13.0 (google-genai
2.34.0), whose behaviour the published report records, and may need changes with another.

Offline: compaction summaries come from ADK's own ``LlmEventSummarizer`` over ``EchoLlm``, a
local ``BaseLlm`` that answers with the conversation ADK's prompt holds (the text after its
instruction), word for word, or over the run's model (``--model``, as ``ModelLlm``: metered and
recorded); with the echo, whatever a summary lacks, ADK did not show it (ADK itself cuts
tool arguments and responses to 2,000 characters in that prompt). Experimental-feature warnings
are suppressed through ADK's own switch, ``ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS``.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- events-compaction: ``compaction_interval`` 1 to 3 new invocations, ``overlap_size`` 0 to 2.
- token-threshold: ``token_threshold`` 25 %, 50 % or 75 % of ADK's own estimate of the whole
  request's prompt tokens (characters / 4), so that it is passed on the way;
  ``event_retention_size`` 2, 0 or 5 raw events kept. A declared ``--budget`` is not used:
  neither trigger is a size limit.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator, Mapping
from typing import Any, cast

# ADK reads this when an experimental class is used: no warning on every call.
os.environ["ADK_SUPPRESS_EXPERIMENTAL_FEATURE_WARNINGS"] = "true"

from google.adk.agents.llm_agent import LlmAgent
from google.adk.apps.app import App, EventsCompactionConfig
from google.adk.apps.compaction import (
    _estimate_prompt_token_count,
    _run_compaction_for_sliding_window,
    _run_compaction_for_token_threshold_config,
)
from google.adk.apps.llm_event_summarizer import LlmEventSummarizer
from google.adk.events.event import Event
from google.adk.flows.llm_flows.context._contents import _get_contents
from google.adk.models._capabilities import LlmCapabilities
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.sessions.in_memory_session_service import InMemorySessionService
from google.adk.sessions.session import Session
from google.genai import types

from compactcheck.adapters.adapter import Adapter, Parameters, Request, RequestAdapter
from compactcheck.adapters.convert_adk import from_genai, to_events, to_genai
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.models.meter import MeteredModel
from compactcheck.models.request import ModelRequest, Turn

# ADK's post-invocation token check measures the session for agent "" (the runner passes no
# name), so the agent's own calls read as another agent's and this logger warns, on every call,
# of calls it drops from that estimate; the request itself is built for the agent by name.
logging.getLogger("google_adk.google.adk.flows.llm_flows.tools._rearranger").setLevel(logging.ERROR)

AGENT = "compactcheck_agent"
APP = "compactcheck"
FRACTIONS = (0.25, 0.5, 0.75)

# What ADK's summary prompt says before the conversation it holds.
_INSTRUCTION = LlmEventSummarizer._DEFAULT_PROMPT_TEMPLATE.split("{conversation_history}")[0]


class _LocalLlm(BaseLlm):
    """An ADK model of ours: its capabilities declared outright, so that ADK does not fall back
    to guessing them from the name."""

    @property
    def capabilities(self) -> LlmCapabilities:
        """No output schema, no tools: a summariser needs neither."""
        return LlmCapabilities(output_schema_and_tools=False)


class EchoLlm(_LocalLlm):
    """A local model whose answer is the conversation of the summary prompt it is handed."""

    model: str = "compactcheck-echo"

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """One answer: the prompt's conversation, word for word."""
        del stream
        last = llm_request.contents[-1] if llm_request.contents else None
        prompt = "".join(part.text or "" for part in (last.parts or [])) if last else ""
        said = prompt.removeprefix(_INSTRUCTION)
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=said)]))


class ModelLlm(_LocalLlm):
    """An ADK model answered by the run's model (``--model``): ADK's summary prompt becomes a
    model request (the request's system instruction its system text, each content a turn), so
    that the call is metered, recorded and replayed like any other. A refused call raises, and
    the adapter makes the round inconclusive."""

    model: str = "compactcheck-model"
    slot: Any = None
    """The MeteredModel that answers (typed loosely: pydantic cannot check it)."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """One answer: the run's model's, to ADK's prompt."""
        del stream
        instruction = llm_request.config.system_instruction if llm_request.config else None
        system = instruction if isinstance(instruction, str) else ""
        turns = tuple(
            Turn(
                role="assistant" if content.role == "model" else "user",
                text="".join(part.text or "" for part in (content.parts or [])),
            )
            for content in llm_request.contents
        )
        answering: MeteredModel = self.slot
        said = answering.answer(ModelRequest(system=system, turns=turns))
        yield LlmResponse(content=types.Content(role="model", parts=[types.Part(text=said)]))


def _opens_invocation(event: Event) -> bool:
    return event.author == "user"


async def _after_invocation(app: App, session: Session, service: InMemorySessionService) -> None:
    # The runner's post-invocation compaction appends what it yields.
    async for compaction in _run_compaction_for_sliding_window(app, session, service):
        await service.append_event(session=session, event=compaction)


async def _before_request(
    config: EventsCompactionConfig,
    agent: LlmAgent,
    session: Session,
    service: InMemorySessionService,
) -> None:
    # What the flow's CompactionRequestProcessor runs before each model call.
    await _run_compaction_for_token_threshold_config(
        config=config,
        session=session,
        session_service=service,
        agent=agent,
        agent_name=AGENT,
        current_branch=None,
    )


async def next_request_contents(
    contents: list[types.Content], config: EventsCompactionConfig
) -> list[types.Content]:
    """The contents ADK sends next, after the session of ``contents`` ran with ``config``."""
    agent = LlmAgent(name=AGENT, model=EchoLlm())
    app = App(name=APP, root_agent=agent, events_compaction_config=config)
    service = InMemorySessionService()
    session = await service.create_session(app_name=APP, user_id="user", session_id="session")
    for event in to_events(contents, AGENT):
        if _opens_invocation(event) and session.events:
            await _after_invocation(app, session, service)
        if event.content is not None and event.content.role == "model":
            await _before_request(config, agent, session, service)
        await service.append_event(session=session, event=event)
    await _before_request(config, agent, session, service)
    return _get_contents(None, session.events, AGENT)


class _Adk(RequestAdapter):
    package = "google-adk"
    format = "gemini"

    def _summarizer(self) -> LlmEventSummarizer:
        llm = EchoLlm() if self.model is None else ModelLlm(slot=self.model)
        return LlmEventSummarizer(llm=llm)

    def _config(self, parameters: Parameters) -> EventsCompactionConfig:
        raise NotImplementedError

    def apply(self, history: Request, parameters: Parameters) -> Request:
        """The request ADK would send next: the compacted contents, the rest as it was."""
        contents = to_genai(history.get("contents", []))
        compacted = asyncio.run(next_request_contents(contents, self._config(parameters)))
        return {**history, "contents": from_genai(compacted)}


class SlidingWindow(_Adk):
    """``EventsCompactionConfig(compaction_interval, overlap_size)``: invocations summarised."""

    def parameters(self, history: Request) -> Parameters:
        """Interval and overlap for this history."""
        draw = ParameterDraw(history.get("contents", []), self.name, self.knobs)
        draw.integer("compaction_interval", 1, 3)
        draw.integer("overlap_size", 0, 2)
        return draw.drawn

    def _config(self, parameters: Parameters) -> EventsCompactionConfig:
        return EventsCompactionConfig(
            summarizer=self._summarizer(),
            compaction_interval=cast(int, parameters["compaction_interval"]),
            overlap_size=cast(int, parameters["overlap_size"]),
        )


class TokenThreshold(_Adk):
    """``EventsCompactionConfig(token_threshold, event_retention_size)``: old events summarised."""

    def parameters(self, history: Request) -> Parameters:
        """Threshold and retention for this history."""
        contents = history.get("contents", [])
        draw = ParameterDraw(contents, self.name, self.knobs)
        events = to_events(to_genai(contents), AGENT)
        estimate = _estimate_prompt_token_count(
            events=events, current_branch=None, agent_name=AGENT
        )
        draw.share("token_threshold", estimate or 1, FRACTIONS)
        draw.choice("event_retention_size", (2, 0, 5))
        return draw.drawn

    def _config(self, parameters: Parameters) -> EventsCompactionConfig:
        return EventsCompactionConfig(
            summarizer=self._summarizer(),
            token_threshold=cast(int, parameters["token_threshold"]),
            event_retention_size=cast(int, parameters["event_retention_size"]),
        )


ADAPTERS: Mapping[str, type[Adapter[Any]]] = {
    "google-adk:events-compaction": SlidingWindow,
    "google-adk:token-threshold": TokenThreshold,
}
