"""The model slot: the model a summarising adapter is handed, recorded, replayed and capped.

A ``ModelRequest`` is provider-neutral and its canonical JSON is its cache key; a ``Model``
answers one with text. ``ModelSlot`` names the model of a run (``echo``, ``paraphrase``,
``lossy``, ``wording``, ``phrasing``, ``plant-KIND``, ``openai:MODEL``, ``anthropic:MODEL``,
``py:path.py:attr``) and ``open`` puts it behind a ``ModelCache``, a ``Meter`` and the run's
``Ledger`` of calls and tokens (``MeteredModel``). The LangChain and pydantic-ai bridges
(``langchain_chat``, ``pydantic_ai_function``) import their framework, so they are not imported
here.
"""

from compactcheck.models.cache import DEFAULT_CACHE_DIR, ModelCache
from compactcheck.models.clients import AnthropicModel, LangChainModel, OpenAIModel
from compactcheck.models.fakes import EchoModel, LossyModel, ParaphraseModel
from compactcheck.models.ledger import Ledger, Spend
from compactcheck.models.meter import Meter, MeteredModel
from compactcheck.models.model import Model, ModelError, ModelRefusedError, Reply
from compactcheck.models.phrasing import PhrasingModel
from compactcheck.models.planting import Plant, PlantingModel
from compactcheck.models.request import ModelRequest, Turn
from compactcheck.models.slot import ModelSlot, check_name
from compactcheck.models.wording import WordingModel

__all__ = [
    "DEFAULT_CACHE_DIR",
    "AnthropicModel",
    "EchoModel",
    "LangChainModel",
    "Ledger",
    "LossyModel",
    "Meter",
    "MeteredModel",
    "Model",
    "ModelCache",
    "ModelError",
    "ModelRefusedError",
    "ModelRequest",
    "ModelSlot",
    "OpenAIModel",
    "ParaphraseModel",
    "PhrasingModel",
    "Plant",
    "PlantingModel",
    "Reply",
    "Spend",
    "Turn",
    "WordingModel",
    "check_name",
]
