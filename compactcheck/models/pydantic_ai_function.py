"""A Model as a pydantic-ai ``FunctionModel``, for components that take a pydantic-ai model."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.messages import (
    ModelRequest as PydanticRequest,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from compactcheck.models.model import Model
from compactcheck.models.request import ModelRequest, Role, Turn


def request_of(messages: list[ModelMessage]) -> ModelRequest:
    """pydantic-ai messages as a request: instructions and system prompts as its system text."""
    system: list[str] = []
    turns: list[Turn] = []
    for message in messages:
        if isinstance(message, PydanticRequest) and message.instructions:
            system.append(message.instructions)
        role: Role = "user" if isinstance(message, PydanticRequest) else "assistant"
        for part in message.parts:
            if isinstance(part, SystemPromptPart):
                system.append(part.content)
            elif isinstance(part, ToolCallPart):
                turns.append(
                    Turn(role=role, text=f"call {part.tool_call_id}: {part.tool_name}({part.args})")
                )
            elif isinstance(part, ToolReturnPart):
                text = f"{part.model_response_str()}\nresult of {part.tool_call_id}"
                turns.append(Turn(role="tool", text=text))
            else:
                turns.append(Turn(role=role, text=str(getattr(part, "content", ""))))
    return ModelRequest(system="\n".join(system), turns=tuple(turns))


def as_function_model(model: Model) -> FunctionModel:
    """``model`` as a pydantic-ai model."""

    def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        del info
        return ModelResponse(parts=[TextPart(content=model.answer(request_of(messages)))])

    return FunctionModel(answer)
