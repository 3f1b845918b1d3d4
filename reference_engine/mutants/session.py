"""Broken session compactors, each breaking one session law the way a real backend plausibly would.

Most are the reference engine with its answer edited afterwards (the injected bug); the rest swap
one collaborator of the engine. Every ``build()`` returns a ``SessionCompactor`` (the shape in
``compactcheck.reference_engine.shared_semantics``): a JSON payload in, a JSON answer out.
``max_witness`` bounds the shrunk history: a committed compaction needs about fifteen events before
any checkpoint can be smaller than what it replaces, so the mutants that break a commit carry larger
bounds than those that break a failure or a decline.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from compactcheck.invariants.session import SessionEvent, node_price
from compactcheck.invariants.session.exchange import Mode as SessionMode
from compactcheck.invariants.session.exchange import SurfaceFolder
from compactcheck.reference_engine.mutants.mutant import Mutant
from compactcheck.reference_engine.session import TokenMeter, reference_session_compactor
from compactcheck.reference_engine.shared_semantics import SessionCompactor

Event = dict[str, Any]
# (handed log, appended events, mode) -> the appended events the broken backend answers.
Edit = Callable[[list[Event], list[Event], SessionMode], list[Event]]


def _edited(edit: Edit, base: SessionCompactor | None = None) -> SessionCompactor:
    """A backend that runs ``base`` (the reference by default) and edits what it appended."""
    inner = base if base is not None else reference_session_compactor()

    def compact(payload: dict[str, Any]) -> dict[str, Any]:
        answer = inner(payload)
        if "appended" not in answer:
            return answer
        appended = copy.deepcopy(answer["appended"])
        return {"appended": edit(payload["log"], appended, payload["mode"])}

    return compact


def _brackets(appended: Sequence[Event]) -> list[dict[str, int]]:
    """Index of start, summary, checkpoint and end of each complete bracket in the answer."""
    found: list[dict[str, int]] = []
    current: dict[str, int] = {}
    for index, event in enumerate(appended):
        kind = event["type"]
        if kind == "compaction/start":
            current = {"start": index}
        elif kind == "compaction/summary":
            current["summary"] = index
        elif kind == "user/message" and event.get("surfaceOp") not in (None, "append"):
            current["checkpoint"] = index
        elif kind == "compaction/end":
            current["end"] = index
            found.append(current)
            current = {}
    return found


def _last_success(appended: Sequence[Event]) -> dict[str, int] | None:
    """The last bracket that committed a checkpoint and closed without error."""
    for bracket in reversed(_brackets(appended)):
        if "checkpoint" in bracket and "error" not in appended[bracket["end"]]["data"]:
            return bracket
    return None


def _surface_before(log: Sequence[Event], appended: Sequence[Event], upto: int) -> SurfaceFolder:
    """The surface as it stood just before appended[upto]."""
    folder = SurfaceFolder()
    # The harness validated these events already; rebuilding them unchecked keeps this cheap.
    folder.feed(
        SessionEvent.trusted(
            e["type"], e["seq"], e["time"], e["data"], e.get("surfaceOp"), e.get("sourceEventSeqs")
        )
        for e in [*log, *appended[:upto]]
    )
    return folder


def _reshape(
    log: Sequence[Event], appended: list[Event], bracket: dict[str, int], span: list[int]
) -> None:
    """Point a bracket's summary and checkpoint at another span, keeping their fields in step."""
    folder = _surface_before(log, appended, bracket["summary"])
    summary = appended[bracket["summary"]]["data"]
    summary["shadowedRange"] = {"start": span[0], "end": span[-1]}
    summary["shadowedSeqs"] = list(span)
    summary["shadowedTokenCount"] = sum(node_price(folder.events[seq]) for seq in span)
    checkpoint = appended[bracket["checkpoint"]]
    checkpoint["surfaceOp"] = {"op": "replace", "start": span[0], "end": span[-1]}
    start_seq = appended[bracket["start"]]["seq"]
    checkpoint["sourceEventSeqs"] = [start_seq, appended[bracket["summary"]]["seq"], *span]


# -- the bugs ---------------------------------------------------------------------------------


def _drop_error_end(log: list[Event], appended: list[Event], mode: SessionMode) -> list[Event]:
    # The failure path returns before closing the bracket: the start stays unmatched.
    return [e for e in appended if not (e["type"] == "compaction/end" and "error" in e["data"])]


def _keep_tool_call(log: list[Event], appended: list[Event], mode: SessionMode) -> list[Event]:
    # "Keep the last tool call so the model can resume it": a call block lands in the summary.
    bracket = _last_success(appended)
    if bracket is None:
        return appended
    events = [*log, *appended]
    summary = appended[bracket["summary"]]["data"]
    calls = [
        block
        for seq in summary["shadowedSeqs"]
        if events[seq]["type"] == "assistant/message"
        for block in events[seq]["data"]["message"]["content"]
        if block.get("type") == "tool-call"
    ]
    if calls:
        summary["summary"].append(dict(calls[-1]))
        content = appended[bracket["checkpoint"]]["data"]["content"]
        content.insert(len(content) - 1, dict(calls[-1]))
    return appended


def _plain_user_checkpoint(
    log: list[Event], appended: list[Event], mode: SessionMode
) -> list[Event]:
    # Writes the checkpoint as an ordinary user message: nothing marks it as a checkpoint.
    for bracket in _brackets(appended):
        if "checkpoint" in bracket:
            appended[bracket["checkpoint"]]["data"]["source"] = {"kind": "user"}
    return appended


def _swallow_first_tail_node(
    log: list[Event], appended: list[Event], mode: SessionMode
) -> list[Event]:
    # Treats the selected range's exclusive end as inclusive: the replace reaches one node too
    # far and hides the first tail node, which the summary never saw.
    bracket = _last_success(appended)
    if bracket is None:
        return appended
    folder = _surface_before(log, appended, bracket["summary"])
    nodes = folder.tracker.nodes
    end = appended[bracket["summary"]]["data"]["shadowedRange"]["end"]
    index = nodes.index(end)
    if index + 1 >= len(nodes):
        return appended
    extra = nodes[index + 1]
    checkpoint = appended[bracket["checkpoint"]]
    checkpoint["surfaceOp"] = {**checkpoint["surfaceOp"], "end": extra}
    checkpoint["sourceEventSeqs"] = [*checkpoint["sourceEventSeqs"], extra]
    return appended


def _cut_by_count(log: list[Event], appended: list[Event], mode: SessionMode) -> list[Event]:
    # Cuts by message count, not at a balanced boundary: a result is left behind without its
    # call, or a call is summarised while its results stay visible.
    bracket = _last_success(appended)
    if bracket is None:
        return appended
    folder = _surface_before(log, appended, bracket["summary"])
    nodes = folder.tracker.nodes
    span = list(appended[bracket["summary"]]["data"]["shadowedSeqs"])
    after = nodes.index(span[-1]) + 1
    if len(span) >= 2 and folder.events[span[-1]].type == "tool/result":
        _reshape(log, appended, bracket, span[:-1])
    elif after < len(nodes) and folder.events[nodes[after]].type == "assistant/message":
        event = folder.events[nodes[after]]
        if any(block.get("type") == "tool-call" for block in event.data["message"]["content"]):
            _reshape(log, appended, bracket, [*span, nodes[after]])
    return appended


class _UnframedMeter(TokenMeter):
    """Prices the checkpoint by its summary blocks alone, forgetting the preamble and tags."""

    def estimate_message(self, message: Any) -> int:
        """The price without the framing blocks."""
        data = message.to_json_data() if hasattr(message, "to_json_data") else message
        content = data.get("content") if isinstance(data, dict) else None
        if isinstance(content, list) and len(content) >= 2:
            data = {**data, "content": content[1:-1]}
        return super().estimate_message(data)


def _shrink_checked_after_commit(
    log: list[Event], appended: list[Event], mode: SessionMode
) -> list[Event]:
    # Commits the checkpoint first and checks the shrink rule afterwards; on failure it only
    # writes the error end, leaving the checkpoint on the surface.
    for bracket in _brackets(appended):
        if "checkpoint" not in bracket:
            continue
        checkpoint = SessionEvent.from_json_data(appended[bracket["checkpoint"]])
        claimed = appended[bracket["summary"]]["data"]["shadowedTokenCount"]
        price = node_price(checkpoint)
        if price >= claimed:
            end = appended[bracket["end"]]
            end["data"]["error"] = (
                f"summary is not smaller than the shadowed content ({price} estimated framed "
                f"tokens >= {claimed})"
            )
            return appended[: bracket["end"] + 1]
    return appended


def _scrub_tool_outputs(payload: dict[str, Any]) -> None:
    # Elides tool outputs in the handed log itself (to save memory) instead of in a copy.
    for event in payload["log"]:
        if event["type"] != "tool/result":
            continue
        for block in event["data"]["message"]["content"]:
            for inner in block.get("content", []):
                if inner.get("type") == "text":
                    inner["text"] = "(output elided)"


def _edits_handed_log() -> SessionCompactor:
    reference = reference_session_compactor()

    def compact(payload: dict[str, Any]) -> dict[str, Any]:
        _scrub_tool_outputs(payload)
        return reference(payload)

    return compact


def _never_declines() -> SessionCompactor:
    # Never answers "skipped": an empty result claims a compaction that changed nothing, so an
    # overflow listener would retry with the same context.
    reference = reference_session_compactor()

    def compact(payload: dict[str, Any]) -> dict[str, Any]:
        answer = reference(payload)
        return {"appended": answer.get("appended", [])}

    return compact


def _end_before_checkpoint(
    log: list[Event], appended: list[Event], mode: SessionMode
) -> list[Event]:
    # Releases the lock, then writes the checkpoint: the surface changes outside the bracket.
    bracket = _last_success(appended)
    if bracket is None or bracket["end"] != bracket["checkpoint"] + 1:
        return appended
    at = bracket["checkpoint"]
    checkpoint, end = appended[at], appended[at + 1]
    checkpoint["seq"], end["seq"] = end["seq"], checkpoint["seq"]
    appended[at], appended[at + 1] = end, checkpoint
    return appended


def _cite_markers_only(log: list[Event], appended: list[Event], mode: SessionMode) -> list[Event]:
    # Cites the compaction's own markers and forgets the nodes the checkpoint shadows (S6).
    bracket = _last_success(appended)
    if bracket is not None:
        checkpoint = appended[bracket["checkpoint"]]
        checkpoint["sourceEventSeqs"] = checkpoint["sourceEventSeqs"][:2]
    return appended


SESSION_MUTANTS: tuple[Mutant, ...] = (
    Mutant(
        "session_cites_markers_only",
        "session",
        "surface_well_formed",
        "the checkpoint cites only its start and summary, not the nodes it shadows",
        lambda: _edited(_cite_markers_only),
        max_witness=20,
    ),
    Mutant(
        "session_end_before_checkpoint",
        "session",
        "transaction_grammar",
        "compaction/end is written before the checkpoint, releasing the lock too early",
        lambda: _edited(_end_before_checkpoint),
        max_witness=20,
    ),
    Mutant(
        "session_cut_by_count",
        "session",
        "tool_pairing",
        "the compacted span ends one node off its balanced cut, splitting a call from a result",
        lambda: _edited(_cut_by_count),
        max_witness=20,
    ),
    Mutant(
        "session_lock_left_on_failure",
        "session",
        "lock_exclusive",
        "a failed attempt returns without its error end, leaving the lock taken",
        lambda: _edited(_drop_error_end),
        max_witness=12,
    ),
    Mutant(
        "session_checkpoint_priced_unframed",
        "session",
        "shrinks",
        "the shrink check prices the summary without its framing, so a bigger checkpoint lands",
        lambda: reference_session_compactor(meter=_UnframedMeter),
        max_witness=16,
    ),
    Mutant(
        "session_swallows_first_tail_node",
        "session",
        "tail_retained",
        "the replace range reaches one node past the summarised range, hiding a tail node",
        lambda: _edited(_swallow_first_tail_node),
        max_witness=20,
    ),
    Mutant(
        "session_surface_changed_on_failure",
        "session",
        "failure_atomic",
        "the checkpoint is committed before the shrink check, which then only logs the error",
        lambda: _edited(
            _shrink_checked_after_commit, reference_session_compactor(meter=_UnframedMeter)
        ),
        max_witness=16,
    ),
    Mutant(
        "session_edits_handed_log",
        "session",
        "replay_deterministic",
        "tool outputs are elided in the handed log itself, so a replay sees another history",
        _edits_handed_log,
        max_witness=10,
    ),
    Mutant(
        "session_summary_keeps_tool_call",
        "session",
        "summary_hygiene",
        "the summary keeps the last tool call block so the model can resume it",
        lambda: _edited(_keep_tool_call),
        max_witness=30,
    ),
    Mutant(
        "session_checkpoint_without_marker",
        "session",
        "checkpoint_identifiable",
        "the checkpoint is written as a plain user message, without the compact marker",
        lambda: _edited(_plain_user_checkpoint),
        max_witness=20,
    ),
    Mutant(
        "session_never_declines",
        "session",
        "progress",
        "a backend that never declines answers an empty result, claiming progress it never made",
        _never_declines,
        max_witness=6,
    ),
)
