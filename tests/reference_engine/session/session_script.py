"""Test scenarios: a small script that writes well-formed session logs through the engine."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from compactcheck.invariants.session import assert_log_valid
from compactcheck.reference_engine.session import Session


def text(value: str) -> dict[str, Any]:
    """A text block."""
    return {"type": "text", "text": value}


def user_data(message_id: str, body: str, **source: Any) -> dict[str, Any]:
    """user/message data."""
    return {
        "id": message_id,
        "role": "user",
        "content": [text(body)],
        "source": source or {"kind": "user"},
    }


def result_data(turn: int, step: int, call_id: str, body: Any, **extra: Any) -> dict[str, Any]:
    """tool/result data answering call_id (body: a string or a list of blocks)."""
    blocks = [text(body)] if isinstance(body, str) else list(body)
    return {
        "turn": turn,
        "step": step,
        "message": {
            "id": f"result-{call_id}",
            "role": "user",
            "source": {"kind": "tool", "callId": call_id},
            "content": [
                {"type": "tool-result", "toolCallId": call_id, "isError": False, "content": blocks}
            ],
        },
        **extra,
    }


class Script:
    """Writes a conversation into a Session: turns, steps, messages, calls and results."""

    def __init__(self, session: Session | None = None) -> None:
        self.session = session if session is not None else Session("s")
        self.turn = 0
        self.step = 0
        self.count = 0

    def _id(self, prefix: str) -> str:
        self.count += 1
        return f"{prefix}-{self.count}"

    def user(self, body: str) -> int:
        """Append a user prompt; returns its seq."""
        data = user_data(self._id("u"), body)
        return self.session.append("user/message", data, surface_op="append").seq

    def begin_turn(self) -> int:
        """Open the next turn."""
        self.turn += 1
        self.step = 0
        return self.session.append("turn/start", {"turn": self.turn}).seq

    def end_turn(self, kind: str = "completed") -> int:
        """Close the open turn."""
        return self.session.append("turn/end", {"turn": self.turn, "reason": {"kind": kind}}).seq

    def begin_step(self) -> int:
        """Open the next step of the open turn."""
        self.step += 1
        return self.session.append("step/start", {"turn": self.turn, "step": self.step}).seq

    def end_step(self) -> int:
        """Close the open step."""
        return self.session.append("step/end", {"turn": self.turn, "step": self.step}).seq

    def header(
        self,
        provider: str = "prov",
        model: str = "mod",
        system: str | None = None,
        tools: Sequence[Any] | None = None,
    ) -> int:
        """Log a routed request header (needs an open turn)."""
        envelope: dict[str, Any] = {"config": {"provider": provider, "model": model}}
        if system is not None:
            envelope["system"] = system
        if tools is not None:
            envelope["tools"] = list(tools)
        return self.session.append("request/header", {"header": envelope, "reason": "initial"}).seq

    def assistant(
        self, body: str = "", calls: Sequence[str] = (), usage: dict[str, int] | None = None
    ) -> int:
        """Append an assistant message with optional text and tool calls (inside a step)."""
        content: list[dict[str, Any]] = [text(body)] if body else []
        content += [
            {"type": "tool-call", "id": call, "name": "run", "arguments": "{}"} for call in calls
        ]
        data: dict[str, Any] = {
            "turn": self.turn,
            "step": self.step,
            "message": {
                "id": self._id("a"),
                "role": "assistant",
                "content": content,
                "source": {"kind": "model", "provider": "prov", "model": "mod"},
            },
        }
        if usage is not None:
            data["usage"] = usage
        seq = self.session.append("assistant/message", data, surface_op="append").seq
        for call in calls:
            self.session.append(
                "tool/call",
                {
                    "turn": self.turn,
                    "step": self.step,
                    "callId": call,
                    "name": "run",
                    "arguments": "{}",
                },
            )
        return seq

    def result(self, call_id: str, body: Any = "ok") -> int:
        """Append the result of a pending call."""
        data = result_data(self.turn, self.step, call_id, body)
        return self.session.append("tool/result", data, surface_op="append").seq

    def tool_step(self, call_id: str, body: Any = "ok", say: str = "") -> tuple[int, int]:
        """A whole closed step: assistant with one call, its result. Returns (assistant, result)."""
        self.begin_step()
        asked = self.assistant(say, [call_id])
        answered = self.result(call_id, body)
        self.end_step()
        return asked, answered

    def reply_step(self, body: str) -> int:
        """A closed step with a plain assistant reply."""
        self.begin_step()
        seq = self.assistant(body)
        self.end_step()
        return seq

    def conversation(self, exchanges: int, width: int = 200) -> None:
        """Closed turns: a user prompt, a tool step and a reply, repeated."""
        for index in range(exchanges):
            self.user(f"question {index} " + "q" * width)
            self.begin_turn()
            self.tool_step(f"c{self.turn}", f"output {index} " + "r" * width)
            self.reply_step(f"answer {index} " + "a" * width)
            self.end_turn()

    def check(self, allow_open_bracket: bool = False) -> None:
        """Assert the log the engine wrote passes the streaming checker."""
        assert_log_valid(self.session.events, allow_open_bracket=allow_open_bracket)


def replay(session: Session) -> Session:
    """Rebuild a session from its log (the log already ends with its own events)."""
    return Session(session.id + "-replay", list(session.events))


class RawLog:
    """A hand-written log of raw JSON events, for feeding the checker directly."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def add(self, kind: str, data: Any, **markers: Any) -> int:
        """Append a raw event; markers are surfaceOp / sourceEventSeqs. Returns its seq."""
        seq = len(self.events)
        event: dict[str, Any] = {"type": kind, "seq": seq, "time": seq, "data": data}
        event.update(markers)
        self.events.append(event)
        return seq

    def start(self, turn: int | None, cid: str = "k", **extra: Any) -> int:
        """compaction/start."""
        return self.add("compaction/start", {"compactionId": cid, "turn": turn, **extra})

    def end(self, turn: int | None, cid: str = "k", **extra: Any) -> int:
        """compaction/end."""
        return self.add("compaction/end", {"compactionId": cid, "turn": turn, **extra})

    def turn(self, kind: str, number: int) -> int:
        """turn/start or turn/end."""
        data: dict[str, Any] = {"turn": number}
        if kind == "end":
            data["reason"] = {"kind": "completed"}
        return self.add(f"turn/{kind}", data)

    def user(self, body: str = "u" * 200) -> int:
        """An appended user message."""
        return self.add("user/message", user_data(f"m{len(self.events)}", body), surfaceOp="append")
