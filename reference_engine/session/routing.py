"""The routed request: the latest request/header names the target and carries the envelope."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from compactcheck.reference_engine.session.log import Session


@dataclass(frozen=True)
class RoutedRequest:
    """The target and envelope of the latest request/header."""

    seq: int
    provider: str
    model: str
    system: str | None
    tools: tuple[Any, ...] | None

    @property
    def target(self) -> tuple[str, str]:
        """(provider, model)."""
        return (self.provider, self.model)


def latest_route(session: Session) -> RoutedRequest | None:
    """The latest request/header with a non-empty provider and model, or None."""
    for event in reversed(session.events):
        if event.type != "request/header":
            continue
        header = event.data.get("header", {}) if isinstance(event.data, dict) else {}
        config = header.get("config", {}) if isinstance(header, dict) else {}
        provider, model = config.get("provider"), config.get("model")
        if not (isinstance(provider, str) and provider and isinstance(model, str) and model):
            return None
        system = header.get("system")
        tools = header.get("tools")
        return RoutedRequest(
            event.seq,
            provider,
            model,
            system if isinstance(system, str) else None,
            tuple(tools) if isinstance(tools, list) and tools else None,
        )
    return None
