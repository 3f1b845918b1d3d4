#!/usr/bin/env python3
"""deepagents 0.7.32 (langchain 1.5.0): a summary that never summarises.

Run with the pinned packages (pip install deepagents==0.7.32), offline:

    python reports/repro/deepagents_summary_placeholder.py

deepagents' SummarizationMiddleware, built with its constructor's default
trim_tokens_to_summarize=4000, trims the messages it is about to summarise to their last 4,000
tokens starting on a human message. When the only human message (the task) lies further back,
the trim is empty, the summariser is never called, and the summary handed to the model is the
fixed sentence "Previous conversation was too long to summarize.": the task is gone from the
context (it survives only in the offloaded history file). Same mechanism as LangChain's
SummarizationMiddleware (langchain-ai/langchain#39261). Exit 1 when the defect shows.
"""

from __future__ import annotations

import sys
import tempfile
from typing import Any

from deepagents.backends.filesystem import FilesystemBackend
from deepagents.middleware.summarization import SummarizationMiddleware
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

GOAL = "Goal: fix the login bug (AUTH-142)"
called: list[int] = []


def summarizer(messages: Any) -> str:
    called.append(len(messages))
    return "a real summary"


history: list[BaseMessage] = [HumanMessage(GOAL, id="m0")]
for n in range(1, 9):
    call = {"id": f"call_{n}", "name": "read_file", "args": {"path": f"src/f{n}.py"}}
    history.append(AIMessage("", tool_calls=[call], id=f"a{n}"))
    history.append(ToolMessage("x = 1\n" * 400, tool_call_id=f"call_{n}", id=f"t{n}"))

sent: list[BaseMessage] = []


def handler(request: Any) -> Any:
    sent.extend(request.messages)
    return ModelResponse(result=[AIMessage("ok")])


with tempfile.TemporaryDirectory() as folder:
    middleware = SummarizationMiddleware(
        FakeListChatModel(responses=["unused"]),
        backend=FilesystemBackend(root_dir=folder, virtual_mode=True),
        trigger=("messages", 4),
        keep=("messages", 2),
        summarizer=summarizer,
    )
    middleware.wrap_model_call(ModelRequest(model=middleware.model, messages=history), handler)

summary = sent[0].text
print("summariser called:", bool(called))
print("summary sent to the model:", summary[summary.find("<summary>") :])
lost = not called and GOAL not in "".join(m.text for m in sent)
print("the task is", "gone from the context" if lost else "kept")
sys.exit(1 if lost else 0)
