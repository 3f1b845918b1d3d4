"""The pytest plugin: one test per (target, view, invariant), with options that mirror the CLI.

Use it either from the command line::

    pytest --compactcheck-target py:mypackage.compaction:compact

with a test that asks for the ``compactcheck_law`` fixture (``compactcheck init`` writes one)::

    def test_conformance(compactcheck_law):
        compactcheck_law.check()

or by naming the target in the code, the way Schemathesis parametrises a schema::

    @pytest.mark.compactcheck("py:mypackage.compaction:compact", view="messages")
    def test_my_compactor(compactcheck_law):
        compactcheck_law.check()

``--compactcheck-model NAME`` (or the ini value ``compactcheck_model``) names the model the
built-in summarisers write with, as ``run --model`` does, with its cache, caps and offline mode;
the caps hold for the whole session, across xdist workers.

Under pytest-xdist (``pytest -n auto``) test ids are stable (target, view, invariant and, with
``--compactcheck-shards K``, the shard), so every worker collects the same tests. Each worker
fuzzes the (target, view, shard) triples its tests need once and ships the reports to the
controller through xdist's ``workeroutput``; the controller merges them into one JSON report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.strategies import SearchStrategy

from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR
from compactcheck.engine.config import RunConfig
from compactcheck.engine.core import report_of, run_target
from compactcheck.engine.plan import gather_corpora
from compactcheck.engine.selection import Selection
from compactcheck.engine.shards import Shard
from compactcheck.engine.target_run import TargetRun
from compactcheck.errors import CompactcheckError, one_line
from compactcheck.harness import Case
from compactcheck.harness.cases import cases
from compactcheck.models import ModelSlot, check_name
from compactcheck.models.slot import NAMES_HELP
from compactcheck.report.model import InvariantResult, TargetReport
from compactcheck.scale.database import REDIS_URL_VARIABLE, profile_database, redis_url
from compactcheck.scale.merge import merge_target_groups, point_into
from compactcheck.targets.calls import DEFAULT_MEMORY_LIMIT_MB, DEFAULT_TIMEOUT, Calls
from compactcheck.targets.registry import resolve
from invariants import VIEWS, View
from invariants.formats import CHAT, FORMATS, check_format

_WORKER_KEY = "compactcheck_reports"
# The model slot's ledger file, handed by the xdist controller to each worker.
_LEDGER_KEY = "compactcheck_model_ledger"


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


_SESSION = pytest.StashKey[_Session]()


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options, named after the CLI's."""
    group = parser.getgroup("compactcheck", "compactcheck: fuzz context compactors")
    group.addoption(
        "--compactcheck-target",
        action="append",
        default=[],
        metavar="TARGET",
        help="a target to fuzz (repeatable): reference, mutant:NAME, py:..., cmd:...",
    )
    group.addoption("--compactcheck-view", choices=VIEWS, default=None, help="only this view")
    group.addoption("--compactcheck-invariants", default=None, help="only these ids (a,b)")
    group.addoption("--compactcheck-max-examples", type=int, default=100)
    group.addoption("--compactcheck-rounds", type=int, default=3)
    group.addoption(
        "--compactcheck-format",
        choices=FORMATS,
        default=CHAT,
        help="wire format of the messages view (as run --format)",
    )
    group.addoption(
        "--compactcheck-seed",
        type=int,
        default=0,
        help="run seed (default 0: a test run is reproducible)",
    )
    group.addoption("--compactcheck-timeout", type=float, default=DEFAULT_TIMEOUT)
    group.addoption(
        "--compactcheck-in-process",
        action="store_true",
        help="run py: compactors in the test process (faster; a crash there ends the session); "
        "by default each runs in a worker process of its own",
    )
    group.addoption(
        "--compactcheck-memory-limit",
        type=int,
        default=DEFAULT_MEMORY_LIMIT_MB,
        metavar="MB",
        help="address space of a py: compactor's worker process (0: no limit)",
    )
    group.addoption(
        "--compactcheck-database",
        default=None,
        metavar="PATH",
        help="the Hypothesis example database folder of this session's Hypothesis tests (set "
        "as the default profile, so that `hypothesis fuzz` keeps its finds there)",
    )
    group.addoption(
        "--compactcheck-redis",
        default=None,
        metavar="URL",
        help=f"share that database through Redis (default: ${REDIS_URL_VARIABLE}), multiplexed "
        "with the local folder",
    )
    group.addoption(
        "--compactcheck-shards",
        type=int,
        default=1,
        metavar="K",
        help="cut each target's budget into K shards, one test id (and seed) each, for -n auto",
    )
    group.addoption(
        "--compactcheck-model",
        default=None,
        metavar="NAME",
        help=f"the model the built-in summarisers write with, as run --model: {NAMES_HELP} "
        "(default: the ini value compactcheck_model, else their own echo)",
    )
    group.addoption(
        "--compactcheck-model-cache",
        default=None,
        metavar="DIR",
        help="where model answers are recorded and replayed from (default: .compactcheck/models)",
    )
    group.addoption(
        "--compactcheck-max-model-calls",
        type=int,
        default=None,
        metavar="N",
        help="the most requests sent to the model in the session (as run --max-model-calls)",
    )
    group.addoption(
        "--compactcheck-max-model-tokens",
        type=int,
        default=None,
        metavar="N",
        help="the most tokens the requests sent may take in the session",
    )
    group.addoption(
        "--compactcheck-offline",
        action="store_true",
        help="replay recorded model answers only: a request not recorded is refused, never sent",
    )
    parser.addini(
        "compactcheck_model", "the model of --compactcheck-model when the option is not given"
    )
    group.addoption(
        "--compactcheck-json",
        default=None,
        metavar="PATH",
        help="write the JSON report of every target this session fuzzed",
    )


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; refuse invariant ids that no view has before anything is collected."""
    config.addinivalue_line(
        "markers",
        "compactcheck(target, view=None, format=None): fuzz TARGET and give one test per invariant",
    )
    config.stash[_SESSION] = _Session(model=_model_slot(config))
    _selection(config).check()
    _campaign_database(config)


def _campaign_database(config: pytest.Config) -> None:
    """With --compactcheck-database or a Redis URL, the example database of every Hypothesis
    test this session runs, set as Hypothesis's default profile (``hypothesis fuzz`` keeps
    what it finds in the default profile's database, and accepts only tests that use it)."""
    folder = config.getoption("--compactcheck-database")
    try:
        url = redis_url(config.getoption("--compactcheck-redis"))
        if folder is None and url is None:
            return
        local = Path(folder) if folder else Path(config.rootpath) / ".compactcheck" / "hypothesis"
        database = profile_database("campaign", local, url)
    except CompactcheckError as error:
        raise pytest.UsageError(one_line(error)) from None
    # Explicitly random: under a CI variable Hypothesis loads its own "ci" profile, which
    # derandomizes every test, and HypoFuzz refuses derandomized tests (it would collect none).
    settings.register_profile("compactcheck-campaign", database=database, derandomize=False)
    settings.load_profile("compactcheck-campaign")


def _model_slot(config: pytest.Config) -> ModelSlot | None:
    """The session's model slot, its ledger the controller's under xdist; None without a model."""
    name = config.getoption("--compactcheck-model") or config.getini("compactcheck_model")
    cache = config.getoption("--compactcheck-model-cache")
    if not name:
        return None
    try:
        slot = ModelSlot(
            check_name(str(name)),
            cache_dir=Path(cache) if cache else None,
            max_calls=config.getoption("--compactcheck-max-model-calls"),
            max_tokens=config.getoption("--compactcheck-max-model-tokens"),
            offline=config.getoption("--compactcheck-offline"),
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


def _selection(config: pytest.Config, views: list[View] | None = None) -> Selection:
    """The ids asked for; a usage error for one that no view (or none of ``views``) has."""
    include = config.getoption("--compactcheck-invariants")
    selection = Selection(_csv(include) if include else None)
    try:
        selection.check(views)
    except CompactcheckError as error:
        # Zero tests for a typo would look like a clean run.
        raise pytest.UsageError(f"--compactcheck-invariants: {one_line(error)}") from None
    return selection


def _csv(text: str) -> tuple[str, ...]:
    return tuple(item.strip() for item in text.split(",") if item.strip())


def _run_config(config: pytest.Config) -> RunConfig:
    include = config.getoption("--compactcheck-invariants")
    return RunConfig(
        seed=config.getoption("--compactcheck-seed"),
        max_examples=config.getoption("--compactcheck-max-examples"),
        rounds=config.getoption("--compactcheck-rounds"),
        profile="ci",
        # A test run is a replay of its seed, whatever the example database holds.
        seed_given=True,
        include=_csv(include) if include else None,
        corpus_dir=Path(config.rootpath) / DEFAULT_CORPUS_DIR,
        format=config.getoption("--compactcheck-format"),
        model=config.stash[_SESSION].model,
    )


def _calls(config: pytest.Config) -> Calls:
    return Calls(
        timeout=config.getoption("--compactcheck-timeout"),
        in_process=config.getoption("--compactcheck-in-process"),
        memory_limit_mb=config.getoption("--compactcheck-memory-limit"),
    )


def _shards(config: pytest.Config) -> list[Shard]:
    try:
        count: int = config.getoption("--compactcheck-shards")
        return Shard.all_of(count)
    except CompactcheckError as error:
        raise pytest.UsageError(f"--compactcheck-shards: {one_line(error)}") from None


@dataclass(frozen=True)
class LawCase:
    """One invariant of one target on one view; ``check()`` fails the test on a violation."""

    target: str
    view: View
    invariant: str
    config: RunConfig
    calls: Calls
    session: _Session = field(compare=False, repr=False)

    @property
    def test_id(self) -> str:
        """The stable test id: target, view, invariant, and the shard when there are several."""
        shard = self.config.shard
        suffix = f"-shard{shard.index}of{shard.count}" if shard.count > 1 else ""
        return f"{self.target}-{self.view}-{self.invariant}{suffix}"

    def result(self) -> InvariantResult:
        """This invariant's result (the target is fuzzed once per session, for all laws)."""
        key = (self.target, self.view, self.config)
        report = self.session.reports.get(key)
        if report is None:
            target = resolve(
                self.target,
                view=self.view,
                calls=self.calls,
                format=self.config.format,
                model=self.config.model,
            )
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
            target = resolve(
                self.target,
                view=self.view,
                calls=self.calls,
                format=self.config.format,
                model=self.config.model,
            )
            run = self.session.runs[key] = TargetRun(target, self.view, self.config)
        law = next(law for law in run.judging if law.id == self.invariant)
        broken = run.first_violation(case, law)
        if broken is not None:
            outcome, finding = broken
            path = run.record(law, outcome, finding, shrunk=False)
            raise AssertionError(
                f"{self.invariant} broken by {self.target} in round {outcome.round}: "
                f"{finding.violations[0].because}\ncorpus: {path}"
            )

    def check(self) -> InvariantResult:
        """Fail on a violation, error on an errored target, skip what could not be judged."""
        result = self.result()
        if result.verdict == "violation" and result.counterexample is not None:
            witness = json.dumps(result.counterexample.witness, indent=1)[:4000]
            corpus = result.counterexample.corpus_file
            if corpus and self.config.shard.count > 1:
                # Where the best of the shards' entries is once the session ends.
                final = self.config.corpus_dir.parent.parent / Path(corpus).name
                corpus = f"{final} (merged from the shards when the session ends)"
            pytest.fail(
                f"{self.invariant} broken by {self.target} in round "
                f"{result.counterexample.round}: {result.because}\nwitness: {witness}\n"
                f"corpus: {corpus}",
                pytrace=False,
            )
        if result.verdict == "errored":
            pytest.fail(f"{self.target} errored: {result.because}", pytrace=False)
        if result.verdict in ("skipped", "unknown", "waived"):
            pytest.skip(f"{result.verdict}: {result.because}")
        return result


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise every test that asks for ``compactcheck_law``."""
    if "compactcheck_law" not in metafunc.fixturenames:
        return
    config = metafunc.config
    wanted_view = config.getoption("--compactcheck-view")
    wanted_format = config.getoption("--compactcheck-format")
    targets: list[tuple[str, View | None, str]] = []
    for marker in metafunc.definition.iter_markers("compactcheck"):
        targets.append(
            (
                marker.args[0],
                marker.kwargs.get("view", wanted_view),
                marker.kwargs.get("format", wanted_format),
            )
        )
    if not targets:
        targets = [
            (name, wanted_view, wanted_format) for name in config.getoption("--compactcheck-target")
        ]
    run_config = _run_config(config)
    shards = _shards(config)
    session = config.stash[_SESSION]
    calls = _calls(config)
    cases: list[LawCase] = []
    for name, view, wanted in targets:
        try:
            format = check_format(wanted)
            target = resolve(name, view=view, calls=calls, format=format, model=run_config.model)
        except CompactcheckError as error:
            raise pytest.UsageError(one_line(error)) from None
        try:
            views = [view] if view else list(target.views)
            spoken = target.format
        finally:
            target.close()
        selection = _selection(config, views)
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
                    cases.append(LawCase(name, each, law.id, piece, calls, session))
    metafunc.parametrize("compactcheck_law", cases, ids=[case.test_id for case in cases])


@pytest.fixture
def compactcheck_strategies() -> SimpleNamespace:
    """The Hypothesis strategies of compactcheck, for a user's own properties."""
    import strategies

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
    target = resolve(names[0], calls=_calls(request.config))
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
    path = config.getoption("--compactcheck-json")
    _receive(fuzzed, _shipped(fuzzed))
    run_config = _run_config(config)
    # Every worker is down by now: the shards' corpora can be merged into the corpus.
    gather_corpora(run_config.corpus_dir)
    if not path or not fuzzed.from_workers:
        return
    from compactcheck.report.io import write_report

    # Sorted, so that the report does not depend on which worker finished first.
    ordered = [fuzzed.from_workers[key] for key in sorted(fuzzed.from_workers)]
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    merged = [point_into(target, run_config.corpus_dir) for target in merge_target_groups(ordered)]
    report = report_of(merged, run_config, "", complete=not interrupted)
    write_report(report, Path(path))
