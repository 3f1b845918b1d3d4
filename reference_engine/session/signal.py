"""Cooperative cancellation: a deterministic stand-in for AbortController and AbortSignal."""

from __future__ import annotations

from collections.abc import Iterable

from compactcheck.reference_engine.session.errors import AbortError


class AbortSignal:
    """Tells long work that its caller gave up, and why."""

    def __init__(self) -> None:
        self.aborted = False
        self.reason: BaseException | None = None
        self._followers: list[AbortSignal] = []

    def abort(self, reason: BaseException | None = None) -> None:
        """Abort once; later calls keep the first reason."""
        if self.aborted:
            return
        self.aborted = True
        self.reason = reason if reason is not None else AbortError("This operation was aborted")
        for follower in self._followers:
            follower.abort(self.reason)

    def throw_if_aborted(self) -> None:
        """Raise the exact abort reason when aborted."""
        if self.aborted and self.reason is not None:
            raise self.reason

    @classmethod
    def any_of(cls, signals: Iterable[AbortSignal | None]) -> AbortSignal:
        """A signal that aborts with the first reason of any of the given signals."""
        combined = cls()
        for signal in signals:
            if signal is None:
                continue
            if signal.aborted:
                combined.abort(signal.reason)
            else:
                signal._followers.append(combined)
        return combined
