"""Pages of JSON Schemas: the report, the corpus entry and the protocol's messages, as tables."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from compactcheck.schemas import shipped
from docsgen.markdown import cell, code, page, table


def _anchor(name: str) -> str:
    """The anchor MyST gives a heading that is ``name`` alone."""
    return name.lower()


def type_of(schema: Mapping[str, Any]) -> str:
    """A schema's type in a few words: ``string``, array of [Spread](#spread), one of ..."""
    if "$ref" in schema:
        name = str(schema["$ref"]).rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    if "const" in schema:
        return code(json.dumps(schema["const"]))
    if "enum" in schema:
        return "one of " + ", ".join(code(json.dumps(each)) for each in schema["enum"])
    for key in ("anyOf", "oneOf", "allOf"):
        if key in schema:
            joiner = " and " if key == "allOf" else " or "
            return joiner.join(type_of(each) for each in schema[key])
    kind = schema.get("type")
    if isinstance(kind, list):
        return " or ".join(type_of({**schema, "type": each}) for each in kind)
    if kind == "array":
        items = schema.get("items")
        if isinstance(items, Mapping):
            return f"array of {type_of(items)}"
        if "prefixItems" in schema:
            return "array of " + ", ".join(type_of(each) for each in schema["prefixItems"])
        return "array"
    if kind == "object":
        extra = schema.get("additionalProperties")
        if isinstance(extra, Mapping) and extra:
            return f"object of {type_of(extra)}"
        return "object"
    if kind is None:
        return "any JSON value"
    return str(kind)


def _limits(schema: Mapping[str, Any]) -> str:
    """The constraints beside a type: its default, bounds, pattern."""
    said = []
    if "default" in schema:
        said.append("default " + code(json.dumps(schema["default"], sort_keys=True)))
    for key, word in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
        ("minLength", "length >="),
        ("maxLength", "length <="),
        ("minItems", "items >="),
        ("maxItems", "items <="),
    ):
        if key in schema:
            said.append(f"{word} {schema[key]}")
    if "pattern" in schema:
        said.append("matches " + code(str(schema["pattern"])))
    return "; ".join(said)


def object_table(schema: Mapping[str, Any]) -> str:
    """The fields of an object schema: name, type, whether required, what it is."""
    fields: Mapping[str, Any] = schema.get("properties", {})
    required = set(schema.get("required", ()))
    rows = []
    for name, field in fields.items():
        kind = type_of(field)
        limits = _limits(field)
        rows.append(
            [
                code(name),
                kind + (f" ({cell(limits)})" if limits else ""),
                "yes" if name in required else "",
                cell(str(field.get("description", ""))),
            ]
        )
    if not rows:
        return ""
    return table(["field", "type", "required", "what it is"], rows)


def section(name: str, schema: Mapping[str, Any], level: int) -> str:
    """One schema or definition: a heading, its description, its fields or its variants."""
    parts = ["#" * level + " " + name, str(schema.get("description", ""))]
    if schema.get("type") == "object" or "properties" in schema:
        parts.append(object_table(schema))
        if schema.get("additionalProperties") is False:
            parts.append("No other field is allowed.")
    else:
        parts.append("Type: " + type_of(schema) + ".")
    if "discriminator" in schema:
        key = schema["discriminator"]["propertyName"]
        parts.append(f"Which variant a value is, its field {code(key)} says.")
    return "\n\n".join(part for part in parts if part)


def definitions(schemas: Iterable[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    """The ``$defs`` of several schemas, by name, sorted; a name two schemas define alike."""
    found: dict[str, Mapping[str, Any]] = {}
    for schema in schemas:
        for name, each in schema.get("$defs", {}).items():
            if name in found and found[name] != each:
                raise ValueError(f"two schemas define {name} differently; name them apart")
            found[name] = each
    return dict(sorted(found.items()))


def schema_page(title: str, intro: str, names: Mapping[str, str]) -> str:
    """A page of shipped schemas: each (heading: name) in order, then their definitions."""
    schemas = {heading: shipped(file) for heading, file in names.items()}
    files = ", ".join(code(f"compactcheck/schemas/{file}.json") for file in names.values())
    parts = [intro, f"Generated from the JSON Schema files the package ships: {files}."]
    parts += [section(heading, schema, 2) for heading, schema in schemas.items()]
    defined = definitions(schemas.values())
    if defined:
        parts.append("## Definitions")
        parts += [section(name, each, 3) for name, each in defined.items()]
    return page(title, *parts)


def report_page() -> str:
    """The page ``reference/report-schema.md``."""
    intro = (
        "The JSON report (`compactcheck run --json PATH`, `compactcheck.fuzz(...)` returns the "
        "same `Report`): one entry per target and view, each law's verdict and its witness."
    )
    return schema_page("Report schema", intro, {"Report": "report"})


def corpus_page() -> str:
    """The page ``reference/corpus-schema.md``."""
    intro = (
        "A corpus entry: one failing round, written under the crash corpus folder "
        "(`.compactcheck/corpus` by default), enough for `compactcheck replay` to run it again."
    )
    return schema_page("Corpus entry schema", intro, {"CorpusEntry": "corpus-entry"})
