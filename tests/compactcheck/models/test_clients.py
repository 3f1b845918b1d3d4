"""What a real client's answer cost: the tokens its usage reports, or none (then estimated)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from compactcheck.models import LangChainModel, MeteredModel, ModelRequest, Turn
from compactcheck.models.clients import reported_tokens

REQUEST = ModelRequest(turns=(Turn(role="user", text="Summarise ENG-7."),))


def test_reported_tokens_add_the_integer_fields_of_an_object_or_a_dict() -> None:
    usage = SimpleNamespace(input_tokens=7, cache_read_input_tokens=None, output_tokens=3)
    assert reported_tokens(usage, "input_tokens", "cache_read_input_tokens", "output_tokens") == 10
    assert reported_tokens({"input_tokens": 2, "output_tokens": 5}, "input_tokens", "x") == 2
    assert reported_tokens(None, "input_tokens") is None
    assert reported_tokens(SimpleNamespace(), "input_tokens") is None


def test_a_langchain_model_counts_its_usage_metadata_or_is_estimated() -> None:
    fakes = pytest.importorskip("langchain_core.language_models.fake_chat_models")
    from langchain_core.messages import AIMessage

    usage = {"input_tokens": 12, "output_tokens": 4, "total_tokens": 16}
    answers = iter([AIMessage(content="kept ENG-7", usage_metadata=usage), AIMessage("kept")])
    model = LangChainModel(fakes.GenericFakeChatModel(messages=answers), name="langchain:fake")
    reply = model.reply(REQUEST)
    assert (reply.text, reply.tokens) == ("kept ENG-7", 16)
    metered = MeteredModel(model, cache=None)
    assert metered.answer(REQUEST) == "kept"
    # No usage reported: estimated, and said to be.
    assert metered.meter.estimated
    assert metered.meter.tokens > 0
