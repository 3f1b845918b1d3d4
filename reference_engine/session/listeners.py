"""The automatic triggers: pressure before each step, and recovery after a context overflow."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from compactcheck.reference_engine.session.compactor import BasicCompactor
from compactcheck.reference_engine.session.errors import (
    TargetPressureConfigError,
    render_error_chain,
)
from compactcheck.reference_engine.session.log import Session
from compactcheck.reference_engine.session.routing import latest_route
from compactcheck.reference_engine.session.signal import AbortSignal

CONTEXT_WINDOW_EXCEEDED_CODE = "CONTEXT_WINDOW_EXCEEDED"
T = TypeVar("T")
Warn = Callable[[str], None]


@dataclass
class PreStepPressure:
    """Runs pressure compaction before a step; warns on every error and never stops the step."""

    compactor: BasicCompactor
    warnings: list[str] = field(default_factory=list)
    _warned_targets: set[tuple[str, str]] = field(default_factory=set)

    def on_pre_step(self, session: Session, signal: AbortSignal | None = None) -> None:
        """The agent/pre-step hook."""
        if not self.compactor.config.auto or (signal is not None and signal.aborted):
            return
        try:
            self.compactor.compact_if_needed(session, "pressure", signal)
        except TargetPressureConfigError as error:
            route = latest_route(session)
            key = route.target if route else ("", "")
            if key not in self._warned_targets:
                self._warned_targets.add(key)
                self.warnings.append(f"compaction pressure disabled for {key}: {error}")
        except Exception as error:
            self.warnings.append(f"pressure compaction failed: {render_error_chain(error)}")


@dataclass
class OverflowRecovery:
    """Turns a context-overflow error into one retry, only when the surface actually changed."""

    compactor: BasicCompactor
    warnings: list[str] = field(default_factory=list)
    retries: dict[str, int] = field(default_factory=dict)
    compact_calls: int = 0

    def watch(self, session: Session) -> Callable[[], None]:
        """Reset the retry count on each new assistant/message (a fresh recovery sequence)."""

        def listener(_session: Session, event: object) -> None:
            if getattr(event, "type", None) == "assistant/message":
                self.retries.pop(session.id, None)

        return session.on_event(listener)

    def on_idle(self, session: Session) -> None:
        """The agent became idle: its recovery budget starts over."""
        self.retries.pop(session.id, None)

    def on_request_error(
        self,
        session: Session,
        code: str,
        signal: AbortSignal | None,
        next_handler: Callable[[], T],
    ) -> Literal["retry"] | T:
        """The agent/request-error hook: retry after a real replacement, else delegate once."""
        if (
            not self.compactor.config.auto
            or code != CONTEXT_WINDOW_EXCEEDED_CODE
            or (signal is not None and signal.aborted)
        ):
            return next_handler()
        route = latest_route(session)
        if route is None:
            return next_handler()
        cap = self.compactor.policy_for(route.provider, route.model).max_overflow_retries
        used = self.retries.get(session.id, 0)
        if used >= cap:
            return next_handler()
        generation = session.replace_generation
        self.compact_calls += 1
        try:
            self.compactor.compact_if_needed(session, "context-overflow", signal)
        except Exception as error:
            self.warnings.append(f"overflow compaction failed: {render_error_chain(error)}")
        progressed = session.replace_generation > generation
        if progressed and not (signal is not None and signal.aborted):
            self.retries[session.id] = used + 1
            self.warnings.append("context overflow: retrying from the replacement surface")
            return "retry"
        return next_handler()
