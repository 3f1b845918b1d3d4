"""The fork server's last preload: what each worker would otherwise do on its first job, done
once before any worker is forked from it.

Each worker forked from the fork server shares its memory until it writes to it. Work every
worker repeats on its first job is done here once instead: loading the lemma dictionary the
laws read prose with (a sixth of a second of CPU each), and a full collection of the heap,
which is then frozen (``gc.freeze``) so that no worker's collector walks the modules it shares,
copying their pages, to free nothing (``engine.heap`` leaves a frozen heap to whoever froze it).
"""

from __future__ import annotations

import gc

from compactcheck.invariants import sentences


def _settle() -> None:
    sentences.load_lexicon()
    gc.collect()
    gc.freeze()


_settle()
