"""Long-horizon runs for drift: one turn per compaction, constraints overridden midway, distractors.

A drift run is compacted after every turn, ten times or more, each compaction reading what the
last one wrote, as long-horizon compaction benchmarks do. Its constraints are overridden in the
middle of the run (a version, a coverage floor, a push rule), and every turn between carries
distractors: chit-chat, an assistant remark and a routine read with a bulky output. The run is
built from a seed alone (no Hypothesis draw), so that ``--seed`` names one run and a round
number means the same turn in every process.
"""

from __future__ import annotations

import json
import random

from compactcheck.invariants import PlanStep, TaskPlan
from compactcheck.strategies import vocabulary as words
from compactcheck.strategies.contents import read_output
from compactcheck.strategies.scenario_model import Scenario
from compactcheck.strategies.turns import Action, Constraint, Say, ToolBatch, ToolCallSpec, Turn

MIN_ROUNDS = 10
"""The fewest compactions a drift run chains."""

# The constraints a run starts with, and the overrides it may get later: each override replaces
# one of the first by index (a version bumped, a floor lowered, a rule narrowed).
_INITIAL = (0, 1, 2, 3, 4)
_OVERRIDES = ((8, 0), (9, 2), (10, 3))
# Constraints added midway without replacing any.
_ADDED = (5, 6, 7, 11)


def _read(turn: int, rng: random.Random) -> ToolBatch:
    """A routine read whose output is a distractor: bulk the summary may drop."""
    path = rng.choice(words.ROUTINE_PATHS)
    tool = rng.choice(words.ROUTINE_TOOLS)
    output = read_output(tool, path, rng.randrange(1, 3), turn) or rng.choice(words.OUTPUTS)
    arguments = json.dumps({"path": path}, separators=(",", ":"))
    call = ToolCallSpec(f"call_d{turn}", tool, arguments, output, False)
    return ToolBatch(f"batch_d{turn}", (call,))


def drift_scenario(seed: int, rounds: int = MIN_ROUNDS) -> Scenario:
    """A run of ``rounds`` turns (at least ``MIN_ROUNDS``) whose constraints change midway.

    The overrides land in turns drawn from the seed, at least one turn apart and never in the
    first or last two, so that each has rounds before it to be kept and after it to drift.
    """
    if rounds < MIN_ROUNDS:
        raise ValueError(f"a drift run chains at least {MIN_ROUNDS} compactions; got {rounds}")
    rng = random.Random(seed)
    initial = tuple(
        Constraint(f"c{index + 1}", words.CONSTRAINTS[at]) for index, at in enumerate(_INITIAL)
    )
    changes: list[tuple[int, int | None]] = [*_OVERRIDES, *((at, None) for at in _ADDED)]
    rng.shuffle(changes)
    slots = rng.sample(range(2, rounds - 2), min(len(changes), rounds - 4))
    when = dict(zip(sorted(slots), changes, strict=False))
    turns: list[Turn] = []
    next_id = len(initial) + 1
    for index in range(rounds):
        change: tuple[Constraint, ...] = ()
        if index in when:
            text_at, replaces = when[index]
            supersedes = f"c{replaces + 1}" if replaces is not None else None
            change = (Constraint(f"c{next_id}", words.CONSTRAINTS[text_at], supersedes),)
            next_id += 1
        actions: list[Action] = [_read(index, rng), Say(rng.choice(words.ASSISTANT_TEXTS))]
        turns.append(
            Turn(
                user_text=rng.choice(words.USER_TEXTS),
                actions=tuple(actions),
                constraint_changes=change,
            )
        )
    steps = tuple(
        PlanStep(id=f"s{index + 1}", title=title, status="pending")
        for index, title in enumerate(words.STEP_TITLES[:3])
    )
    return Scenario(
        run_id=f"drift-{seed}",
        goal=words.GOALS[seed % len(words.GOALS)],
        constraints=initial,
        plan=TaskPlan(steps=steps),
        turns=tuple(turns),
    )
