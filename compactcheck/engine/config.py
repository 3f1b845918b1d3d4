"""How a run fuzzes: budget, seed, profile, selection and where what is found is kept."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hypothesis.database import ExampleDatabase

from compactcheck.base.errors import CompactcheckError
from compactcheck.base.files import installed_version
from compactcheck.base.shards import Shard
from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR
from compactcheck.invariants import Budget
from compactcheck.invariants.facts import Reading
from compactcheck.invariants.formats import CHAT, Format
from compactcheck.models import ModelSlot
from compactcheck.models.judge import judge_of
from compactcheck.options import Front, OptionError, Profile, Settled, check_together, default
from compactcheck.scale.database import check_reachable, profile_database
from compactcheck.verdicts.counts import MIN_COMPACTIONS

if TYPE_CHECKING:
    from compactcheck.observed.transcripts import Transcript

# Where the shards run on one machine keep their corpora until they are merged into the main one.
SHARD_CORPORA = ".shards"


@dataclass(frozen=True)
class RunConfig:
    """How much to fuzz, with which seed, where to keep what is found."""

    seed: int
    max_examples: int = default("max_examples")
    rounds: int = default("rounds")
    profile: Profile = "dev"
    include: Sequence[str] | None = None
    exclude: Sequence[str] = ()
    corpus_dir: Path = DEFAULT_CORPUS_DIR
    # Why the corpus is there, for the run's header ("--corpus", "the project of py:...").
    corpus_why: str = ""
    budget: Budget | None = None
    # How the messages laws look facts up: by their distinctive tokens, or as exact text.
    reading: Reading = "tokens"
    # Off: report the first failing history as found, unshrunk (faster; --no-shrink).
    shrink: bool = True
    # The installed version (importlib.metadata), so that every front end reports it.
    toolkit_version: str = field(default_factory=installed_version)
    database: ExampleDatabase | None = None
    # A URL rather than a client, so that a config crosses into worker processes.
    redis_url: str | None = None
    redis_read_only: bool = False
    shard: Shard = field(default_factory=Shard)
    # Where the local Hypothesis database lives; by default beside the corpus folder.
    database_dir: Path | None = None
    # time.time() after which exploring and shrinking stop early (fuzz --max-time).
    stop_at: float | None = None
    # Stop exploring once every selected law is broken (benchmarks, detection tests).
    stop_when_all_broken: bool = False
    # The seed the user gave, when ``seed`` is a shard's own (set by ``for_shard``).
    run_seed: int | None = None
    # Whether the user named the seed: then a run replays it exactly, and saved failures in
    # the example database are not fed back in (they would change the shrunk witnesses).
    seed_given: bool = False
    # Named malformed-input scenarios the user asked for (views.MALFORMED); none by default.
    malformed: tuple[str, ...] = ()
    # Coverage: keep exploring past max_examples, up to max_total_examples, until every
    # applicable law was exercised min_exercised times and the target compacted often enough.
    min_exercised: int = default("min_exercised")
    # The fewest compactions a run wants before it stops exploring (a shard: its share).
    min_compactions: int = MIN_COMPACTIONS
    max_total_examples: int | None = None
    # Hypothesis's target phase while exploring: hill-climbing the steering scores (open calls
    # at the cut, rounds, compaction ratio). Off for a run: within 100 histories it takes the
    # second half of the budget, and the hardest mutants were missed more often with it (14 of
    # 120 runs against 3; BENCHMARKS.md). A time-boxed campaign (fuzz) turns it on: in its
    # iterations of 1,000 histories it begins after 200, and every bug measured was found before
    # that, so it costs nothing measured there, while it is the one search that climbs toward
    # chained rounds and harsh cuts.
    target_phase: bool = False
    # The wire format of the messages view: what a target is handed and must answer.
    format: Format = CHAT
    # Recorded transcripts (compactcheck.observed.transcripts) the messages view draws pieces
    # of, instead of generated scenarios; each is also run whole, as an explicit example.
    transcripts: tuple[Transcript, ...] = ()
    # The model the built-in summarisers write with (--model); None: their own echo, as before.
    model: ModelSlot | None = None
    # The judge that settles the rulings left for review (--judge); None: they stay for review.
    judge: ModelSlot | None = None
    # Whether an item for review fails its law (--strict-review).
    strict_review: bool = False

    def __post_init__(self) -> None:
        # Where the run writes is fixed now, before any compactor code runs: one that changes
        # the working directory must not move the corpus or the example database.
        object.__setattr__(self, "corpus_dir", Path(os.path.abspath(self.corpus_dir)))
        if self.database_dir is not None:
            object.__setattr__(self, "database_dir", Path(os.path.abspath(self.database_dir)))
        # The model cache sits beside the corpus the run was given, fixed here so that a
        # shard's own corpus folder (for_piece) does not move it; and its caps get the run's
        # one ledger, so that every target and worker process spends from the same.
        for name in ("model", "judge"):
            slot: ModelSlot | None = getattr(self, name)
            if slot is not None:
                placed = replace(slot, cache_dir=slot.cache_for(self.corpus_dir))
                object.__setattr__(self, name, placed.shared())

    def hypothesis_database(self) -> ExampleDatabase | None:
        """The example database of the profile: local in dev, local plus Redis in campaign."""
        if self.database is not None:
            return self.database
        return profile_database(
            self.profile,
            self.database_dir or self.corpus_dir.parent / "hypothesis",
            self.redis_url,
            read_only=self.redis_read_only,
        )

    def for_shard(self, shard: Shard) -> RunConfig:
        """The config of one shard of this run: its seed and its share of the budget.

        Coverage is wanted of the whole run, so a shard wants its share of it: each law
        exercised its share of ``min_exercised`` times and its share of ``min_compactions``
        compactions (each at least once), within its share of ``max_total_examples``. Asked of
        every shard in full, eight shards of a 60-history run explored up to five times their
        budget for what the whole run had seen enough of.
        """
        budget = max(1, shard.budget(self.max_examples))
        whole = max(1, self.max_examples)

        def share(amount: int) -> int:
            return max(1, -(-amount * budget // whole))

        total = self.max_total_examples
        return replace(
            self,
            shard=shard,
            seed=shard.seed(self.seed),
            max_examples=budget,
            run_seed=self.whole_run_seed,
            min_exercised=share(self.min_exercised),
            min_compactions=share(self.min_compactions),
            max_total_examples=None if total is None else max(budget, share(total)),
        )

    def for_piece(self, shard: Shard) -> RunConfig:
        """One shard run beside others on this machine, its corpus kept apart until merged.

        Each shard removes the unshrunk entry it wrote once it has the shrunk one; kept apart,
        a shard never removes a file another shard found there and kept. ``gather_corpora``
        merges them. The Hypothesis database stays the shared one.
        """
        return self.for_shard(shard).kept_apart(f"{shard.index}-of-{shard.count}")

    def kept_apart(self, name: str) -> RunConfig:
        """This run with its corpus entries in folder ``name`` of the corpus's shard folder,
        merged into the corpus later (``gather_corpora``); the Hypothesis database stays the
        shared one."""
        database_dir = self.database_dir or self.corpus_dir.parent / "hypothesis"
        corpus = self.corpus_dir / SHARD_CORPORA / name
        return replace(self, corpus_dir=corpus, database_dir=database_dir)

    @property
    def home_corpus_dir(self) -> Path:
        """The corpus folder the run was given, also for a shard keeping its own (for_piece)."""
        folder = self.corpus_dir.parent
        return folder.parent if folder.name == SHARD_CORPORA else self.corpus_dir

    @property
    def whole_run_seed(self) -> int:
        """The seed of the whole run (a shard's config holds its own in ``seed``)."""
        return self.seed if self.run_seed is None else self.run_seed

    @property
    def example_cap(self) -> int:
        """The most histories coverage-directed exploring may run (default 5 x max_examples)."""
        cap = self.max_total_examples or 5 * self.max_examples
        return max(cap, self.max_examples)

    def time_is_up(self) -> bool:
        """Whether a time box was set and is spent."""
        return self.stop_at is not None and time.time() >= self.stop_at


def from_options(
    values: Mapping[str, Any],
    settled: Settled,
    *,
    corpus_dir: Path,
    corpus_why: str = "",
    transcripts: tuple[Transcript, ...] = (),
    model: ModelSlot | None = None,
    judge: ModelSlot | None = None,
) -> RunConfig:
    """The run config that checked option values (keyed as ``compactcheck.options`` names them)
    make, with their profile and seed settled (``compactcheck.options.settle``) and what only a
    front end can find: the corpus folder, the transcripts read, the model slot. The CLI,
    ``fuzz()`` and the pytest plugin all make theirs here; a shared database that does not
    answer fails here, in one line."""
    include = values["invariants"]
    limit = values["budget"]
    if settled.redis is not None:
        check_reachable(settled.redis)
    return RunConfig(
        seed=settled.seed,
        max_examples=values["max_examples"],
        rounds=values["rounds"],
        profile=settled.profile,
        include=tuple(include) if include is not None else None,
        exclude=tuple(values["exclude_invariants"]),
        corpus_dir=corpus_dir,
        corpus_why=corpus_why,
        budget=Budget(limit=limit, counter=values["counter"]) if limit else None,
        reading="verbatim" if values["verbatim"] else "tokens",
        shrink=not values["no_shrink"],
        redis_url=settled.redis,
        redis_read_only=bool(values["redis_read_only"]),
        seed_given=settled.seed_given,
        malformed=tuple(values["malformed"]),
        min_exercised=values["min_exercised"],
        max_total_examples=values["max_total_examples"],
        format=values["format"],
        transcripts=transcripts,
        model=model,
        judge=judge if judge is not None else judge_of(values),
        strict_review=bool(values.get("strict_review")),
    )


class RunOptionError(CompactcheckError):
    """Run options that a run cannot take, alone or together."""


def check_options(values: Mapping[str, Any], front: Front) -> None:
    """Refuse option values a run cannot take together, said in ``front``'s spelling."""
    try:
        check_together(values, front)
    except OptionError as error:
        raise RunOptionError(str(error)) from None


def model_slot(values: Mapping[str, Any]) -> ModelSlot | None:
    """The model slot that checked option values name; None without a model."""
    if not values["model"]:
        return None
    return ModelSlot(
        values["model"],
        cache_dir=values["model_cache"],
        max_calls=values["max_model_calls"],
        max_tokens=values["max_model_tokens"],
        offline=bool(values["offline"]),
    )
