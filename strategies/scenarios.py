"""The scenario strategy: agent runs drawn well formed by construction, shrinking toward less."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, TypeVar

from hypothesis import strategies as st

from compactcheck.invariants import (
    AcceptanceCriterion,
    PlanStep,
    StepStatus,
    TaskPlan,
    ValidationRecord,
)
from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.contents import (
    MAX_SIZE_CLASS,
    command_log,
    instruction,
    length_of,
    read_output,
)
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.turns import (
    Action,
    ActivateSkill,
    CompleteStep,
    Constraint,
    FailAttempt,
    Say,
    StartStep,
    ToolBatch,
    ToolCallSpec,
    ToolKind,
    Turn,
)

STATUSES: Final[tuple[StepStatus, ...]] = (
    "pending",
    "in_progress",
    "completed",
    "blocked",
    "failed",
)
# How a step's status is drawn: half of the steps end completed, so that most plans have
# completed work whose evidence a snapshot must cite (and a stale citation can show); the first
# entry is still "pending", where a shrunk step goes.
_STATUS_DIGITS: Final[tuple[StepStatus, ...]] = (
    "pending",
    "completed",
    "in_progress",
    "completed",
    "blocked",
    "completed",
    "failed",
    "completed",
)
# Most plans state acceptance criteria (a run without any shrinks to none).
_CRITERIA_COUNTS: Final = (0, 1, 1, 2, 2, 3, 3, 3)
# A coding agent's planned calls: reads, edits (as often as the other two together, so that a
# run often changes several files) and validations.
_CALL_KINDS: Final[tuple[ToolKind, ...]] = ("read", "edit", "validate", "edit")
_T = TypeVar("_T")
DEFAULT_MAX_TURNS: Final = 4
DEFAULT_MAX_ACTIONS: Final = 5
MAX_PARALLEL_CALLS: Final = 3
# A busy turn's routine reads (read_file, grep, list_dir with bulky outputs) come from one drawn
# integer: a digit for how bulky, one for how many, one for the length of the user's notes. Each
# table grows from its first entry, where a shrunk digit goes; a quiet run has none of them.
ROUTINE_COUNTS: Final = (1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48)
ROUTINE_LEVELS: Final = (0, 0, 1, 2, 3, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10)
INSTRUCTION_CLASSES: Final = (0, 0, 0, 0, 0, 2, 4, 7)
_BULK_RANGE: Final = len(ROUTINE_COUNTS) * len(ROUTINE_LEVELS) * len(INSTRUCTION_CLASSES)
# Outputs of one turn's routine reads together stay under this many characters: a turn of many
# reads gets short ones, so a history stays in the tens of kilobytes, rarely a few hundred.
_TURN_CHARS: Final = 64 * 1024
# How far below the turn's level each routine read sits, in rotation, so that sizes vary.
_ROUTINE_SPREAD: Final = (0, 2, 1, 3)


def sometimes(chance: int, out_of: int) -> st.SearchStrategy[bool]:
    """True with probability chance/out_of; shrinks to False (the plainer history)."""
    return st.sampled_from((False,) * (out_of - chance) + (True,) * chance)


class Digits:
    """Reads several small choices out of one drawn integer, lowest digit first.

    One draw per record instead of one per field keeps generation fast, and the integer still
    shrinks toward zero: toward the first (shortest) entry of every pool and toward "no".
    """

    def __init__(self, value: int) -> None:
        self.value = value

    def take(self, base: int) -> int:
        """The next digit in base ``base``."""
        self.value, digit = divmod(self.value, base)
        return digit

    def pick(self, pool: tuple[_T, ...]) -> _T:
        """An entry of a pool."""
        return pool[self.take(len(pool))]

    def chance(self, chance: int, out_of: int) -> bool:
        """True for ``chance`` of the ``out_of`` digit values, never for digit 0."""
        return self.take(out_of) >= out_of - chance


# Hypothesis draws wide integers with a bias toward small ones: the low digits (about ten bits)
# are fair, the high ones lean to zero. So flags sit in low digits, text choices above them.
_WIDE = 2**24 - 1


def _arguments(**values: str) -> str:
    return _encoded(tuple(values.items()))


@lru_cache(maxsize=256)
def _encoded(items: tuple[tuple[str, str], ...]) -> str:
    # A few dozen distinct argument objects in all (paths, commands, patterns): each encoded once.
    return json.dumps(dict(items), separators=(",", ":"))


def _size_class(digits: Digits) -> int:
    """A size class from the digits left over: the top of a wide draw, which leans to zero."""
    return min(MAX_SIZE_CLASS, digits.value.bit_length())


# Kept by drawn value: a run's calls repeat (Hypothesis draws small and copied values often; in
# 300 cases about five calls in six were made before), and a call is immutable, its id and final
# delay set on a copy (_Ids). Its outputs are a few kilobytes at most (the digits left for the
# size class are few), so the cache stays small.
@lru_cache(maxsize=2048)
def _call(value: int) -> ToolCallSpec:
    """A call before its identity is known; ``delay`` holds its raw timing digits for _Ids."""
    digits = Digits(value)
    kind = digits.pick(_CALL_KINDS)
    is_error = digits.chance(1, 4)
    timing = digits.take(2 * 16)
    error = digits.pick(words.ERRORS)
    path = digits.pick(words.PATHS)
    variant = value % len(words.BODY_WORDS)
    if kind == "read":
        name = digits.pick(words.READ_TOOLS)
        output = error if is_error else digits.pick(words.OUTPUTS)
        if not is_error:
            output = read_output(name, path, _size_class(digits), variant) or output
        return ToolCallSpec("", name, _arguments(path=path), output, is_error, delay=timing)
    if kind == "edit":
        output = error if is_error else f"wrote {path}"
        return ToolCallSpec(
            "",
            "edit_file",
            _arguments(path=path),
            output,
            is_error,
            kind="edit",
            delay=timing,
            path=path,
        )
    command = digits.pick(words.COMMANDS)
    passed = digits.chance(1, 2)
    summary = digits.pick(words.VALIDATION_SUMMARIES)
    record = _validation(command, passed, summary)
    log = command_log(command, _size_class(digits), variant)
    output = error if is_error else (f"{log}\n" if log else "") + f"{command}: {summary}"
    return ToolCallSpec(
        "",
        "run_command",
        _arguments(command=command),
        output,
        is_error,
        kind="validate",
        delay=timing,
        validation=record,
    )


# How many calls a tool batch makes at once, by digit: half the batches make one call.
_PARALLEL: Final = (1, 1, 1, 1, 2, 2, 3, 3)
_wide = st.integers(0, _WIDE)
# An action's kind: its low bit says whether it is a tool batch, the rest how many calls.
_KIND = st.integers(0, 2 * len(_PARALLEL) - 1)
_PLAIN = st.integers(0, 3 * 5 - 1)
# A turn's constraint changes: how many (none, one or two), then each change's digit.
MAX_CHANGES: Final = 2
_CHANGE = st.integers(0, 7)


@st.composite
def _batches(draw: st.DrawFn) -> ToolBatch:
    """A tool batch: one wide draw per call (a call's every digit comes from its own draw)."""
    return _batch(draw, draw(_KIND) >> 1)


def _batch(draw: st.DrawFn, width_digit: int) -> ToolBatch:
    width = _PARALLEL[width_digit % len(_PARALLEL)]
    return ToolBatch("", tuple(draw(_CALL) for _ in range(width)))


# A call is a mapped draw, not a bare integer: Hypothesis labels draws by strategy, and its
# generator copies values between draws of one label, which would make calls and the header or
# a turn's traits (all bare integers) echo each other.
_CALL = _wide.map(_call)


@lru_cache(maxsize=1024)
def _routine_reads(turn_index: int, count: int, level: int) -> tuple[ToolBatch, ...]:
    """A turn's routine reads: ``count`` read-only calls, answered at once, changing nothing."""
    cap = max(
        (size for size in range(MAX_SIZE_CLASS + 1) if count * length_of(size) <= _TURN_CHARS),
        default=0,
    )
    reads = []
    for index in range(count):
        tool = words.ROUTINE_TOOLS[index % len(words.ROUTINE_TOOLS)]
        spot = turn_index + index
        size = max(0, min(cap, level - _ROUTINE_SPREAD[index % len(_ROUTINE_SPREAD)]))
        pattern = words.BODY_WORDS[spot % len(words.BODY_WORDS)]
        if tool == "list_dir":
            path = words.DIRECTORIES[spot % len(words.DIRECTORIES)]
            arguments = _arguments(path=path)
        else:
            path = words.ROUTINE_PATHS[spot % len(words.ROUTINE_PATHS)]
            arguments = (
                _arguments(pattern=pattern, path=path)
                if tool == "grep"
                else (_arguments(path=path))
            )
        output = read_output(tool, path, size, spot) or words.OUTPUTS[spot % 2]
        reads.append(ToolBatch("", (ToolCallSpec("", tool, arguments, output, False),)))
    return tuple(reads)


@lru_cache(maxsize=16)
def _plain_action(value: int) -> Action:
    digits = Digits(value)
    kind = digits.take(3)
    if kind == 0:
        return Say(digits.pick(words.ASSISTANT_TEXTS))
    if kind == 1:
        return FailAttempt(digits.pick(words.ATTEMPTS))
    return ActivateSkill(*digits.pick(words.SKILLS))


@st.composite
def _actions(draw: st.DrawFn) -> Action:
    """An action: one draw for its kind, then one for a plain action or one per call.

    Fewer choices than a one_of of lists (no list bookkeeping per call) make a cheaper case,
    and each call keeps a whole wide draw of its own, so calls stay as varied as before.
    """
    kind = draw(_KIND)
    if kind & 1:
        return _batch(draw, kind >> 1)
    return _plain_action(draw(_PLAIN))


class _Ids:
    """Hands out the ids of one scenario, in order of appearance."""

    def __init__(self) -> None:
        self.calls = 0
        self.batches = 0

    def batch(self, batch: ToolBatch, later: int) -> ToolBatch:
        """The batch with ids, each call's result due after at most ``later`` more actions.

        With ``later`` 0 every result follows its call at once.
        """
        self.batches += 1
        calls = []
        for call in batch.calls:
            self.calls += 1
            # Raw timing digits of 0 (every routine read has them) read as "at once".
            delay = _delay(call.delay, later) if call.delay else 0
            calls.append(call.identified(f"call_{self.calls}", delay))
        return ToolBatch(f"batch_{self.batches}", tuple(calls))

    def reads(self, turn_index: int, count: int, level: int) -> tuple[ToolBatch, ...]:
        """The routine reads of a turn (``_routine_reads``) with ids, each answered at once."""
        reads = _identified_reads(turn_index, count, level, self.calls, self.batches)
        self.calls += count
        self.batches += count
        return reads


# Kept by the ids they start from: a turn's reads are most of a case's calls, and the same turn
# (the first one always) often starts from the same ids in another case.
@lru_cache(maxsize=1024)
def _identified_reads(
    turn_index: int, count: int, level: int, calls: int, batches: int
) -> tuple[ToolBatch, ...]:
    """Routine reads numbered on from ``calls`` calls and ``batches`` batches handed out."""
    return tuple(
        ToolBatch(
            f"batch_{batches + number}", (read.calls[0].identified(f"call_{calls + number}", 0),)
        )
        for number, read in enumerate(_routine_reads(turn_index, count, level), start=1)
    )


def _delay(raw: int, later: int) -> int:
    """A call's delay from its raw timing digits, at most ``later`` actions (0: at once)."""
    timing = Digits(raw)
    late = timing.chance(1, 2) and later > 0
    return 1 + timing.take(16) % later if late else 0


# Strategies built once: a strategy made inside the loop is looked up in Hypothesis's cache on
# every draw, a cost that shows at a few milliseconds per case.
_ACTION = _actions()
_BATCH = _batches()
_TRAITS = st.integers(0, 5 * 4 * 5 * 5 * 5 - 1)
_BULK = st.integers(0, _BULK_RANGE - 1)
MAX_STEPS: Final = 4


def _counted(draw: st.DrawFn, element: st.SearchStrategy[_T], fewest: int, most: int) -> list[_T]:
    """A list drawn as its length, then its elements: one choice for the length.

    ``st.lists`` draws a continue-or-stop choice before every element, a third of a case's
    choices here, and a case's cost is its number of choices. Shrinking still drops elements,
    from the middle too: Hypothesis lowers the length together with deleting the choices of an
    element (on a toy list it reached the same minimal witnesses as ``st.lists``).
    """
    return [draw(element) for _ in range(draw(_lengths(fewest, most)))]


@lru_cache(maxsize=64)
def _lengths(fewest: int, most: int) -> st.SearchStrategy[int]:
    # Sampled, not ``st.integers``: every bare integer strategy has one label, and Hypothesis's
    # generator copies values between draws of one label, so a bare integer would hand a
    # list's small length to the scenario's header and a turn's traits (one turn, no reads).
    return st.sampled_from(tuple(range(fewest, most + 1)))


# The plan's models, validated once each and then shared: a model is frozen, and the few values
# a run draws for them (a step's index, status and evidence; the criteria's count, rotation and
# satisfied bits; a validation's command, verdict and summary) make a few hundred in all.
@lru_cache(maxsize=1024)
def _criteria(count: int, rotation: int, satisfied: int) -> tuple[AcceptanceCriterion, ...]:
    """The first ``count`` acceptance criteria from ``rotation``, ``satisfied`` one bit each."""
    return tuple(
        AcceptanceCriterion(
            id=f"ac{index + 1}",
            description=words.CRITERIA[(rotation + index) % len(words.CRITERIA)],
            satisfied=bool(satisfied >> index & 1),
            evidence=(words.EVIDENCE[index],) if satisfied >> index & 1 else (),
        )
        for index in range(count)
    )


@lru_cache(maxsize=1024)
def _step(index: int, status: StepStatus, evidence: tuple[str, ...]) -> PlanStep:
    """Plan step ``index`` (0-based) with its final status and evidence."""
    title = words.STEP_TITLES[index % len(words.STEP_TITLES)]
    return PlanStep(id=f"s{index + 1}", title=title, status=status, evidence=evidence)


@lru_cache(maxsize=256)
def _validation(command: str, passed: bool, summary: str) -> ValidationRecord:
    """The record of one validation run."""
    return ValidationRecord(command=command, passed=passed, summary=summary)


def _placed(actions: list[Action], inserts: list[tuple[int, int, Action]]) -> list[Action]:
    """A turn's actions with the step events placed: each before the action at its position
    (after the last at ``len(actions)``), in order of (position, step order)."""
    ordered = sorted(inserts, key=lambda item: (item[0], item[1]))
    placed: list[Action] = []
    cursor = 0
    for position in range(len(actions) + 1):
        while cursor < len(ordered) and ordered[cursor][0] == position:
            placed.append(ordered[cursor][2])
            cursor += 1
        if position < len(actions):
            placed.append(actions[position])
    return placed


@dataclass(frozen=True)
class _Shape:
    """What ``scenarios()`` was asked for."""

    min_turns: int
    max_turns: int
    max_actions: int
    with_tool_call: bool
    late_results: bool
    pending_calls: bool


@st.composite
def _scenario(draw: st.DrawFn, shape: _Shape) -> Scenario:
    header = Digits(draw(_wide))
    turn_count = shape.min_turns + header.take(shape.max_turns - shape.min_turns + 1)
    # The digit is read whatever the options, so that one draw gives the same run with or
    # without the provider-breaking parts.
    has_pending_batch = header.chance(1, 5) and shape.pending_calls
    over_threshold = not header.chance(1, 4)
    # A quiet run has no routine reads and no pasted notes: the short history of a plain test,
    # where a compactor's summary can outweigh what it replaces. Shrinking leads there.
    busy = header.chance(3, 4)
    stale_lock = header.chance(2, 3)
    initial_count = header.take(4)
    criteria_count = header.pick(_CRITERIA_COUNTS)
    # Texts are taken in rotation from their pools, so that texts never repeat within a run.
    rotation = header.take(len(words.CONSTRAINTS))
    goal = header.pick(words.GOALS)
    satisfied = header.take(8)
    criteria = _criteria(criteria_count, rotation, satisfied)
    constraint_count = 0

    def new_constraint(supersedes: str | None) -> Constraint:
        nonlocal constraint_count
        text = words.CONSTRAINTS[(rotation + constraint_count) % len(words.CONSTRAINTS)]
        constraint_count += 1
        return Constraint(f"c{constraint_count}", text, supersedes)

    initial = tuple(new_constraint(None) for _ in range(initial_count))
    current = [constraint.id for constraint in initial]
    action_lists: list[list[Action]] = []
    # Each turn's routine reads, as (count, level).
    routines: list[tuple[int, int]] = []
    # Each turn's fields but its actions: the turn is made once they are placed, at the end.
    drafts: list[dict[str, Any]] = []
    asked: str | None = None
    questions = 0
    for index in range(turn_count):
        traits = Digits(draw(_TRAITS))
        compacted = traits.chance(1, 5)
        restarted = traits.chance(1, 4)
        asks = traits.chance(3, 4)
        user_text = traits.pick(words.USER_TEXTS)
        answer_text = traits.pick(words.ANSWERS)
        bulk = Digits(draw(_BULK))
        # The level is the low digit, so that shrinking drops reads before it shortens them:
        # a witness keeps few events.
        level = bulk.pick(ROUTINE_LEVELS)
        routine_count = bulk.pick(ROUTINE_COUNTS) if busy else 0
        routines.append((routine_count, level))
        notes = instruction(bulk.pick(INSTRUCTION_CLASSES), index)
        if notes and busy:
            user_text = f"{user_text}\n\n{notes}"
        changes: list[Constraint] = []
        if index > 0:
            # How many constraints the turn changes (none, one or two), then for each one draw:
            # whether it updates an earlier one and which.
            for change in _counted(draw, _CHANGE, 0, MAX_CHANGES):
                if constraint_count >= len(words.CONSTRAINTS):
                    break
                is_update, target = divmod(change, 4)
                replaced = current[target % len(current)] if is_update and current else None
                constraint = new_constraint(replaced)
                if replaced is not None:
                    current.remove(replaced)
                current.append(constraint.id)
                changes.append(constraint)
        actions = _counted(draw, _ACTION, 0, shape.max_actions)
        if index == turn_count - 1 and shape.with_tool_call:
            actions.insert(0, draw(_BATCH))
        action_lists.append(actions)
        question = words.QUESTIONS[(rotation + questions) % len(words.QUESTIONS)] if asks else None
        questions += asks
        answered = index > 0 and asked is not None
        asked = question
        drafts.append(
            {
                "user_text": user_text,
                "constraint_changes": tuple(changes),
                "question": question,
                "answer": answer_text if answered else None,
                "compacted_before": index > 0 and compacted,
                "restarted_before": index > 0 and restarted,
            }
        )
    # Place the step events: a start for every step that left "pending", a completion after it.
    insertions: list[list[tuple[int, int, Action]]] = [[] for _ in range(turn_count)]
    steps: list[PlanStep] = []
    # A longer run has a bigger plan: at least one step per turn, so that a run of several rounds
    # has work done, in progress and ahead of it.
    # One draw for how many steps beyond that, then one per step.
    fewest = min(turn_count, 4)
    step_values = _counted(draw, _wide, fewest, MAX_STEPS)
    for index, value in enumerate(step_values):
        digits = Digits(value)
        status = digits.pick(_STATUS_DIGITS)
        step_id = f"s{index + 1}"
        evidence: tuple[str, ...] = ()
        if status != "pending":
            start_turn = digits.take(turn_count)
            start_at = digits.take(len(action_lists[start_turn]) + 1)
            insertions[start_turn].append((start_at, 2 * index, StartStep(step_id)))
            if status == "completed":
                evidence = (digits.pick(words.EVIDENCE),)
                end_turn = start_turn + digits.take(turn_count - start_turn)
                low = start_at if end_turn == start_turn else 0
                end_at = low + digits.take(len(action_lists[end_turn]) + 1 - low)
                insertions[end_turn].append(
                    (end_at, 2 * index + 1, CompleteStep(step_id, evidence))
                )
        steps.append(_step(index, status, evidence))
    ids = _Ids()
    turns: list[Turn] = []
    for index, actions in enumerate(action_lists):
        # The agent looks around first: routine reads open the turn, before its real work.
        reads = ids.reads(index, *routines[index])
        placed = _placed(actions, insertions[index]) if insertions[index] else actions
        last = len(reads) + len(placed) - 1
        final = reads + tuple(
            ids.batch(action, last - position if shape.late_results else 0)
            if isinstance(action, ToolBatch)
            else action
            for position, action in enumerate(placed, start=len(reads))
        )
        turns.append(Turn(actions=final, **drafts[index]))
    pending_batch = ids.batch(draw(_BATCH), 0) if has_pending_batch else None
    restarted = any(turn.restarted_before for turn in turns)
    return Scenario(
        run_id=f"run-{rotation}",
        goal=goal,
        constraints=initial,
        plan=TaskPlan(steps=tuple(steps), acceptance_criteria=criteria),
        turns=tuple(turns),
        pending_batch=pending_batch,
        stale_lock=restarted and stale_lock,
        over_threshold=over_threshold,
    )


def scenarios(
    *,
    min_turns: int = 1,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_actions: int = DEFAULT_MAX_ACTIONS,
    with_tool_call: bool = False,
    late_results: bool = True,
    pending_calls: bool = True,
) -> st.SearchStrategy[Scenario]:
    """Agent runs of ``min_turns`` to ``max_turns`` user turns of at most ``max_actions`` actions.

    ``with_tool_call`` opens the last turn with a tool batch, so that every run has a call and
    its result that no earlier compaction folded (corruption strategies need one to break).
    ``late_results=False`` makes every result follow its batch at once (a chat provider demands
    it); ``pending_calls=False`` leaves no call without its result (no trailing pending batch).
    Besides its planned actions, each turn opens with routine reads of drawn number and bulk.
    """
    if not 1 <= min_turns <= max_turns or max_actions < 0:
        raise ValueError(
            f"scenarios() needs 1 <= min_turns <= max_turns and max_actions >= 0; got "
            f"min_turns={min_turns}, max_turns={max_turns}, max_actions={max_actions}"
        )
    return _scenario(
        _Shape(min_turns, max_turns, max_actions, with_tool_call, late_results, pending_calls)
    )
