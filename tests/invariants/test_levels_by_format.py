"""Where a law's level depends on the provider, and what is shown beside a level."""

from __future__ import annotations

from pathlib import Path

from compactcheck.base.implementation import Implementation
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import run_target
from compactcheck.invariants.catalogue import select
from compactcheck.invariants.levels import level_of
from compactcheck.report.model import (
    Fidelity,
    FidelityRound,
    FidelitySide,
    InvariantResult,
    Spread,
    TargetReport,
    Verdict,
)
from compactcheck.targets.registry import resolve
from compactcheck.verdicts.levels import (
    accepted_waivers,
    growth_warning,
    level_reached,
    level_text,
    target_level_text,
)


def _result(law: str, verdict: Verdict, format: str) -> InvariantResult:
    return InvariantResult(
        invariant=law,
        statement="",
        verdict=verdict,
        examples=1,
        exercised=1,
        compactions=1,
        level=level_of(law, False, format),
    )


def _results(format: str) -> list[InvariantResult]:
    return [
        _result("tool_pairing", "pass", format),
        _result("user_turn_present", "violation", format),
        _result("goal_preserved", "pass", format),
        _result("facts_preserved", "pass", format),
    ]


def test_a_history_without_a_user_turn_is_a_rejection_only_where_the_provider_rejects_it() -> None:
    assert level_of("user_turn_present", format="anthropic") == 1
    assert level_of("user_turn_present", format="gemini") == 1
    assert level_of("user_turn_present", format="openai-chat") == 2
    assert level_of("user_turn_present", format="openai-responses") == 2
    assert level_of("non_empty", format="openai-chat") == 1
    assert level_reached(_results("anthropic")) == 0
    assert level_reached(_results("openai-chat")) == 1


def test_the_level_text_names_what_the_formats_provider_does() -> None:
    assert level_text(0, _results("anthropic"), "anthropic") == (
        "level 0 of 3; level 1 (the provider accepts it) broken; user_turn_present: Anthropic's "
        "Messages API (Claude on Bedrock and Vertex too) rejects a history with no user turn"
    )
    assert level_text(1, _results("openai-chat"), "openai-chat") == (
        "level 1 of 3 (the provider accepts it); level 2 (the agent can carry on) broken; "
        "user_turn_present: OpenAI chat completions accept a history with no user turn, but the "
        "request it answers is lost; many OpenAI-compatible servers and Bedrock reject it"
    )
    # The rule text users read lists the providers that reject it.
    (law,) = select("messages", ["user_turn_present"])
    for provider in ("Anthropic", "Gemini", "Bedrock", "OpenAI-compatible", "OpenAI's own"):
        assert provider in law.statement


def test_a_waiver_of_user_turn_present_stands_only_where_it_is_not_level_one() -> None:
    waivers = {"user_turn_present": "keeps a system-only memory by design"}
    kept, refused = accepted_waivers(waivers, {}, "openai-chat")
    assert kept == waivers
    assert refused == []
    kept, refused = accepted_waivers(waivers, {}, "gemini")
    assert kept == {}
    assert len(refused) == 1


def test_a_run_in_chat_completions_places_a_lost_user_turn_at_level_two(tmp_path: Path) -> None:
    # The real mutant through the engine: it writes its summary as a system message and drops
    # every user turn. OpenAI chat completions take that, so it reaches level 1, and the level
    # text says why level 2 is not reached.
    config = RunConfig(
        seed=0,
        max_examples=30,
        profile="ci",
        corpus_dir=tmp_path,
        include=["tool_pairing", "non_empty", "user_turn_present"],
        shrink=False,
    )
    report = run_target(resolve("mutant:messages-drop-user-turns"), "messages", config)
    result = next(r for r in report.results if r.invariant == "user_turn_present")
    assert (result.verdict, result.level) == ("violation", 2)
    assert report.level == 1
    text = target_level_text(report)
    assert text is not None
    assert "OpenAI chat completions accept" in text


def _report(compression: float) -> TargetReport:
    spread = Spread(mean=compression, low=0.5, high=2.0, sd=0.1, n=40)
    side = FidelitySide(
        overall=FidelityRound(round=0, compactions=40, measures={"compression": spread})
    )
    return TargetReport(
        target="py:grows.py:compact",
        view="messages",
        implementation=Implementation(name="grows"),
        results=[
            InvariantResult(
                invariant=law,
                statement="",
                verdict="pass",
                examples=1,
                exercised=1,
                level=level_of(law),
            )
            for law in ("tool_pairing", "goal_preserved", "facts_preserved")
        ],
        level=3,
        fidelity=Fidelity(counter="characters", target=side),
    )


def test_a_compactor_that_grows_the_history_is_warned_of_beside_its_level() -> None:
    grows = _report(1.07)
    assert target_level_text(grows) == (
        "level 3 of 3 (nothing that matters is lost); warning: compaction made the history "
        "larger on average (size out / size in 1.07 over 40 compactions; declare --budget N to "
        "judge it by progress)"
    )
    assert growth_warning(_report(0.6)) is None
    assert target_level_text(_report(0.6)) == "level 3 of 3 (nothing that matters is lost)"
