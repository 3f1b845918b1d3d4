"""The options one front end alone takes: the plugin's targets, database and shards, the
library's event hook. They end the table of run options (``compactcheck.options.schema``)."""

from __future__ import annotations

from pathlib import Path

from compactcheck.options.kinds import positive
from compactcheck.options.option import Option

# What the plugin says of an option that holds for a whole session rather than one marker.
SESSION = "holds for the whole session"

FRONT_ONLY: tuple[Option, ...] = (
    Option(
        "target",
        str,
        None,
        "a target to fuzz (repeatable): reference, mutant:NAME, py:..., cmd:...",
        plugin=True,
        metavar="TARGET",
        missing={
            "cli": "the command's TARGET arguments",
            "library": "fuzz()'s first argument, the compactor",
            "marker": "the marker's one argument",
        },
    ),
    Option(
        "database",
        Path,
        None,
        "the Hypothesis example database folder of this session's Hypothesis tests (set as "
        "the default profile, so that `hypothesis fuzz` keeps its finds there)",
        plugin=True,
        metavar="PATH",
        missing={
            "cli": "the database goes beside --corpus",
            "library": "the database goes beside corpus_dir",
            "marker": SESSION,
        },
    ),
    Option(
        "shards",
        positive,
        1,
        "cut each target's budget into K shards, one test id (and seed) each, for -n auto",
        plugin=True,
        metavar="K",
        missing={"cli": "--shard I/M and --workers", "library": "workers=", "marker": SESSION},
    ),
    Option(
        "on_event",
        str,
        None,
        "a function that sees the run's events",
        library="on_event",
        missing={"cli": "the console shows progress", "plugin": "pytest shows progress"},
    ),
)

__all__ = ["FRONT_ONLY", "SESSION"]
