"""The base of every wire model: frozen, camelCase on the wire, snake_case in Python."""

from __future__ import annotations

from typing import Any, Self

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

_set_attribute = object.__setattr__
# The setters of the slots every pydantic model has, called directly: ``object.__setattr__`` by
# name looks each one up along the class's MRO first, most of the cost of a ``built`` model.
_set_fields_set = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__
_set_private = BaseModel.__dict__["__pydantic_private__"].__set__


class WireModel(BaseModel):
    """A frozen model whose JSON uses the seed's camelCase field names."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        alias_generator=to_camel,
        validate_by_name=True,
        validate_by_alias=True,
        serialize_by_alias=True,
    )

    def to_json_data(self) -> dict[str, Any]:
        """The model as JSON-shaped data, camelCase keys, absent optionals left out.

        The serializer call ``model_dump(mode="json", by_alias=True, exclude_none=True)`` makes,
        without its wrapper, which cost as much as the serialising itself for a small model.
        """
        data: dict[str, Any] = self.__pydantic_serializer__.to_python(
            self, mode="json", by_alias=True, exclude_none=True
        )
        return data

    @classmethod
    def built(cls, values: dict[str, Any]) -> Self:
        """A model of ``values`` (every field, by its Python name) known to be valid already.

        What ``model_construct`` builds from every field (the events' tests hold the two equal),
        without its generic walk over the fields and their aliases, which costs as much as
        validating: for bulk generation only, where the values are made valid.
        """
        built = cls.__new__(cls)
        _set_attribute(built, "__dict__", values)
        _set_fields_set(built, set(values))
        _set_extra(built, None)
        _set_private(built, None)
        return built

    @classmethod
    def from_json_data(cls, data: object) -> Self:
        """Validate JSON-shaped data (camelCase keys) into the model.

        The validator call ``model_validate(data)`` makes, without its wrapper (see
        ``to_json_data``).
        """
        model: Self = cls.__pydantic_validator__.validate_python(data)
        return model
