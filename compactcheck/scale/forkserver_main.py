"""The parent's main script, run once in the workers' fork server instead of once per worker.

A worker forked from the fork server runs the parent's main script again before its first job
(for the `compactcheck` and `pytest` scripts: the whole command line, or pytest, imported anew
in each worker), unless the fork server already holds it. The standard library's own
``"__main__"`` preload means to do that, but reads a key its preparation data never has, so it
never does; the fork server imports this module first instead, and the parent names its script
in ``VARIABLE`` (see ``compactcheck.scale.pool``).
"""

from __future__ import annotations

import contextlib
import os
from multiprocessing import process, spawn

VARIABLE = "COMPACTCHECK_FORKSERVER_MAIN"


def _import_main() -> None:
    path = os.environ.pop(VARIABLE, "")
    if not path:
        return
    # As the fork server's own preload would: run as __mp_main__, so that its guarded main
    # block does not run, and a worker then finds its parent's script already there.
    current = process.current_process()
    current._inheriting = True  # type: ignore[attr-defined]
    try:
        # A script that fails to import here fails in each worker as it did before, where
        # its error is reported; the fork server itself must live on.
        with contextlib.suppress(Exception):
            spawn.import_main_path(path)
    finally:
        del current._inheriting  # type: ignore[attr-defined]


_import_main()
