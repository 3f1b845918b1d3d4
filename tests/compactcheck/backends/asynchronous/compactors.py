"""``async def`` compactors, as agent frameworks call their history processors: one that compacts
well, one that breaks a law, one that hangs, one that blocks its loop, one that raises, and an
adapter object whose ``compact`` is async.

Each checks that it is awaited on the loop it first ran on, as a client bound to its loop (an
HTTP client, a model's session) would; the misbehaving ones answer well on their first two calls
in a process, so that a run has good answers to judge beside the fault.
"""

import asyncio
import time
from collections.abc import Callable
from typing import Any

from compactcheck.base.backend import Answer
from compactcheck.base.implementation import Implementation
from compactcheck.reference_engine.messages import reference_messages
from compactcheck.reference_engine.mutants.messages import MESSAGE_MUTANTS

Messages = list[dict[str, Any]]

_keep = reference_messages(max_messages=6)
[_keep_last_n] = [m for m in MESSAGE_MUTANTS if m.name == "messages-keep-last-n"]
_orphan: Callable[[Messages], Messages] = _keep_last_n.build()
_first_loop: list[asyncio.AbstractEventLoop] = []
calls = 0


async def _as_a_client_would() -> None:
    """Fail on a loop other than the first, as a client bound to its loop does."""
    running = asyncio.get_running_loop()
    if not _first_loop:
        _first_loop.append(running)
    if running is not _first_loop[0]:
        raise RuntimeError("awaited on another event loop than the one it first ran on")
    await asyncio.sleep(0)


def _third_call() -> bool:
    global calls
    calls += 1
    return calls == 3


async def faithful(messages: Messages) -> Messages:
    """The reference compactor, awaited."""
    await _as_a_client_would()
    return _keep(messages)


async def orphaning(messages: Messages) -> Messages:
    """Keeps the last messages blindly, orphaning a tool result (breaks tool_pairing)."""
    await _as_a_client_would()
    return _orphan(messages)


async def hangs(messages: Messages) -> Messages:
    """Awaits what never comes, on its third call."""
    await _as_a_client_would()
    if _third_call():
        await asyncio.Event().wait()
    return _keep(messages)


async def blocks(messages: Messages) -> Messages:
    """Sleeps without awaiting on its third call, holding its event loop."""
    await _as_a_client_would()
    if _third_call():
        time.sleep(10**6)
    return _keep(messages)


async def raises(messages: Messages) -> Messages:
    """Raises on its third call."""
    await _as_a_client_would()
    if _third_call():
        raise ValueError("no summary for you")
    return _keep(messages)


class AsyncAdapter:
    """An adapter object whose compact is async."""

    implementation = Implementation(name="async-adapter", version="1", views=["messages"])

    async def compact(self, view: str, payload: dict[str, Any]) -> Answer:
        """The reference compactor's answer, awaited."""
        await _as_a_client_would()
        return Answer.ok({"messages": _keep(payload["messages"])})

    def stderr_tail(self) -> str:
        """No stderr of its own."""
        return ""

    def close(self) -> None:
        """Nothing to release."""


adapter = AsyncAdapter()
