"""The model slot of a run: which model a summarising adapter is handed, and on what terms.

A slot is data (a name, a cache folder, caps of calls and tokens and the ledger file the run
counts them in, offline or not), so that it crosses into worker processes and into a corpus
entry; ``open`` builds the model behind it, a real client only when a request is not recorded
and the run may send it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from compactcheck.base.loading import LoadError, load_attribute
from compactcheck.models.cache import DEFAULT_CACHE_DIR, ModelCache
from compactcheck.models.clients import PROVIDERS, LangChainModel, real_model
from compactcheck.models.fakes import FAKE_TYPES, FAKES
from compactcheck.models.ledger import Ledger, run_ledger
from compactcheck.models.meter import Meter, MeteredModel
from compactcheck.models.model import Model, ModelError, Reply, reply_of
from compactcheck.models.request import ModelRequest

NAMES_HELP = (
    "echo, paraphrase, lossy, wording, phrasing, plant-KIND (polarity, number, relax, stale, drop, "
    "invent, lapsed, narrow, hedge, member), openai:MODEL, anthropic:MODEL or py:path.py:attribute"
)


def check_name(text: str) -> str:
    """A ``--model`` name, checked for its shape (ModelError naming the known ones)."""
    if text in FAKES or text.startswith("py:"):
        return text
    provider, _, model = text.partition(":")
    if provider in PROVIDERS and model.strip():
        return text
    raise ModelError(f"--model {text!r}: unknown model; expected {NAMES_HELP}")


def as_model(found: Any, where: str) -> Model:
    """An object a ``py:`` name points at as a Model: one already, a LangChain chat model, or a
    function of no arguments returning either."""
    if isinstance(found, Model):
        return found
    if hasattr(found, "invoke") and hasattr(found, "_llm_type"):
        return LangChainModel(found, name=where)
    if callable(found):
        made = found()
        if isinstance(made, Model):
            return made
        if hasattr(made, "invoke") and hasattr(made, "_llm_type"):
            return LangChainModel(made, name=where)
        found = made
    raise ModelError(
        f"--model {where}: expected a Model (name and answer(request)) or a LangChain chat "
        f"model, found {type(found).__name__}"
    )


class _Deferred:
    """A real model built on first use, so that replaying needs neither package nor key."""

    def __init__(self, name: str) -> None:
        self.name = name
        self._model: Model | None = None

    def answer(self, request: ModelRequest) -> str:
        return self.reply(request).text

    def reply(self, request: ModelRequest) -> Reply:
        if self._model is None:
            provider, _, model = self.name.partition(":")
            self._model = real_model(provider, model)
        return reply_of(self._model, request)


@dataclass(frozen=True)
class ModelSlot:
    """Which model answers a run's summarisers, where its answers are kept, and how many calls
    and tokens it may spend."""

    name: str
    # Where answers are recorded; by default .compactcheck/models beside the corpus.
    cache_dir: Path | None = None
    max_calls: int | None = None
    # The most input and output tokens the calls sent may take.
    max_tokens: int | None = None
    # The file every process of a run counts its calls and tokens in (``shared``); without
    # one, each opening of the slot counts on its own.
    ledger: Path | None = None
    # Replay only: a request not recorded is refused, never sent.
    offline: bool = False
    # A Model object handed in through the API (not by name); it does not cross processes.
    source: Any = None

    def cache_for(self, corpus_dir: Path | None) -> Path:
        """The cache folder: the declared one, else beside the corpus, else the default."""
        if self.cache_dir is not None:
            return self.cache_dir
        return corpus_dir.parent / "models" if corpus_dir is not None else DEFAULT_CACHE_DIR

    def shared(self) -> ModelSlot:
        """This slot with a ledger file of its own, so that its caps hold for a whole run across
        its targets and worker processes; unchanged without a cap, or with a ledger already."""
        if self.ledger is not None or (self.max_calls is None and self.max_tokens is None):
            return self
        return replace(self, ledger=run_ledger())

    def model(self) -> Model:
        """The model the name (or source) stands for; real clients are built on first use."""
        if self.source is not None:
            return as_model(self.source, self.name)
        if self.name in FAKES:
            return FAKES[self.name]()
        if self.name.startswith("py:"):
            try:
                found = load_attribute(self.name.removeprefix("py:"))
            except LoadError as error:
                raise ModelError(f"--model {error}") from None
            return as_model(found, self.name)
        check_name(self.name)
        if not self.offline:
            # Fail before fuzzing on a missing package or key, not on the first summary.
            provider, _, model = self.name.partition(":")
            return real_model(provider, model)
        return _Deferred(self.name)

    def open(self, corpus_dir: Path | None = None) -> MeteredModel:
        """The model behind its cache and cap, with a meter of its own."""
        model = self.model()
        return MeteredModel(
            model,
            cache=ModelCache(self.cache_for(corpus_dir)),
            meter=Meter(),
            ledger=Ledger(self.max_calls, self.max_tokens, self.ledger),
            offline=self.offline,
            # The fakes are free and deterministic: recording them would only fill the folder.
            record=not isinstance(model, FAKE_TYPES),
            spec=self.name,
        )
