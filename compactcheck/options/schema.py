"""The table of run options: each one's type, default and help, and its spelling per front end."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from compactcheck.options.front_only import FRONT_ONLY, SESSION
from compactcheck.options.kinds import (
    CHAT,
    COUNTERS_HELP,
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_TIMEOUT,
    JUDGE_NAMES_HELP,
    LEVELS,
    MALFORMED,
    MODEL_NAMES_HELP,
    PROFILES,
    REDIS_URL_VARIABLE,
    REPORTS,
    VIEWS,
    WIRE_FORMATS,
    Front,
    choice,
    counter,
    csv,
    flag,
    integer,
    judge_name,
    level,
    malformed,
    model_name,
    natural,
    positive,
    seconds,
    shard,
)
from compactcheck.options.option import Option


def _everywhere(
    key: str, parse: Callable[[str], Any], default: Any, help: str, **more: Any
) -> Option:
    """An option every front end offers under its own spelling, the marker too."""
    spelling = {"cli": "--" + key.replace("_", "-"), "library": key}
    return Option(key, parse, default, help, **{**spelling, "plugin": True, "marker": True, **more})


_MODEL = "model=ModelSlot(name, cache_dir=, max_calls=, max_tokens=, offline=) carries it"


def _session(key: str, parse: Callable[[str], Any], default: Any, help: str, **more: Any) -> Option:
    """An option of the whole run: the plugin offers it for the session, not per marker."""
    more = {"missing": {"marker": SESSION}, **more}
    return _everywhere(key, parse, default, help, marker=False, **more)


# Every run option, in the order `compactcheck run --help` shows them; then what one front end
# alone takes.
OPTIONS: tuple[Option, ...] = (
    # `check` judges one messages pair unless told otherwise.
    _everywhere(
        "view",
        choice(*VIEWS),
        None,
        "only this view",
        choices=VIEWS,
        commands={"check": "messages"},
    ),
    _everywhere(
        "transcripts",
        Path,
        None,
        "recorded transcripts (a file or folder) to draw histories from, instead of generated "
        "ones; messages view (docs/how-to/recorded-traffic.md lists the formats read)",
        metavar="PATH",
        plugin_help="recorded transcripts (a file or folder) to draw histories from instead of "
        "generated ones; messages view (a marker's or ini value's relative path is read from "
        "the rootdir)",
    ),
    _everywhere("invariants", csv, None, "only these invariant ids (a,b,c)"),
    _everywhere("exclude_invariants", csv, (), "skip these ids", library="exclude"),
    # A campaign (`compactcheck fuzz`) runs iterations of this many histories each.
    _everywhere("max_examples", positive, 100, "histories per target", commands={"fuzz": 1000}),
    _everywhere("rounds", positive, 3, "most compactions per history"),
    _everywhere(
        "format",
        choice(*WIRE_FORMATS),
        CHAT,
        "the wire format a messages target is handed and answers: OpenAI chat completions "
        "(default), Anthropic Messages, OpenAI Responses input items or Gemini contents",
        choices=WIRE_FORMATS,
        plugin_help="wire format of the messages view (as run --format)",
        # A recorded pair's format is read from its shape unless named.
        commands={"check": None, "audit": None},
    ),
    # Left unset on the command line, where the profile picks it.
    _everywhere(
        "seed",
        integer,
        0,
        "run seed (default: random in dev, 0 in ci)",
        defaults={"cli": None},
        plugin_help="run seed (default 0: a test run is reproducible)",
        # The draws `statistics` counts are the same on every call.
        commands={"statistics": 0},
    ),
    _everywhere("timeout", seconds, DEFAULT_TIMEOUT, "seconds per backend call"),
    _everywhere(
        "in_process",
        flag,
        False,
        "run py: compactors in this process (faster, for trusted code: a crash, exit or hang "
        "there ends the run); by default each runs in a worker process of its own",
        flag=True,
    ),
    _everywhere(
        "memory_limit",
        natural,
        DEFAULT_MEMORY_LIMIT_MB,
        "address space of a py: compactor's worker process; going past it is a finding "
        f"(default {DEFAULT_MEMORY_LIMIT_MB}; 0: no limit)",
        library="memory_limit_mb",
        metavar="MB",
    ),
    _everywhere(
        "budget",
        positive,
        None,
        "declared size limit of compacted messages, in --counter's unit (in code: a number or "
        "a Budget(limit=N, counter=...))",
        metavar="N",
    ),
    _everywhere(
        "counter",
        counter,
        "approx_tokens",
        f"what --budget is counted in: {COUNTERS_HELP}",
        metavar="COUNTER",
        # In code, None: a Budget's own counter, else approx_tokens.
        defaults={"library": None},
        plugin_help=f"what the budget is counted in, as run --counter: {COUNTERS_HELP}",
    ),
    _everywhere(
        "verbatim",
        flag,
        False,
        "messages view: a goal, constraint or must-keep fact survives only as its exact text "
        "(default: its distinctive tokens, so that a summary may reword it)",
        flag=True,
    ),
    _everywhere(
        "malformed",
        malformed,
        (),
        f"also generate messages histories a provider would reject: {', '.join(MALFORMED)} "
        "(default: none; every generated history is one the provider accepts)",
        metavar="NAME[,NAME]",
    ),
    _everywhere(
        "min_exercised",
        natural,
        5,
        "keep exploring past --max-examples until every applicable law was exercised this "
        "often (0: no extra exploring)",
    ),
    _everywhere(
        "max_total_examples",
        positive,
        None,
        "the cap of that exploring, in histories (default: 5 x --max-examples)",
    ),
    # The library says it the other way round: shrink=False.
    _everywhere(
        "no_shrink",
        flag,
        False,
        "report failing histories as found, without shrinking them",
        library="shrink",
        flag=True,
    ),
    _session(
        "corpus",
        Path,
        None,
        "crash corpus folder (default: .compactcheck/corpus at the root of the project the "
        "target's code belongs to; the run says which folder it chose); the example database "
        "goes beside it",
        library="corpus_dir",
        metavar="PATH",
        plugin_help="crash corpus folder (default: .compactcheck/corpus in the rootdir)",
    ),
    _session(
        "redis",
        str,
        None,
        f"shared Hypothesis example database (default: ${REDIS_URL_VARIABLE}); read-write in "
        "campaign, read-only in dev, unused in ci",
        metavar="URL",
        plugin_help="share the Hypothesis database of this session's Hypothesis tests through "
        f"Redis (default: ${REDIS_URL_VARIABLE}), multiplexed with the local folder",
    ),
    _session(
        "redis_read_only",
        flag,
        False,
        "replay what the shared database holds without writing to it",
        flag=True,
    ),
    _session(
        "model",
        model_name,
        None,
        "the model the built-in targets that summarise write with (`compactcheck targets` "
        "says which: 'summarises with --model'): "
        f"{MODEL_NAMES_HELP} (default: their own echo)",
        metavar="NAME",
        plugin_help="the model the built-in targets that summarise write with, as run --model: "
        + MODEL_NAMES_HELP,
    ),
    *(
        _session(
            key,
            parse,
            None,
            help,
            library=None,
            metavar=metavar,
            plugin_help=plugin_help,
            missing={"library": _MODEL, "marker": SESSION},
        )
        for key, parse, metavar, help, plugin_help in (
            (
                "model_cache",
                Path,
                "DIR",
                "where model answers are recorded and replayed from (a local fake's are not "
                "recorded; default: .compactcheck/models beside the corpus)",
                None,
            ),
            (
                "max_model_calls",
                natural,
                "N",
                "the most requests sent to the model in the whole run (every target and "
                "worker); past it a request is refused, its round skipped and the verdicts "
                "inconclusive (recorded answers do not count)",
                "the most requests sent to the model in the session (as run --max-model-calls)",
            ),
            (
                "max_model_tokens",
                natural,
                "N",
                "the most tokens (input and output, as the provider reports them; characters/4 "
                "for a local fake) the requests sent may take in the whole run; once reached, a "
                "request is refused as past --max-model-calls",
                "the most tokens the requests sent may take in the session",
            ),
        )
    ),
    _session(
        "judge",
        judge_name,
        None,
        "settle the rulings on meaning the reading is not sure of (the verdict review) with a "
        f"judge: {JUDGE_NAMES_HELP}; its answers are recorded beside the model cache and never "
        "override a certain ruling",
        metavar="NAME",
        plugin_help="settle the rulings left for review with a judge, as run --judge: "
        + JUDGE_NAMES_HELP,
    ),
    _session(
        "max_judge_calls",
        natural,
        None,
        "the most requests sent to the judge in the whole run (recorded answers do not count); "
        "past it an item stays for review",
        library=None,
        metavar="N",
        missing={
            "library": "judge=judge_slot(name, max_calls=N) (compactcheck.models.judge)",
            "marker": SESSION,
        },
    ),
    _everywhere(
        "strict_review",
        flag,
        False,
        "an item for review (a ruling on meaning the reading could not settle) fails its law as a "
        "violation does (exit 1, and no level above it), until a judge settles it; by default a "
        "law with items for review holds, and they are listed for a reader",
        flag=True,
        marker=False,
        missing={"marker": SESSION},
    ),
    _session(
        "offline",
        flag,
        False,
        "replay recorded model answers only: a request not recorded is refused, never sent",
        library=None,
        flag=True,
        missing={"library": _MODEL, "marker": SESSION},
    ),
    Option(
        "profile",
        choice(*PROFILES),
        None,
        "dev (random, local database), ci (fixed seed, no database), campaign",
        cli="--profile",
        choices=PROFILES,
        missing={
            "library": "fuzz() replays its seed as the ci profile does; redis= makes it a "
            "campaign's",
            "plugin": "a test run is the ci profile (its seed fixed, no example database); "
            "--compactcheck-database and --compactcheck-redis give `hypothesis fuzz` campaigns "
            "theirs",
        },
    ),
    Option(
        "workers",
        positive,
        1,
        "worker processes; a lone target is cut into shards to keep them busy",
        cli="--workers",
        library="workers",
        plugin=True,
        plugin_help="fuzz each target in a pool of N worker processes inside this pytest "
        "process, its budget cut as run --workers N cuts it (with the same seed, the same "
        "verdicts and witnesses); for slow, model-backed compactors whose calls mostly wait, "
        "so that N calls are in flight at once",
        missing={"marker": SESSION},
    ),
    Option(
        "in_flight",
        positive,
        None,
        "shards run at once, as threads of the workers (of this process with one worker), so "
        "that K calls are in flight: for compactors that wait on a model (default: one per "
        "worker); the budget is cut for K, wherever they run",
        cli="--in-flight",
        library="in_flight",
        plugin=True,
        metavar="K",
        plugin_help="fuzz K shards of each target at once, as threads of this pytest process "
        "(or of the --compactcheck-workers processes), its budget cut as run --in-flight K "
        "cuts it (the same seed and K, the same verdicts and witnesses); for compactors whose "
        "calls mostly wait, so that K calls are in flight without a process each",
        missing={"marker": SESSION},
    ),
    Option(
        "shard",
        shard,
        None,
        "run shard I of M (own seed, 1/M of the budget); `compactcheck merge` joins them",
        cli="--shard",
        metavar="I/M",
        missing={
            "library": "workers= cuts one call's budget into shards; its Report is whole",
            "plugin": "--compactcheck-shards K: one test id (and seed) per shard",
        },
    ),
    _everywhere(
        "require_level",
        level,
        None,
        "exit 1 if a target reaches a conformance level below N (1 the provider accepts it, "
        "2 the agent can carry on, 3 nothing that matters is lost), else 0: violations above N "
        "are reported but do not fail the run",
        library=None,
        choices=LEVELS,
        metavar="N",
        plugin_help="fail the tests of the laws of levels 1 to N that did not hold (1 the "
        "provider accepts it, 2 the agent can carry on, 3 nothing that matters is lost); a "
        "violation of a law above N is reported as xfailed, not failed",
        missing={"library": "the Report says each target's level (report.targets[i].level)"},
    ),
    *(
        _session(
            name,
            Path,
            None,
            f"write a {name} report",
            metavar="PATH",
            plugin_help=f"write the {name} report of every target this session fuzzed",
        )
        for name in REPORTS
    ),
    *FRONT_ONLY,
)

BY_KEY: Mapping[str, Option] = {option.key: option for option in OPTIONS}
# The plugin's own options (no ini value; --compactcheck-target repeats), added by the plugin.
PLUGIN_ONLY = ("target", "database", "shards")


def offered_by(front: Front) -> tuple[Option, ...]:
    """The options ``front`` offers, in the table's order."""
    return tuple(option for option in OPTIONS if option.offered(front))
