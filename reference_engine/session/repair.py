"""Crash repair: the synthetic events that close a final turn left open by a dead process."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compactcheck.invariants.session import Enclosure, SessionEvent


def interrupted_turn_closers(events: Sequence[SessionEvent]) -> list[dict[str, Any]]:
    """Error results for pending calls, step/end, then turn/end(interrupted); no compaction."""
    if not events:
        return []
    enclosure = Enclosure()
    calls: dict[str, int] = {}
    for event in events:
        enclosure.apply(event)
        if event.type == "tool/call" and isinstance(event.data, dict):
            calls[event.data["callId"]] = event.seq
    if enclosure.open_turn is None:
        return []
    turn, step = enclosure.open_turn, enclosure.open_step
    seq, time = events[-1].seq + 1, events[-1].time
    out: list[dict[str, Any]] = []
    for call_id in enclosure.pending_calls:
        recorded = call_id in calls
        code = "TOOL_OUTCOME_UNKNOWN" if recorded else "TOOL_NOT_STARTED"
        out.append(
            {
                "type": "tool/result",
                "seq": seq,
                "time": time,
                "surfaceOp": "append",
                **({"sourceEventSeqs": [calls[call_id]]} if recorded else {}),
                "data": {
                    "turn": turn,
                    "step": step,
                    "message": {
                        "id": f"repair-{call_id}",
                        "role": "user",
                        "source": {"kind": "tool", "callId": call_id},
                        "content": [
                            {
                                "type": "tool-result",
                                "toolCallId": call_id,
                                "isError": True,
                                "content": [
                                    {"type": "text", "text": "tool outcome lost in a crash"}
                                ],
                            }
                        ],
                    },
                    "error": {"name": "ToolError", "code": code},
                },
            }
        )
        seq += 1
    if step is not None:
        out.append(
            {"type": "step/end", "seq": seq, "time": time, "data": {"turn": turn, "step": step}}
        )
        seq += 1
    out.append(
        {
            "type": "turn/end",
            "seq": seq,
            "time": time,
            "data": {"turn": turn, "reason": {"kind": "interrupted"}},
        }
    )
    return out
