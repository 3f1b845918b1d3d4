"""The library page: the public names of `compactcheck` (its ``__all__``), with their docstrings."""

from __future__ import annotations

import enum
import inspect
import re
import sys
import types
import typing
from collections.abc import Mapping
from typing import Any

import compactcheck
from compactcheck.base.errors import EXIT_MEANINGS, ExitCode
from docsgen.markdown import cell, code, docstring, page, table

# A dotted name as Python prints a type (compactcheck.engine.events.Shrunk): its last part.
_DOTTED = re.compile(r"\b(?:[A-Za-z_]\w*\.)+([A-Za-z_]\w*)")
_METHODS = (property, classmethod, staticmethod)
# Past this many characters a signature is shown one parameter a line.
_WIDTH = 88


def _annotation(given: Any) -> str:
    """An annotation as the source writes it (every module postpones them: a string)."""
    if isinstance(given, str):
        return given
    return _DOTTED.sub(r"\1", inspect.formatannotation(given))


def signature_of(obj: Any, name: str) -> str:
    """``name(parameters) -> returned`` as the source annotates it, the same under every
    supported Python."""
    try:
        signature = inspect.signature(obj, eval_str=False)
    except (TypeError, ValueError):
        return name
    parts: list[str] = []
    parameters = list(signature.parameters.values())
    for index, parameter in enumerate(parameters):
        kind = parameter.kind
        before = parameters[index - 1].kind if index else None
        if kind is parameter.KEYWORD_ONLY and before not in (kind, parameter.VAR_POSITIONAL):
            parts.append("*")
        stars: dict[inspect._ParameterKind, str] = {
            parameter.VAR_POSITIONAL: "*",
            parameter.VAR_KEYWORD: "**",
        }
        text = stars.get(kind, "")
        text += parameter.name
        if parameter.annotation is not parameter.empty:
            text += ": " + _annotation(parameter.annotation)
        if parameter.default is not parameter.empty:
            joiner = " = " if parameter.annotation is not parameter.empty else "="
            text += joiner + _DOTTED.sub(r"\1", repr(parameter.default))
        parts.append(text)
        after = parameters[index + 1].kind if index + 1 < len(parameters) else None
        if kind is parameter.POSITIONAL_ONLY and after is not kind:
            parts.append("/")
    returned = ""
    if signature.return_annotation is not signature.empty:
        returned = " -> " + _annotation(signature.return_annotation)
    one_line = f"{name}({', '.join(parts)}){returned}"
    if len(one_line) <= _WIDTH:
        return one_line
    listed = "".join(f"    {part},\n" for part in parts)
    return f"{name}(\n{listed}){returned}"


def members_of(cls: type) -> list[tuple[str, Any]]:
    """The public methods and properties a class itself defines, in source order."""
    return [
        (name, member)
        for name, member in vars(cls).items()
        if not name.startswith("_")
        and (
            inspect.isfunction(member) or isinstance(member, property | classmethod | staticmethod)
        )
    ]


def fence(text: str) -> str:
    return f"```{{code-block}} python\n{text}\n```"


def _bases(cls: type) -> list[str]:
    """A class's bases by name; a private base by its own bases in turn."""
    names: list[str] = []
    for base in cls.__bases__:
        if base is object:
            continue
        names += _bases(base) if base.__name__.startswith("_") else [base.__name__]
    return list(dict.fromkeys(names))


def _fields(cls: type) -> dict[str, tuple[str, str]]:
    """A dataclass's or pydantic model's fields: each one's annotation as written and its
    description."""
    written: dict[str, Any] = {}
    for klass in reversed(cls.__mro__):
        written.update(vars(klass).get("__annotations__", {}))
    model_fields = getattr(cls, "model_fields", None)
    if isinstance(model_fields, dict):
        return {
            key: (_annotation(written.get(key, field.annotation)), field.description or "")
            for key, field in model_fields.items()
        }
    dataclass_fields = getattr(cls, "__dataclass_fields__", None) or {}
    return {key: (_annotation(field.type), "") for key, field in dataclass_fields.items()}


def _class(name: str, cls: type, level: int = 2) -> str:
    """A class's section, headed ``name``: its bases, docstring, fields and own methods."""
    bases = ", ".join(_bases(cls))
    heading = "#" * level
    parts = [
        f"{heading} {name}",
        fence(f"class {cls.__name__}" + (f"({bases})" if bases else "")),
        docstring(cls),
    ]
    if issubclass(cls, enum.Enum):
        meanings: Mapping[Any, str] = EXIT_MEANINGS if cls is ExitCode else {}
        members = [
            f"- {code(member.name)} = {code(str(member.value))}"
            + (f": {meanings[member]}" if member in meanings else "")
            for member in cls
        ]
        parts.append("\n".join(members))
    fields = _fields(cls)
    if fields:
        rows = [[code(key), code(hint), cell(text)] for key, (hint, text) in fields.items()]
        parts.append(table(["field", "type", "what it is"], rows))
    for member_name, member in members_of(cls):
        if isinstance(member, property):
            text = f"{member_name}  # property"
            doc = docstring(member.fget)
        else:
            function = member.__func__ if isinstance(member, classmethod | staticmethod) else member
            text = signature_of(function, member_name)
            doc = docstring(function)
        parts.append(f"{heading}# {name}.{member_name}\n\n{fence(text)}\n\n{doc}")
    return "\n\n".join(part for part in parts if part)


def _union(name: str, alias: Any) -> str:
    """A type alias of several classes: what it is, then each class."""
    members = typing.get_args(alias)
    module = sys.modules[members[0].__module__]
    summary = docstring(module).split("\n\n", 1)[0]
    spelled = " | ".join(member.__name__ for member in members)
    parts = [f"## {name}", fence(f"{name} = {spelled}"), summary]
    parts += [_class(f"{name}: {member.__name__}", member, level=3) for member in members]
    return "\n\n".join(part for part in parts if part)


def _function(name: str, function: Any) -> str:
    return "\n\n".join([f"## {name}", fence(signature_of(function, name)), docstring(function)])


def render() -> str:
    """The page ``reference/library.md``."""
    sections = []
    for name in sorted(compactcheck.__all__, key=str.lower):
        obj = getattr(compactcheck, name)
        if isinstance(obj, types.UnionType):
            sections.append(_union(name, obj))
        elif inspect.isclass(obj):
            sections.append(_class(name, obj))
        else:
            sections.append(_function(name, obj))
    tail = "Every name below is importable from `compactcheck` itself (`compactcheck.__all__`)."
    return page("Library", docstring(compactcheck), tail, *sections)
