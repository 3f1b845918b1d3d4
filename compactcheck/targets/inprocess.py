"""In-process backends: a plain Python callable behind the protocol's shapes."""

from __future__ import annotations

import concurrent.futures
import json
import time
import traceback
from collections.abc import Callable
from typing import Any

from compactcheck.engine import interrupts
from compactcheck.report.model import Implementation
from compactcheck.targets.backend import Answer
from invariants import View

# Worker threads that outlive a timeout cannot be killed; a daemon pool keeps them from
# holding the process open at exit.
# How long a wait for an answer goes without looking for a Ctrl-C.
_SLICE = 0.2
_POOL = concurrent.futures.ThreadPoolExecutor(max_workers=4, thread_name_prefix="compactcheck")


class CallableBackend:
    """A Python callable as a backend.

    messages: ``fn(list of chat dicts) -> list of chat dicts``; snapshot: ``fn(compactor input
    as JSON data) -> draft as JSON data``; session: ``fn({"log": [...], "mode": ...}) ->
    {"appended": [...]}``. The callable gets the very objects it may mutate, so that a
    compactor which edits its input in place is caught.
    """

    def __init__(
        self,
        function: Callable[[Any], Any],
        *,
        name: str,
        views: tuple[View, ...],
        version: str = "",
        timeout: float | None = None,
        max_answer_bytes: int = 16 * 1024 * 1024,
    ) -> None:
        self.function = function
        self.timeout = timeout
        self.max_answer_bytes = max_answer_bytes
        self._implementation = Implementation(
            name=name, version=version, language="python", views=list(views)
        )
        self.last_input: Any = None

    @property
    def implementation(self) -> Implementation:
        """Name, version, language and views."""
        return self._implementation

    def _call(self, argument: Any) -> Any:
        if self.timeout is None:
            return self.function(argument)
        future = _POOL.submit(self.function, argument)
        deadline = time.monotonic() + self.timeout
        while True:
            # In slices, so that a Ctrl-C heard meanwhile is acted on within a fraction of a
            # second (the abandoned call finishes in its daemon thread).
            interrupts.check()
            left = deadline - time.monotonic()
            try:
                return future.result(timeout=max(0.0, min(left, _SLICE)))
            except concurrent.futures.TimeoutError:
                if left <= _SLICE:
                    raise

    def compact(self, view: View, payload: dict[str, Any]) -> Answer:
        """Call the function with the view's input and wrap what it returns."""
        if view not in self._implementation.views:
            return Answer.skip(f"{self._implementation.name} does not handle the {view} view")
        argument: Any
        if view == "messages":
            argument = payload["messages"]
        elif view == "snapshot":
            argument = payload["compactorInput"]
        else:
            argument = payload
        self.last_input = argument
        try:
            output = self._call(argument)
        except concurrent.futures.TimeoutError:
            return Answer.error(f"no answer within {self.timeout} s", timed_out=True)
        except Exception as error:
            where = traceback.extract_tb(error.__traceback__)[-1]
            return Answer.error(
                f"{type(error).__name__}: {error} (at {where.filename}:{where.lineno})"
            )
        try:
            size = len(json.dumps(output, default=str))
        except (TypeError, ValueError, RecursionError) as error:
            return Answer.error(f"the answer is not JSON data: {type(error).__name__}: {error}")
        if size > self.max_answer_bytes:
            return Answer.error(
                f"the answer is {size} bytes of JSON, over the cap of {self.max_answer_bytes} "
                "(max_answer_bytes)"
            )
        if view == "messages":
            return Answer.ok({"messages": output})
        if view == "snapshot":
            return Answer.ok({"draft": output})
        if not isinstance(output, dict):
            return Answer.error(f"expected a dict with 'appended', found {type(output).__name__}")
        return Answer.ok(output)

    def stderr_tail(self) -> str:
        """In-process backends have no stderr of their own."""
        return ""

    def close(self) -> None:
        """Nothing to release."""
