"""`compactcheck init`: an adapter and a pytest module for a user's own compactor."""

from __future__ import annotations

import argparse
from importlib import resources
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


NODE_HARNESS = """// A compactcheck harness for your JavaScript or TypeScript compactor
// (written by `compactcheck init --node`).
//
// compactcheck runs it as `node compactcheck-harness.mjs` and sends it histories of OpenAI chat
// message objects (role, content, tool_calls, tool_call_id); compact() returns the compacted
// list. Replace its body with a call into your compactor (compiled TypeScript: import the built
// .js), converting to and from your message type if it has one. Log with console.error only:
// stdout carries the protocol.
//
// serve() comes from compactcheck-protocol.mjs beside this file (compactcheck's protocol module,
// Node's standard library only; `compactcheck init --node` wrote it: commit both). Converters to
// the AI SDK's ModelMessage and to LangChain.js messages are in the Node harness package of a
// clone of compactcheck (harnesses/node).
import { serve } from "./compactcheck-protocol.mjs";

const KEEP_LAST = 6;

// The body below keeps the system prompt and the last few messages, so that the test has
// something real to judge: it breaks tool pairing and goal preservation until you plug in yours.
async function compact(messages) {
  const system = messages.filter((message) => message.role === "system").slice(0, 1);
  const rest = messages.filter((message) => message.role !== "system");
  return system.concat(rest.slice(-KEEP_LAST));
}

serve({ name: "my-compactor", formats: ["openai-chat"] }, async (input) => ({
  messages: await compact(input.messages),
}));
"""

NODE_TEST_MODULE = '''"""Conformance of our JavaScript compactor (init --node): one test per law."""

import shlex
from pathlib import Path

import pytest

# Found from this file, not from the folder pytest runs in, so that it runs from anywhere.
HARNESS = Path(__file__).resolve().parent.parent / "compactcheck-harness.mjs"


@pytest.mark.compactcheck(f"cmd:node {shlex.quote(str(HARNESS))}", view="messages")
def test_compactor_conformance(compactcheck_law):
    compactcheck_law.check()
'''


def scaffold(directory: Path, node: bool = False) -> list[Path]:
    """Write the adapter (or Node harness) and the test module; never overwrite a file."""
    adapter = directory / ("compactcheck-harness.mjs" if node else "compactcheck_adapter.py")
    test = directory / "tests" / "test_compactcheck_conformance.py"
    protocol = directory / "compactcheck-protocol.mjs"
    written = [adapter, protocol, test] if node else [adapter, test]
    existing = [str(path) for path in written if path.exists()]
    if existing:
        raise CompactcheckError(
            f"{', '.join(existing)} already exist(s); remove or rename before `compactcheck init`"
        )
    if node:
        # A copy in the project, imported by a relative path: the project runs on any machine
        # and from any install of compactcheck (a wheel has no harnesses/ folder), and the
        # protocol module needs no npm install.
        shipped = resources.files("compactcheck.cli").joinpath("node-protocol.js")
        header = "// Written by `compactcheck init --node`; the harness imports it by this name.\n"
        write_text_atomically(protocol, header + shipped.read_text(encoding="utf-8"))
        write_text_atomically(adapter, NODE_HARNESS)
        write_text_atomically(test, NODE_TEST_MODULE)
    else:
        write_text_atomically(adapter, ADAPTER)
        write_text_atomically(test, TEST_MODULE)
    return written


def add(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register the command."""
    init = commands.add_parser("init", help="scaffold an adapter and a pytest module")
    init.add_argument("--dir", type=Path, default=Path("."), help="where to write (default: .)")
    init.add_argument(
        "--node",
        action="store_true",
        help="scaffold a Node.js harness (compactcheck-harness.mjs) for a JavaScript compactor",
    )
    init.set_defaults(handler=main)


def main(arguments: argparse.Namespace, console: Console) -> int:
    """Write the files and say what to run next."""
    for path in scaffold(arguments.dir, node=arguments.node):
        console.print(f"wrote {path}", highlight=False)
    console.print("next: pytest tests/test_compactcheck_conformance.py", highlight=False)
    return ExitCode.OK
