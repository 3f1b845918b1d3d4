"""One compactor, every path: the same verdicts and the same witnesses wherever it runs.

Each built-in reference and mutant (every view, every messages format) is run at one seed as the
built-in target, as a ``py:`` callable in this process (``--in-process``), as the same callable
in the isolated worker (the default path) and, for chat completions, behind the example Python
harness (``cmd:``). The compactor is the same code each time, so any difference is a difference
of the paths: a worker that reads an answer another way than the in-process backend does (a
session decline taken for a broken answer), a harness that loses part of a result.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.report.model import TargetReport
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import all_mutants, builtin_targets, resolve
from invariants import View
from invariants.formats import CHAT, FORMATS
from reference_engine.mutants.snapshot import SNAPSHOT_MUTANTS
from tests.compactcheck.targets.builtin_callables import attribute_name, same_frame

ROOT = Path(__file__).resolve().parents[3]
CALLABLES = Path(__file__).with_name("builtin_callables.py")
HARNESS = ROOT / "examples" / "python-harness" / "harness.py"
SEED = 0
MAX_EXAMPLES = 20


def _cases() -> list[tuple[str, View, str]]:
    """Every built-in reference and mutant, with its view and the format it is run in."""
    cases: list[tuple[str, View, str]] = [
        ("reference", "snapshot", CHAT),
        ("reference-session", "session", CHAT),
    ]
    cases += [("reference-messages", "messages", format) for format in FORMATS]
    for mutant in all_mutants().values():
        cases.append((f"mutant:{mutant.name}", mutant.view, mutant.format or CHAT))
    return cases


CASES = _cases()
# A snapshot mutant of the frame itself (its seal, its tail, its design) is no callable's: the
# toolkit's frame runs around a py: compactor, so only its paths are compared with each other.
_FRAME_MUTANTS = {
    f"mutant:{mutant.name}" for mutant in SNAPSHOT_MUTANTS if not same_frame(mutant.build())
}


def test_the_cases_cover_every_builtin_reference_and_mutant() -> None:
    named = {name for name, _, _ in CASES}
    builtins = {name for name in builtin_targets() if name.startswith(("reference", "mutant:"))}
    assert named == builtins
    assert {format for name, _, format in CASES if name == "reference-messages"} == set(FORMATS)


def _budget(name: str) -> Any:
    mutant = all_mutants().get(name.removeprefix("mutant:"))
    return mutant.budget if mutant is not None and mutant.view == "messages" else None


def _run(text: str, view: View, format: str, budget: Any, calls: Calls, folder: Path) -> Any:
    """The run's verdicts and witnesses, law by law, in a form two paths can be compared by."""
    folder.mkdir()
    target = resolve(text, view=view, calls=calls, budget=budget, format=format)  # type: ignore[arg-type]
    config = RunConfig(
        seed=SEED,
        max_examples=MAX_EXAMPLES,
        max_total_examples=MAX_EXAMPLES,
        profile="ci",
        corpus_dir=folder / "corpus",
        database_dir=folder / "hypothesis",
        seed_given=True,
        format=format,  # type: ignore[arg-type]
    )
    try:
        report = run_target(target, view, config)
    finally:
        target.close()
    return _comparable(report)


def _comparable(report: TargetReport) -> dict[str, Any]:
    laws: dict[str, Any] = {}
    for result in report.results:
        example = result.counterexample
        laws[result.invariant] = {
            "verdict": result.verdict,
            "because": result.because,
            "counts": (result.examples, result.exercised, result.compactions, result.errored),
            "witness": None
            if example is None
            else {
                "round": example.round,
                "because": example.because,
                "witness": example.witness,
                "input": example.input,
                "output": example.output,
                "size": example.history_size,
            },
        }
    return {"laws": laws, "calls": report.calls, "failures": report.failures}


def _differences(expected: dict[str, Any], found: dict[str, Any]) -> list[str]:
    """Where two runs differ, law by law, in a few words each."""
    lines = [
        f"{law}: {expected['laws'].get(law)} != {found['laws'].get(law)}"
        for law in sorted(set(expected["laws"]) | set(found["laws"]))
        if expected["laws"].get(law) != found["laws"].get(law)
    ]
    for key in ("calls", "failures"):
        if expected[key] != found[key]:
            lines.append(f"{key}: {expected[key]} != {found[key]}")
    return [line[:1500] for line in lines]


@pytest.mark.parametrize(
    ("name", "view", "format"), CASES, ids=[f"{name}-{format}" for name, _, format in CASES]
)
def test_every_path_judges_a_builtin_alike(
    name: str, view: View, format: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    budget = _budget(name)
    spec = f"py:{CALLABLES}:{attribute_name(name, format)}"
    in_process = _run(
        spec, view, format, budget, Calls(timeout=60.0, in_process=True), tmp_path / "in"
    )
    worker = _run(spec, view, format, budget, Calls(timeout=60.0), tmp_path / "worker")
    assert in_process["calls"], "the in-process run made no call"
    assert _differences(in_process, worker) == []
    if name not in _FRAME_MUTANTS:
        builtin = _run(name, view, format, None, Calls(), tmp_path / "builtin")
        assert _differences(builtin, in_process) == []
    if view == "messages" and format == CHAT:
        # The example harness imports the callable by module name, from the project root.
        monkeypatch.setenv("PYTHONPATH", str(ROOT))
        command = (
            f"cmd:{sys.executable} {HARNESS} "
            f"tests.compactcheck.targets.builtin_callables:{attribute_name(name, format)}"
        )
        harness = _run(command, view, format, budget, Calls(timeout=60.0), tmp_path / "harness")
        assert _differences(in_process, harness) == []
