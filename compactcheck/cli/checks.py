"""Quick checks that need no fuzzing: `replay` the corpus, `smoke` a target."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console
from rich.text import Text

from compactcheck.base.errors import ExitCode
from compactcheck.cli.options import (
    call_options,
    calls_of,
    format_option,
    model_options,
    model_slot,
)
from compactcheck.corpus import location
from compactcheck.corpus.replay import ModelTerms, ReplayResult, replay
from compactcheck.engine.results import slot_calls
from compactcheck.render.listings import replay_table
from compactcheck.report import untrusted
from compactcheck.targets.registry import resolve
from compactcheck.targets.smoke import smoke_round
from compactcheck.verdicts import broken_exit, prunable, replay_exit


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the commands."""
    replay_command = commands.add_parser(
        "replay", help="re-run the crash corpus: fixed, still failing, or not shown fixed"
    )
    replay_command.add_argument(
        "path",
        nargs="?",
        type=Path,
        help="a corpus file or folder (default: .compactcheck/corpus of the project the working "
        "directory is in)",
    )
    replay_command.add_argument(
        "--target",
        help="replay the entries against this target instead of the one each names (an entry "
        "of a callable fuzz() cannot name: a lambda, a closure)",
    )
    replay_command.add_argument(
        "--prune",
        action="store_true",
        help="delete the entries the replay shows FIXED (each deleted file is named); without "
        "it, nothing is ever deleted",
    )
    call_options(replay_command)
    model_options(replay_command, replay=True)
    replay_command.set_defaults(handler=replay_main)

    smoke = commands.add_parser("smoke", help="one tiny history through each view of a target")
    smoke.add_argument("target")
    call_options(smoke)
    model_options(smoke)
    format_option(smoke)
    smoke.set_defaults(handler=smoke_main)


def replay_main(arguments: argparse.Namespace, console: Console) -> int:
    """Re-run every corpus entry: failed while any still fails, inconclusive while any other
    could not be called fixed (see ``corpus.replay.exit_code``)."""
    path = arguments.path or location.for_targets([]).corpus
    terms = ModelTerms(
        name=arguments.model,
        cache_dir=arguments.model_cache,
        max_calls=arguments.max_model_calls,
        max_tokens=arguments.max_model_tokens,
        offline=arguments.offline,
    )
    results = replay(path, calls=calls_of(arguments), models=terms, target=arguments.target)
    if not results:
        console.print(f"no corpus entries at {path}")
        return ExitCode.OK
    console.print(replay_table(results, console.width))
    if arguments.prune:
        prune(results, console)
    return replay_exit([result.verdict for result in results])


def prune(results: Sequence[ReplayResult], console: Console) -> None:
    """Delete the entries shown fixed, one line for each (or for each that could not be)."""
    fixed = [result.path for result in results if prunable(result.verdict)]
    for path in fixed:
        try:
            path.unlink()
        except FileNotFoundError:
            continue
        except OSError as error:
            line = f"not deleted: {path} ({error.strerror or error})"
            console.print(Text(untrusted.safe_line(line), style="red"))
            continue
        console.print(Text(untrusted.safe_line(f"deleted (fixed): {path}")))
    if not fixed:
        console.print("--prune: no entry is fixed; nothing deleted")


def smoke_main(arguments: argparse.Namespace, console: Console) -> int:
    """One tiny history through each view: does the target answer at all?"""
    target = resolve(
        arguments.target,
        calls=calls_of(arguments),
        format=arguments.format,
        model=model_slot(arguments),
    )
    failed = False
    try:
        for view in target.views:
            outcome = smoke_round(target, view)
            detail = outcome.reason or f"answered in round {outcome.round}"
            ok = outcome.status in ("compacted", "unchanged", "declined")
            failed |= not ok
            console.print(
                Text(
                    f"{view}: {outcome.status} ({untrusted.safe_line(detail)})",
                    style="green" if ok else "red",
                )
            )
        if target.model is not None:
            console.print(Text(slot_calls(target.model).counts()))
    finally:
        target.close()
    return broken_exit(failed)
