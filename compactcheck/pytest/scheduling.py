"""Test scheduling under pytest-xdist: the law tests of one fuzzed run go to one worker.

Each (target, view, shard) is fuzzed once per worker that runs any of its laws' tests (see
``compactcheck.pytest.law``); xdist's default ``--dist load`` deals consecutive test ids to
different workers, so a shard's laws landed on several workers and each fuzzed it again (with
8 shards on ``-n 8``, most of the session's time). Grouped by the run they read, every shard is
fuzzed once, on one worker, and the workers take whole shards.
"""

from __future__ import annotations

import re

from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

# A law test's id ends ``{target}-{view}-{law}`` and, with shards, ``-shard{i}of{M}`` (see
# LawCase.test_id); any other parameters of the test follow after a dash.
_LAW_ID = re.compile(r"-(?:messages|snapshot|session)(?P<law>-[a-z][a-z0-9_]*)(?:-shard\d+of\d+)?")


def fuzzed_run(nodeid: str) -> str:
    """The group of a test: its nodeid without the law for a law test, else the nodeid."""
    head, bracket, parameters = nodeid.partition("[")
    matches = list(_LAW_ID.finditer(parameters)) if bracket else []
    if not matches:
        return nodeid
    law = matches[-1].span("law")
    return head + bracket + parameters[: law[0]] + parameters[law[1] :]


class ByFuzzedRun(LoadScopeScheduling):  # type: ignore[misc]
    """xdist's scope scheduling, a scope being a fuzzed run (any other test is its own)."""

    def _split_scope(self, nodeid: str) -> str:
        return fuzzed_run(nodeid)
