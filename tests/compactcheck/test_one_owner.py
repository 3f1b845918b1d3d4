"""One owner for each decision: no front end decides a verdict, an exit or a default on its own.

Verdicts, test outcomes and exit codes come from ``compactcheck.verdicts``; option defaults from
the table (``compactcheck.options``); profile and seed from ``compactcheck.options.settle``. The
command line, ``fuzz()`` and the pytest plugin render what those say. These tests read the front
ends' code for a decision of their own, and hold every front end's defaults to the table's.
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import inspect
from pathlib import Path
from typing import get_args

import pytest

import compactcheck
from compactcheck import cli
from compactcheck.engine.config import RunConfig
from compactcheck.options import BY_KEY, OPTIONS, offered_by, settle
from compactcheck.report.model import VERDICTS
from compactcheck.verdicts.outcomes import ReplayVerdict

PACKAGE = Path(compactcheck.__file__).parent
FRONT_ENDS = sorted(
    [*(PACKAGE / "cli").glob("*.py"), *(PACKAGE / "pytest").glob("*.py"), PACKAGE / "api.py"]
)
# What only the verdict owner may compare against: every verdict a result, a replay or the
# not-applicable rule can carry.
VERDICT_WORDS = {*VERDICTS, *get_args(ReplayVerdict), "not applicable"}
# Exits that say a judgement; a usage error, an interrupt and a plain success are the command
# line's own to give.
JUDGED_EXITS = {"FAILED", "INCONCLUSIVE"}
# Keywords that settle a run's profile or seed by hand.
SETTLING = {"profile", "seed_given", "redis_url"}


def decisions(source: str) -> list[str]:
    """Every place in ``source`` that decides a verdict, an exit or a setting on its own."""
    found: list[str] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            sides = (node.left, *node.comparators)
            if any(isinstance(s, ast.Attribute) and s.attr == "outcome" for s in sides):
                # The owner's answer (a LawOutcome) compared to render it: not a decision.
                continue
            words = [
                side.value
                for side in (node.left, *node.comparators)
                if isinstance(side, ast.Constant) and isinstance(side.value, str)
            ]
            for side in (node.left, *node.comparators):
                if isinstance(side, ast.Set | ast.Tuple | ast.List):
                    words += [
                        e.value
                        for e in side.elts
                        if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    ]
            found += [f"line {node.lineno}: compares {w!r}" for w in words if w in VERDICT_WORDS]
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "ExitCode"
            and node.attr in JUDGED_EXITS
        ):
            found.append(f"line {node.lineno}: ExitCode.{node.attr}")
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else ""
            if name in ("exit_code", "randbelow"):
                found.append(f"line {node.lineno}: calls {name}()")
            found += [
                f"line {node.lineno}: {keyword.arg}= given by hand"
                for keyword in node.keywords
                if keyword.arg in SETTLING
            ]
            if isinstance(node.func, ast.Name) and node.func.id == "RunConfig":
                found.append(f"line {node.lineno}: builds a RunConfig")
    return found


@pytest.mark.parametrize("path", FRONT_ENDS, ids=lambda path: str(path.relative_to(PACKAGE)))
def test_no_front_end_decides_a_verdict_an_exit_or_a_setting_on_its_own(path: Path) -> None:
    assert decisions(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "planted",
    [
        'if result.verdict == "violation":\n    pass',
        'if verdict in ("skipped", "unknown"):\n    pass',
        "return ExitCode.FAILED if below else ExitCode.OK",
        "return report.exit_code()",
        "seed = secrets.randbelow(2**32)",
        'config = from_options(values, profile="ci", seed_given=True)',
        "config = RunConfig(seed=0)",
        'ok = "not applicable" == text',
    ],
)
def test_the_reading_finds_a_decision_planted_in_a_front_end(planted: str) -> None:
    # The check above can fail: each way a front end once decided for itself is found.
    assert decisions(planted) != []


def test_fuzz_takes_every_default_from_the_table() -> None:
    parameters = inspect.signature(compactcheck.fuzz).parameters
    checked = 0
    for option in offered_by("library"):
        assert option.library is not None
        given = parameters[option.library].default
        expected = option.default_for("library")
        if option.key == "no_shrink":
            # The library says it the other way round: shrink=True.
            expected = not expected
        assert given == expected, option.key
        checked += 1
    assert checked >= 20


def test_a_run_config_takes_its_defaults_from_the_table() -> None:
    fields = {field.name: field for field in dataclasses.fields(RunConfig)}
    for key in ("max_examples", "rounds", "min_exercised"):
        assert fields[key].default == BY_KEY[key].default_for("library"), key


# Options of one command that share a spelling with the table's but not its meaning.
OWN_OPTIONS = {
    # drift's --rounds is the length of its one chained run (at least the generator's
    # strategies.drift.MIN_ROUNDS), not the most compactions per history of run and fuzz.
    ("drift", "rounds"),
    # drift's --seed picks which one deterministic chained run to make (0 by default); it
    # does not seed a search, so no profile settles it.
    ("drift", "seed"),
}


# A command's own switch spelled as a table option (`targets --json` prints JSON).
_FLAGS = (argparse._StoreTrueAction,)


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = cli._parser()
    [commands] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return dict(commands.choices)


def test_every_command_takes_its_defaults_from_the_table() -> None:
    by_spelling = {option.cli: option for option in OPTIONS if option.cli is not None}
    checked = 0
    for name, command in _commands().items():
        for action in command._actions:
            option = next((by_spelling[s] for s in action.option_strings if s in by_spelling), None)
            if option is None or option.flag or isinstance(action, _FLAGS):
                continue
            if (name, option.key) in OWN_OPTIONS:
                continue
            if action.dest != option.key:
                # Another option spelled alike (merge's repeatable --corpus of the shards).
                continue
            assert action.default == option.default_for("cli", name), (name, option.key)
            checked += 1
    assert checked >= 30
    # A command's own default is the table's too: a campaign's iterations.
    fuzz = {a.dest: a.default for a in _commands()["fuzz"]._actions}
    assert fuzz["max_examples"] == BY_KEY["max_examples"].default_for("cli", "fuzz") == 1000


@pytest.mark.parametrize(
    ("front", "given", "environ", "profile", "seed", "seed_given"),
    [
        ("cli", {"seed": None}, {}, "dev", None, False),
        ("cli", {"seed": None}, {"CI": "1"}, "ci", 0, False),
        ("cli", {"seed": 7, "profile": "campaign"}, {}, "campaign", 7, True),
        ("library", {"seed": 0}, {"CI": "1"}, "ci", 0, True),
        ("library", {"seed": 3, "redis": "redis://localhost"}, {}, "campaign", 3, True),
        ("plugin", {"seed": 0}, {}, "ci", 0, True),
    ],
)
def test_profile_and_seed_are_settled_in_one_place(
    front: str,
    given: dict[str, object],
    environ: dict[str, str],
    profile: str,
    seed: int | None,
    seed_given: bool,
) -> None:
    settled = settle(front, given, environ)  # type: ignore[arg-type]
    assert (settled.profile, settled.seed_given) == (profile, seed_given)
    if seed is not None:
        assert settled.seed == seed


# Who may read a report's same-cause links: the engine that writes them, the model that holds
# them and the one module that says what is one cause (compactcheck.verdicts.causes).
SAME_CAUSE_OWNERS = {"engine/results.py", "report/model.py", "verdicts/causes.py"}


def same_cause_readers(source: str) -> list[str]:
    """Every place in ``source`` that reads a counterexample's ``same_cause`` links."""
    return [
        f"line {node.lineno}: reads same_cause"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr == "same_cause"
    ]


def test_only_the_cause_owner_folds_violations_into_causes() -> None:
    readers = {
        str(path.relative_to(PACKAGE)): found
        for path in PACKAGE.rglob("*.py")
        if str(path.relative_to(PACKAGE)) not in SAME_CAUSE_OWNERS
        and (found := same_cause_readers(path.read_text(encoding="utf-8")))
    }
    assert readers == {}
    # The reading can fail: a renderer that folds by the links itself is found.
    assert same_cause_readers("kin = r.invariant in example.same_cause") != []
