"""The JSON report: the single source of truth that every other format is rendered from."""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue, field_validator

from compactcheck.base.implementation import Implementation
from compactcheck.report.trace_points import TraceReading

Verdict = Literal["pass", "review", "violation", "skipped", "errored", "unknown", "waived"]
VERDICTS: tuple[Verdict, ...] = (
    "pass", "review", "violation", "skipped", "errored", "unknown", "waived"
)  # fmt: skip
# The most items for review one law's result lists (it counts them all).
MAX_REVIEW_ITEMS = 20
SCHEMA_VERSION = 1

# What a target's calls came to, in the order a report lists them ("timed out" is a kind of
# "errored"): see TargetReport.calls.
CALL_STATUSES = ("compacted", "unchanged", "declined", "skipped", "unsafe", "errored", "timed out")
Reproduced = Literal["deterministic", "flaky", "errored", "not_checked"]
# Lines of TargetReport.errors that a report recomputes when shards are merged.
VACUITY_PREFIX = "inconclusive: "
COVERAGE_PREFIX = "coverage: "
# A target's error that says an output of the run (a corpus entry) could not be written.
UNWRITTEN_PREFIX = "not written: "
# A target must change the history in at least this share of its answered calls (and in 3 of
# them) for its laws to be judged; below it a run explores on, then calls the run inconclusive.
MIN_COMPACTED_PERCENT = 5


_SHARD_LABEL = re.compile(r"^([1-9][0-9]{0,5})/([1-9][0-9]{0,5})$")


class _ReportModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RuledFact(_ReportModel):
    """What a compaction did to one fact: its ruling, and the output sentence it rests on."""

    fact: str
    kind: str = Field(description="goal, constraint, superseded, or invented (a new claim)")
    ruling: str = Field(
        description="kept, reworded, weakened, changed, contradicted, stale, retired, dropped "
        "or invented"
    )
    sentence: str | None = Field(default=None, description="the output sentence read")
    certainty: Literal["certain", "unsure"] = Field(
        default="certain",
        description="certain only on mechanical evidence (a value or name gone, one clause holding "
        "the whole fact); an unsure ruling fails no law, it is an item for review",
    )
    reason: str = Field(default="", description="why the ruling is certain or unsure")


class ReviewItem(_ReportModel):
    """A ruling on meaning the reading could not settle: a fact, the sentence, and why."""

    fact: str
    kind: str = Field(description="goal, constraint, superseded, or invented (a new claim)")
    leans: str = Field(description="the ruling the reading leans to (a loss, or faithful)")
    reason: str = Field(description="why the reading is not sure")
    sentence: str | None = Field(default=None, description="the output sentence it rests on")
    message: int | None = Field(default=None, description="that sentence's output index")
    round: int = Field(
        default=0, description="the compaction round it was first met in (0: unknown)"
    )
    judged: str | None = Field(
        default=None, description="what a judge (--judge) said of it, where one was asked"
    )
    met: int = Field(
        default=1,
        ge=1,
        description=(
            "how many judged compactions met this same item (its fact, sentence and reason): a "
            "sentence every round repeats is one item for a reader, met that many times"
        ),
    )


class FixChange(_ReportModel):
    """One repair of a fix: the law it mends and what it added or took out."""

    law: str
    repair: str = Field(description="the named repair (compactcheck.observed.repair)")
    what: str = Field(description="what it did, in one line")
    added: list[JsonValue] = Field(
        default_factory=list, description="what it brought back (messages, blocks, lines)"
    )
    removed: list[JsonValue] = Field(default_factory=list, description="what it took out")
    size_before: int = Field(description="the answer's size before this repair (see counter)")
    size_after: int = Field(description="and after it")


class Fix(_ReportModel):
    """The repair that would have made a counterexample's answer lawful, or why none does."""

    lawful: bool = Field(
        description="true when every law judged holds on the repaired answer (the note says "
        "when it is still larger than the input or past a declared budget, which a guard in "
        "repair mode refuses)"
    )
    changes: list[FixChange] = Field(default_factory=list)
    note: str = Field(default="", description="why the repair falls short ('' when lawful)")
    counter: str = Field(default="characters", description="what the sizes are counted in")
    size_input: int = 0
    size_answer: int = Field(default=0, description="the compactor's answer")
    size_repaired: int = Field(default=0, description="the repaired answer")


class Counterexample(_ReportModel):
    """The minimal history on which an invariant broke, and why."""

    round: int = Field(description="the compaction round (1 = first) in which it broke")
    because: str = Field(description="one sentence naming the events or messages involved")
    witness: list[JsonValue] = Field(description="only the events or messages behind it")
    diff: dict[str, JsonValue] | None = Field(
        default=None, description="deepdiff where values differ"
    )
    input: JsonValue = Field(description="what the backend was handed in that round")
    output: JsonValue = Field(default=None, description="what the backend answered")
    history_size: int = Field(description="events or messages in the shrunk history")
    corpus_file: str | None = Field(default=None, description="the crash corpus entry")
    reproduced: Reproduced = Field(
        default="not_checked",
        description="re-run three times: broke every time, only some times, or no re-run "
        "answered (errored)",
    )
    input_problems: list[str] = Field(
        default_factory=list,
        description="the provider rules the input breaks: such input came from a --malformed "
        "scenario or from the target's own earlier answer",
    )
    rulings: list[RuledFact] = Field(
        default_factory=list,
        description="what the compaction did to the goal and each constraint (laws that read "
        "facts, messages view)",
    )
    fix: Fix | None = Field(
        default=None,
        description="the smallest repair of the answer that makes it lawful (the messages to add "
        "back or take out), or why none does; messages view (absent in older reports)",
    )
    same_cause: list[str] = Field(
        default_factory=list,
        description="the other laws of this target that broke on the same failing round (same "
        "input and answer) because one restates the other for a provider (tool_pairing and "
        "anthropic_tool_result_has_prior_use): one cause, which every rendering shows once under "
        "both names",
    )
    way: str = Field(
        default="",
        description="the way the law broke: the kind its law gave the violation (dropped, "
        "superseded reasserted, ...); each distinct way has its own counterexample; empty for a "
        "law of one way and in older reports",
    )
    failed: int = Field(
        default=0, description="judged rounds that broke the law in this way (0: not counted)"
    )


class InvariantResult(_ReportModel):
    """One invariant on one target."""

    invariant: str
    statement: str
    verdict: Verdict
    examples: int = Field(description="histories generated and run")
    exercised: int = Field(description="compactions that actually exercised the invariant")
    compactions: int = Field(
        default=0, description="calls whose answer changed the history (all rounds)"
    )
    unchanged: int = Field(default=0, description="calls that handed the history back unchanged")
    errored: int = Field(default=0, description="backend calls that errored")
    skipped: int = Field(default=0, description="backend calls that declined or were declined")
    because: str | None = None
    counterexample: Counterexample | None = None
    other_ways: list[Counterexample] = Field(
        default_factory=list,
        description="a counterexample for each other distinct way the law broke, after the first "
        "(at most three)",
    )
    ways: int = Field(
        default=0,
        description="distinct ways the law broke in; more than the counterexamples when the run "
        "met more than it keeps",
    )
    level: int = Field(
        default=0,
        description="the conformance level the law belongs to (1 the provider accepts it, 2 the "
        "agent can carry on, 3 nothing that matters is lost); 0 in reports written before levels",
    )
    waived: str | None = Field(
        default=None,
        description="the reason the target declared for not promising this law; a violation of a "
        "waived law has the verdict 'waived' (judged and shown, never counted as a violation)",
    )
    review: list[ReviewItem] = Field(
        default_factory=list,
        description="rulings the reading could not settle, each met where the law otherwise "
        f"held: the verdict 'review' (at most {MAX_REVIEW_ITEMS} listed)",
    )
    reviewed: int = Field(
        default=0, description="distinct items for review met, listed or not (see review)"
    )


class Spread(_ReportModel):
    """One fidelity measure over the compactions that could show it: mean and spread."""

    mean: float
    low: float = Field(description="the lowest value of one compaction")
    high: float = Field(description="the highest value of one compaction")
    sd: float = Field(description="the population standard deviation")
    n: int = Field(description="compactions measured: those whose input held such facts")


class FidelityRound(_ReportModel):
    """The fidelity measures of one round of every history (round 0: all rounds together)."""

    round: int
    compactions: int = Field(description="compactions measured in this round")
    measures: dict[str, Spread] = Field(
        default_factory=dict,
        description="by kind: must_keep, constraints, pending, changed_files (shares kept, 1.0 "
        "= all), reasserted (share of superseded constraints asserted as current again, 0.0 "
        "= none), pruned (share of the text of kept tool results replaced by placeholders, 0.0 "
        "= none), compression (size out / size in); a kind no input held is absent",
    )
    rulings: dict[str, int] = Field(
        default_factory=dict,
        description="how many goals and constraints got each ruling (kept, reworded, weakened, "
        "changed, contradicted, stale, retired, dropped, invented); messages view",
    )


class FidelitySide(_ReportModel):
    """What one compactor kept, per round and over the whole run."""

    overall: FidelityRound
    rounds: list[FidelityRound] = Field(default_factory=list)


class Fidelity(_ReportModel):
    """How much of what matters a target kept, beside the reference on the same inputs."""

    counter: str = Field(description="what sizes were measured in (the declared budget's)")
    target: FidelitySide
    reference: FidelitySide | None = Field(
        default=None,
        description="the reference compactor of the view, handed every input the target "
        "compacted, at the same budget; absent when the target is the reference",
    )
    reference_target: str = ""
    reference_note: str = Field(
        default="", description="how the reference was run, or why it was not"
    )


class ModelCalls(_ReportModel):
    """What a summariser's model slot (--model) did: calls made, replayed and refused."""

    model: str = Field(description="what answered, e.g. paraphrase or openai:gpt-4o-mini")
    made: int = Field(
        default=0, description="requests sent to the model (and recorded, unless recorded is false)"
    )
    replayed: int = Field(default=0, description="requests answered from the model cache")
    recorded: bool = Field(
        default=True,
        description="false for a local fake (echo, paraphrase, ...): its answers are not "
        "recorded, since it gives the same answer again, offline and for free",
    )
    cap: int | None = Field(
        default=None, description="the declared cap of calls of the whole run, if any"
    )
    tokens: int = Field(
        default=0,
        description="input and output tokens of the calls made, as each answer's usage "
        "reported them, or estimated (see tokensEstimated)",
    )
    tokens_estimated: bool = Field(
        default=False,
        description="true when some of the tokens were estimated as characters / 4 (a local "
        "fake, or a client that reported no usage)",
    )
    token_cap: int | None = Field(
        default=None, description="the declared cap of tokens of the whole run, if any"
    )
    refused: int = Field(
        default=0,
        description="requests refused (cap reached, or offline and not recorded); their rounds "
        "were skipped, and no law can pass on such a run",
    )
    offline: bool = Field(default=False, description="replay only: nothing was sent")
    reason: str = Field(default="", description="why the last request was refused")
    reruns: Literal["", "live", "recorded"] = Field(
        default="",
        description="how the three re-runs of each violation (flaky or deterministic) got their "
        "answers: 'live' (the model asked again, recorded answers bypassed), 'recorded' (some "
        "replayed as recorded: offline, or no call left, so flakiness was judged on recorded "
        "answers); '' when no violation was re-run",
    )
    ledger: str = Field(
        default="",
        description="the id of the ledger the caps were counted in: reports that share it "
        "(shards and workers of one run) shared one cap; '' when there was no cap",
    )

    def _spend(self, *, refused: bool) -> str:
        tokens = f"{self.tokens} tokens" + (
            " (estimated: characters/4)" if self.tokens_estimated else ""
        )
        parts = [
            f"{self.made} made",
            f"{self.replayed} replayed",
            *([f"{self.refused} refused"] if refused and self.refused else []),
            *([tokens] if self.made else []),
            *([f"cap {self.cap}"] if self.cap is not None else []),
            *([f"token cap {self.token_cap}"] if self.token_cap is not None else []),
        ]
        return ", ".join(parts)

    def counts(self) -> str:
        """The slot's calls, e.g. "model openai:gpt-4o: 12 made, 30 replayed, 3400 tokens"."""
        return (
            f"model {self.model}: {self._spend(refused=True)}"
            + (", offline" if self.offline else "")
            + ("; flakiness judged on recorded answers" if self.reruns == "recorded" else "")
            + ("" if self.recorded else "; a local fake: its answers are not recorded")
        )

    def statement(self) -> str:
        """The slot's calls in one line; a run with refusals says its verdicts are inconclusive."""
        if not self.refused:
            return self.counts()
        raise_it = "--max-model-tokens" if "token cap" in self.reason else "--max-model-calls"
        return (
            f"model {self.model}: {self.reason}; {self.refused} request(s) refused and their "
            f"rounds skipped, so the verdicts are inconclusive ({self._spend(refused=False)}); "
            f"raise {raise_it}, or run again: recorded answers are replayed for free"
        )


class TargetReport(_ReportModel):
    """Every invariant of one view on one target."""

    target: str
    view: str
    implementation: Implementation | None = None
    results: list[InvariantResult]
    errors: list[str] = Field(default_factory=list, description="target-level problems")
    stderr: str = Field(default="", description="the tail of a subprocess's stderr")
    calls: dict[str, int] = Field(
        default_factory=dict,
        description="the target's calls by outcome: compacted (changed the history), unchanged, "
        "declined, skipped, unsafe (not a safe point to compact), errored, timed out",
    )
    format: str = Field(
        default="",
        description="the wire format of the messages view the target was driven in "
        "(openai-chat, anthropic, openai-responses, gemini); '' for the other views",
    )
    failures: dict[str, int] = Field(
        default_factory=dict,
        description="why the target's failed calls failed: each distinct reason (its first line, "
        "request seq numbers shown as N) with how many calls gave it, most common first, at "
        "most ten",
    )
    inferred_facts: list[str] = Field(
        default_factory=list,
        description="facts the laws judged by that were read off the histories (goal, "
        "constraints, must_keep) rather than declared; empty when every fact was declared or "
        "generated with its ground truth",
    )
    level: int | None = Field(
        default=None,
        description="the highest conformance level reached: every applicable law of levels 1 to "
        "N passed and none is waived (0: not even level 1); absent in reports written before "
        "levels",
    )
    fidelity: Fidelity | None = Field(
        default=None,
        description="shares of facts kept per round, and compression, measured on the compactions "
        "the laws judged while exploring; absent when nothing was compacted",
    )
    model_calls: ModelCalls | None = Field(
        default=None,
        description="the summariser's model slot (--model): calls made, replayed from the "
        "cache, refused; absent when the target was run without one",
    )
    traces: TraceReading | None = Field(
        default=None,
        description="an audit of traces: what was read, and one result per compaction point",
    )
    seconds: float = 0.0
    isolation: str = Field(
        default="",
        description="where the compactor ran: 'worker process' (a py: target, isolated: a crash "
        "is a finding of its call), 'harness process' (a cmd: target), 'in-process' (a crash or "
        "hang there ends the run), 'built-in' (compactcheck's own or an adapter it ships), "
        "'recorded' (an audit of compactions that already happened)",
    )


class Report(_ReportModel):
    """A run of compactcheck over one or more targets."""

    schema_version: int = SCHEMA_VERSION
    toolkit_version: str
    seed: int
    profile: str
    max_examples: int
    rounds: int = Field(description="most compaction rounds per history")
    complete: bool = Field(description="false when the run was interrupted")
    started_at: str
    targets: list[TargetReport]
    malformed: list[str] = Field(
        default_factory=list,
        description="malformed-input scenarios asked for (--malformed); empty: every generated "
        "history is one the target's provider accepts",
    )
    shards: list[str] = Field(
        default_factory=list,
        description="the shards (i/M) of a cut run that this report holds; empty for a whole run",
    )
    strict_review: bool = Field(
        default=False,
        description="items for review fail their law (--strict-review); by default a law with "
        "items for review holds, and the items are listed for a reader",
    )

    @field_validator("shards")
    @classmethod
    def _shards_of_one_cut(cls, shards: list[str]) -> list[str]:
        counts: set[int] = set()
        for label in shards:
            match = _SHARD_LABEL.match(label)
            if match is None or not 1 <= int(match[1]) <= int(match[2]):
                raise ValueError(f"shard {label!r}: expected i/M with 1 <= i <= M")
            counts.add(int(match[2]))
        if len(counts) > 1:
            raise ValueError(f"shards {shards}: expected the shards of one cut (one M)")
        if len(set(shards)) != len(shards):
            raise ValueError(f"shards {shards}: a shard is listed twice")
        return shards

    def missing_shards(self) -> list[str]:
        """The shards of a cut run that this report lacks (none for a whole run)."""
        if not self.shards:
            return []
        count = int(self.shards[0].split("/")[1])
        return [f"{i}/{count}" for i in range(1, count + 1) if f"{i}/{count}" not in self.shards]

    def verdicts(self) -> list[Verdict]:
        """Every verdict in the report."""
        return [result.verdict for target in self.targets for result in target.results]

    def to_json_data(self) -> dict[str, Any]:
        """The report as JSON data."""
        return self.model_dump(mode="json")
