"""The tool-result pruner: cut the middle out of oversized tool results, one rewrite each."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, StrictInt, ValidationError, model_validator

from compactcheck.invariants.errors import first_problem
from compactcheck.invariants.session import json_copy, node_price
from compactcheck.reference_engine.session.errors import ConfigError
from compactcheck.reference_engine.session.log import Session

PRUNE_MARKER = "\n\n[... tool result middle pruned ...]\n\n"


class PrunerConfig(BaseModel):
    """Pruner budgets, counted in Unicode code points of text blocks."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    threshold_chars: StrictInt = 8192
    head_chars: StrictInt = 4096
    tail_chars: StrictInt = 1024

    @model_validator(mode="after")
    def _valid(self) -> PrunerConfig:
        if self.threshold_chars <= 0:
            raise ValueError(f"thresholdChars must be > 0; found {self.threshold_chars}")
        if self.head_chars < 0 or self.tail_chars < 0:
            raise ValueError("headChars and tailChars must be >= 0")
        budget = self.head_chars + len(PRUNE_MARKER) + self.tail_chars
        if budget > self.threshold_chars:
            raise ValueError(
                f"head + marker + tail ({budget}) must be <= thresholdChars "
                f"({self.threshold_chars})"
            )
        return self


def load_pruner_config(options: dict[str, Any] | None = None) -> PrunerConfig:
    """Validate pruner options; raise ConfigError naming the bad key."""
    try:
        return PrunerConfig.model_validate(options or {})
    except ValidationError as error:
        where, what = first_problem(error)
        raise ConfigError(f"invalid pruner config at {where or 'config'}: {what}") from error


def measure_content(blocks: Sequence[Any]) -> int:
    """Code points in text blocks; every other block counts 0."""
    return sum(
        len(block["text"])
        for block in blocks
        if isinstance(block, dict) and block.get("type") == "text"
    )


def prune_content(blocks: Sequence[Any], config: PrunerConfig) -> list[Any] | None:
    """Remove the middle code points across text blocks, or None when under the threshold."""
    total = measure_content(blocks)
    if total <= config.threshold_chars:
        return None
    cut_from, cut_to = config.head_chars, total - config.tail_chars
    out: list[Any] = []
    offset = 0
    marked = False
    for block in blocks:
        if not (isinstance(block, dict) and block.get("type") == "text"):
            out.append(json_copy(block))
            continue
        text: str = block["text"]
        begin, finish = offset, offset + len(text)
        offset = finish
        keep_head = text[: max(0, min(finish, cut_from) - begin)]
        keep_tail = text[max(0, max(begin, cut_to) - begin) :] if finish > cut_to else ""
        overlaps = begin < cut_to and finish > cut_from
        if overlaps and not marked:
            new_text = keep_head + PRUNE_MARKER + keep_tail
            marked = True
        elif overlaps:
            new_text = keep_head + keep_tail
        else:
            new_text = text
        if new_text:
            out.append({**block, "text": new_text})
    return out


@dataclass(frozen=True)
class PruneReport:
    """What one pruning pass rewrote."""

    rewritten_seqs: tuple[int, ...]
    chars_removed: int


def prune_session(session: Session, config: PrunerConfig) -> PruneReport:
    """Rewrite every oversized tool/result on the surface; each rewrite stays durable alone."""
    rewritten: list[int] = []
    removed = 0
    for seq in session.surface_nodes:
        event = session.event_at(seq)
        if event is None or event.type != "tool/result":
            continue
        message = event.data["message"]
        block = message["content"][0]
        pruned = prune_content(block.get("content", []), config)
        if pruned is None:
            continue
        session.append(
            "compaction/prune",
            {
                "shadowedRange": {"start": seq, "end": seq},
                "shadowedSeqs": [seq],
                "shadowedTokenCount": node_price(event),
            },
        )
        data = json_copy(event.data)
        data["message"]["content"][0]["content"] = pruned
        session.append(
            "tool/result",
            data,
            surface_op={"op": "replace", "start": seq, "end": seq},
            source_event_seqs=[seq],
        )
        rewritten.append(seq)
        removed += measure_content(block.get("content", [])) - measure_content(pruned)
    return PruneReport(tuple(rewritten), removed)
