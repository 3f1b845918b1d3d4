"""Spec 6.4: compaction-basic config, pressure and retention, pruning, region transaction,
summary output checks and the pre-step and overflow listeners."""

from __future__ import annotations

from typing import Any

import pytest

from compactcheck.invariants.session import assert_log_valid, node_price
from compactcheck.reference_engine.session import (
    CLOSE_TAG,
    OPEN_TAG,
    PRUNE_MARKER,
    AbortSignal,
    BasicCompactor,
    ConfigError,
    FunctionSummariser,
    ManualCompactionError,
    NoOpenTurnError,
    OverflowRecovery,
    PressureNotRelievedError,
    PreStepPressure,
    RegionError,
    SummarisationInput,
    SummaryDraft,
    SummaryError,
    SurfaceChangedError,
    TargetPressureConfigError,
    TextSummariser,
    load_config,
    load_pruner_config,
    resolve_compact_spec,
    resolve_target_policy,
    safe_summary,
)
from tests.reference_engine.session.session_script import Script, replay

CONTEXT = "CONTEXT_WINDOW_EXCEEDED"


def capacity(window: int | None) -> Any:
    return lambda provider, model, signal: window


def open_turn_script(exchanges: int = 4, system: str | None = None) -> Script:
    script = Script()
    script.conversation(exchanges)
    script.begin_turn()
    script.header(system=system)
    return script


def test_defaults_are_frozen() -> None:
    config = load_config()
    assert (config.threshold_ratio, config.retain_ratio, config.max_tokens) == (0.8, 0.16, 8192)
    assert (config.compaction_retries, config.max_overflow_retries, config.auto) == (1, 1, True)
    with pytest.raises(ValueError, match="frozen"):
        config.auto = False  # type: ignore[misc]


def test_budgets_per_context_window_and_exact_model_overrides() -> None:
    config = load_config(
        {
            "threshold_ratio": 0.6,
            "retain_ratio": 0.2,
            "model_policies": [
                {"provider": "a", "model": "m", "threshold_ratio": 0.8, "retain_ratio": 0.1}
            ],
        }
    )
    assert (
        resolve_compact_spec(resolve_target_policy(config, "a", "m"), 2000).threshold_tokens == 1600
    )
    assert resolve_compact_spec(resolve_target_policy(config, "a", "m"), 2000).retain_tokens == 200
    other = resolve_compact_spec(resolve_target_policy(config, "b", "m"), 2000)
    assert (other.threshold_tokens, other.retain_tokens) == (1200, 400)
    fixed = load_config({"threshold_ratio": 0.5, "retain_tokens": 120})
    spec = resolve_compact_spec(resolve_target_policy(fixed, "x", "y"), 1000)
    assert (spec.threshold_tokens, spec.retain_tokens) == (500, 120)


@pytest.mark.parametrize(
    "options",
    [
        {"unknown": 1},
        {"threshold_ratio": 0.0},
        {"threshold_ratio": 1.5},
        {"retain_ratio": 0.9},
        {"retain_tokens": -1},
        {"retain_tokens": 5, "retain_ratio": 0.1},
        {"max_tokens": 0},
        {"compaction_retries": -1},
        {"summarization_provider": "p"},
        {"model_policies": [{"provider": "", "model": "m"}]},
        {"model_policies": [{"provider": "p", "model": "m"}, {"provider": "p", "model": "m"}]},
        {"model_policies": [{"provider": "p", "model": "m", "retain_ratio": 0.9}]},
    ],
)
def test_bad_configs_are_rejected(options: dict[str, Any]) -> None:
    with pytest.raises(ConfigError):
        load_config(options)


@pytest.mark.parametrize("window", [0, 1.5, None])
def test_bad_context_windows_and_retention_above_threshold(window: Any) -> None:
    policy = resolve_target_policy(load_config({"retain_tokens": 900}), "p", "m")
    with pytest.raises(TargetPressureConfigError):
        resolve_compact_spec(policy, window)
    with pytest.raises(TargetPressureConfigError, match="must be less than threshold tokens"):
        resolve_compact_spec(policy, 1000)


def test_no_routed_model_means_no_automatic_work() -> None:
    script = Script()
    script.conversation(3)
    script.begin_turn()
    text = TextSummariser()
    compactor = BasicCompactor(summariser=text, capacity=capacity(10))
    assert compactor.compact_if_needed(script.session, "pressure") is None
    assert compactor.compact_if_needed(script.session, "context-overflow") is None
    assert text.calls == []


def test_pressure_needs_capacity_but_overflow_does_not() -> None:
    script = open_turn_script()
    compactor = BasicCompactor()
    with pytest.raises(TargetPressureConfigError, match="no context capacity for prov/mod"):
        compactor.compact_if_needed(script.session, "pressure")
    assert compactor.compact_if_needed(script.session, "context-overflow") is not None
    script.check()


def test_signal_is_forwarded_to_the_capacity_lookup() -> None:
    script = open_turn_script()
    seen: list[AbortSignal | None] = []
    signal = AbortSignal()

    def lookup(provider: str, model: str, s: AbortSignal | None) -> int:
        seen.append(s)
        return 1_000_000

    BasicCompactor(capacity=lookup).compact_if_needed(script.session, "pressure", signal)
    assert seen == [signal]


def test_below_threshold_nothing_above_it_the_head_is_compacted() -> None:
    script = open_turn_script(4)
    session = script.session
    big = BasicCompactor(capacity=capacity(1_000_000))
    assert big.compact_if_needed(session, "pressure") is None
    config = load_config({"threshold_ratio": 0.5, "retain_tokens": 180})
    result = BasicCompactor(config=config, capacity=capacity(1000)).compact_if_needed(
        session, "pressure"
    )
    assert result is not None
    assert result.shadowed_range.start == 0
    assert len(result.shadowed_seqs) > 2
    assert len(session.surface_nodes) < 8
    script.check()


def test_envelope_counts_toward_pressure() -> None:
    script = Script()
    script.user("x")
    script.user("y")
    script.begin_turn()
    script.header(system="s" * 2000)
    config = load_config({"threshold_ratio": 0.5, "retain_tokens": 1})
    compactor = BasicCompactor(config=config, capacity=capacity(1000))
    assert compactor.meter.measure(script.session).total_tokens >= 500
    # Heavy envelope but almost nothing compactable: the result cannot shrink, so it fails.
    with pytest.raises(SummaryError):
        compactor.compact_if_needed(script.session, "pressure")


def test_one_measurement_before_the_region_and_bounded_retries() -> None:
    script = open_turn_script(4)
    config = load_config({"threshold_ratio": 0.5, "retain_tokens": 400, "compaction_retries": 0})
    compactor = BasicCompactor(config=config, capacity=capacity(1000))
    with pytest.raises(PressureNotRelievedError, match="after 1 compaction attempts"):
        compactor.compact_if_needed(script.session, "pressure")
    # decide, prepare, stability re-check, then the re-measure after the attempt
    assert compactor.meter.measure_calls == 4


def test_cut_moves_toward_the_head_to_keep_tool_pairs() -> None:
    script = open_turn_script(3)
    script.tool_step("late", "z" * 400)
    session = script.session
    config = load_config({"threshold_ratio": 0.5, "retain_tokens": 50})
    BasicCompactor(config=config, capacity=capacity(1000)).compact_if_needed(session, "pressure")
    calls: set[str] = set()
    for message in session.derive_messages():
        for block in message.content:
            if block.type == "tool-call":
                calls.add(block.id)  # type: ignore[union-attr]
            if block.type == "tool-result":
                assert block.tool_call_id in calls  # type: ignore[union-attr]


def test_single_tool_pair_surface_declines_overflow() -> None:
    script = Script()
    script.begin_turn()
    script.header()
    script.tool_step("only", "x" * 1000)
    generation = script.session.replace_generation
    assert BasicCompactor().compact_if_needed(script.session, "context-overflow") is None
    assert not any(e.type == "compaction/start" for e in script.session.events)
    assert script.session.replace_generation == generation


def test_pruning_alone_can_clear_pressure() -> None:
    script = Script()
    script.begin_turn()
    script.header()
    script.tool_step("c1", "x" * 5000)
    script.reply_step("done")
    text = TextSummariser()
    compactor = BasicCompactor(
        config=load_config({"threshold_ratio": 0.5, "retain_tokens": 10}),
        capacity=capacity(2000),
        summariser=text,
        pruner=load_pruner_config({"threshold_chars": 500, "head_chars": 100, "tail_chars": 100}),
    )
    assert compactor.compact_if_needed(script.session, "pressure") is None
    assert text.calls == []
    assert script.session.replace_generation == 1
    script.check()


def test_summariser_sees_the_pruned_surface() -> None:
    script = open_turn_script(2)
    script.tool_step("big", "B" * 3000)
    script.reply_step("after")
    text = TextSummariser(line_chars=10_000, max_chars=100_000)
    compactor = BasicCompactor(
        summariser=text,
        pruner=load_pruner_config({"threshold_chars": 500, "head_chars": 100, "tail_chars": 100}),
    )
    compactor.compact_if_needed(script.session, "context-overflow")
    seen = [
        getattr(block, "content", ())
        for message in text.calls[0].messages
        for block in message.content
    ]
    flat = " ".join(getattr(inner, "text", "") for blocks in seen for inner in blocks)
    assert PRUNE_MARKER.strip() in flat
    assert "B" * 1000 not in flat


def test_region_checkpoint_is_framed_and_replayable() -> None:
    script = open_turn_script(2, system="sys")
    session = script.session
    nodes = session.surface_nodes
    received: list[SummarisationInput] = []

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        received.append(request)
        blocks = ({"type": "text", "text": "brief"},)
        return SummaryDraft(blocks, "p", "m", raw_output=blocks, max_tokens=99, usage={"input": 1})

    compactor = BasicCompactor(summariser=FunctionSummariser(run))
    result = compactor.compact_region(session, nodes[0], nodes[3])
    assert result.shadowed_seqs == nodes[:4]
    assert result.shadowed_token_count > 0
    summary = session.event_at(result.summary_seq)
    assert summary is not None
    assert summary.data["maxTokens"] == 99
    assert "llmStreamCall" not in summary.data
    head = session.derive_messages()[0]
    assert OPEN_TAG in head.content[0].text  # type: ignore[union-attr]
    assert head.content[-1].text == CLOSE_TAG  # type: ignore[union-attr]
    assert received[0].system == "sys"
    assert replay(session).derive_messages() == session.derive_messages()
    script.check()


def test_region_rejections_in_order() -> None:
    script = open_turn_script(2)
    session = script.session
    nodes = session.surface_nodes
    compactor = BasicCompactor()
    with pytest.raises(RegionError, match="start seq 999 not found"):
        compactor.compact_region(session, 999, 1000)
    with pytest.raises(RegionError, match="end seq 999 not found"):
        compactor.compact_region(session, nodes[0], 999)
    with pytest.raises(RegionError, match="is after end seq"):
        compactor.compact_region(session, nodes[3], nodes[0])
    with pytest.raises(RegionError, match=f"start seq {nodes[2]} is not a balanced boundary"):
        compactor.compact_region(session, nodes[2], nodes[3])
    with pytest.raises(RegionError, match=f"end seq {nodes[1]} is not a balanced boundary"):
        compactor.compact_region(session, nodes[0], nodes[1])
    session.append("compaction/start", {"compactionId": "x", "turn": script.turn})
    with pytest.raises(ManualCompactionError, match="already in progress"):
        compactor.compact_region(session, nodes[0], nodes[3])


def test_region_needs_an_open_turn_even_without_any_turns() -> None:
    script = Script()
    script.user("a")
    script.user("b")
    with pytest.raises(NoOpenTurnError, match="no open turn"):
        BasicCompactor().compact_region(script.session, 0, 0)


def test_meter_snapshot_changed_before_summarisation() -> None:
    script = open_turn_script(2)
    compactor = BasicCompactor()
    original = compactor.meter.measure

    def stale(session: Any) -> Any:
        reading = original(session)
        return type(reading)(**{**reading.__dict__, "nodes": reading.nodes[1:]})

    compactor.meter.measure = stale  # type: ignore[method-assign]
    nodes = script.session.surface_nodes
    with pytest.raises(SurfaceChangedError, match="selected surface changed"):
        compactor.compact_region(script.session, nodes[0], nodes[3])


@pytest.mark.parametrize("error", [RuntimeError("model down"), ValueError("plain failure")])
def test_summariser_failure_is_rethrown_with_the_error_in_end(error: Exception) -> None:
    script = open_turn_script(2)
    session = script.session
    before = session.derive_messages()

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        raise error

    nodes = session.surface_nodes
    with pytest.raises(type(error)) as caught:
        BasicCompactor(summariser=FunctionSummariser(run)).compact_region(
            session, nodes[0], nodes[3]
        )
    assert caught.value is error
    assert session.events[-1].data["error"] == str(error)
    assert session.derive_messages() == before
    script.check()


def test_log_only_appends_are_tolerated_surface_appends_are_not() -> None:
    for surface_change, expected in ((False, None), (True, "session surface changed")):
        script = open_turn_script(2)
        session = script.session

        def run(
            request: SummarisationInput,
            signal: AbortSignal | None,
            s: Any = script,
            change: bool = surface_change,
        ) -> SummaryDraft:
            if change:
                s.user("late")
            else:
                s.header()
            return TextSummariser().summarise(request, None)

        nodes = session.surface_nodes
        compactor = BasicCompactor(summariser=FunctionSummariser(run))
        if expected is None:
            compactor.compact_region(session, nodes[0], nodes[3])
        else:
            with pytest.raises(SurfaceChangedError, match=expected):
                compactor.compact_region(session, nodes[0], nodes[3])
            assert not any(e.type == "compaction/summary" for e in session.events)
        assert_log_valid(session.events)


def test_non_shrinking_summary_is_rejected_without_summary_event() -> None:
    script = open_turn_script(1)
    nodes = script.session.surface_nodes

    def run(request: SummarisationInput, signal: AbortSignal | None) -> SummaryDraft:
        return SummaryDraft(({"type": "text", "text": "w" * 9000},), "p", "m")

    with pytest.raises(SummaryError, match="not smaller than the shadowed content"):
        BasicCompactor(summariser=FunctionSummariser(run)).compact_region(
            script.session, nodes[0], nodes[3]
        )
    assert not any(e.type == "compaction/summary" for e in script.session.events)


@pytest.mark.parametrize(
    ("blocks", "code"),
    [
        ([], "EMPTY"),
        ([{"type": "reasoning", "text": "thinking"}], "EMPTY"),
        ([{"type": "text", "text": "   "}], "EMPTY"),
        ([{"type": "image", "attachment": "a"}], "UNSUPPORTED_CONTENT"),
        (
            [
                {
                    "type": "tool-result",
                    "toolCallId": "c",
                    "isError": False,
                    "content": [{"type": "image", "attachment": "a"}],
                }
            ],
            "UNSUPPORTED_CONTENT",
        ),
    ],
)
def test_summary_output_checks(blocks: list[dict[str, Any]], code: str) -> None:
    with pytest.raises(SummaryError) as caught:
        safe_summary(blocks)
    assert caught.value.code == code


def test_summary_keeps_only_text() -> None:
    kept = safe_summary(
        [
            {"type": "reasoning", "text": "r"},
            {"type": "text", "text": "t"},
            {"type": "tool-call", "id": "c", "name": "n", "arguments": ""},
        ]
    )
    assert kept == ({"type": "text", "text": "t"},)


def test_pre_step_listener_compacts_above_threshold_and_skips_when_aborted() -> None:
    config = load_config({"threshold_ratio": 0.5, "retain_tokens": 100})
    script = open_turn_script(4)
    hook = PreStepPressure(BasicCompactor(config=config, capacity=capacity(1000)))
    aborted = AbortSignal()
    aborted.abort()
    hook.on_pre_step(script.session, aborted)
    assert script.session.replace_generation == 0
    hook.on_pre_step(script.session)
    assert script.session.replace_generation == 1
    script.check()


def test_pre_step_listener_warns_once_per_target_and_keeps_going() -> None:
    script = open_turn_script(2)
    hook = PreStepPressure(BasicCompactor())
    hook.on_pre_step(script.session)
    hook.on_pre_step(script.session)
    assert len(hook.warnings) == 1
    assert "prov" in hook.warnings[0]


def test_overflow_retries_only_after_a_replacement_and_honours_the_cap() -> None:
    script = open_turn_script(3)
    recovery = OverflowRecovery(BasicCompactor())
    downstream: list[str] = []

    def next_handler() -> str:
        downstream.append("next")
        return "delegated"

    assert recovery.on_request_error(script.session, "SERVER", None, next_handler) == "delegated"
    assert recovery.on_request_error(script.session, CONTEXT, None, next_handler) == "retry"
    assert script.session.surface_nodes[-1] != script.session.surface_nodes[0]
    # The cap (1) is used up: no more compaction calls, the error goes downstream once.
    calls = recovery.compact_calls
    assert recovery.on_request_error(script.session, CONTEXT, None, next_handler) == "delegated"
    assert recovery.compact_calls == calls
    assert downstream == ["next", "next"]
    script.check()


def test_overflow_without_progress_delegates_and_zero_cap_disables() -> None:
    script = Script()
    script.begin_turn()
    script.header()
    script.tool_step("only")
    recovery = OverflowRecovery(BasicCompactor())
    assert recovery.on_request_error(script.session, CONTEXT, None, lambda: "down") == "down"
    off = OverflowRecovery(BasicCompactor(config=load_config({"max_overflow_retries": 0})))
    rich = open_turn_script(3)
    assert off.on_request_error(rich.session, CONTEXT, None, lambda: "down") == "down"
    assert off.compact_calls == 0


def test_cancellation_during_overflow_compaction_prevents_retry() -> None:
    script = open_turn_script(3)
    signal = AbortSignal()

    def run(request: SummarisationInput, s: AbortSignal | None) -> SummaryDraft:
        signal.abort()
        return TextSummariser().summarise(request, None)

    recovery = OverflowRecovery(BasicCompactor(summariser=FunctionSummariser(run)))
    assert recovery.on_request_error(script.session, CONTEXT, signal, lambda: "down") == "down"
    assert script.session.replace_generation == 1


def test_durable_prune_then_summary_failure_still_retries() -> None:
    script = open_turn_script(2)
    script.tool_step("big", "B" * 3000)
    script.reply_step("after")

    def run(request: SummarisationInput, s: AbortSignal | None) -> SummaryDraft:
        raise RuntimeError("summariser down")

    recovery = OverflowRecovery(
        BasicCompactor(
            summariser=FunctionSummariser(run),
            pruner=load_pruner_config(
                {"threshold_chars": 500, "head_chars": 100, "tail_chars": 100}
            ),
        )
    )
    assert recovery.on_request_error(script.session, CONTEXT, None, lambda: "down") == "retry"
    assert any("summariser down" in w for w in recovery.warnings)
    assert script.session.events[-1].data["error"] == "summariser down"


def test_auto_false_installs_no_listeners() -> None:
    script = open_turn_script(3)
    compactor = BasicCompactor(config=load_config({"auto": False}), capacity=capacity(10))
    PreStepPressure(compactor).on_pre_step(script.session)
    assert (
        OverflowRecovery(compactor).on_request_error(script.session, CONTEXT, None, lambda: "down")
        == "down"
    )
    assert script.session.replace_generation == 0


def test_retry_count_resets_on_a_new_assistant_message() -> None:
    script = open_turn_script(4)
    recovery = OverflowRecovery(BasicCompactor())
    recovery.watch(script.session)
    assert recovery.on_request_error(script.session, CONTEXT, None, lambda: "d") == "retry"
    script.reply_step("fresh answer " + "x" * 400)
    script.reply_step("another " + "y" * 400)
    assert recovery.retries == {}


def test_a_measurement_prices_every_node_as_afresh_after_each_compaction() -> None:
    # The meter keeps each node's priced entry across measurements; re-pricing from the events
    # is the oracle, before and after compactions rewrite the surface.
    script = open_turn_script(6)
    session = script.session
    config = load_config({"threshold_ratio": 0.2, "retain_tokens": 50})
    compactor = BasicCompactor(config=config, capacity=capacity(1000))

    def fresh() -> tuple[tuple[int, int], ...]:
        return tuple(
            (seq, node_price(event))
            for seq in session.surface_nodes
            if (event := session.event_at(seq)) is not None
        )

    first = compactor.meter.measure(session)
    assert tuple((node.seq, node.tokens) for node in first.nodes) == fresh()
    assert compactor.compact_if_needed(session, "pressure") is not None
    second = compactor.meter.measure(session)
    assert second.nodes != first.nodes
    assert tuple((node.seq, node.tokens) for node in second.nodes) == fresh()
    assert second.surface_tokens == sum(price for _, price in fresh())
    assert compactor.meter.measure(session) == second
