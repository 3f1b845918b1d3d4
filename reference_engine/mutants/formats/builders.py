"""How a mutant of a provider format is built: the format's reference compactor with one bug.

A bug is an edit of the reference's answer (``edited``), a cut that ignores the format's units
(``keep_last_n``) or a careless summary (``with_summary``). Each mutant takes and returns the
format's request as JSON data, and is capped at a few messages so that it compacts.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from compactcheck.invariants.formats import check_format
from compactcheck.reference_engine.messages.native import NativeReference, summary_item
from compactcheck.reference_engine.mutants.mutant import Mutant

CAP = 6

Request = dict[str, Any]
Edit = Callable[[Request], Request]


def _reference(format: str, cap: int = CAP) -> NativeReference:
    return NativeReference(check_format(format), max_messages=cap)


def edited(format: str, edit: Edit, cap: int = CAP) -> Callable[[], Callable[[Request], Request]]:
    """A mutant backend: the reference's answer, then ``edit`` on a copy of it."""

    def build() -> Callable[[Request], Request]:
        reference = _reference(format, cap)

        def run(request: Request) -> Request:
            return edit(copy.deepcopy(reference(request)))

        return run

    return build


def _keep_last(field: str, count: int) -> Edit:
    """Keep the history's last ``count`` entries, whatever they pair with."""

    def edit(request: Request) -> Request:
        history = request.get(field, [])
        request[field] = history[-count:]
        return request

    return edit


def keep_last_n(field: str, count: int) -> Callable[[], Callable[[Request], Request]]:
    """A mutant backend that keeps the request's last ``count`` history entries blindly."""

    def build() -> Callable[[Request], Request]:
        def run(request: Request) -> Request:
            return _keep_last(field, count)(copy.deepcopy(request))

        return run

    return build


def empty_summary() -> Callable[[str, str], dict[str, Any]]:
    """A summary writer that writes the format's summary item with no text."""

    def summary(fmt: str, text: str) -> dict[str, Any]:
        del text
        return summary_item(check_format(fmt), "")

    return summary


def with_summary(format: str, summary: Callable[[str, str], dict[str, Any]]) -> Callable[[], Any]:
    """A mutant backend: the reference, writing its summary with ``summary``."""

    def build() -> Callable[[Request], Request]:
        reference = NativeReference(check_format(format), max_messages=CAP, summary=summary)
        return lambda request: reference(copy.deepcopy(request))

    return build


def format_mutant(
    format: str, name: str, law: str, description: str, build: Callable[[], Any]
) -> Mutant:
    """A messages mutant of ``format`` that breaks ``law``, its witness at most 16 items."""
    return Mutant(name, "messages", law, description, build, 16, format=format)
