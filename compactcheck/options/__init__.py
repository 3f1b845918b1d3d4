"""The run options: one table of every option a run takes, and the rules that check their values.

Each record (``schema.Option``) says what the option is, its type (a parser of text), its default
and help, and how each front end spells it: ``compactcheck run --max-examples``,
``compactcheck.fuzz(max_examples=...)``, the pytest plugin's ``--compactcheck-max-examples`` and
ini value ``compactcheck_max_examples`` and, where it may differ from one target to the next, the
marker keyword ``max_examples``. A front end that does not offer an option says why
(``Option.missing``); ``tests/compactcheck/test_options_schema.py`` holds every front end to the
table. The CLI's parser, ``fuzz()``'s keywords and the plugin's options are built from it, and
``rules.check_together`` refuses what a run cannot take together, for all three, and
``settling.settle`` settles what the options leave unsaid (profile, seed, shared database), once
for all of them.

The pytest plugin reads this table in every pytest session of every project that has
compactcheck installed, used or not: this package imports the standard library only.
"""

from __future__ import annotations

from compactcheck.options.kinds import (
    DEFAULT_MEMORY_LIMIT_MB,
    DEFAULT_TIMEOUT,
    FRONTS,
    Front,
    OptionError,
)
from compactcheck.options.option import Option
from compactcheck.options.rules import check_together
from compactcheck.options.schema import BY_KEY, OPTIONS, PLUGIN_ONLY, offered_by
from compactcheck.options.settling import (
    Profile,
    Settled,
    default,
    redis_url,
    settle,
    settle_campaign,
)

__all__ = [
    "BY_KEY",
    "DEFAULT_MEMORY_LIMIT_MB",
    "DEFAULT_TIMEOUT",
    "FRONTS",
    "OPTIONS",
    "PLUGIN_ONLY",
    "Front",
    "Option",
    "OptionError",
    "Profile",
    "Settled",
    "check_together",
    "default",
    "offered_by",
    "redis_url",
    "settle",
    "settle_campaign",
]
