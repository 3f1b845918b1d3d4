"""The JavaScript compactors of the Node harness package (``harnesses/node``) as built-in
targets named ``node:NAME``, each run as a protocol v1 harness subprocess."""

from __future__ import annotations

import shutil
from pathlib import Path

from compactcheck.backends.subprocess_backend import CommandBackend
from compactcheck.base.errors import CompactcheckError
from compactcheck.invariants import View

# The package lives in the repository beside the Python package (its node_modules come from
# its own lockfile, installed by `npm ci`), so the targets run from a clone.
PACKAGE = Path(__file__).resolve().parent.parent.parent / "harnesses" / "node"
PREFIX = "node:"

# target name -> (npm package it drives, one-line description)
_CATALOGUE: dict[str, tuple[str, str]] = {
    "ai-prune-messages": (
        "ai",
        "Vercel AI SDK pruneMessages on ModelMessage histories projected from Anthropic "
        "requests (thinking as reasoning parts with their signatures), settings drawn per history",
    ),
    "ai-prune-messages-responses": (
        "ai",
        "Vercel AI SDK pruneMessages on ModelMessage histories projected from Responses items "
        "(reasoning parts with their item ids and encrypted content)",
    ),
    "mastra-token-limiter": (
        "@mastra/core",
        "Mastra TokenLimiterProcessor.processLLMRequest on the provider prompt, limit drawn per "
        "history",
    ),
    "mastra-tool-call-filter": (
        "@mastra/core",
        "Mastra ToolCallFilter.processLLMRequest on the provider prompt",
    ),
    "langchain-trim-messages": (
        "@langchain/core",
        "LangChain.js trimMessages with a character-counting token counter",
    ),
}

DESCRIPTIONS: dict[str, tuple[View, str]] = {
    f"{PREFIX}{name}": ("messages", description) for name, (_, description) in _CATALOGUE.items()
}


class NodeUnavailableError(CompactcheckError):
    """A ``node:`` target that cannot run here: Node.js or the package's install is missing."""


def is_node_target(text: str) -> bool:
    """Whether ``text`` names a target of the Node harness package (built-in or hidden)."""
    return text.startswith(PREFIX)


def node_backend(text: str, timeout: float, name: str | None = None) -> CommandBackend:
    """The harness subprocess serving the target ``text`` (``node:NAME``).

    ``name`` overrides the harness-side name (the tests' round-trip targets, not listed).
    """
    served = name or text.removeprefix(PREFIX)
    known = _CATALOGUE.get(served)
    if known is None and name is None:
        raise NodeUnavailableError(
            f"{text}: no such Node target; expected one of {', '.join(sorted(DESCRIPTIONS))}"
        )
    node = shutil.which("node")
    if node is None:
        raise NodeUnavailableError(
            f"{text}: needs Node.js 20 or newer on PATH (node not found); install Node.js, then "
            f"run npm ci --prefix {PACKAGE}"
        )
    package = known[0] if known is not None else "ai"
    if not (PACKAGE / "harness.js").is_file():
        raise NodeUnavailableError(
            f"{text}: the Node harness package is not in this installation ({PACKAGE} is "
            "missing); node: targets run from a clone of the compactcheck repository"
        )
    if not (PACKAGE / "node_modules" / package / "package.json").is_file():
        raise NodeUnavailableError(
            f"{text}: needs the Node harness package installed ({package} is missing); run "
            f"npm ci --prefix {PACKAGE}"
        )
    return CommandBackend(
        [node, str(PACKAGE / "harness.js"), served],
        timeout=timeout,
        cwd=PACKAGE,
        start_timeout=max(timeout, 30.0),
    )
