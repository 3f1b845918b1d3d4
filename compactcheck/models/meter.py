"""A model slot's meter: calls made, replayed and refused, and the tokens they took, against
the run's caps (``ledger``)."""

from __future__ import annotations

import contextlib
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Literal

from compactcheck.models.cache import ModelCache
from compactcheck.models.ledger import Ledger
from compactcheck.models.model import Model, ModelRefusedError, Reply, reply_of
from compactcheck.models.request import ModelRequest

# An honest estimate where no provider counted: about four characters per token in English.
CHARACTERS_PER_TOKEN = 4

Reruns = Literal["", "live", "recorded"]


def estimated_tokens(request: ModelRequest, answer: str) -> int:
    """The tokens of a call no provider counted: its request's and answer's characters / 4."""
    return math.ceil((len(request.text()) + len(answer)) / CHARACTERS_PER_TOKEN)


@dataclass
class Meter:
    """The counts of one slot (one target's model)."""

    made: int = 0
    replayed: int = 0
    refused: int = 0
    # Input and output tokens of the calls made, as their answers reported them.
    tokens: int = 0
    # Whether some of ``tokens`` were estimated (a local fake, or no usage reported).
    estimated: bool = False
    # Why the last refusal happened, for the run's one-line statement.
    reason: str = ""
    # How the re-runs of a witness got their answers: asked again ("live"), or, for some,
    # replayed as recorded ("recorded": offline, or no call left); "" when none was re-run.
    reruns: Reruns = ""


class MeteredModel:
    """A model behind its cache and the run's caps: what every summarising adapter is handed.

    A recorded answer is replayed and costs nothing; a new request is sent (and recorded) while
    the ledger has calls and tokens left, and refused once it has not, or always when
    ``offline``. A local fake (``record=False``) is never recorded and answers offline too, but
    counts against the caps all the same, its tokens estimated.
    """

    def __init__(
        self,
        model: Model,
        *,
        cache: ModelCache | None,
        meter: Meter | None = None,
        ledger: Ledger | None = None,
        offline: bool = False,
        record: bool = True,
        spec: str | None = None,
    ) -> None:
        self.model = model
        # The --model name that loads it (py:my_model.py:model), which a corpus entry keeps so
        # that replay can load it again; its own ``name`` ("notes") keys its recorded answers.
        self.spec = spec or model.name
        self.recorded = record
        self.cache = cache if record else None
        self.meter = meter or Meter()
        self.ledger = ledger or Ledger()
        self.offline = offline
        # Set by a refusal, cleared by the adapter before each compaction: a component may
        # swallow the error, and the adapter must still know that its summary was not written.
        self.refusal: str = ""
        # Inside ``afresh``: recorded answers are not replayed but asked again.
        self._afresh = False

    @property
    def name(self) -> str:
        """The name of the model behind it."""
        return self.model.name

    @contextlib.contextmanager
    def afresh(self) -> Iterator[None]:
        """Around the re-runs that tell a flaky witness from a deterministic one: the model is
        asked again rather than its recorded answer replayed, while the run may send (online,
        calls and tokens left); past that, the recorded answer, and ``meter.reruns`` says so."""
        meter = self.meter
        if self.offline and self.cache is not None:
            meter.reruns = "recorded"
        elif meter.reruns != "recorded":
            meter.reruns = "live"
        self._afresh = not self.offline
        try:
            yield
        finally:
            self._afresh = False

    def answer(self, request: ModelRequest) -> str:
        """The recorded answer, or the model's (recorded); ModelRefusedError when it may not ask."""
        request = request.for_model(self.model.name)
        meter = self.meter
        problem = ""
        recorded: str | None = None
        if self.cache is not None:
            found = self.cache.get(request)
            recorded, problem = found.answer, found.problem
            if recorded is not None and not self._afresh:
                meter.replayed += 1
                return recorded
        if self.offline and self.cache is not None:
            where = problem or f"in {self.cache.directory}"
            self._refuse(f"offline and not recorded ({where})")
        why = self.ledger.reserve()
        if why and recorded is not None:
            # A re-run past the cap: judged on the answer recorded, as the report says.
            meter.replayed += 1
            meter.reruns = "recorded"
            return recorded
        if why:
            self._refuse(why)
        meter.made += 1
        reply = self._ask(request)
        meter.tokens += reply.tokens or 0
        self.ledger.add_tokens(reply.tokens or 0)
        if self.cache is not None and recorded is None:
            # A re-run's fresh answer does not replace the one the witness was found with.
            self.cache.put(request, reply.text)
        return reply.text

    def _ask(self, request: ModelRequest) -> Reply:
        reply = reply_of(self.model, request)
        if reply.tokens is not None:
            return reply
        self.meter.estimated = True
        return Reply(reply.text, estimated_tokens(request, reply.text))

    def _refuse(self, reason: str) -> None:
        self.meter.refused += 1
        self.meter.reason = reason
        self.refusal = reason
        raise ModelRefusedError(f"{self.model.name}: {reason}")
