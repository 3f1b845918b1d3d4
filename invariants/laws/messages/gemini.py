"""The structural laws of Gemini contents: the rules generateContent enforces on a history.

Each law mirrors a rule of the Gemini API (function calling and thought signature guides of
https://ai.google.dev/gemini-api/docs, and the errors users report) and quotes its error.
"""

from __future__ import annotations

import json
from typing import Any

from compactcheck.invariants.formats import gemini
from compactcheck.invariants.formats.reading import read_gemini
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages.reading import searchable_text
from compactcheck.invariants.laws.messages.structure import (
    Breach,
    Rule,
    data,
    relation,
    texts_holding,
)

Request = gemini.GeminiRequest
FORMAT = "gemini"


def _calls(content: gemini.Content) -> list[gemini.Part]:
    return [part for part in content.parts if part.function_call is not None]


def _responses(content: gemini.Content) -> list[gemini.Part]:
    return [part for part in content.parts if part.function_response is not None]


def _has_calls(request: Request) -> bool:
    return any(_calls(content) or _responses(content) for content in request.contents)


def _count_matches(request: Request) -> list[Breach]:
    found = []
    contents = request.contents
    for index, content in enumerate(contents):
        calls = _calls(content)
        if not calls:
            continue
        following = contents[index + 1] if index + 1 < len(contents) else None
        answered = len(_responses(following)) if following is not None else 0
        if answered != len(calls):
            found.append(
                Breach(
                    f"contents[{index}]: {len(calls)} function call part(s), answered by "
                    f"{answered} function response part(s) in the next turn",
                    data(*calls),
                )
            )
    return found


def _call_follows(request: Request) -> list[Breach]:
    found = []
    for index, content in enumerate(request.contents):
        if not _calls(content):
            continue
        previous = request.contents[index - 1] if index > 0 else None
        if previous is None or previous.role != "user":
            where = "opens the history" if previous is None else "follows a model turn"
            found.append(
                Breach(
                    f"contents[{index}]: a function call turn {where}, not a user turn or a "
                    "function response turn",
                    data(content),
                )
            )
    return found


def _response_follows(request: Request) -> list[Breach]:
    found = []
    for index, content in enumerate(request.contents):
        if not _responses(content):
            continue
        previous = request.contents[index - 1] if index > 0 else None
        if previous is None or not _calls(previous):
            found.append(
                Breach(
                    f"contents[{index}]: a function response turn does not come right after a "
                    "function call turn",
                    data(content),
                )
            )
    return found


def _nonempty(request: Request) -> list[Breach]:
    if not request.contents:
        return [Breach("contents is empty")]
    found = []
    for index, content in enumerate(request.contents):
        if not content.parts:
            found.append(Breach(f"contents[{index}]: the turn has no parts", data(content)))
        for at, part in enumerate(content.parts):
            if not part.has_data:
                found.append(
                    Breach(f"contents[{index}].parts[{at}]: the part carries no data", data(part))
                )
    return found


def _roles(request: Request) -> list[Breach]:
    return [
        Breach(
            f"contents[{index}]: role {content.role!r}; a content is a user or a model turn "
            "(system text belongs in systemInstruction)",
            data(content),
        )
        for index, content in enumerate(request.contents)
        if content.role not in gemini.ROLES
    ]


def _ids_match(request: Request) -> list[Breach]:
    found = []
    contents = request.contents
    for index, content in enumerate(contents):
        calls = _calls(content)
        if not calls or index + 1 >= len(contents):
            continue
        for call_part, response_part in zip(calls, _responses(contents[index + 1]), strict=False):
            call, response = call_part.function_call, response_part.function_response
            assert call is not None
            assert response is not None
            if call.id is not None and (response.id != call.id or response.name != call.name):
                found.append(
                    Breach(
                        f"contents[{index + 1}]: the response to call {call.name} {call.id} is "
                        f"{response.name} {response.id}",
                        data(call_part, response_part),
                    )
                )
    return found


RULES: tuple[Rule[Request], ...] = (
    Rule(
        "gemini_response_count_matches_calls",
        FORMAT,
        "the turn after a model turn with N function calls holds exactly N function responses",
        "Gemini function calling: error Please ensure that the number of function response "
        "parts is equal to the number of function call parts of the function call turn",
        _count_matches,
        _has_calls,
        restates="tool_pairing",
    ),
    Rule(
        "gemini_call_follows_user_or_response",
        FORMAT,
        "a model turn with function calls comes right after a user turn or a function response "
        "turn",
        "Gemini function calling: error Please ensure that function call turn comes immediately "
        "after a user turn or after a function response turn",
        _call_follows,
        _has_calls,
    ),
    Rule(
        "gemini_response_follows_call",
        FORMAT,
        "a function response turn comes right after the function call turn it answers",
        "Gemini function calling: error Please ensure that function response turn comes "
        "immediately after a function call turn",
        _response_follows,
        _has_calls,
        restates="tool_pairing",
    ),
    Rule(
        "gemini_nonempty_parts",
        FORMAT,
        "contents is not empty, every turn has a part, and every part carries data",
        "Gemini generateContent: errors contents is not specified; contents.parts must not be "
        "empty; required oneof field 'data' must have one initialized field",
        _nonempty,
        lambda request: True,
    ),
    Rule(
        "gemini_roles_user_model",
        FORMAT,
        "every turn's role is user or model",
        "Gemini Content: role must be 'user' or 'model'; system text goes in systemInstruction",
        _roles,
        lambda request: bool(request.contents),
    ),
    Rule(
        "gemini_function_response_id_matches",
        FORMAT,
        "a response to a call that has an id carries the same id and name",
        "Gemini FunctionResponse: id and name match the FunctionCall they answer",
        _ids_match,
        lambda request: any(
            part.function_call is not None and part.function_call.id is not None
            for content in request.contents
            for part in content.parts
        ),
    ),
)


def _part_key(part: gemini.Part) -> str:
    """What a part is, apart from its signature: the same part in input and answer."""
    value: dict[str, Any] = part.to_json_data()
    value.pop("thoughtSignature", None)
    return json.dumps(value, sort_keys=True)


def _call_key(part: gemini.Part) -> str:
    """Which call a part makes: its id, or its name and arguments when it has none."""
    call = part.function_call
    assert call is not None
    return call.id or f"{call.name}:{json.dumps(call.args, sort_keys=True)}"


@relation(
    "gemini_thought_signature_kept",
    FORMAT,
    "a function call kept in the answer keeps the thought signature it carried, unchanged",
    "Gemini thought signatures: return each signature on the part it came with; error Function "
    "call is missing a thought_signature in functionCall parts",
)
def thought_signature_kept(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """A signed call may be dropped, but if it is kept its signature goes with it.

    Calls are matched by id, or by name and arguments where they have none; a call the input
    made both signed and unsigned (the same call twice) may come back either way.
    """
    carried: dict[str, set[str | None]] = {}
    for content in before.contents:
        for part in content.parts:
            if part.function_call is not None:
                carried.setdefault(_call_key(part), set()).add(part.thought_signature)
    signed = any(sig is not None for signatures in carried.values() for sig in signatures)
    found = []
    for at, content in enumerate(after.contents):
        for index, part in enumerate(content.parts):
            if part.function_call is None:
                continue
            allowed = carried.get(_call_key(part))
            if allowed is not None and part.thought_signature not in allowed:
                found.append(
                    Breach(
                        f"contents[{at}].parts[{index}]: call {part.function_call.name} lost "
                        "the thought signature it carried (or it was changed)",
                        data(part),
                    )
                )
    return signed, found


@relation(
    "gemini_signatures_carried",
    FORMAT,
    "every thought signature of the answer sits on the very part it came with, and none is "
    "read into the history's text",
    "Gemini thought signatures: signed parts are not merged, split or moved, and a signature is "
    "never invented",
)
def signatures_carried(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """A signature is opaque: never moved to another part, made up, or copied into text."""
    given = {
        (_part_key(part), part.thought_signature)
        for content in before.contents
        for part in content.parts
        if part.thought_signature
    }
    found = [
        Breach(
            f"contents[{at}].parts[{index}]: a thought signature that the input did not carry "
            "on this part (moved, merged or made up)",
            data(part),
        )
        for at, content in enumerate(after.contents)
        for index, part in enumerate(content.parts)
        if part.thought_signature and (_part_key(part), part.thought_signature) not in given
    ]
    readable = [searchable_text(message) for message in read_gemini(after)]
    for secret in texts_holding(readable, [signature for _, signature in given if signature]):
        found.append(
            Breach(
                f"the answer's text spells out the thought signature {secret[:16]}...: an "
                "opaque part was read as agent state",
            )
        )
    return bool(given), found


LAWS: tuple[Invariant[Request, Request], ...] = (
    *(rule.law() for rule in RULES),
    thought_signature_kept,
    signatures_carried,
)
