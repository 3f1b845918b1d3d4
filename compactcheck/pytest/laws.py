"""What the pytest plugin does once a session asks for it: one test per (target, view, invariant).

``compactcheck.pytest.plugin`` (the module pytest loads in every session) imports this module
only when a compactcheck option, ini value, marker or fixture is used: it loads the engine,
Hypothesis, the strategies and the laws. Each (target, view, shard) is fuzzed once per session,
for the tests of all its laws (``compactcheck.pytest.law``), in this process or, with
``--compactcheck-workers N``, in a pool of N processes, and with ``--compactcheck-in-flight K``
K shards at once as threads (of this process, or of the pool's); under pytest-xdist each
worker ships its reports to the controller through ``workeroutput``, and the controller merges
them into one report.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import settings

from compactcheck.backends import template
from compactcheck.base.errors import CompactcheckError, one_line
from compactcheck.base.selection import Selection
from compactcheck.base.shards import Shard
from compactcheck.corpus.entry import DEFAULT_CORPUS_DIR
from compactcheck.engine.config import RunConfig, from_options, model_slot
from compactcheck.engine.core import report_of
from compactcheck.engine.plan import gather_corpora
from compactcheck.invariants import View
from compactcheck.invariants.formats import CHAT, check_format
from compactcheck.models import ModelSlot
from compactcheck.observed.transcripts import Transcript, load_transcripts
from compactcheck.options import redis_url, settle
from compactcheck.pytest.law import SESSION, LawCase, LawSession, open_target
from compactcheck.pytest.names import rooted
from compactcheck.pytest.options import BY_KEY, WORKER_KEY, marker_keywords
from compactcheck.pytest.options import values as option_values
from compactcheck.report.model import TargetReport
from compactcheck.scale.database import profile_database
from compactcheck.scale.merge import merge_target_groups, point_into
from compactcheck.scale.pool import warm_up
from compactcheck.targets.calls import Calls
from compactcheck.targets.registry import Target, resolve

# The model slot's ledger file, handed by the xdist controller to each worker.
_LEDGER_KEY = "compactcheck_model_ledger"


def configure(config: pytest.Config) -> None:
    """Start the session's state; refuse invariant ids that no view has before anything is
    collected, and set the campaign's example database."""
    given = option_values(config)
    config.stash[SESSION] = LawSession(model=_model_slot(config, given))
    _selection(given).check()
    _campaign_database(config, given)
    fuzzes_here = hasattr(config, "workerinput") or config.getoption("dist", "no") == "no"
    if given["workers"] > 1 and fuzzes_here:
        # The pool's fork server imports the engine while pytest collects, as `run --workers`
        # starts it while the command line imports its commands (cli.head_start).
        warm_up()
    elif (given["in_flight"] or 1) > 1 and fuzzes_here:
        # Lanes of this process fork their py: compactors' processes from one template.
        template.want()


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
    try:
        slot = model_slot(values)
    except CompactcheckError as error:
        raise pytest.UsageError(f"--compactcheck-model: {one_line(error)}") from None
    if slot is None:
        # A cap or cache without one was refused with the other values (check_together).
        return None
    handed = getattr(config, "workerinput", {}).get(_LEDGER_KEY)
    return replace(slot, ledger=Path(handed)) if handed else slot.shared()


def configure_node(node: Any) -> None:
    """On the xdist controller: every worker counts its model calls in the session's ledger."""
    model = node.config.stash[SESSION].model
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
    session = config.stash[SESSION]
    if path not in session.transcripts:
        try:
            session.transcripts[path] = tuple(load_transcripts(path))
        except CompactcheckError as error:
            raise pytest.UsageError(one_line(error)) from None
    return session.transcripts[path]


def _placed(config: pytest.Config, key: str, given: Path) -> Path:
    """A path option's value: read from where pytest runs when given on its command line,
    from the rootdir when written in the ini file (or a marker)."""
    if config.getoption(BY_KEY[key].option) is not None:
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
    return from_options(
        values,
        # A test run is the ci profile: a replay of its seed, whatever the database holds.
        settle("plugin", values),
        corpus_dir=_corpus_dir(config, values),
        transcripts=transcripts,
        model=config.stash[SESSION].model,
    )


def _pool_apart(
    config: pytest.Config, run_config: RunConfig, values: Mapping[str, Any]
) -> RunConfig:
    """On an xdist worker, a target fuzzed in a pool (--compactcheck-workers) keeps its corpus
    entries in a folder of this worker's, merged into the corpus when the session ends.

    The pool's shards keep theirs apart under the corpus's shard folder and merge them when the
    run ends; two xdist workers each running a pool there would merge (and remove) each other's
    half-written folders.
    """
    worker = getattr(config, "workerinput", {}).get("workerid")
    if max(values["workers"], values["in_flight"] or 1) <= 1 or worker is None:
        return run_config
    return run_config.kept_apart(f"pool-{worker}")


def _shards(config: pytest.Config) -> list[Shard]:
    try:
        count: int = config.getoption("--compactcheck-shards")
        return Shard.all_of(count)
    except CompactcheckError as error:
        raise pytest.UsageError(f"--compactcheck-shards: {one_line(error)}") from None


def generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise a test that asks for ``compactcheck_law``: a case per law of each target."""
    try:
        cases = _law_cases(metafunc)
    except pytest.UsageError as error:
        if hasattr(metafunc.config, "workerinput"):
            # An xdist worker that stopped the session would be reported as a crash: there it
            # is the module's collection error, shown as this one line.
            raise pytest.Collector.CollectError(str(error)) from None
        metafunc.config.stash[SESSION].usage_errors.append(str(error))
        cases = []
    metafunc.parametrize("compactcheck_law", cases, ids=[case.test_id for case in cases])


def check_usage(config: pytest.Config) -> None:
    """Stop on the first usage error of a marker or option, before any test runs."""
    errors = config.stash[SESSION].usage_errors
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
        marked = marker_keywords(marker, where)
        targets.append((*rooted(str(marker.args[0]), root, root), marked))
    if not targets:
        targets = [
            (*rooted(name, here, root), {}) for name in config.getoption("--compactcheck-target")
        ]
    shards = _shards(config)
    session = config.stash[SESSION]
    cases: list[LawCase] = []
    # A py: target is opened here to learn its views, and again to be fuzzed: both times its
    # isolated worker is forked from one template, which imports the compactor once.
    template.want()
    for name, spec, marked in targets:
        values = option_values(config, marked)
        view: View | None = values["view"]
        run_config = _run_config(config, values, _transcripts(config, values, marked))
        calls = Calls.from_options(values)
        try:
            run_config = replace(run_config, format=check_format(run_config.format))
            target = open_target(name, spec, view, calls, run_config)
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
        config_of_target = _pool_apart(config, replace(run_config, format=spoken), values)
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
                            workers=values["workers"],
                            in_flight=values["in_flight"],
                        )
                    )
    return cases


def strategies_namespace() -> SimpleNamespace:
    """The Hypothesis strategies of compactcheck, for a user's own properties."""
    from compactcheck import strategies

    return SimpleNamespace(
        scenarios=strategies.scenarios,
        message_histories=strategies.message_histories,
        snapshot_histories=strategies.snapshot_histories,
    )


def first_target(config: pytest.Config) -> Target:
    """The first ``--compactcheck-target``, resolved."""
    names = config.getoption("--compactcheck-target")
    name, spec = rooted(names[0], Path(config.invocation_params.dir), Path(config.rootpath))
    target = resolve(spec, calls=Calls.from_options(option_values(config)))
    target.name = name
    return target


def _shipped(session: LawSession) -> list[dict[str, Any]]:
    return [
        {
            "shard": [key[2].shard.index, key[2].shard.count],
            "report": report.model_dump(mode="json"),
        }
        for key, report in session.reports.items()
    ]


def _receive(session: LawSession, items: list[dict[str, Any]]) -> None:
    for item in items:
        report = TargetReport.model_validate(item["report"])
        index, count = item["shard"]
        session.from_workers.setdefault((report.target, report.view, index, count), report)


def receive_from(node: Any) -> None:
    """On the xdist controller: keep what a finished worker fuzzed."""
    output = getattr(node, "workeroutput", None) or {}
    shipped = output.get(WORKER_KEY)
    if shipped:
        _receive(node.config.stash[SESSION], json.loads(shipped))


def finish(session: pytest.Session, exitstatus: int) -> None:
    """A worker ships its reports to the controller; the controller (or a lone process) writes.

    Worker reports travel as JSON text through ``workeroutput``, which only carries plain data.
    """
    config = session.config
    fuzzed = config.stash[SESSION]
    for trial in fuzzed.trials.values():
        trial.close()
    template.close_all()
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        workeroutput[WORKER_KEY] = json.dumps(_shipped(fuzzed))
        return
    values = option_values(config)
    _receive(fuzzed, _shipped(fuzzed))
    run_config = _run_config(config, values)
    # Every worker is down by now: the shards' corpora can be merged into the corpus.
    gather_corpora(run_config.corpus_dir)
    outputs = {name: values[name] for name in ("json", "junit", "markdown", "html")}
    if not any(outputs.values()) or not fuzzed.from_workers:
        return
    from compactcheck.render import FORMATS as RENDERERS
    from compactcheck.report.io import write_report, write_text

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
