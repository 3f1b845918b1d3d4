"""A model slot's meter: calls made, replayed and refused, against a declared cap."""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.models.cache import ModelCache
from compactcheck.models.model import Model, ModelRefusedError
from compactcheck.models.request import ModelRequest


@dataclass
class Meter:
    """The counts of one slot, and the cap of calls it may make."""

    cap: int | None = None
    made: int = 0
    replayed: int = 0
    refused: int = 0
    # Why the last refusal happened, for the run's one-line statement.
    reason: str = ""


class MeteredModel:
    """A model behind its cache and its cap: what every summarising adapter is handed.

    A recorded answer is replayed and costs nothing; a new request is sent (and recorded) while
    calls are left under the cap, and refused once they are not, or always when ``offline``.
    A local fake (``record=False``) is never recorded and answers offline too, but counts
    against the cap all the same.
    """

    def __init__(
        self,
        model: Model,
        *,
        cache: ModelCache | None,
        meter: Meter | None = None,
        offline: bool = False,
        record: bool = True,
    ) -> None:
        self.model = model
        self.cache = cache if record else None
        self.meter = meter or Meter()
        self.offline = offline
        # Set by a refusal, cleared by the adapter before each compaction: a component may
        # swallow the error, and the adapter must still know that its summary was not written.
        self.refusal: str = ""

    @property
    def name(self) -> str:
        """The name of the model behind it."""
        return self.model.name

    def answer(self, request: ModelRequest) -> str:
        """The recorded answer, or the model's (recorded); ModelRefusedError when it may not ask."""
        request = request.for_model(self.model.name)
        meter = self.meter
        problem = ""
        if self.cache is not None:
            found = self.cache.get(request)
            if found.answer is not None:
                meter.replayed += 1
                return found.answer
            problem = found.problem
        if self.offline and self.cache is not None:
            where = problem or f"in {self.cache.directory}"
            why = f"offline and not recorded ({where})"
            self._refuse(why)
        if meter.cap is not None and meter.made >= meter.cap:
            self._refuse(f"model call cap of {meter.cap} reached")
        meter.made += 1
        text = self.model.answer(request)
        if self.cache is not None:
            self.cache.put(request, text)
        return text

    def _refuse(self, reason: str) -> None:
        self.meter.refused += 1
        self.meter.reason = reason
        self.refusal = reason
        raise ModelRefusedError(f"{self.model.name}: {reason}")
