"""Built-in adapters for third-party compactors, named like ``langchain:trim_messages``.

Each adapter module imports its framework at the top, so this registry imports it only when a
target is opened: compactcheck runs without the extras, and a missing extra is one line that says
which ``pip install`` brings it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING

from compactcheck.base.backend import Backend
from compactcheck.base.errors import CompactcheckError
from compactcheck.invariants import Budget, View

if TYPE_CHECKING:
    from compactcheck.models import ModelSlot

AdapterFactory = Callable[..., Backend]
"""Called as ``factory(timeout=seconds, budget=Budget | None, model=ModelSlot | None)``; returns
a ready backend (a summariser's model opened from the slot, the others ignore it)."""


class MissingExtraError(CompactcheckError):
    """A built-in target whose framework is not installed."""


# target name -> (adapter module, optional-dependency group, one-line description)
_CATALOGUE: dict[str, tuple[str, str, str]] = {
    "langchain:trim_messages": (
        "langchain_core_trim",
        "langchain",
        "LangChain trim_messages (langchain-core), strategy, counter and limit drawn per history",
    ),
    "langchain:summarization-middleware": (
        "langchain_summarization",
        "langchain",
        "LangChain SummarizationMiddleware.before_model with an echo summariser",
    ),
    "langmem:summarize_messages": (
        "langmem_summarize",
        "langmem",
        "langmem summarize_messages with an echo chat model",
    ),
    "autogen:buffered": (
        "autogen_contexts",
        "autogen",
        "AutoGen BufferedChatCompletionContext (last buffer_size messages)",
    ),
    "autogen:head-and-tail": (
        "autogen_contexts",
        "autogen",
        "AutoGen HeadAndTailChatCompletionContext (first head_size and last tail_size)",
    ),
    "autogen:token-limited": (
        "autogen_contexts",
        "autogen",
        "AutoGen TokenLimitedChatCompletionContext with a character-counting client",
    ),
    "pydantic-ai:sliding-window": (
        "pydantic_ai_harness",
        "pydantic-ai",
        "pydantic-ai-harness SlidingWindowCompaction (control: expected to conform)",
    ),
    "pydantic-ai:summarizing": (
        "pydantic_ai_harness",
        "pydantic-ai",
        "pydantic-ai-harness SummarizingCompaction with an echo summariser (control)",
    ),
    "haystack:sliding-window": (
        "haystack_compaction",
        "haystack",
        "Haystack SlidingWindowCompactor (whole turns and agent steps, oldest first)",
    ),
    "haystack:summarization": (
        "haystack_compaction",
        "haystack",
        "Haystack SummarizationCompactor with an extractive local summariser",
    ),
    "haystack:tool-result-pruning": (
        "haystack_compaction",
        "haystack",
        "Haystack ToolResultPruningCompactor (old tool results become a placeholder)",
    ),
    "haystack:tool-result-offload": (
        "haystack_compaction",
        "haystack",
        "Haystack ToolResultOffloadCompactor with a file store in a temporary folder",
    ),
    "google-adk:events-compaction": (
        "adk_compaction",
        "google-adk",
        "Google ADK sliding-window events compaction with an echo LlmEventSummarizer (gemini "
        "format)",
    ),
    "google-adk:token-threshold": (
        "adk_compaction",
        "google-adk",
        "Google ADK token-threshold events compaction with an echo LlmEventSummarizer (gemini "
        "format)",
    ),
}

# The targets whose component summarises with a model, and so is handed the run's --model (the
# adapter's third argument; the others keep no model). Declared here, beside the catalogue, so
# that `compactcheck targets` and the help say which without importing any framework.
SUMMARISING: frozenset[str] = frozenset(
    {
        "langchain:summarization-middleware",
        "langmem:summarize_messages",
        "pydantic-ai:summarizing",
        "haystack:summarization",
        "google-adk:events-compaction",
        "google-adk:token-threshold",
        "deepagents:summarization",
        "agno:compaction",
        "crewai:summarize-messages",
        "agent-framework:summarization",
        "agent-framework:persisted-summarization",
        "inspect-ai:compaction-summary",
    }
)

# Agent frameworks' own compactors: LangChain context editing, deepagents, agno and crewAI (crewAI
# in an environment of its own, .venv-crewai: see the README).
_CATALOGUE.update(
    {
        "langchain:context-editing": (
            "langchain_context_editing",
            "langchain",
            "LangChain ContextEditingMiddleware with ClearToolUsesEdit (old tool results become "
            "[cleared])",
        ),
        "deepagents:summarization": (
            "deepagents_summarization",
            "deepagents",
            "deepagents SummarizationMiddleware.wrap_model_call after PatchToolCallsMiddleware, "
            "with an echo summariser",
        ),
        "agno:compaction": (
            "agno_compaction",
            "agno",
            "agno Compaction (pair-safe boundary, summary view) with an echo model",
        ),
        "crewai:summarize-messages": (
            "crewai_summarize",
            "crewai",
            "crewAI summarize_messages as run on context overflow, with an echo LLM",
        ),
    }
)

# The compactors bundled with compaction-conformance-kit (compaction_kit.cli.COMPACTORS).
CONFORMANCE_KIT_COMPACTORS = (
    "lossy-truncation",
    "naive-summary",
    "summary-plus-tail",
    "pinned-rules",
    "checklist-carrying",
    "update-aware-checklist",
    "semantic-checklist",
    "progressive-summary",
)
for _kit_name in CONFORMANCE_KIT_COMPACTORS:
    _CATALOGUE[f"conformance-kit:{_kit_name}"] = (
        "conformance_kit",
        "conformance-kit",
        f"compaction-conformance-kit's bundled {_kit_name} compactor (text out, as one system "
        "message)",
    )

# Microsoft Agent Framework, the OpenAI Agents SDK and inspect-ai (each its own extra).
_CATALOGUE.update(
    {
        f"agent-framework:{_strategy}": (
            "agent_framework_compaction",
            "agent-framework",
            f"Microsoft Agent Framework {_class} through apply_compaction (what it would send)",
        )
        for _strategy, _class in (
            ("truncation", "TruncationStrategy"),
            ("sliding-window", "SlidingWindowStrategy"),
            ("selective-tool-call", "SelectiveToolCallCompactionStrategy"),
            ("tool-result", "ToolResultCompactionStrategy"),
            ("summarization", "SummarizationStrategy with an echo client"),
            (
                "persisted-summarization",
                "SummarizationStrategy as a CompactionProvider after_strategy, session persisted",
            ),
            ("token-budget", "TokenBudgetComposedStrategy (tool results, then a window)"),
        )
    }
)
_CATALOGUE.update(
    {
        "inspect-ai:trim-messages": (
            "inspect_compaction",
            "inspect-ai",
            "inspect-ai trim_messages (system and input kept, a share of the rest, pairs mended)",
        ),
        "inspect-ai:compaction-trim": (
            "inspect_compaction",
            "inspect-ai",
            "inspect-ai CompactionTrim through its compaction handler, one forced pass",
        ),
        "inspect-ai:compaction-edit": (
            "inspect_compaction",
            "inspect-ai",
            "inspect-ai CompactionEdit (old tool results become a placeholder), one forced pass",
        ),
        "inspect-ai:compaction-summary": (
            "inspect_compaction",
            "inspect-ai",
            "inspect-ai CompactionSummary over a local echo model, one forced pass",
        ),
    }
)
_CATALOGUE.update(
    {
        "openai-agents:tool-output-trimmer": (
            "openai_agents_compaction",
            "openai-agents",
            "OpenAI Agents SDK ToolOutputTrimmer as a call_model_input_filter (Responses format)",
        ),
        "openai-agents:sandbox-compaction": (
            "openai_agents_compaction",
            "openai-agents",
            "OpenAI Agents SDK sandbox Compaction.process_context (Responses format)",
        ),
        "openai-agents:compaction-session": (
            "openai_agents_compaction",
            "openai-agents",
            "OpenAI Agents SDK OpenAIResponsesCompactionSession, responses.compact on a fake "
            "transport (Responses format)",
        ),
    }
)


_WINDOW = "a window of recent messages: it keeps no content by design"
_TRIM = "trims the oldest messages to a size: it keeps no content by design"
# What each component does not promise, by design (docs/real-compactors.md classifies every
# reported violation; these are its "trims by design" rows that hold on every seed). The laws
# are still judged and shown; a law of level 1 (the provider accepts it) is never waived.
WAIVERS: dict[str, dict[str, str]] = {
    "langchain:trim_messages": {
        "goal_preserved": _TRIM,
        "constraints_preserved": _TRIM,
        "facts_preserved": _TRIM,
    },
    "autogen:buffered": {
        "goal_preserved": _WINDOW,
        "constraints_preserved": _WINDOW,
        "recent_tail_preserved": "a result goes with its call when the buffer cuts the pair",
        "facts_preserved": _WINDOW,
    },
    "autogen:head-and-tail": {
        "goal_preserved": _WINDOW,
        "constraints_preserved": _WINDOW,
        "recent_tail_preserved": "a result goes with its call when the tail cuts the pair",
        "facts_preserved": _WINDOW,
    },
    "autogen:token-limited": {
        "goal_preserved": _TRIM,
        "constraints_preserved": _TRIM,
        "facts_preserved": _TRIM,
    },
    "pydantic-ai:sliding-window": {
        "constraints_preserved": _WINDOW,
        "facts_preserved": _WINDOW,
    },
    "haystack:sliding-window": {
        "goal_preserved": _WINDOW,
        "constraints_preserved": _WINDOW,
        "facts_preserved": _WINDOW,
    },
    "haystack:tool-result-pruning": {
        "tool_results_unpruned": "replaces old tool results by a placeholder: that is its job",
    },
    "haystack:tool-result-offload": {
        "tool_results_unpruned": "replaces old tool results by a pointer to a file: its job",
    },
    "crewai:summarize-messages": {
        "recent_tail_preserved": "summarises every message but the system ones, the newest "
        "too: what it does on a context overflow",
    },
    "langchain:context-editing": {
        "tool_results_unpruned": "replaces old tool results by a placeholder: that is its job",
    },
}


# Extras that cannot share an environment with the others, and how to get theirs.
OWN_ENVIRONMENTS: dict[str, str] = {
    "crewai": "it cannot share an environment with the frameworks extra: run ./dev crewai-env, "
    "then .venv-crewai/bin/compactcheck",
}
_TRAILING = (
    "drops a trailing assistant message, as it documents (some providers need a user turn last)"
)
_OPAQUE = "the provider's compaction item stands for what precedes it, and cannot be read"
WAIVERS.update(
    {
        "agent-framework:truncation": {
            "goal_preserved": _TRIM,
            "constraints_preserved": _TRIM,
            "facts_preserved": _TRIM,
        },
        "agent-framework:sliding-window": {
            "goal_preserved": _WINDOW,
            "constraints_preserved": _WINDOW,
            "facts_preserved": _WINDOW,
        },
        "agent-framework:token-budget": {
            "goal_preserved": _TRIM,
            "constraints_preserved": _TRIM,
            "facts_preserved": _TRIM,
        },
        "inspect-ai:trim-messages": {
            "constraints_preserved": _TRIM,
            "facts_preserved": _TRIM,
            "recent_tail_preserved": _TRAILING,
        },
        "inspect-ai:compaction-trim": {
            "constraints_preserved": _TRIM,
            "facts_preserved": _TRIM,
            "recent_tail_preserved": _TRAILING,
        },
        "inspect-ai:compaction-edit": {
            "tool_results_unpruned": "replaces old tool results by a placeholder: that is its job",
            "recent_tail_preserved": _TRAILING,
            "facts_preserved": _TRAILING,
        },
        "inspect-ai:compaction-summary": {
            "recent_tail_preserved": "the summary is the last message: it follows the prefix",
        },
        "openai-agents:tool-output-trimmer": {
            "tool_results_unpruned": "cuts old tool outputs to a preview: that is its job",
        },
        "openai-agents:sandbox-compaction": {"constraints_preserved": _OPAQUE},
        "openai-agents:compaction-session": {
            "constraints_preserved": _OPAQUE,
            "facts_preserved": _OPAQUE,
            "recent_tail_preserved": _OPAQUE,
        },
    }
)


def _factory(target: str, module: str, extra: str) -> AdapterFactory:
    def factory(
        *, timeout: float, budget: Budget | None = None, model: ModelSlot | None = None
    ) -> Backend:
        try:
            loaded = importlib.import_module(f"compactcheck.adapters.{module}")
        except ModuleNotFoundError as error:
            if error.name is not None and error.name.startswith("compactcheck"):
                raise
            install = OWN_ENVIRONMENTS.get(extra, f"run pip install -e '.[{extra}]'")
            raise MissingExtraError(
                f"{target}: needs the {extra!r} extra ({error.name} is not installed); {install}"
            ) from None
        from compactcheck.adapters.adapter import AdapterBackend

        kind = loaded.ADAPTERS[target]
        # Opened here, so that a missing package or key is one line before any fuzzing.
        if model is not None and target in SUMMARISING:
            adapter = kind(target, budget, model.open())
        else:
            adapter = kind(target, budget)
        return AdapterBackend(adapter, timeout=timeout, waivers=WAIVERS.get(target, {}))

    return factory


ADAPTERS: dict[str, AdapterFactory] = {
    target: _factory(target, module, extra) for target, (module, extra, _) in _CATALOGUE.items()
}
# What `compactcheck targets` says of the model of a summarising target.
TAKES_MODEL = "; summarises with --model when given"

DESCRIPTIONS: dict[str, tuple[View, str]] = {
    target: ("messages", description + (TAKES_MODEL if target in SUMMARISING else ""))
    for target, (_, _, description) in _CATALOGUE.items()
}
EXTRAS: dict[str, str] = {target: extra for target, (_, extra, _) in _CATALOGUE.items()}
"""The optional-dependency group each target needs."""

__all__ = [
    "ADAPTERS",
    "CONFORMANCE_KIT_COMPACTORS",
    "DESCRIPTIONS",
    "EXTRAS",
    "SUMMARISING",
    "TAKES_MODEL",
    "AdapterFactory",
    "MissingExtraError",
]
