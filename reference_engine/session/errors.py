"""The session engine's errors, all under compactcheck.invariants.session.SessionError."""

from __future__ import annotations

from typing import Literal

from compactcheck.invariants.session import SessionError

ManualCode = Literal["busy", "cancelled", "changed", "summary", "commit", "persistence"]


class ReentrantAppendError(SessionError):
    """An append was attempted while another append was still being validated or published."""


class SurfaceChangedError(SessionError):
    """The surface a compaction prepared changed before the checkpoint could commit."""


class RegionError(SessionError):
    """An explicit compaction region was rejected before anything was written."""


class NoOpenTurnError(SessionError):
    """An automatic compaction was asked for while no turn is open."""


class TargetPressureConfigError(SessionError):
    """The pressure policy cannot be resolved for the routed target (capacity or retention)."""


class ConfigError(SessionError):
    """A compaction or pruner configuration is malformed."""


class PayloadError(SessionError):
    """A payload handed to the reference backend is outside the session compactor's shape."""


class SummaryError(SessionError):
    """The summariser failed or produced output that may not be committed; code classifies it."""

    def __init__(self, message: str, code: str = "SUMMARY") -> None:
        self.code = code
        super().__init__(message)


class PressureNotRelievedError(SessionError):
    """Every allowed compaction attempt left the context at or above the threshold."""


class ManualCompactionError(SessionError):
    """A manual compaction failed; code says how and what the user should do next."""

    def __init__(self, code: ManualCode, message: str) -> None:
        self.code: ManualCode = code
        super().__init__(message)


class AbortError(SessionError):
    """The default reason of an aborted signal."""


def render_error_chain(error: BaseException) -> str:
    """The error chain as one line: outer message first, each cause after ': '."""
    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        parts.append(str(current) or type(current).__name__)
        current = current.__cause__
    return ": ".join(parts)
