"""Real models behind the protocol: the official OpenAI and Anthropic clients, any LangChain chat
model.

Each is handed a client object (built by the caller, or from the environment's key by
``openai_from_environment`` / ``anthropic_from_environment`` only when a run asks for it) and
speaks that client's own call: ``client.chat.completions.create``, ``client.messages.create``,
``chat_model.invoke``.
"""

from __future__ import annotations

import importlib
import os
from typing import Any

from compactcheck.models.model import ModelError, Reply
from compactcheck.models.request import ModelRequest, Turn

# Anthropic requires max_tokens; this is what a request that names none asks for.
DEFAULT_MAX_TOKENS = 1024


def reported_tokens(usage: Any, *fields: str) -> int | None:
    """The sum of a usage record's integer ``fields`` (an object or a dict); None without one."""
    if usage is None:
        return None
    read = usage.get if isinstance(usage, dict) else lambda name: getattr(usage, name, None)
    counts = [value for value in map(read, fields) if isinstance(value, int)]
    return sum(counts) if counts else None


class OpenAIModel:
    """A model answered by ``client.chat.completions.create`` (the ``openai`` package)."""

    def __init__(self, client: Any, model: str) -> None:
        self.client = client
        self.model = model

    @property
    def name(self) -> str:
        """``openai:MODEL``."""
        return f"openai:{self.model}"

    def answer(self, request: ModelRequest) -> str:
        """The first choice's text."""
        return self.reply(request).text

    def reply(self, request: ModelRequest) -> Reply:
        """The first choice's text, and the usage's prompt and completion tokens."""
        messages: list[dict[str, str]] = []
        if request.system:
            messages.append({"role": "system", "content": request.system})
        # Tool results travel as user text: a summariser's prompt carries no live tool call.
        messages += [
            {"role": "assistant" if t.role == "assistant" else "user", "content": t.text}
            for t in request.turns
        ]
        options: dict[str, Any] = {}
        if request.max_tokens is not None:
            options["max_tokens"] = request.max_tokens
        if request.temperature is not None:
            options["temperature"] = request.temperature
        response = self.client.chat.completions.create(
            model=self.model, messages=messages, **options
        )
        tokens = reported_tokens(
            getattr(response, "usage", None), "prompt_tokens", "completion_tokens"
        )
        return Reply(str(response.choices[0].message.content or ""), tokens)


class AnthropicModel:
    """A model answered by ``client.messages.create`` (the ``anthropic`` package)."""

    def __init__(self, client: Any, model: str) -> None:
        self.client = client
        self.model = model

    @property
    def name(self) -> str:
        """``anthropic:MODEL``."""
        return f"anthropic:{self.model}"

    def answer(self, request: ModelRequest) -> str:
        """The text blocks of the answer, joined."""
        return self.reply(request).text

    def reply(self, request: ModelRequest) -> Reply:
        """The text blocks of the answer, joined, and every input and output token it used."""
        options: dict[str, Any] = {}
        if request.system:
            options["system"] = request.system
        if request.temperature is not None:
            options["temperature"] = request.temperature
        response = self.client.messages.create(
            model=self.model,
            messages=alternating(request.turns),
            max_tokens=request.max_tokens or DEFAULT_MAX_TOKENS,
            **options,
        )
        text = "".join(
            str(block.text) for block in response.content if getattr(block, "type", "") == "text"
        )
        # Cached prompt tokens are billed beside input_tokens, not within them.
        tokens = reported_tokens(
            getattr(response, "usage", None),
            "input_tokens",
            "cache_creation_input_tokens",
            "cache_read_input_tokens",
            "output_tokens",
        )
        return Reply(text, tokens)


def alternating(turns: tuple[Turn, ...]) -> list[dict[str, str]]:
    """Turns as Anthropic messages: user and assistant alternate, the first is the user's.

    Consecutive turns of one side are joined; a request that opens with the assistant gets an
    empty-handed user turn first, since the API refuses one that does not start with the user.
    """
    messages: list[dict[str, str]] = []
    for turn in turns:
        role = "assistant" if turn.role == "assistant" else "user"
        if messages and messages[-1]["role"] == role:
            messages[-1]["content"] += "\n\n" + turn.text
        else:
            messages.append({"role": role, "content": turn.text})
    if not messages or messages[0]["role"] != "user":
        messages.insert(0, {"role": "user", "content": "(the conversation follows)"})
    return messages


class LangChainModel:
    """Any LangChain chat model behind the protocol (``invoke`` on its messages)."""

    def __init__(self, chat_model: Any, name: str = "") -> None:
        self.chat_model = chat_model
        self._name = name or f"langchain:{getattr(chat_model, '_llm_type', 'chat-model')}"

    @property
    def name(self) -> str:
        """``langchain:TYPE`` unless named."""
        return self._name

    def answer(self, request: ModelRequest) -> str:
        """The chat model's text for the request as LangChain messages."""
        return self.reply(request).text

    def reply(self, request: ModelRequest) -> Reply:
        """The chat model's text, and its ``usage_metadata`` tokens where it reports them."""
        from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

        messages: list[BaseMessage] = [SystemMessage(request.system)] if request.system else []
        messages += [
            AIMessage(t.text) if t.role == "assistant" else HumanMessage(t.text)
            for t in request.turns
        ]
        answered = self.chat_model.invoke(messages)
        usage = getattr(answered, "usage_metadata", None)
        return Reply(str(answered.text), reported_tokens(usage, "input_tokens", "output_tokens"))


# provider -> (package, environment variable of the key, client class)
_PROVIDERS: dict[str, tuple[str, str, str]] = {
    "openai": ("openai", "OPENAI_API_KEY", "OpenAI"),
    "anthropic": ("anthropic", "ANTHROPIC_API_KEY", "Anthropic"),
}


def client_from_environment(provider: str, model: str = "MODEL") -> Any:
    """The official client of ``provider``, its key read from the environment.

    A missing package or key is a ModelError of one line naming what to install or set.
    """
    package, variable, class_name = _PROVIDERS[provider]
    try:
        module = importlib.import_module(package)
    except ModuleNotFoundError:
        raise ModelError(
            f"--model {provider}:{model}: needs the {package!r} package, which is not installed; "
            "run pip install -e '.[models]'"
        ) from None
    if not os.environ.get(variable):
        raise ModelError(
            f"--model {provider}:{model}: needs an API key in ${variable}; set it, or replay "
            "recorded answers with --offline"
        )
    return getattr(module, class_name)(max_retries=2)


def real_model(provider: str, model: str, client: Any = None) -> OpenAIModel | AnthropicModel:
    """The model ``provider:model``, on ``client`` or on one built from the environment."""
    client = client if client is not None else client_from_environment(provider, model)
    return OpenAIModel(client, model) if provider == "openai" else AnthropicModel(client, model)


PROVIDERS = tuple(_PROVIDERS)
