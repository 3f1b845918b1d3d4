"""One compactor, every path: the same verdicts and the same witnesses wherever it runs.

Each built-in reference and mutant (every view, every messages format) is run at one seed as a
``py:`` callable in this process (``--in-process``), as the same callable in the isolated worker
(the default path) and, for chat completions, behind the example Python harness (``cmd:``); a
reference, and a snapshot or session mutant (whose built-in target drives its compactor without
a backend), also as the built-in target itself. The compactor is the same code each time, so any
difference is a difference of the paths: a worker that reads an answer another way than the
in-process backend does (a session decline taken for a broken answer), an edit in place that one
path shows the laws and another hides. The whole matrix runs unshrunk (shrinking is most of a
run's time); a few cases, one per view and a provider format, shrink their law's witness too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.invariants import View
from compactcheck.invariants.formats import CHAT, FORMATS
from compactcheck.reference_engine.mutants.mutant import Mutant
from compactcheck.reference_engine.mutants.snapshot import SNAPSHOT_MUTANTS
from compactcheck.report.model import TargetReport
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import all_mutants, builtin_targets, resolve
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
# toolkit's frame runs around a py: compactor. Nor is one that edits the frame's own event
# objects in place: a py: callable is handed JSON data. Only their paths are compared.
_NOT_CALLABLES = {
    f"mutant:{mutant.name}" for mutant in SNAPSHOT_MUTANTS if not same_frame(mutant.build())
} | {"mutant:snapshot-truncate-in-place"}
# Shrunk too: one case per view, and a provider format (a law each, to keep it quick).
SHRUNK = [
    (f"mutant:{name}", all_mutants()[name].view, format, all_mutants()[name].targets)
    for name, format in (
        ("session_cut_by_count", CHAT),
        ("snapshot-drop-oldest-file", CHAT),
        ("messages-keep-last-n", CHAT),
        ("anthropic-strip-thinking", "anthropic"),
    )
]


def test_the_cases_cover_every_builtin_reference_and_mutant() -> None:
    named = {name for name, _, _ in CASES}
    builtins = {name for name in builtin_targets() if name.startswith(("reference", "mutant:"))}
    assert named == builtins
    assert {format for name, _, format in CASES if name == "reference-messages"} == set(FORMATS)


def _mutant(text: str) -> Mutant | None:
    """The built-in mutant a target is, or whose callable it serves (by its attribute name)."""
    name = text.rpartition(":")[2].replace("~", ":").partition("@")[0]
    return all_mutants().get(name.removeprefix("mutant:"))


def _budget(name: str) -> Any:
    mutant = _mutant(name)
    return mutant.budget if mutant is not None and mutant.view == "messages" else None


def _run(
    text: str,
    view: View,
    format: str,
    budget: Any,
    calls: Calls,
    folder: Path,
    law: str | None = None,
) -> Any:
    """The run's verdicts and witnesses, law by law, in a form two paths can be compared by
    (shrunk when the run judges one ``law``)."""
    folder.mkdir()
    mutant = _mutant(text)
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
        shrink=law is not None,
        # A mutant whose bug only input a provider rejects shows (run --malformed) gets it.
        malformed=mutant.malformed if mutant is not None else (),
        include=(law,) if law is not None else None,
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


def _paths(
    name: str,
    view: View,
    format: str,
    folder: Path,
    monkeypatch: pytest.MonkeyPatch,
    law: str | None = None,
) -> None:
    """Run ``name`` every way its view allows and compare each path with the in-process one."""
    budget = _budget(name)
    attribute = attribute_name(name, format)
    spec = f"py:{CALLABLES}:{attribute}"
    in_process = _run(
        spec, view, format, budget, Calls(timeout=60.0, in_process=True), folder / "in", law
    )
    assert in_process["calls"], "the in-process run made no call"
    if law is not None:
        assert in_process["laws"][law]["witness"] is not None, f"{name} did not break {law}"
    worker = _run(spec, view, format, budget, Calls(timeout=60.0), folder / "worker", law)
    assert _differences(in_process, worker) == []
    if name.startswith("reference") or (view != "messages" and name not in _NOT_CALLABLES):
        builtin = _run(name, view, format, None, Calls(), folder / "builtin", law)
        assert _differences(in_process, builtin) == []
    if view == "messages" and format == CHAT:
        # The example harness imports the callable by module name, from the project root.
        monkeypatch.setenv("PYTHONPATH", str(ROOT))
        module = "tests.compactcheck.targets.builtin_callables"
        command = f"cmd:{sys.executable} {HARNESS} {module}:{attribute}"
        harness = _run(command, view, format, budget, Calls(timeout=60.0), folder / "harness", law)
        assert _differences(in_process, harness) == []


@pytest.mark.parametrize(
    ("name", "view", "format"), CASES, ids=[f"{name}-{format}" for name, _, format in CASES]
)
def test_every_path_judges_a_builtin_alike(
    name: str, view: View, format: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _paths(name, view, format, tmp_path, monkeypatch)


@pytest.mark.parametrize(("name", "view", "format", "law"), SHRUNK, ids=[c[0] for c in SHRUNK])
def test_every_path_shrinks_a_witness_alike(
    name: str, view: View, format: str, law: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _paths(name, view, format, tmp_path, monkeypatch, law)
