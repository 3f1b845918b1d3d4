"""The pytest plugin: one test per (target, view, invariant), with options that mirror the CLI.

Use it either from the command line::

    pytest --compactcheck-target py:mypackage.compaction:compact

with a test that asks for the ``compactcheck_law`` fixture (``compactcheck init`` writes one)::

    def test_conformance(compactcheck_law):
        compactcheck_law.check()

or by naming the target in the code, the way Schemathesis parametrises a schema::

    @pytest.mark.compactcheck("py:mypackage.compaction:compact", view="messages", budget=8000)
    def test_my_compactor(compactcheck_law):
        compactcheck_law.check()

Every run option of ``compactcheck run`` is offered from one table (``OPTIONS``): as the
option ``--compactcheck-NAME``, the ini value ``compactcheck_NAME`` and, where it can differ
from one target to the next, the marker keyword ``NAME`` (the marker wins over the option, the
option over the ini value). A ``py:`` file is named relative to the rootdir, in test ids and in
the corpus alike, so that both stay the same on every checkout and CI runner.

``--compactcheck-model NAME`` (or the ini value ``compactcheck_model``) names the model the
built-in summarisers write with, as ``run --model`` does, with its cache, caps and offline mode;
the caps hold for the whole session, across xdist workers.

Under pytest-xdist (``pytest -n auto``) test ids are stable (target, view, invariant and, with
``--compactcheck-shards K``, the shard), so every worker collects the same tests. Each worker
fuzzes the (target, view, shard) triples its tests need once and ships the reports to the
controller through xdist's ``workeroutput``; the controller merges them into one JSON report.
"""

from __future__ import annotations

import argparse
import difflib
import json
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.strategies import SearchStrategy

from compactcheck.cli.options import csv, natural, positive, seconds
from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import report_of, run_target
from compactcheck.engine.plan import gather_corpora
from compactcheck.engine.selection import Selection
from compactcheck.engine.shards import Shard
from compactcheck.engine.steering import history_size
from compactcheck.engine.target_run import TargetRun
from compactcheck.errors import CompactcheckError, one_line
from compactcheck.harness import MALFORMED, Case
from compactcheck.harness.cases import cases
from compactcheck.invariants import VIEWS, Budget, View
from compactcheck.invariants.formats import CHAT, FORMATS, check_format
from compactcheck.invariants.levels import LEVELS
from compactcheck.models import ModelSlot, check_name
from compactcheck.models.slot import NAMES_HELP
from compactcheck.report.model import Counterexample, InvariantResult, TargetReport
from compactcheck.report.render._digest import input_problems_line, returned_lines
from compactcheck.report.untrusted import json_block, safe_line
from compactcheck.scale.database import REDIS_URL_VARIABLE, profile_database, redis_url
from compactcheck.scale.merge import merge_target_groups, point_into
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIMEOUT, Calls
from compactcheck.targets.loading import is_file_spec
from compactcheck.targets.registry import Target, resolve
from compactcheck.transcripts import Transcript, load_transcripts

_WORKER_KEY = "compactcheck_reports"
# The model slot's ledger file, handed by the xdist controller to each worker.
_LEDGER_KEY = "compactcheck_model_ledger"


def _choice(*choices: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in choices:
            raise argparse.ArgumentTypeError(
                f"expected one of {', '.join(choices)}, found {text!r}"
            )
        return text

    return parse


def _flag(text: str) -> bool:
    """An ini value or marker keyword of a flag: true or false."""
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on", "1"):
        return True
    if lowered in ("false", "no", "off", "0"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, found {text!r}")


def _level(text: str) -> int:
    level = _choice(*(str(n) for n in sorted(LEVELS)))(text)
    return int(level)


def _malformed(text: str) -> tuple[str, ...]:
    names = tuple(csv(text))
    unknown = [name for name in names if name not in MALFORMED]
    if unknown or not names:
        raise argparse.ArgumentTypeError(
            f"unknown malformed-input scenario(s) {', '.join(unknown) or repr(text)}; "
            f"known: {', '.join(MALFORMED)}"
        )
    return names


def _model(text: str) -> str:
    try:
        return check_name(text)
    except CompactcheckError as error:
        raise argparse.ArgumentTypeError(one_line(error)) from None


@dataclass(frozen=True)
class RunOption:
    """One run option of the CLI as the plugin offers it: option, ini value, marker keyword."""

    # The CLI's option (``--max-examples``); the plugin's names derive from it.
    cli: str
    # What it sets: a field of RunConfig or Calls, or what the plugin does with it.
    sets: str
    # A text (of the command line or the ini file) as its value; ArgumentTypeError if it is not.
    parse: Callable[[str], Any]
    default: Any
    help: str
    # Also a keyword of the marker: it may differ from one target to the next. The others
    # hold for the whole session (one corpus, one model ledger, one report).
    marker: bool = True
    flag: bool = False
    metavar: str | None = None

    @property
    def key(self) -> str:
        """The marker keyword, and the key of the option's value: ``max_examples``."""
        return self.cli.removeprefix("--").replace("-", "_")

    @property
    def option(self) -> str:
        """The plugin's command-line option: ``--compactcheck-max-examples``."""
        return "--compactcheck-" + self.cli.removeprefix("--")

    @property
    def ini(self) -> str:
        """The plugin's ini value: ``compactcheck_max_examples``."""
        return "compactcheck_" + self.key


# Every run option of `compactcheck run` (compactcheck/cli/options.py), in its order. The test
# of the plugin checks that each option of `run` is here or in NOT_OFFERED.
OPTIONS: tuple[RunOption, ...] = (
    RunOption("--view", "the view", _choice(*VIEWS), None, "only this view"),
    RunOption(
        "--transcripts",
        "RunConfig.transcripts",
        Path,
        None,
        "recorded transcripts (a file or folder) to draw histories from instead of generated "
        "ones; messages view (a marker's or ini value's relative path is read from the rootdir)",
        metavar="PATH",
    ),
    RunOption("--invariants", "RunConfig.include", csv, None, "only these invariant ids (a,b)"),
    RunOption("--exclude-invariants", "RunConfig.exclude", csv, (), "skip these invariant ids"),
    RunOption("--max-examples", "RunConfig.max_examples", positive, 100, "histories per target"),
    RunOption("--rounds", "RunConfig.rounds", positive, 3, "most compactions per history"),
    RunOption(
        "--format",
        "RunConfig.format",
        _choice(*FORMATS),
        CHAT,
        "wire format of the messages view (as run --format)",
    ),
    RunOption(
        "--seed", "RunConfig.seed", int, 0, "run seed (default 0: a test run is reproducible)"
    ),
    RunOption("--timeout", "Calls.timeout", seconds, DEFAULT_TIMEOUT, "seconds per backend call"),
    RunOption(
        "--in-process",
        "Calls.in_process",
        _flag,
        False,
        "run py: compactors in the test process (faster; a crash there ends the session); by "
        "default each runs in a worker process of its own",
        flag=True,
    ),
    RunOption(
        "--memory-limit",
        "Calls.memory_limit_mb",
        natural,
        DEFAULT_MEMORY_LIMIT_MB,
        "address space of a py: compactor's worker process (0: no limit)",
        metavar="MB",
    ),
    RunOption(
        "--budget",
        "RunConfig.budget.limit",
        positive,
        None,
        "declared size limit of compacted messages, counted as the counter option says",
    ),
    RunOption(
        "--counter",
        "RunConfig.budget.counter",
        _choice("messages", "characters", "approx_tokens"),
        "approx_tokens",
        "how the budget is counted",
    ),
    RunOption(
        "--verbatim",
        "RunConfig.reading",
        _flag,
        False,
        "messages view: a goal, constraint or must-keep fact survives only as its exact text",
        flag=True,
    ),
    RunOption(
        "--malformed",
        "RunConfig.malformed",
        _malformed,
        (),
        f"also generate histories a provider would reject: {', '.join(MALFORMED)}",
        metavar="NAME[,NAME]",
    ),
    RunOption(
        "--min-exercised",
        "RunConfig.min_exercised",
        natural,
        5,
        "keep exploring until every applicable law was exercised this often (0: no extra)",
    ),
    RunOption(
        "--max-total-examples",
        "RunConfig.max_total_examples",
        positive,
        None,
        "the cap of that exploring, in histories (default: 5 x max examples)",
    ),
    RunOption(
        "--no-shrink",
        "RunConfig.shrink",
        _flag,
        False,
        "report failing histories as found, without shrinking them",
        flag=True,
    ),
    RunOption(
        "--corpus",
        "RunConfig.corpus_dir",
        Path,
        None,
        "crash corpus folder (default: .compactcheck/corpus in the rootdir)",
        marker=False,
        metavar="PATH",
    ),
    RunOption(
        "--redis",
        "the campaign's example database",
        str,
        None,
        f"share the Hypothesis database of this session's Hypothesis tests through Redis "
        f"(default: ${REDIS_URL_VARIABLE}), multiplexed with the local folder",
        marker=False,
        metavar="URL",
    ),
    RunOption(
        "--redis-read-only",
        "the campaign's example database",
        _flag,
        False,
        "replay what the shared database holds without writing to it",
        marker=False,
        flag=True,
    ),
    RunOption(
        "--model",
        "RunConfig.model",
        _model,
        None,
        f"the model the built-in summarisers write with, as run --model: {NAMES_HELP}",
        marker=False,
        metavar="NAME",
    ),
    RunOption(
        "--model-cache",
        "RunConfig.model.cache_dir",
        Path,
        None,
        "where model answers are recorded and replayed from (default: .compactcheck/models)",
        marker=False,
        metavar="DIR",
    ),
    RunOption(
        "--max-model-calls",
        "RunConfig.model.max_calls",
        natural,
        None,
        "the most requests sent to the model in the session (as run --max-model-calls)",
        marker=False,
        metavar="N",
    ),
    RunOption(
        "--max-model-tokens",
        "RunConfig.model.max_tokens",
        natural,
        None,
        "the most tokens the requests sent may take in the session",
        marker=False,
        metavar="N",
    ),
    RunOption(
        "--offline",
        "RunConfig.model.offline",
        _flag,
        False,
        "replay recorded model answers only: a request not recorded is refused, never sent",
        marker=False,
        flag=True,
    ),
    RunOption(
        "--require-level",
        "the tests that fail",
        _level,
        None,
        "fail the tests of the laws of levels 1 to N that did not hold (1 the provider accepts "
        "it, 2 the agent can carry on, 3 nothing that matters is lost); a violation of a law "
        "above N is reported as xfailed, not failed",
        metavar="N",
    ),
    *(
        RunOption(
            f"--{name}",
            "the session's reports",
            Path,
            None,
            f"write the {name} report of every target this session fuzzed",
            marker=False,
            metavar="PATH",
        )
        for name in ("json", "junit", "markdown", "html")
    ),
)

# The options of `compactcheck run` the plugin does not offer, and what it has instead.
NOT_OFFERED: Mapping[str, str] = {
    "--profile": "a test run is the ci profile (its seed fixed, no example database); "
    "--compactcheck-database and --compactcheck-redis give `hypothesis fuzz` campaigns theirs",
    "--workers": "pytest-xdist: pytest -n auto with --compactcheck-shards K",
    "--shard": "--compactcheck-shards K: one test id (and seed) per shard",
}

_BY_KEY = {option.key: option for option in OPTIONS}
_NUMBERS: tuple[Callable[[str], Any], ...] = (int, positive, natural)
# What the marker takes besides its target.
MARKER_KEYWORDS = tuple(option.key for option in OPTIONS if option.marker)


@dataclass
class _Session:
    """What one pytest session fuzzed, kept in ``config.stash``."""

    # Each (target, view, shard config) is fuzzed once, for all of its laws' tests.
    reports: dict[tuple[str, str, RunConfig], TargetReport] = field(default_factory=dict)
    # On the xdist controller: every worker's reports, keyed so that a shard fuzzed by two
    # workers (they run the same seed, so the reports agree) counts once.
    from_workers: dict[tuple[str, str, int, int], TargetReport] = field(default_factory=dict)
    # Targets opened for Hypothesis tests of one case at a time (``check_case``), closed at the
    # end of the session.
    runs: dict[tuple[str, str, RunConfig], TargetRun] = field(default_factory=dict)
    # The model the summarisers write with (--compactcheck-model), one ledger for the session.
    model: ModelSlot | None = None
    # Transcripts read once per path, for every marker that names them.
    transcripts: dict[Path, tuple[Transcript, ...]] = field(default_factory=dict)
    # Usage errors met while parametrising, raised once collection ends: raised there, pytest
    # shows them as one line (exit 4), not as a collection error with a traceback.
    usage_errors: list[str] = field(default_factory=list)


_SESSION = pytest.StashKey[_Session]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options: the CLI's run options (``OPTIONS``) and its own few."""
    group = parser.getgroup("compactcheck", "compactcheck: fuzz context compactors")
    group.addoption(
        "--compactcheck-target",
        action="append",
        default=[],
        metavar="TARGET",
        help="a target to fuzz (repeatable): reference, mutant:NAME, py:..., cmd:...",
    )
    for option in OPTIONS:
        where = f"; marker keyword {option.key}" if option.marker else ""
        text = f"{option.help} (ini: {option.ini}{where})"
        if option.flag:
            group.addoption(option.option, action="store_true", default=None, help=text)
        else:
            group.addoption(
                option.option,
                type=option.parse,
                default=None,
                metavar=option.metavar or ("N" if option.parse in _NUMBERS else option.key.upper()),
                help=text,
            )
        parser.addini(option.ini, f"as {option.option}", default="")
    group.addoption(
        "--compactcheck-database",
        default=None,
        metavar="PATH",
        help="the Hypothesis example database folder of this session's Hypothesis tests (set "
        "as the default profile, so that `hypothesis fuzz` keeps its finds there)",
    )
    group.addoption(
        "--compactcheck-shards",
        type=int,
        default=1,
        metavar="K",
        help="cut each target's budget into K shards, one test id (and seed) each, for -n auto",
    )


def _value(config: pytest.Config, option: RunOption, marked: Mapping[str, Any]) -> Any:
    """An option's value: the marker's keyword, else the command line, else the ini file."""
    if marked.get(option.key) is not None:
        given = marked[option.key]
        if option.flag and not isinstance(given, bool):
            raise pytest.UsageError(
                f"@pytest.mark.compactcheck({option.key}={given!r}): expected True or False"
            )
        text = ",".join(map(str, given)) if isinstance(given, list | tuple) else str(given)
        return _parsed(option, text, f"@pytest.mark.compactcheck({option.key}={given!r})")
    given = config.getoption(option.option)
    if given is not None:
        return given
    text = str(config.getini(option.ini) or "").strip()
    if text:
        return _parsed(option, text, f"the ini value {option.ini} = {text}")
    return option.default


def _parsed(option: RunOption, text: str, where: str) -> Any:
    try:
        return option.parse(text)
    except (argparse.ArgumentTypeError, ValueError) as error:
        raise pytest.UsageError(f"{where}: {error}") from None


def _values(config: pytest.Config, marked: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The value of every run option, for one marker's keywords (none: the session's)."""
    return {option.key: _value(config, option, marked or {}) for option in OPTIONS}


def _marker_keywords(marker: pytest.Mark, where: str) -> dict[str, Any]:
    """The marker's keywords; a usage error for one it does not know, with the likely one."""
    if len(marker.args) != 1:
        raise pytest.UsageError(
            f"{where}: @pytest.mark.compactcheck takes one target, e.g. "
            f'@pytest.mark.compactcheck("py:mymodule:compact"); found {len(marker.args)} '
            "positional argument(s)"
        )
    for name in marker.kwargs:
        if name not in MARKER_KEYWORDS:
            close = difflib.get_close_matches(name, MARKER_KEYWORDS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            session = f"; {name} holds for the session: --compactcheck-{name.replace('_', '-')}"
            raise pytest.UsageError(
                f"{where}: @pytest.mark.compactcheck got an unknown keyword {name!r}{hint}; "
                f"known: {', '.join(MARKER_KEYWORDS)}" + (session if name in _BY_KEY else "")
            )
    return dict(marker.kwargs)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; refuse invariant ids that no view has before anything is collected."""
    config.addinivalue_line(
        "markers",
        "compactcheck(target, **options): fuzz TARGET and give one test per invariant; options: "
        + ", ".join(MARKER_KEYWORDS),
    )
    values = _values(config)
    config.stash[_SESSION] = _Session(model=_model_slot(config, values))
    _selection(values).check()
    _campaign_database(config, values)


def _campaign_database(config: pytest.Config, values: Mapping[str, Any]) -> None:
    """With --compactcheck-database or a Redis URL, the example database of every Hypothesis
    test this session runs, set as Hypothesis's default profile (``hypothesis fuzz`` keeps
    what it finds in the default profile's database, and accepts only tests that use it)."""
    folder = config.getoption("--compactcheck-database")
    try:
        url = redis_url(values["redis"])
        if folder is None and url is None:
            return
        local = Path(folder) if folder else Path(config.rootpath) / ".compactcheck" / "hypothesis"
        database = profile_database(
            "campaign", local, url, read_only=bool(values["redis_read_only"])
        )
    except CompactcheckError as error:
        raise pytest.UsageError(one_line(error)) from None
    # Explicitly random: under a CI variable Hypothesis loads its own "ci" profile, which
    # derandomizes every test, and HypoFuzz refuses derandomized tests (it would collect none).
    settings.register_profile("compactcheck-campaign", database=database, derandomize=False)
    settings.load_profile("compactcheck-campaign")


def _model_slot(config: pytest.Config, values: Mapping[str, Any]) -> ModelSlot | None:
    """The session's model slot, its ledger the controller's under xdist; None without a model."""
    name = values["model"]
    if not name:
        given = [
            _BY_KEY[key].option
            for key in ("model_cache", "max_model_calls", "max_model_tokens", "offline")
            if values[key] is not None and values[key] is not False
        ]
        if given:
            # As run: a cap or cache without a model would silently do nothing.
            raise pytest.UsageError(
                f"{', '.join(given)}: needs a model to apply to; name it with --compactcheck-model"
            )
        return None
    try:
        slot = ModelSlot(
            name,
            cache_dir=values["model_cache"],
            max_calls=values["max_model_calls"],
            max_tokens=values["max_model_tokens"],
            offline=bool(values["offline"]),
        )
    except CompactcheckError as error:
        raise pytest.UsageError(f"--compactcheck-model: {one_line(error)}") from None
    handed = getattr(config, "workerinput", {}).get(_LEDGER_KEY)
    return replace(slot, ledger=Path(handed)) if handed else slot.shared()


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """On the xdist controller: every worker counts its model calls in the session's ledger."""
    model = node.config.stash[_SESSION].model
    if model is not None and model.ledger is not None:
        node.workerinput[_LEDGER_KEY] = str(model.ledger)


def _selection(
    values: Mapping[str, Any],
    views: list[View] | None = None,
    where: str = "--compactcheck-invariants",
) -> Selection:
    """The ids asked for; a usage error, said ``where``, for one that no view (or none of
    ``views``) has."""
    include = values["invariants"]
    selection = Selection(tuple(include) if include else None, tuple(values["exclude_invariants"]))
    try:
        selection.check(views)
    except CompactcheckError as error:
        # Zero tests for a typo would look like a clean run.
        raise pytest.UsageError(f"{where}: {one_line(error)}") from None
    return selection


def _transcripts(
    config: pytest.Config, values: Mapping[str, Any], marked: Mapping[str, Any]
) -> tuple[Transcript, ...]:
    """The transcripts the options name, read once per session; none when none are named."""
    path: Path | None = values["transcripts"]
    if path is None:
        return ()
    if "transcripts" in marked:
        # Written in the code: read from the rootdir, wherever pytest runs.
        path = Path(config.rootpath) / path
    else:
        path = _placed(config, "transcripts", path)
    if values["view"] not in (None, "messages"):
        raise pytest.UsageError(
            f"transcripts feed the messages view; view {values['view']} has no transcripts"
        )
    if values["malformed"]:
        raise pytest.UsageError("transcripts and malformed: a transcript is what it is")
    session = config.stash[_SESSION]
    if path not in session.transcripts:
        try:
            session.transcripts[path] = tuple(load_transcripts(path))
        except CompactcheckError as error:
            raise pytest.UsageError(one_line(error)) from None
    return session.transcripts[path]


def _placed(config: pytest.Config, key: str, given: Path) -> Path:
    """A path option's value: read from where pytest runs when given on its command line,
    from the rootdir when written in the ini file (or a marker)."""
    if config.getoption(_BY_KEY[key].option) is not None:
        return Path(config.invocation_params.dir) / given
    return Path(config.rootpath) / given


def _corpus_dir(config: pytest.Config, values: Mapping[str, Any]) -> Path:
    """The corpus folder the options name, else .compactcheck/corpus in the rootdir."""
    given: Path | None = values["corpus"]
    if given is None:
        return Path(config.rootpath) / DEFAULT_CORPUS_DIR
    return _placed(config, "corpus", given)


def _run_config(
    config: pytest.Config,
    values: Mapping[str, Any],
    transcripts: tuple[Transcript, ...] = (),
) -> RunConfig:
    """The run config the option values make, as ``compactcheck run`` makes it from its own."""
    limit = values["budget"]
    return RunConfig(
        seed=values["seed"],
        max_examples=values["max_examples"],
        rounds=values["rounds"],
        profile="ci",
        # A test run is a replay of its seed, whatever the example database holds.
        seed_given=True,
        include=tuple(values["invariants"]) if values["invariants"] else None,
        exclude=tuple(values["exclude_invariants"]),
        corpus_dir=_corpus_dir(config, values),
        budget=Budget(limit=limit, counter=values["counter"]) if limit else None,
        reading="verbatim" if values["verbatim"] else "tokens",
        shrink=not values["no_shrink"],
        malformed=tuple(values["malformed"]),
        min_exercised=values["min_exercised"],
        max_total_examples=values["max_total_examples"],
        format=values["format"],
        transcripts=transcripts,
        model=config.stash[_SESSION].model,
    )


def _calls(values: Mapping[str, Any]) -> Calls:
    return Calls(
        timeout=values["timeout"],
        in_process=bool(values["in_process"]),
        memory_limit_mb=values["memory_limit"],
    )


def _shards(config: pytest.Config) -> list[Shard]:
    try:
        count: int = config.getoption("--compactcheck-shards")
        return Shard.all_of(count)
    except CompactcheckError as error:
        raise pytest.UsageError(f"--compactcheck-shards: {one_line(error)}") from None


def rooted(text: str, base: Path, root: Path) -> tuple[str, str]:
    """A target as named in test ids and the corpus, and as resolved.

    A ``py:`` file is named by its path relative to ``root`` (the rootdir), so that ids and
    corpus entries are the same on every checkout, and ``compactcheck replay`` run from the
    rootdir finds it; it is resolved by its absolute path, so that pytest may run from anywhere.
    A relative path is read from ``base``. Other targets are named and resolved as given.
    """
    module_part, _, attribute = text.removeprefix("py:").rpartition(":")
    if not text.startswith("py:") or not module_part or not is_file_spec(module_part):
        return text, text
    absolute = (base / module_part).resolve()
    spec = f"py:{absolute}:{attribute}"
    try:
        relative = absolute.relative_to(root.resolve())
    except ValueError:
        return spec, spec
    return f"py:{relative.as_posix()}:{attribute}", spec


def _open(name: str, spec: str, view: View | None, calls: Calls, config: RunConfig) -> Target:
    """The target ``spec`` names, resolved, under its stable ``name``."""
    target = resolve(
        spec,
        view=view,
        calls=calls,
        budget=config.budget,
        format=config.format,
        model=config.model,
    )
    target.name = name
    return target


def _replay_command(path: Path, root: Path, here: Path) -> str:
    """The command that replays a corpus entry: from the rootdir, where its target resolves."""
    try:
        shown = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        shown = str(path)
    command = f"compactcheck replay {shlex.quote(shown)}"
    if here.resolve() != root.resolve():
        command = f"cd {shlex.quote(str(root))} && {command}"
    return command


@dataclass(frozen=True)
class LawCase:
    """One invariant of one target on one view; ``check()`` fails the test on a violation."""

    target: str
    view: View
    invariant: str
    config: RunConfig
    calls: Calls
    session: _Session = field(compare=False, repr=False)
    # What ``target`` is resolved from (a py: file by its absolute path).
    spec: str = ""
    # --compactcheck-require-level: laws above it fail no test.
    require_level: int | None = None
    # Where replay commands are run from: the rootdir; and where pytest was started.
    root: Path = field(default=Path(), compare=False, repr=False)
    here: Path = field(default=Path(), compare=False, repr=False)

    @property
    def test_id(self) -> str:
        """The stable test id: target, view, invariant, and the shard when there are several."""
        shard = self.config.shard
        suffix = f"-shard{shard.index}of{shard.count}" if shard.count > 1 else ""
        return f"{self.target}-{self.view}-{self.invariant}{suffix}"

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        # Hypothesis prints a failing test's arguments: the law, not the whole session's state.
        printer.text(f"<compactcheck law {self.test_id}>")

    def _open(self) -> Target:
        return _open(self.target, self.spec or self.target, self.view, self.calls, self.config)

    def result(self) -> InvariantResult:
        """This invariant's result (the target is fuzzed once per session, for all laws)."""
        key = (self.target, self.view, self.config)
        report = self.session.reports.get(key)
        if report is None:
            target = self._open()
            try:
                report = run_target(target, self.view, self.config)
            finally:
                target.close()
            self.session.reports[key] = report
        return next(r for r in report.results if r.invariant == self.invariant)

    def cases(self) -> SearchStrategy[Case]:
        """The histories this law is judged on, for a Hypothesis test of your own (one that
        ``hypothesis fuzz`` can fuzz): draw one and hand it to ``check_case``."""
        return cases(self.config.rounds, self.view, self.config.malformed, self.config.format)

    def check_case(self, case: Case) -> None:
        """Run one history through the target and judge this law on every round.

        A violation is written to the crash corpus first (``compactcheck replay`` re-runs it;
        each later, smaller failure of the law replaces it), then raised as an AssertionError.
        """
        key = (self.target, self.view, self.config)
        run = self.session.runs.get(key)
        if run is None:
            run = self.session.runs[key] = TargetRun(self._open(), self.view, self.config)
        law = next(law for law in run.judging if law.id == self.invariant)
        broken = run.first_violation(case, law)
        if broken is not None:
            outcome, finding = broken
            path = run.record(law, outcome, finding, shrunk=False)
            violation = finding.violations[0]
            example = Counterexample(
                round=outcome.round,
                because=violation.because,
                witness=list(violation.witness),
                diff=violation.diff,
                input=outcome.input,
                output=outcome.output,
                history_size=history_size(outcome),
                corpus_file=str(path),
                input_problems=list(outcome.input_problems),
                # Hypothesis replays the failing case itself before it reports it.
                reproduced="not_checked",
            )
            raise AssertionError(self.failure(example))

    def entry(self, example: Counterexample) -> Path | None:
        """The corpus entry of a violation, where it is once the session ends."""
        if not example.corpus_file:
            return None
        entry = Path(example.corpus_file)
        if self.config.shard.count > 1:
            # The best of the shards' entries is merged into the corpus itself.
            return self.config.home_corpus_dir / entry.name
        return entry

    def failure(self, example: Counterexample) -> str:
        """What the CLI shows of a violation: the because line, seed, round, history size,
        witness, what the compactor returned, the corpus entry and how to replay it."""
        config = self.config
        seed = f"seed {config.whole_run_seed}"
        if config.shard.count > 1:
            seed += f" (shard {config.shard.label}, seed {config.seed})"
        lines = [
            f"{self.invariant} broken by {safe_line(self.target)} [{self.view}]",
            f"because: {safe_line(example.because, 2000)}",
            f"{seed} · round {example.round} · history of {example.history_size} · "
            f"reproduced: {example.reproduced}",
            f"witness ({len(example.witness)} item(s)):",
            json_block(example.witness, 4000),
        ]
        if example.diff:
            lines += ["diff:", json_block(example.diff, 4000)]
        returned = returned_lines(example)
        if returned is not None:
            lines.append("the compactor returned:")
            lines += [f"  {safe_line(line)}" for line in returned]
        rejected = input_problems_line(example)
        if rejected:
            lines.append(safe_line(rejected))
        entry = self.entry(example)
        if entry is not None:
            merged = " (merged from the shards when the session ends)"
            lines.append(f"corpus file: {entry}" + (merged if config.shard.count > 1 else ""))
            lines.append(f"replay: {_replay_command(entry, self.root, self.here)}")
        return "\n".join(lines)

    def check(self) -> InvariantResult:
        """Fail on a violation, error on an errored target, skip what could not be judged.

        With ``require_level``, a violation of a law above it is an expected failure (xfail),
        and a law at or below it that was not judged (or is waived) fails, as the CLI's gate.
        """
        result = self.result()
        above = self.require_level is not None and result.level > self.require_level
        if result.verdict == "violation" and result.counterexample is not None:
            if above:
                entry = self.entry(result.counterexample)
                pytest.xfail(
                    f"level {result.level} law, above --compactcheck-require-level "
                    f"{self.require_level}: {safe_line(result.because or '')}"
                    + (f"; replay: {_replay_command(entry, self.root, self.here)}" if entry else "")
                )
            pytest.fail(self.failure(result.counterexample), pytrace=False)
        if result.verdict == "errored":
            pytest.fail(f"{self.target} errored: {result.because}", pytrace=False)
        if result.verdict in ("skipped", "unknown", "waived"):
            not_applicable = (result.because or "").startswith("not applicable")
            if self.require_level is not None and not above and not not_applicable:
                pytest.fail(
                    f"{result.verdict}: {result.because}; --compactcheck-require-level "
                    f"{self.require_level} requires this level-{result.level} law to hold",
                    pytrace=False,
                )
            pytest.skip(f"{result.verdict}: {result.because}")
        return result


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise every test that asks for ``compactcheck_law``."""
    if "compactcheck_law" not in metafunc.fixturenames:
        return
    try:
        cases = _law_cases(metafunc)
    except pytest.UsageError as error:
        if hasattr(metafunc.config, "workerinput"):
            # An xdist worker that stopped the session would be reported as a crash: there it
            # is the module's collection error, shown as this one line.
            raise pytest.Collector.CollectError(str(error)) from None
        metafunc.config.stash[_SESSION].usage_errors.append(str(error))
        cases = []
    metafunc.parametrize("compactcheck_law", cases, ids=[case.test_id for case in cases])


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config) -> None:
    """Stop on the first usage error of a marker or option, before any test runs."""
    errors = config.stash[_SESSION].usage_errors
    if errors:
        more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
        raise pytest.UsageError(errors[0] + more)


def _law_cases(metafunc: pytest.Metafunc) -> list[LawCase]:
    """A case per law of every target a marker (or --compactcheck-target) names."""
    config = metafunc.config
    root = Path(config.rootpath)
    here = Path(config.invocation_params.dir)
    where = metafunc.definition.nodeid
    # (name, spec, the marker's keywords) of each target.
    targets: list[tuple[str, str, dict[str, Any]]] = []
    for marker in metafunc.definition.iter_markers("compactcheck"):
        marked = _marker_keywords(marker, where)
        targets.append((*rooted(str(marker.args[0]), root, root), marked))
    if not targets:
        targets = [
            (*rooted(name, here, root), {}) for name in config.getoption("--compactcheck-target")
        ]
    shards = _shards(config)
    session = config.stash[_SESSION]
    cases: list[LawCase] = []
    for name, spec, marked in targets:
        values = _values(config, marked)
        view: View | None = values["view"]
        run_config = _run_config(config, values, _transcripts(config, values, marked))
        calls = _calls(values)
        try:
            run_config = replace(run_config, format=check_format(run_config.format))
            target = _open(name, spec, view, calls, run_config)
        except CompactcheckError as error:
            raise pytest.UsageError(one_line(error)) from None
        try:
            # Transcripts are message histories: only the messages view runs on them.
            views: list[View] = (
                [view] if view else ["messages"] if run_config.transcripts else list(target.views)
            )
            spoken = target.format
            missing = [each for each in views if each not in target.views]
        finally:
            target.close()
        if missing:
            raise pytest.UsageError(
                f"{name}: handles the {', '.join(target.views)} view(s), not {missing[0]}"
            )
        selection = _selection(values, views, f"{where}: {name}" if marked else name)
        config_of_target = replace(run_config, format=spoken)
        for each in views:
            for law in selection.judging(each, spoken if each == "messages" else CHAT):
                for shard in shards:
                    # Shards of one target keep their corpus entries apart; the controller
                    # merges them into the corpus when the session ends.
                    piece = (
                        config_of_target.for_piece(shard)
                        if shard.count > 1
                        else config_of_target.for_shard(shard)
                    )
                    cases.append(
                        LawCase(
                            name,
                            each,
                            law.id,
                            piece,
                            calls,
                            session,
                            spec=spec,
                            require_level=values["require_level"],
                            root=root,
                            here=here,
                        )
                    )
    return cases


@pytest.fixture
def compactcheck_strategies() -> SimpleNamespace:
    """The Hypothesis strategies of compactcheck, for a user's own properties."""
    from compactcheck import strategies

    return SimpleNamespace(
        scenarios=strategies.scenarios,
        message_histories=strategies.message_histories,
        snapshot_histories=strategies.snapshot_histories,
    )


@pytest.fixture
def compactcheck_target(request: pytest.FixtureRequest) -> Any:
    """The first ``--compactcheck-target``, resolved (closed after the test)."""
    names = request.config.getoption("--compactcheck-target")
    if not names:
        pytest.skip("no --compactcheck-target given")
    config = request.config
    name, spec = rooted(names[0], Path(config.invocation_params.dir), Path(config.rootpath))
    target = resolve(spec, calls=_calls(_values(config)))
    target.name = name
    yield target
    target.close()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Key a Hypothesis test of a law by its test id, as ``hypothesis fuzz`` does.

    HypoFuzz saves what it finds under a key that mixes in the test's node id; Hypothesis's own
    plugin mixes it in only for tests parametrized by marker, and these are parametrized by
    this plugin. Without this, plain pytest would look up another key and never replay what a
    campaign found (and every law of one test function would share one key).
    """
    if "compactcheck_law" not in getattr(item, "fixturenames", ()):
        return
    hypothesis = getattr(getattr(item, "obj", None), "hypothesis", None)
    inner = getattr(hypothesis, "inner_test", None)
    if inner is not None:
        inner._hypothesis_internal_add_digest = item.nodeid.encode()


def _shipped(session: _Session) -> list[dict[str, Any]]:
    return [
        {
            "shard": [key[2].shard.index, key[2].shard.count],
            "report": report.model_dump(mode="json"),
        }
        for key, report in session.reports.items()
    ]


def _receive(session: _Session, items: list[dict[str, Any]]) -> None:
    for item in items:
        report = TargetReport.model_validate(item["report"])
        index, count = item["shard"]
        session.from_workers.setdefault((report.target, report.view, index, count), report)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: keep what a finished worker fuzzed."""
    output = getattr(node, "workeroutput", None) or {}
    shipped = output.get(_WORKER_KEY)
    if shipped:
        _receive(node.config.stash[_SESSION], json.loads(shipped))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A worker ships its reports to the controller; the controller (or a lone process) writes.

    Worker reports travel as JSON text through ``workeroutput``, which only carries plain data.
    """
    config = session.config
    fuzzed = config.stash[_SESSION]
    for run in fuzzed.runs.values():
        run.target.close()
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[_WORKER_KEY] = json.dumps(_shipped(fuzzed))
        return
    values = _values(config)
    _receive(fuzzed, _shipped(fuzzed))
    run_config = _run_config(config, values)
    # Every worker is down by now: the shards' corpora can be merged into the corpus.
    gather_corpora(run_config.corpus_dir)
    outputs = {name: values[name] for name in ("json", "junit", "markdown", "html")}
    if not any(outputs.values()) or not fuzzed.from_workers:
        return
    from compactcheck.report.io import write_report, write_text
    from compactcheck.report.render import FORMATS as RENDERERS

    # Sorted, so that the report does not depend on which worker finished first.
    ordered = [fuzzed.from_workers[key] for key in sorted(fuzzed.from_workers)]
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    merged = [point_into(target, run_config.corpus_dir) for target in merge_target_groups(ordered)]
    report = report_of(merged, run_config, "", complete=not interrupted)
    for name, path in outputs.items():
        if path is None:
            continue
        if name == "json":
            write_report(report, _placed(config, name, path))
        else:
            write_text(_placed(config, name, path), RENDERERS[name](report))
