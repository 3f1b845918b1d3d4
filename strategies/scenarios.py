"""The scenario strategy: agent runs drawn well formed by construction, shrinking toward less."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Final, TypeVar

from hypothesis import strategies as st

from compactcheck.invariants import PlanStep, TaskPlan
from compactcheck.strategies import plans
from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.actions import ACTIONS, BATCHES
from compactcheck.strategies.calls import Ids
from compactcheck.strategies.contents import instruction
from compactcheck.strategies.digits import Digits, wide_values
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.turns import (
    Action,
    CompleteStep,
    Constraint,
    StartStep,
    ToolBatch,
    Turn,
)

_T = TypeVar("_T")
DEFAULT_MAX_TURNS: Final = 4
DEFAULT_MAX_ACTIONS: Final = 5
# A busy turn's routine reads (read_file, grep, list_dir with bulky outputs) come from one drawn
# integer: a digit for how bulky, one for how many, one for the length of the user's notes. Each
# table grows from its first entry, where a shrunk digit goes; a quiet run has none of them.
ROUTINE_COUNTS: Final = (1, 2, 3, 4, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48)
ROUTINE_LEVELS: Final = (0, 0, 1, 2, 3, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 10)
INSTRUCTION_CLASSES: Final = (0, 0, 0, 0, 0, 2, 4, 7)
_BULK_RANGE: Final = len(ROUTINE_COUNTS) * len(ROUTINE_LEVELS) * len(INSTRUCTION_CLASSES)
# A turn's constraint changes: how many (none, one or two), then each change's digit.
MAX_CHANGES: Final = 2
_CHANGE = st.integers(0, 7)
# Strategies built once: a strategy made inside the loop is looked up in Hypothesis's cache on
# every draw, a cost that shows at a few milliseconds per case.
_TRAITS = st.integers(0, 5 * 4 * 5 * 5 * 5 - 1)
_BULK = st.integers(0, _BULK_RANGE - 1)


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
    header = Digits(draw(wide_values))
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
    criteria_count = header.pick(plans.CRITERIA_COUNTS)
    # Texts are taken in rotation from their pools, so that texts never repeat within a run.
    rotation = header.take(len(words.CONSTRAINTS))
    goal = header.pick(words.GOALS)
    satisfied = header.take(8)
    criteria = plans.criteria(criteria_count, rotation, satisfied)
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
        actions = _counted(draw, ACTIONS, 0, shape.max_actions)
        if index == turn_count - 1 and shape.with_tool_call:
            actions.insert(0, draw(BATCHES))
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
    step_values = _counted(draw, wide_values, fewest, plans.MAX_STEPS)
    for index, value in enumerate(step_values):
        digits = Digits(value)
        status = digits.pick(plans.STATUS_DIGITS)
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
        steps.append(plans.step(index, status, evidence))
    ids = Ids()
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
    pending_batch = ids.batch(draw(BATCHES), 0) if has_pending_batch else None
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
