"""`compactcheck init`: an adapter and a pytest module for a user's own compactor."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console

from compactcheck.base.atomic import write_text_atomically
from compactcheck.base.errors import CompactcheckError, ExitCode

ADAPTER = '''"""Adapter between compactcheck and your compactor (written by `compactcheck init`).

compactcheck calls `compact` with a list of OpenAI chat message dicts (role, content,
tool_calls, tool_call_id) and expects the compacted list back. Replace the body with a call
into your own compactor, converting to and from its message format if it has its own; make it
`async def compact` to await an async one (compactcheck awaits it, as your framework would).

The body below is a plain "keep the system prompt and the last few messages" trimmer, so that
the generated test has something real to judge: it breaks tool pairing and goal preservation,
which is what `pytest` will show you before you plug in your own code.
"""

from __future__ import annotations

from typing import Any

KEEP_LAST = 6


def compact(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Return the compacted history."""
    system = [message for message in messages if message["role"] == "system"][:1]
    rest = [message for message in messages if message["role"] != "system"]
    return system + rest[-KEEP_LAST:]
'''

TEST_MODULE = '''"""Conformance of our compactor (compactcheck init): one test per law."""

from pathlib import Path

import pytest

# Found from this file, not from the folder pytest runs in, so that it runs from anywhere.
ADAPTER = Path(__file__).resolve().parent.parent / "compactcheck_adapter.py"


@pytest.mark.compactcheck(f"py:{ADAPTER}:compact", view="messages")
def test_compactor_conformance(compactcheck_law):
    compactcheck_law.check()
'''


def scaffold(directory: Path) -> list[Path]:
    """Write the adapter and the test module; never overwrite a file that exists."""
    adapter = directory / "compactcheck_adapter.py"
    test = directory / "tests" / "test_compactcheck_conformance.py"
    existing = [str(path) for path in (adapter, test) if path.exists()]
    if existing:
        raise CompactcheckError(
            f"{', '.join(existing)} already exist(s); remove or rename before `compactcheck init`"
        )
    write_text_atomically(adapter, ADAPTER)
    write_text_atomically(test, TEST_MODULE)
    return [adapter, test]


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    init = commands.add_parser("init", help="scaffold an adapter and a pytest module")
    init.add_argument("--dir", type=Path, default=Path("."), help="where to write (default: .)")
    init.set_defaults(handler=main)


def main(arguments: argparse.Namespace, console: Console) -> int:
    """Write the files and say what to run next."""
    for path in scaffold(arguments.dir):
        console.print(f"wrote {path}", highlight=False)
    console.print("next: pytest tests/test_compactcheck_conformance.py", highlight=False)
    return ExitCode.OK
