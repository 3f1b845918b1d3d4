"""The session view's exception hierarchy: errors name the rule, what was expected and found."""

from __future__ import annotations


class SessionError(Exception):
    """Base of every error raised by the session log models, checker and reference engine."""


class LogViolationError(SessionError):
    """A session log breaks a numbered rule of the session spec (S, SI, C, G, M, TP or E)."""

    def __init__(self, rule: str, seq: int | None, message: str) -> None:
        self.rule = rule
        self.seq = seq
        self.detail = message
        where = f"seq {seq}" if seq is not None else "end of log"
        super().__init__(f"[{rule}] at {where}: {message}")


class PairingError(SessionError):
    """A tool-pairing query failed: the seq is not on the surface or the surface is corrupt."""

    def __init__(self, rule: str, message: str) -> None:
        self.rule = rule
        super().__init__(message)
