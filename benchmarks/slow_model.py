"""A fake model that waits 100 ms an answer, as a hosted model does, and answers with the text it
was asked to summarise: a stand-in for a real model (nothing is downloaded or sent anywhere).

Named as ``py:benchmarks/slow_model.py:model`` with ``--model``. ``MODEL_WAIT`` sets the wait in
seconds; ``MODEL_CALLS`` names a file it adds one line to for each call it answers (from
whichever process), so that a benchmark can count the calls that were really sent.
"""

from __future__ import annotations

import os
import time
from typing import Any

WAIT = float(os.environ.get("MODEL_WAIT", "0.1"))
CALLS = os.environ.get("MODEL_CALLS", "")


class SlowModel:
    """A fake model: waits, notes the call, echoes the request's text."""

    name = "py:slow-model (a fake)"

    def answer(self, request: Any) -> str:
        """The request's own text, after ``WAIT`` seconds."""
        if CALLS:
            with open(CALLS, "a", encoding="utf-8") as calls:
                calls.write(f"{os.getpid()}\n")
        time.sleep(WAIT)
        text: str = request.text()
        return text


model = SlowModel()
