"""The vocabulary of compaction (pydantic models) and the laws a compactor must keep."""

from invariants.canonical import canonical_json, canonically_equal, sha256_hex
from invariants.compactor import CompactorInput
from invariants.context import ContextSource, ContextUsage
from invariants.events import REQUIRED_PAYLOAD, AgentEvent, EventType
from invariants.messages import (
    AssistantMessage,
    ChatMessage,
    FunctionCall,
    SystemMessage,
    TextPart,
    ToolCall,
    ToolMessage,
    UserMessage,
    content_text,
    dump_messages,
    parse_messages,
)
from invariants.plan import AcceptanceCriterion, PlanStep, StepStatus, TaskPlan, ValidationRecord
from invariants.snapshot import (
    CompactionSnapshot,
    CompactionState,
    CompletedWork,
    Decision,
    PendingWork,
    SnapshotDraft,
    SourceEventRange,
)
from invariants.state import ActiveSkill, AgentState, PendingUserInput, RunStatus, SkillState
from invariants.wire import WireModel

__all__ = [
    "REQUIRED_PAYLOAD",
    "AcceptanceCriterion",
    "ActiveSkill",
    "AgentEvent",
    "AgentState",
    "AssistantMessage",
    "ChatMessage",
    "CompactionSnapshot",
    "CompactionState",
    "CompactorInput",
    "CompletedWork",
    "ContextSource",
    "ContextUsage",
    "Decision",
    "EventType",
    "FunctionCall",
    "PendingUserInput",
    "PendingWork",
    "PlanStep",
    "RunStatus",
    "SkillState",
    "SnapshotDraft",
    "SourceEventRange",
    "StepStatus",
    "SystemMessage",
    "TaskPlan",
    "TextPart",
    "ToolCall",
    "ToolMessage",
    "UserMessage",
    "ValidationRecord",
    "WireModel",
    "canonical_json",
    "canonically_equal",
    "content_text",
    "dump_messages",
    "parse_messages",
    "sha256_hex",
]
