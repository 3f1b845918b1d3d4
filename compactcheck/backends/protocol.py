"""The JSON-lines protocol (version 1) between compactcheck and a harness, as data.

Each line is one message. A request model knows its command name (``cmd``) and the model of the
line a harness answers with (``answer_model``); ``stop`` has no answer. The JSON Schemas generated
from these models (``compactcheck/schemas/protocol-*.json``) are the contract a harness in any
language implements.

Pipelining: compactcheck may send several compact requests before reading their answers (a
bounded window, when it replays inputs it already knows). A harness needs nothing for it: one
that reads a line and answers it, in order, is correct; one that works on several requests at
once may answer them in any order. Answers are matched to requests by ``seq`` alone, so each
must echo its request's ``seq``; a line that matches no request in flight is charged to the
oldest one, as is a harness that dies or hangs with several in flight (the others are sent
again to the restarted harness). A harness that must see one request at a time says
``maxInFlight: 1`` in its start answer.

Compatibility rules: the version goes up only for a breaking change. Envelopes ignore fields they
do not know (a harness must ignore unknown request fields; compactcheck ignores unknown answer
fields), so adding an optional field later breaks nobody.
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Generic, Literal, Self, TypeVar

import orjson
from pydantic import (
    ConfigDict,
    Field,
    JsonValue,
    TypeAdapter,
    model_validator,
)
from pydantic.json_schema import SkipJsonSchema

from compactcheck.base.errors import CompactcheckError
from compactcheck.base.implementation import Implementation
from compactcheck.invariants import CompactorInput, SnapshotDraft, View, WireModel
from compactcheck.invariants.formats import Format
from compactcheck.invariants.messages import ChatMessage
from compactcheck.invariants.session import SessionEvent

PROTOCOL_VERSION = 1

SessionMode = Literal["manual", "pressure", "overflow"]


class ProtocolError(CompactcheckError):
    """A line that is not the message protocol version 1 expects there."""


def _every_property_required(schema: dict[str, Any]) -> None:
    # The toolkit always sends every request field, defaults included, so a harness may rely on
    # them; pydantic would otherwise mark defaulted fields (``cmd``, ``version``) optional.
    properties = schema.get("properties")
    if isinstance(properties, dict):
        schema["required"] = sorted(properties)


class _Line(WireModel):
    """A protocol message: a wire model that ignores the fields it does not know."""

    # Unknown answer fields are ignored, not refused, so that a later optional field breaks
    # no older toolkit (see the compatibility rules above).
    model_config = ConfigDict(extra="ignore")


class Request(_Line):
    """A line compactcheck sends to a harness."""

    model_config = ConfigDict(json_schema_extra=_every_property_required)

    answer_model: ClassVar[type[_Line] | None] = None

    def to_line(self) -> bytes:
        """The request as one line of compact JSON, newline included."""
        return encode_line(self.to_json_data())


# -- start -------------------------------------------------------------------------------------


class HarnessImplementation(_Line):
    """What a harness says about itself in its start answer."""

    name: str = Field(min_length=1, description="the compactor's name, e.g. my-agent-compactor")
    version: str = Field(default="", description="the compactor's own version")
    language: str = Field(default="", description="e.g. javascript, typescript, python, rust")
    views: tuple[View, ...] = Field(
        min_length=1, description="the views the harness compacts; others it answers skipped"
    )
    formats: tuple[Format, ...] = Field(
        default=("openai-chat",),
        min_length=1,
        description="the wire formats of the messages view the harness takes (openai-chat, "
        "anthropic, openai-responses, gemini); a harness that declares none gets openai-chat",
    )
    waivers: dict[str, str] = Field(
        default_factory=dict,
        description="laws the compactor does not promise, by id, each with its reason; judged "
        "and shown but never counted as violations (a law of level 1 cannot be waived)",
    )

    def to_implementation(self) -> Implementation:
        """The report's record of this implementation."""
        return Implementation(
            name=self.name,
            version=self.version,
            language=self.language,
            views=list(self.views),
            formats=list(self.formats),
            waivers=dict(self.waivers),
        )


class StartResponse(_Line):
    """A harness's answer to start: the protocol version it speaks and what it is."""

    version: int = Field(description="the protocol version the harness speaks; must be 1")
    implementation: HarnessImplementation
    max_in_flight: int | None = Field(
        default=None,
        ge=1,
        description="optional: the most compact requests the harness takes before answering "
        "the first (absent: compactcheck's own window; 1: strictly one at a time)",
    )


class StartRequest(Request):
    """The handshake, sent once right after the harness starts."""

    cmd: Literal["start"] = "start"
    version: int = PROTOCOL_VERSION

    answer_model: ClassVar[type[_Line] | None] = StartResponse


# -- compact: per-view input and result ----------------------------------------------------------


class MessagesInput(_Line):
    """Messages view input: an OpenAI chat message list, or a provider request, to compact.

    Chat completions come as ``messages``; any other format the harness declared as ``format``
    and ``request`` (the provider's request body: Anthropic ``system`` and ``messages``,
    Responses ``instructions`` and ``input``, Gemini ``systemInstruction`` and ``contents``).
    """

    messages: tuple[ChatMessage, ...] | None = Field(
        default=None, description="the history, in OpenAI chat completions format"
    )
    format: Format | None = Field(
        default=None, description="the wire format of ``request`` (absent: chat completions)"
    )
    request: dict[str, Any] | None = Field(
        default=None, description="the provider request of ``format`` whose history to compact"
    )
    knobs: tuple[int, ...] | None = Field(
        default=None,
        description="small integers drawn with the history; a harness may derive its own "
        "settings from them so that they shrink with the history (optional, may be ignored)",
    )

    @model_validator(mode="after")
    def _one_history(self) -> Self:
        if (self.messages is None) == (self.request is None):
            raise ValueError("expected either messages or format and request")
        if (self.request is None) != (self.format is None):
            raise ValueError("format and request come together")
        return self


class MessagesResult(_Line):
    """Messages view result: the compacted chat message list, or the compacted request."""

    messages: tuple[ChatMessage, ...] | None = Field(
        default=None, description="the compacted history (chat completions)"
    )
    request: dict[str, Any] | None = Field(
        default=None, description="the compacted request, in the format it was handed"
    )

    @model_validator(mode="after")
    def _one_history(self) -> Self:
        if (self.messages is None) == (self.request is None):
            raise ValueError("expected either messages or request")
        return self


class SnapshotInput(_Line):
    """Snapshot view input: what a snapshot compactor is handed."""

    compactor_input: CompactorInput


class SnapshotResult(_Line):
    """Snapshot view result: the snapshot draft (id, createdAt and checksum are added later)."""

    draft: SnapshotDraft


class SessionInput(_Line):
    """Session view input: the session log so far, and why the compaction was triggered."""

    log: tuple[SessionEvent, ...]
    mode: SessionMode = Field(
        description="manual (a /compact command), pressure (the context is filling up) or "
        "overflow (the provider rejected a request as too long)"
    )


class SessionFailure(_Line):
    """A compaction that failed in a way the session contract classifies (e.g. busy, summary)."""

    code: str = Field(min_length=1)
    message: str


class SessionResult(_Line):
    """Session view result: the events the compaction appended to the log, in order."""

    appended: tuple[SessionEvent, ...]
    error: SessionFailure | None = Field(
        default=None,
        description="set when the compaction failed in a classified way; appended then holds "
        "only what was written before the failure",
    )


# -- compact: the answer envelope -----------------------------------------------------------------


class Skipped(_Line):
    """The harness declines this request (a view or an input it does not handle)."""

    reason: str


class Errored(_Line):
    """The harness's compactor failed on this request."""

    message: str
    traceback: str | None = None


ResultT = TypeVar("ResultT", bound=_Line)
_OUTCOMES = ("result", "skipped", "errored")


def _exactly_one_outcome(schema: dict[str, Any]) -> None:
    schema["oneOf"] = [{"required": [key]} for key in _OUTCOMES]


class CompactResponse(_Line, Generic[ResultT]):
    """A harness's answer to one compact request: exactly one of result, skipped or errored."""

    model_config = ConfigDict(json_schema_extra=_exactly_one_outcome)

    seq: JsonValue = Field(description="the request's seq, echoed unchanged")
    result: ResultT | SkipJsonSchema[None] = None
    skipped: Skipped | SkipJsonSchema[None] = None
    errored: Errored | SkipJsonSchema[None] = None
    input_after: JsonValue = Field(
        default=None,
        description="optional: the input as the compactor left it, sent only when the compactor "
        "changed its input in place (compactcheck's own Python worker sends it), so that the "
        "laws judge the edit",
    )

    @model_validator(mode="before")
    @classmethod
    def _one_outcome(cls, data: Any) -> Any:
        # Judged on the keys sent, so that the model and its schema reject the same lines.
        if isinstance(data, dict):
            present = [key for key in _OUTCOMES if key in data]
            if len(present) != 1:
                found = " and ".join(present) if present else "none of them"
                raise ValueError(
                    f"expected exactly one of result, skipped or errored; found {found}"
                )
            if data[present[0]] is None:
                raise ValueError(f"expected {present[0]} to be an object; found null")
        return data


class AnyCompactResponse(CompactResponse[MessagesResult | SnapshotResult | SessionResult]):
    """A compact answer for any view (the result's shape follows the request's view)."""


class OpaqueResult(_Line):
    """A result taken as any JSON object, its shape left to the view's driver: the answers of
    compactcheck's own Python worker, whose results are read as an in-process compactor's are
    (the protocol's schema is the contract of a harness in another language)."""

    model_config = ConfigDict(extra="allow")


# The answer model of the isolated worker: the envelope checked, the result read by the driver.
OPAQUE_COMPACT_RESPONSE: type[_Line] = CompactResponse[OpaqueResult]


class CompactRequest(Request):
    """Ask the harness to compact one input; ``seq`` is opaque and must be echoed."""

    cmd: Literal["compact"] = "compact"
    seq: JsonValue = Field(description="any JSON value; the answer must carry it unchanged")


class MessagesCompactRequest(CompactRequest):
    """Compact a chat message list."""

    view: Literal["messages"] = "messages"
    input: MessagesInput

    answer_model: ClassVar[type[_Line] | None] = CompactResponse[MessagesResult]


class SnapshotCompactRequest(CompactRequest):
    """Compact agent events into a snapshot draft."""

    view: Literal["snapshot"] = "snapshot"
    input: SnapshotInput

    answer_model: ClassVar[type[_Line] | None] = CompactResponse[SnapshotResult]


class SessionCompactRequest(CompactRequest):
    """Compact a session log by appending compaction events."""

    view: Literal["session"] = "session"
    input: SessionInput

    answer_model: ClassVar[type[_Line] | None] = CompactResponse[SessionResult]


COMPACT_REQUESTS: dict[View, type[CompactRequest]] = {
    "messages": MessagesCompactRequest,
    "snapshot": SnapshotCompactRequest,
    "session": SessionCompactRequest,
}

ANY_COMPACT_REQUEST: TypeAdapter[
    MessagesCompactRequest | SnapshotCompactRequest | SessionCompactRequest
] = TypeAdapter(
    Annotated[
        MessagesCompactRequest | SnapshotCompactRequest | SessionCompactRequest,
        Field(discriminator="view"),
    ]
)


# -- stop ----------------------------------------------------------------------------------------


class StopRequest(Request):
    """Ask the harness to exit; it sends no answer."""

    cmd: Literal["stop"] = "stop"


def encode_line(data: dict[str, Any]) -> bytes:
    """One JSON object as a protocol line: compact, UTF-8, newline-terminated.

    ProtocolError for data JSON cannot carry here: an integer beyond 64 bits, a key that is not
    a string, a string that is not valid UTF-8 (a lone surrogate).
    """
    try:
        return orjson.dumps(data, option=orjson.OPT_APPEND_NEWLINE)
    except TypeError as error:
        raise ProtocolError(
            f"compactcheck cannot send this request as protocol version {PROTOCOL_VERSION} JSON: "
            f"{error}; keep integers within 64 bits, keys strings and text valid UTF-8"
        ) from None
