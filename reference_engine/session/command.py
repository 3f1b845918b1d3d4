"""The /compact command: runs manual compaction and turns each outcome into one fixed line."""

from __future__ import annotations

from dataclasses import dataclass

from compactcheck.reference_engine.session.compactor import BasicCompactor
from compactcheck.reference_engine.session.errors import ManualCompactionError
from compactcheck.reference_engine.session.log import Session
from compactcheck.reference_engine.session.manual import MaintenanceHost, compact_now
from compactcheck.reference_engine.session.signal import AbortSignal

COMMAND_TEXT = {
    "busy": "Compaction is busy: another compaction is active or the agent is not idle.",
    "cancelled": "Compaction cancelled.",
    "changed": "The selected history changed while summarizing; the conversation is unchanged "
    "and the attempt was logged.",
    "summary": "No useful summary was produced; the conversation is unchanged and the attempt "
    "was logged.",
    "commit": "Compaction did not finish cleanly; inspect the session before retrying.",
    "persistence": "Compaction finished, but the session could not be saved.",
}
NOTHING_TEXT = "No compactable history yet."
USAGE_TEXT = "Usage: /compact (takes no arguments)"


@dataclass(frozen=True)
class CommandOutcome:
    """What /compact reports: the text and the summary seq it points at, if any."""

    text: str
    source_event_seq: int | None = None


def run_compact_command(
    compactor: BasicCompactor,
    session: Session,
    host: MaintenanceHost,
    command_id: str,
    args: str = "",
    signal: AbortSignal | None = None,
) -> CommandOutcome:
    """Run /compact; expected failures become fixed texts, unexpected ones propagate."""
    if args.strip():
        return CommandOutcome(USAGE_TEXT)
    try:
        result = compact_now(compactor, session, host, signal=signal, source_command_id=command_id)
    except ManualCompactionError as error:
        if signal is not None and signal.aborted:
            return CommandOutcome(COMMAND_TEXT["cancelled"])
        return CommandOutcome(COMMAND_TEXT[error.code])
    except BaseException:
        if signal is not None and signal.aborted:
            return CommandOutcome(COMMAND_TEXT["cancelled"])
        raise
    if result is None:
        return CommandOutcome(NOTHING_TEXT)
    return CommandOutcome(
        f"Compacted {len(result.shadowed_seqs)} history items "
        f"(~{result.shadowed_token_count} tokens).",
        result.summary_seq,
    )
