"""Gemini ``generateContent`` as a compactor sees it: ``systemInstruction`` and ``contents``.

Field names are the REST API's camelCase; the Python SDK's snake_case names are accepted too.
A content's role is read as any string, so that the law mirroring the provider's rule names a
wrong one instead of a parse error.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel


class _Wire(BaseModel):
    """Provider JSON in camelCase; unknown fields are carried."""

    model_config = ConfigDict(
        frozen=True,
        extra="allow",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    def to_json_data(self) -> dict[str, Any]:
        """The object as it came: only the keys that were given (camelCase)."""
        return self.model_dump(mode="json", by_alias=True, exclude_unset=True)


class FunctionCall(_Wire):
    """A call the model made; ``id`` (when set) pairs it with its response."""

    name: str
    args: dict[str, Any] | None = None
    id: str | None = None


class FunctionResponse(_Wire):
    """The response to one function call; ``response`` is a JSON object."""

    name: str
    response: dict[str, Any]
    id: str | None = None


class Part(_Wire):
    """One part of a content: exactly one kind of data, plus an optional thought signature."""

    text: str | None = None
    thought: bool | None = None
    thought_signature: str | None = None
    function_call: FunctionCall | None = None
    function_response: FunctionResponse | None = None
    inline_data: dict[str, Any] | None = None
    file_data: dict[str, Any] | None = None
    executable_code: dict[str, Any] | None = None
    code_execution_result: dict[str, Any] | None = None

    @property
    def has_data(self) -> bool:
        """Whether the part carries any data (an empty part is a provider error)."""
        data = (
            self.function_call,
            self.function_response,
            self.inline_data,
            self.file_data,
            self.executable_code,
            self.code_execution_result,
        )
        return bool(self.text) or any(value is not None for value in data)


class Content(_Wire):
    """One turn: a role (``user`` or ``model``) and its parts."""

    role: str | None = None
    parts: tuple[Part, ...] = ()


class GeminiRequest(_Wire):
    """The parts of a request a compactor reads and rewrites; the rest is carried."""

    system_instruction: Content | None = None
    contents: tuple[Content, ...]


ROLES = ("user", "model")
