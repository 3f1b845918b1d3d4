"""A head start for a run with workers: the processes its workers need, started before the
command line imports the engine, so that their imports overlap this one's.

A run with workers forks them from a fork server, which imports the engine, and forks each
``py:`` compactor's worker process from a template, which imports the compactor (see
``scale.pool`` and ``backends.template``); a run with lanes in this process alone
(``--in-flight K`` with one worker) needs only the templates. Started once the command's
arguments are parsed, both imports wait for this process's own import of the commands;
started here, from the raw
arguments, the three run side by side. The arguments are read as the parser will read them,
from the same table of options, but without it (it is built by the commands, which import the
engine): a guess that turns out wrong costs a process started for nothing, and the run then
starts the one it needs as it would have without a head start.
"""

from __future__ import annotations

from argparse import ArgumentTypeError
from collections.abc import Sequence
from dataclasses import dataclass

from compactcheck.options import BY_KEY, OPTIONS

# The commands that run their work in a pool of workers when given ``--workers N``, N > 1.
_POOLED = frozenset({"run", "fuzz"})
# The command line's options that take a value (the next argument, or after "=").
_VALUED = frozenset(option.cli for option in OPTIONS if option.cli and not option.flag)


@dataclass(frozen=True)
class Ahead:
    """What a command line asks of its workers, as far as a head start needs to know."""

    workers: int = 1
    # The py: compactors it names, and the memory limit of their worker processes (None when
    # they run in-process, or the limit given is not one).
    specs: tuple[str, ...] = ()
    memory_limit_mb: int | None = None
    # Shards at once (--in-flight); above the workers, lanes run as threads.
    in_flight: int = 1


def ahead_of(argv: Sequence[str]) -> Ahead:
    """What ``argv`` asks of a pool of workers (one worker for any command but run and fuzz,
    or when it names no valid count; the parser judges every value later)."""
    if not argv or argv[0] not in _POOLED:
        return Ahead()
    values: dict[str, str] = {}
    flags: set[str] = set()
    specs: list[str] = []
    arguments = iter(argv[1:])
    for argument in arguments:
        if argument == "--":
            specs += [rest.removeprefix("py:") for rest in arguments if rest.startswith("py:")]
            break
        name, equals, value = argument.partition("=")
        if name in _VALUED:
            values[name] = value if equals else next(arguments, "")
        elif argument.startswith("-"):
            flags.add(argument)
        elif argument.startswith("py:"):
            specs.append(argument.removeprefix("py:"))
    workers = _parsed("workers", values.get("--workers"))
    in_flight = _parsed("in_flight", values.get("--in-flight"))
    memory = _parsed("memory_limit", values.get("--memory-limit"))
    in_process = "--in-process" in flags
    return Ahead(
        workers if isinstance(workers, int) else 1,
        tuple(dict.fromkeys(specs)) if not in_process else (),
        None if in_process or not isinstance(memory, int) else memory,
        in_flight=in_flight if isinstance(in_flight, int) else 1,
    )


def _parsed(key: str, text: str | None) -> object:
    """The value of option ``key`` given as ``text``, its default when not given, None when
    ``text`` is not one."""
    option = BY_KEY[key]
    if text is None:
        return option.default
    try:
        return option.parse(text)
    except (ArgumentTypeError, ValueError, TypeError):
        return None


def head_start(argv: Sequence[str]) -> None:
    """Start the workers' fork server and the templates of the ``py:`` compactors now, when
    ``argv`` asks for a run with workers (the templates alone for lanes of one process)."""
    ahead = ahead_of(argv)
    if ahead.workers <= 1 and ahead.in_flight <= 1:
        return
    # Imported only here: these modules are light, the engine the workers run is not.
    from compactcheck.backends.isolated import worker_env
    from compactcheck.backends.template import template_for, want

    if ahead.workers > 1:
        from compactcheck.scale.pool import warm_up

        warm_up()
    else:
        want()
    if ahead.memory_limit_mb is None:
        return
    for spec in ahead.specs:
        template_for(spec, ahead.memory_limit_mb, worker_env())
