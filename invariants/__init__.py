"""The vocabulary of compaction (pydantic models) and the laws a compactor must keep."""

from compactcheck.invariants.canonical import (
    canonical_json,
    canonically_equal,
    json_copy,
    sha256_hex,
)
from compactcheck.invariants.catalogue import UnknownInvariantError, catalogue, run_checks, select
from compactcheck.invariants.compaction import SnapshotAfter, SnapshotBefore
from compactcheck.invariants.compactor import CompactorInput
from compactcheck.invariants.context import ContextSource, ContextUsage
from compactcheck.invariants.events import REQUIRED_PAYLOAD, AgentEvent, EventType
from compactcheck.invariants.facts import Budget, Facts
from compactcheck.invariants.law import VIEWS, Invariant, View, invariant
from compactcheck.invariants.messages import (
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
from compactcheck.invariants.plan import (
    AcceptanceCriterion,
    PlanStep,
    StepStatus,
    TaskPlan,
    ValidationRecord,
)
from compactcheck.invariants.snapshot import (
    CompactionSnapshot,
    CompactionState,
    CompletedWork,
    Decision,
    PendingWork,
    SnapshotDraft,
    SourceEventRange,
)
from compactcheck.invariants.state import (
    ActiveSkill,
    AgentState,
    PendingUserInput,
    RunStatus,
    SkillState,
)
from compactcheck.invariants.verdict import Finding, Review, Violation, value_diff
from compactcheck.invariants.wire import WireModel

__all__ = [
    "REQUIRED_PAYLOAD",
    "VIEWS",
    "AcceptanceCriterion",
    "ActiveSkill",
    "AgentEvent",
    "AgentState",
    "AssistantMessage",
    "Budget",
    "ChatMessage",
    "CompactionSnapshot",
    "CompactionState",
    "CompactorInput",
    "CompletedWork",
    "ContextSource",
    "ContextUsage",
    "Decision",
    "EventType",
    "Facts",
    "Finding",
    "FunctionCall",
    "Invariant",
    "PendingUserInput",
    "PendingWork",
    "PlanStep",
    "Review",
    "RunStatus",
    "SkillState",
    "SnapshotAfter",
    "SnapshotBefore",
    "SnapshotDraft",
    "SourceEventRange",
    "StepStatus",
    "SystemMessage",
    "TaskPlan",
    "TextPart",
    "ToolCall",
    "ToolMessage",
    "UnknownInvariantError",
    "UserMessage",
    "ValidationRecord",
    "View",
    "Violation",
    "WireModel",
    "canonical_json",
    "canonically_equal",
    "catalogue",
    "content_text",
    "dump_messages",
    "invariant",
    "json_copy",
    "parse_messages",
    "run_checks",
    "select",
    "sha256_hex",
    "value_diff",
]
