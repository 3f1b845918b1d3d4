"""The scenario strategy: agent runs drawn well formed by construction, shrinking toward less."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Final

from hypothesis import strategies as st

from invariants import AcceptanceCriterion, PlanStep, StepStatus, TaskPlan, ValidationRecord
from strategies import vocabulary as words
from strategies.scenario import (
    Action,
    ActivateSkill,
    CompleteStep,
    Constraint,
    FailAttempt,
    Say,
    Scenario,
    StartStep,
    ToolBatch,
    ToolCallSpec,
    Turn,
)

STATUSES: Final[tuple[StepStatus, ...]] = (
    "pending",
    "in_progress",
    "completed",
    "blocked",
    "failed",
)
DEFAULT_MAX_TURNS: Final = 4
DEFAULT_MAX_ACTIONS: Final = 5
MAX_PARALLEL_CALLS: Final = 3


def sometimes(chance: int, out_of: int) -> st.SearchStrategy[bool]:
    """True with probability chance/out_of; shrinks to False (the plainer history)."""
    return st.sampled_from((False,) * (out_of - chance) + (True,) * chance)


def _arguments(**values: str) -> str:
    return json.dumps(values, separators=(",", ":"))


def _read(name: str, path: str, output: str, is_error: bool, error: str) -> ToolCallSpec:
    return ToolCallSpec("", name, _arguments(path=path), error if is_error else output, is_error)


def _edit(path: str, is_error: bool, error: str) -> ToolCallSpec:
    output = error if is_error else f"wrote {path}"
    return ToolCallSpec(
        "", "edit_file", _arguments(path=path), output, is_error, kind="edit", path=path
    )


def _validate(command: str, passed: bool, summary: str, is_error: bool, error: str) -> ToolCallSpec:
    record = ValidationRecord(command=command, passed=passed, summary=summary)
    output = error if is_error else f"{command}: {summary}"
    return ToolCallSpec(
        "",
        "run_command",
        _arguments(command=command),
        output,
        is_error,
        kind="validate",
        validation=record,
    )


_errors = sometimes(1, 4)
_error_texts = st.sampled_from(words.ERRORS)

# A call before its identity and timing are known; the scenario assigns both.
_calls: st.SearchStrategy[ToolCallSpec] = st.one_of(
    st.builds(
        _read,
        st.sampled_from(words.READ_TOOLS),
        st.sampled_from(words.PATHS),
        st.sampled_from(words.OUTPUTS),
        _errors,
        _error_texts,
    ),
    st.builds(_edit, st.sampled_from(words.PATHS), _errors, _error_texts),
    st.builds(
        _validate,
        st.sampled_from(words.COMMANDS),
        st.booleans(),
        st.sampled_from(words.VALIDATION_SUMMARIES),
        _errors,
        _error_texts,
    ),
)

_batches: st.SearchStrategy[ToolBatch] = st.builds(
    ToolBatch,
    st.just(""),
    st.lists(_calls, min_size=1, max_size=MAX_PARALLEL_CALLS).map(tuple),
)

_actions: st.SearchStrategy[Action] = st.one_of(
    st.builds(Say, st.sampled_from(words.ASSISTANT_TEXTS)),
    _batches,
    _batches,
    st.builds(FailAttempt, st.sampled_from(words.ATTEMPTS)),
    st.sampled_from(words.SKILLS).map(lambda skill: ActivateSkill(*skill)),
)


class _Ids:
    """Hands out the ids of one scenario, in order of appearance."""

    def __init__(self) -> None:
        self.calls = 0
        self.batches = 0

    def batch(self, batch: ToolBatch, delays: list[int]) -> ToolBatch:
        self.batches += 1
        calls = []
        for call, delay in zip(batch.calls, delays, strict=True):
            self.calls += 1
            calls.append(replace(call, call_id=f"call_{self.calls}", delay=delay))
        return ToolBatch(f"batch_{self.batches}", tuple(calls))


@st.composite
def _scenario(draw: st.DrawFn, max_turns: int, max_actions: int) -> Scenario:
    # Texts are taken in rotation from their pools, so that texts never repeat within a run.
    rotation = draw(st.integers(0, len(words.CONSTRAINTS) - 1))
    goal = draw(st.sampled_from(words.GOALS))
    statuses = draw(st.lists(st.sampled_from(STATUSES), min_size=1, max_size=4))
    criteria = tuple(
        AcceptanceCriterion(
            id=f"ac{index + 1}",
            description=words.CRITERIA[(rotation + index) % len(words.CRITERIA)],
            satisfied=satisfied,
            evidence=(words.EVIDENCE[index % len(words.EVIDENCE)],) if satisfied else (),
        )
        for index, satisfied in enumerate(draw(st.lists(st.booleans(), max_size=3)))
    )
    constraint_count = 0

    def new_constraint(supersedes: str | None) -> Constraint:
        nonlocal constraint_count
        text = words.CONSTRAINTS[(rotation + constraint_count) % len(words.CONSTRAINTS)]
        constraint_count += 1
        return Constraint(f"c{constraint_count}", text, supersedes)

    initial = tuple(new_constraint(None) for _ in range(draw(st.integers(0, 3))))
    current = [constraint.id for constraint in initial]
    turn_count = draw(st.integers(1, max_turns))
    action_lists: list[list[Action]] = []
    turns: list[Turn] = []
    questions = 0
    for index in range(turn_count):
        changes: list[Constraint] = []
        if index > 0:
            for is_update, target in draw(
                st.lists(st.tuples(st.booleans(), st.integers(0, 3)), max_size=2)
            ):
                if constraint_count >= len(words.CONSTRAINTS):
                    break
                replaced = current[target % len(current)] if is_update and current else None
                constraint = new_constraint(replaced)
                if replaced is not None:
                    current.remove(replaced)
                current.append(constraint.id)
                changes.append(constraint)
        action_lists.append(draw(st.lists(_actions, max_size=max_actions)))
        asks = draw(sometimes(1, 4))
        question = words.QUESTIONS[(rotation + questions) % len(words.QUESTIONS)] if asks else None
        questions += asks
        answer = None
        if index > 0 and turns[-1].question is not None:
            answer = draw(st.sampled_from(words.ANSWERS))
        turns.append(
            Turn(
                user_text=draw(st.sampled_from(words.USER_TEXTS)),
                constraint_changes=tuple(changes),
                question=question,
                answer=answer,
                compacted_before=index > 0 and draw(sometimes(1, 5)),
                restarted_before=index > 0 and draw(sometimes(1, 6)),
            )
        )
    # Place the step events: a start for every step that left "pending", a completion after it.
    insertions: list[list[tuple[int, int, Action]]] = [[] for _ in range(turn_count)]
    order = 0
    steps: list[PlanStep] = []
    for index, status in enumerate(statuses):
        step_id = f"s{index + 1}"
        evidence: tuple[str, ...] = ()
        if status != "pending":
            start_turn = draw(st.integers(0, turn_count - 1))
            start_at = draw(st.integers(0, len(action_lists[start_turn])))
            insertions[start_turn].append((start_at, order, StartStep(step_id)))
            order += 1
            if status == "completed":
                evidence = (draw(st.sampled_from(words.EVIDENCE)),)
                end_turn = draw(st.integers(start_turn, turn_count - 1))
                low = start_at if end_turn == start_turn else 0
                end_at = draw(st.integers(low, len(action_lists[end_turn])))
                insertions[end_turn].append((end_at, order, CompleteStep(step_id, evidence)))
                order += 1
        title = words.STEP_TITLES[index % len(words.STEP_TITLES)]
        steps.append(PlanStep(id=step_id, title=title, status=status, evidence=evidence))
    ids = _Ids()
    for index, actions in enumerate(action_lists):
        merged: list[Action] = []
        pending_inserts = sorted(insertions[index], key=lambda item: (item[0], item[1]))
        cursor = 0
        for position in range(len(actions) + 1):
            while cursor < len(pending_inserts) and pending_inserts[cursor][0] == position:
                merged.append(pending_inserts[cursor][2])
                cursor += 1
            if position < len(actions):
                merged.append(actions[position])
        final: list[Action] = []
        for position, action in enumerate(merged):
            if isinstance(action, ToolBatch):
                # A result arrives after at most the remaining actions of its turn.
                later = len(merged) - 1 - position
                delays = [draw(st.integers(0, later)) for _ in action.calls]
                action = ids.batch(action, delays)
            final.append(action)
        turns[index] = replace(turns[index], actions=tuple(final))
    pending_batch = None
    if draw(sometimes(1, 5)):
        trailing = draw(_batches)
        pending_batch = ids.batch(trailing, [0] * len(trailing.calls))
    restarted = any(turn.restarted_before for turn in turns)
    return Scenario(
        run_id=f"run-{rotation}",
        goal=goal,
        constraints=initial,
        plan=TaskPlan(steps=tuple(steps), acceptance_criteria=criteria),
        turns=tuple(turns),
        pending_batch=pending_batch,
        stale_lock=restarted and draw(sometimes(1, 2)),
        over_threshold=draw(st.sampled_from((True, True, True, False))),
    )


def scenarios(
    *, max_turns: int = DEFAULT_MAX_TURNS, max_actions: int = DEFAULT_MAX_ACTIONS
) -> st.SearchStrategy[Scenario]:
    """Agent runs of at most ``max_turns`` user turns of at most ``max_actions`` actions each."""
    if max_turns < 1 or max_actions < 0:
        raise ValueError(
            f"scenarios() needs max_turns >= 1 and max_actions >= 0, got {max_turns} and "
            f"{max_actions}; pass a positive number of turns"
        )
    return _scenario(max_turns, max_actions)
