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

The plugin costs nothing until asked: this module, which pytest loads in every session of every
project that has compactcheck installed, imports pytest and the options table
(``compactcheck.pytest.options``) only. The engine, Hypothesis, the strategies and the laws
(``compactcheck.pytest.laws``) load when an option or ini value is given, or when collection
meets a test that asks for ``compactcheck_law`` or a compactcheck fixture.

``--compactcheck-workers N`` fuzzes each (target, view) in a pool of N worker processes inside
this pytest process, its budget cut as ``compactcheck run --workers N`` cuts it, without a
pytest start-up per worker; ``--compactcheck-in-flight K`` runs K of its shards at once as
threads (of this process, or of the pool's workers), as ``run --in-flight K``: for slow,
model-backed compactors whose calls mostly wait, K calls in flight without a process each.

Under pytest-xdist (``pytest -n auto``) test ids are stable (target, view, invariant and, with
``--compactcheck-shards K``, the shard), so every worker collects the same tests. Each worker
fuzzes the (target, view, shard) triples its tests need once and ships the reports to the
controller through xdist's ``workeroutput``; the controller merges them into one JSON report.
"""

from __future__ import annotations

from collections.abc import Iterator
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

import pytest

from compactcheck.pytest.options import (
    MARKER_KEYWORDS,
    MARKER_LINE,
    NOT_OFFERED,
    OPTIONS,
    WORKER_KEY,
    RunOption,
    add_options,
    asked,
)

if TYPE_CHECKING:
    from compactcheck.targets.registry import Target

__all__ = ["MARKER_KEYWORDS", "NOT_OFFERED", "OPTIONS", "RunOption"]

# Whether this session has loaded and started compactcheck.pytest.laws.
_STARTED = pytest.StashKey[bool]()


def _start(config: pytest.Config) -> None:
    """Load the plugin's working half and start the session's state, once."""
    if not config.stash.get(_STARTED, False):
        from compactcheck.pytest import laws as pytest_laws

        config.stash[_STARTED] = True
        pytest_laws.configure(config)


def _started(config: pytest.Config) -> bool:
    return config.stash.get(_STARTED, False)


def pytest_addoption(parser: pytest.Parser) -> None:
    """The plugin's options: the CLI's run options (``OPTIONS``) and its own few."""
    add_options(parser)


def pytest_configure(config: pytest.Config) -> None:
    """Register the marker; a session that gives an option starts at once, so that invariant
    ids that no view has are refused before anything is collected."""
    config.addinivalue_line("markers", MARKER_LINE)
    if asked(config):
        _start(config)


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """On the xdist controller: every worker counts its model calls in the session's ledger."""
    if _started(node.config):
        from compactcheck.pytest import laws as pytest_laws

        pytest_laws.configure_node(node)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """On the xdist controller: with ``--dist load`` (what ``-n`` implies), the law tests of one
    (target, view, shard) go to one worker, which fuzzes it once for all of them."""
    if config.getoption("dist", None) != "load" or not asked(config):
        return None
    from compactcheck.pytest.scheduling import ByFuzzedRun

    return ByFuzzedRun(config, log)


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Parametrise every test that asks for ``compactcheck_law``."""
    if "compactcheck_law" not in metafunc.fixturenames:
        return
    _start(metafunc.config)
    from compactcheck.pytest import laws as pytest_laws

    pytest_laws.generate_tests(metafunc)


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config) -> None:
    """Stop on the first usage error of a marker or option, before any test runs."""
    if _started(config):
        from compactcheck.pytest import laws as pytest_laws

        pytest_laws.check_usage(config)


@pytest.fixture
def compactcheck_strategies() -> SimpleNamespace:
    """The Hypothesis strategies of compactcheck, for a user's own properties."""
    from compactcheck.pytest import laws as pytest_laws

    return pytest_laws.strategies_namespace()


@pytest.fixture
def compactcheck_target(request: pytest.FixtureRequest) -> Iterator[Target]:
    """The first ``--compactcheck-target``, resolved (closed after the test)."""
    if not request.config.getoption("--compactcheck-target"):
        pytest.skip("no --compactcheck-target given")
    from compactcheck.pytest import laws as pytest_laws

    target = pytest_laws.first_target(request.config)
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
        _open_early(item)


def _open_early(item: pytest.Item) -> None:
    """Start a Hypothesis test's target (its worker process) before the test runs.

    Hypothesis times each case against its deadline (200 ms by default); started by the first
    case, the worker's start (half a second or more) would make that case exceed it, and
    Hypothesis report a DeadlineExceeded or Flaky failure of a compactor that is fast. The
    same holds for the laws' lemma dictionary, loaded here too.
    """
    law = getattr(getattr(item, "callspec", None), "params", {}).get("compactcheck_law")
    if law is None:
        return
    from compactcheck.base.errors import CompactcheckError
    from compactcheck.invariants import sentences

    # The judging's own one-off start (reading the lemma dictionary, about 0.15 s) is not the
    # compactor's either, and would land in the first case that judges prose.
    sentences.load_lexicon()
    try:
        law.trial()
    except CompactcheckError:
        # A target that cannot start fails the test where it asks for a case, with its reason
        # as the test's failure rather than as an error of the setup.
        return


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """On the xdist controller: keep what a finished worker fuzzed."""
    output = getattr(node, "workeroutput", None) or {}
    if output.get(WORKER_KEY):
        _start(node.config)
        from compactcheck.pytest import laws as pytest_laws

        pytest_laws.receive_from(node)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """A worker ships its reports to the controller; the controller (or a lone process) writes
    them, and merges the shards' corpora."""
    if _started(session.config):
        from compactcheck.pytest import laws as pytest_laws

        pytest_laws.finish(session, exitstatus)
