"""The structural laws of OpenAI Responses input: the rules the API enforces on an item list.

Each law mirrors a rule of the Responses API (function calling, reasoning items and compaction
guides of https://developers.openai.com, and the errors users report) and quotes its error.
"""

from __future__ import annotations

from compactcheck.invariants.formats import responses as openai
from compactcheck.invariants.formats.reading import read_responses
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.laws.messages.reading import searchable_text
from compactcheck.invariants.laws.messages.structure import (
    Breach,
    Rule,
    data,
    relation,
    texts_holding,
)

Request = openai.ResponsesInput
FORMAT = "openai-responses"


def _has_calls(request: Request) -> bool:
    return any(
        isinstance(item, (*openai.CALL_ITEMS, *openai.OUTPUT_ITEMS)) for item in request.input
    )


def _output_has_call(request: Request) -> list[Breach]:
    made: set[str] = set()
    found = []
    for index, item in enumerate(request.input):
        if isinstance(item, openai.CALL_ITEMS):
            made.add(item.call_id)
        elif isinstance(item, openai.OUTPUT_ITEMS) and item.call_id not in made:
            found.append(
                Breach(
                    f"input[{index}]: {item.type} for call_id {item.call_id!r} has no call with "
                    "that call_id before it",
                    data(item),
                )
            )
    return found


def _call_has_output(request: Request) -> list[Breach]:
    pending: dict[str, tuple[int, openai.Item]] = {}
    for index, item in enumerate(request.input):
        if isinstance(item, openai.CALL_ITEMS):
            pending[item.call_id] = (index, item)
        elif isinstance(item, openai.OUTPUT_ITEMS):
            pending.pop(item.call_id, None)
    return [
        Breach(f"input[{index}]: {item.type} {call_id} has no output in the input", data(item))
        for call_id, (index, item) in pending.items()
    ]


def _call_id_kept(request: Request) -> list[Breach]:
    return [
        Breach(f"input[{index}]: {item.type} has an empty call_id", data(item))
        for index, item in enumerate(request.input)
        if isinstance(item, openai.OUTPUT_ITEMS) and not item.call_id
    ]


def _has_reasoning(request: Request) -> bool:
    return any(isinstance(item, openai.ReasoningItem) for item in request.input)


def _reasoning_followed(request: Request) -> list[Breach]:
    items = request.input
    found = []
    for index, item in enumerate(items):
        if not isinstance(item, openai.ReasoningItem):
            continue
        following = items[index + 1] if index + 1 < len(items) else None
        if not openai.model_made(following):
            what = "nothing" if following is None else f"a {following.type or 'message'} item"
            found.append(
                Breach(
                    f"input[{index}]: reasoning item {item.id} is followed by {what}, not the "
                    "call or message it belongs to",
                    data(item, following),
                )
            )
    return found


def _ids_unique(request: Request) -> list[Breach]:
    seen: dict[str, int] = {}
    found = []
    for index, item in enumerate(request.input):
        item_id = getattr(item, "id", None)
        if not item_id:
            continue
        if item_id in seen:
            found.append(
                Breach(
                    f"input[{index}]: item id {item_id} repeats the id of input[{seen[item_id]}]",
                    data(item),
                )
            )
        seen.setdefault(item_id, index)
    return found


def _roles(request: Request) -> list[Breach]:
    return [
        Breach(
            f"input[{index}]: a message item has role {item.role!r}; a Responses message is "
            f"{', '.join(openai.MESSAGE_ROLES)} (tool results are function_call_output items)",
            data(item),
        )
        for index, item in enumerate(request.input)
        if isinstance(item, openai.MessageItem) and item.role not in openai.MESSAGE_ROLES
    ]


RULES: tuple[Rule[Request], ...] = (
    Rule(
        "responses_output_has_call",
        FORMAT,
        "every function call output has its call, with the same call_id, earlier in the input",
        "OpenAI Responses function calling: call_id pairs an output with its call; error No "
        "tool call found for function call output with call_id ...",
        _output_has_call,
        _has_calls,
        restates="tool_pairing",
    ),
    Rule(
        "responses_call_has_output",
        FORMAT,
        "every function call in the input has its output in the input",
        "OpenAI Responses function calling: error No tool output found for function call ...",
        _call_has_output,
        _has_calls,
        restates="tool_pairing",
    ),
    Rule(
        "responses_call_id_kept",
        FORMAT,
        "a truncated or rewritten function call output keeps its call_id",
        "OpenAI Responses: error Invalid 'input[N].call_id': empty string",
        _call_id_kept,
        _has_calls,
    ),
    Rule(
        "responses_reasoning_followed",
        FORMAT,
        "a reasoning item is followed at once by the call or message the model made after it",
        "OpenAI Responses reasoning items: error Item 'rs_...' of type 'reasoning' was provided "
        "without its required following item",
        _reasoning_followed,
        _has_reasoning,
    ),
    Rule(
        "responses_item_ids_unique",
        FORMAT,
        "no item id appears twice in one input",
        "OpenAI Responses: error Duplicate item found with id ...",
        _ids_unique,
        lambda request: any(getattr(item, "id", None) for item in request.input),
    ),
    Rule(
        "responses_message_roles",
        FORMAT,
        "message items use only the roles user, assistant, system and developer",
        "OpenAI Responses: error Invalid value: 'tool'. Supported values are: 'assistant', "
        "'system', 'developer', and 'user'",
        _roles,
        lambda request: any(isinstance(item, openai.MessageItem) for item in request.input),
    ),
)


def _reasoning_of(request: Request) -> dict[str, str]:
    """For each model item with an id, the id of the reasoning item it was produced after."""
    owner: dict[str, str] = {}
    current: str | None = None
    for item in request.input:
        if isinstance(item, openai.ReasoningItem):
            current = item.id
        elif openai.model_made(item):
            item_id = getattr(item, "id", None)
            if item_id and current is not None:
                owner[item_id] = current
        else:
            current = None
    return owner


@relation(
    "responses_item_keeps_its_reasoning",
    FORMAT,
    "a call or message kept with the id the API gave it keeps the reasoning item it followed",
    "OpenAI Responses reasoning items: error Item 'msg_...' of type 'message' was provided "
    "without its required 'reasoning' item: 'rs_...'",
)
def item_keeps_its_reasoning(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """Dropping a reasoning item while keeping the ids of what it produced is rejected."""
    owner = _reasoning_of(before)
    kept = {getattr(item, "id", None) for item in after.input}
    found = [
        Breach(
            f"input[{index}]: {item.type or 'message'} {item_id} is kept with its id, but the "
            f"reasoning item {owner[item_id]} it followed is not",
            data(item),
        )
        for index, item in enumerate(after.input)
        if (item_id := getattr(item, "id", None)) in owner and owner[item_id] not in kept
    ]
    return bool(owner), found


# The id prefix the API gives compaction items.
_COMPACTION_ID = "cmp_"


def provider_compaction(before: Request, after: Request) -> frozenset[int]:
    """The answer's position of the compaction item the provider issued for this input, if any.

    The Responses API documents ``responses.compact`` as returning "a compaction item generated
    by the v1/responses/compact API" whose content "is opaque and not intended to be
    human-interpretable", and that "the latest compaction item carries the necessary context to
    continue the conversation", so the items before it may be dropped (compaction guide,
    https://developers.openai.com/api/docs/guides/compaction.md). No one but the provider can
    check its ``encrypted_content``, so a compactor that hands back that item conforms. What a
    compactor could forge is told apart by what the provider never returns: no payload
    (``encrypted_content`` empty), an id not of the API's ``cmp_`` form or one the input already
    used (an edit of an input item, or an id moved onto it), a payload copied from an input
    item, or more than one new compaction item (one call returns one).
    """
    used = {item_id for item in before.input if (item_id := getattr(item, "id", None))}
    payloads = {
        item.encrypted_content
        for item in before.input
        if isinstance(item, openai.OPAQUE_ITEMS) and item.encrypted_content
    }
    given = [item.to_json_data() for item in before.input if isinstance(item, openai.OPAQUE_ITEMS)]
    new = [
        index
        for index, item in enumerate(after.input)
        if isinstance(item, openai.CompactionItem) and item.to_json_data() not in given
    ]
    if len(new) != 1:
        return frozenset()
    item = after.input[new[0]]
    assert isinstance(item, openai.CompactionItem)
    issued = (
        bool(item.encrypted_content)
        and item.encrypted_content not in payloads
        and (item.id is None or (item.id.startswith(_COMPACTION_ID) and item.id not in used))
    )
    return frozenset(new) if issued else frozenset()


@relation(
    "responses_item_ids_issued",
    FORMAT,
    "every item id in the answer is one the input gave an item of the same type",
    "OpenAI Responses: ids are the API's (fc_ for function calls, msg_ for messages, cmp_ for "
    "the compaction item responses.compact returns, which 'carries the necessary context to "
    "continue the conversation'); error Invalid 'input[N].id': ... Expected an ID that begins "
    "with 'fc'",
)
def item_ids_issued(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """A compactor never invents an item id or moves one to another kind of item.

    The one id the input cannot hold is that of a compaction item ``responses.compact`` issued
    for this input (see ``provider_compaction``): it is the provider's, not the compactor's.
    """
    issued = {
        (item.type or "message", item.id) for item in before.input if getattr(item, "id", None)
    }
    provider = provider_compaction(before, after)
    found = [
        Breach(
            f"input[{index}]: {item.type or 'message'} carries id {item.id}, which the input gave "
            "no item of that type",
            data(item),
        )
        for index, item in enumerate(after.input)
        if getattr(item, "id", None)
        and (item.type or "message", item.id) not in issued
        and index not in provider
    ]
    return bool(issued) or bool(provider), found


@relation(
    "responses_opaque_items_carried",
    FORMAT,
    "reasoning and compaction items are carried byte for byte or dropped whole, and no "
    "encrypted payload is read into the history's text",
    "OpenAI Responses reasoning and compaction: encrypted_content is opaque ('not intended to "
    "be human-interpretable'); the one new item allowed is the compaction item "
    "responses.compact returns for the input; error The encrypted content ... could not be "
    "verified",
)
def opaque_items_carried(before: Request, after: Request) -> tuple[bool, list[Breach]]:
    """Reasoning and compaction items are not edited, and are never read as state.

    A compaction item ``responses.compact`` issued for this input is carried as the provider
    returned it (see ``provider_compaction``): it is new, but not made up.
    """
    given = [item.to_json_data() for item in before.input if isinstance(item, openai.OPAQUE_ITEMS)]
    provider = provider_compaction(before, after)
    found = [
        Breach(
            f"input[{index}]: {item.type} item {item.id} is not one of the input's: it was "
            "edited or made up",
            data(item),
        )
        for index, item in enumerate(after.input)
        if isinstance(item, openai.OPAQUE_ITEMS)
        and item.to_json_data() not in given
        and index not in provider
    ]
    secrets = [
        item.encrypted_content
        for item in before.input
        if isinstance(item, openai.OPAQUE_ITEMS) and item.encrypted_content
    ]
    readable = [searchable_text(message) for message in read_responses(after)]
    for secret in texts_holding(readable, secrets):
        found.append(
            Breach(
                f"the answer's text spells out the encrypted payload {secret[:16]}... of an "
                "input item: an opaque item was read as agent state",
            )
        )
    return bool(given) or bool(provider), found


LAWS: tuple[Invariant[Request, Request], ...] = (
    *(rule.law() for rule in RULES),
    item_keeps_its_reasoning,
    item_ids_issued,
    opaque_items_carried,
)
