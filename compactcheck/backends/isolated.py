"""The isolated worker: one Python compactor in a process of its own, speaking protocol v1.

compactcheck starts it for a ``py:`` target (unless asked to run in-process) and talks to it like
any ``cmd:`` harness, so that whatever the compactor does to its process (exits, hard exits,
signals, segmentation faults, memory exhaustion, hangs, printing) ends at most this worker: the
run restarts it and reports what happened as a finding of that call.

    python -m compactcheck.backends.isolated [--view VIEW] [--memory-limit MB] [--name NAME] SPEC

With ``--template FD`` it loads the compactor once and forks a worker per request made on the
listening socket FD instead (see ``backends.template``).

The protocol keeps private copies of the standard input and output: the compactor's own
``print`` (and any native code writing to file descriptor 1) goes to stderr, and its standard
input reads nothing. A compactor that edits its input in place is told apart by comparing the
input with a fresh copy after the call; the answer then carries ``inputAfter``, so that the
laws judge the edit as they would in-process. Standard library and orjson only (besides the
compactor), so that a worker, and each restart of it, starts quickly.
"""

from __future__ import annotations

import argparse
import atexit
import contextlib
import faulthandler
import json
import os
import sys
import threading
import time
from typing import Any, BinaryIO, NoReturn

import orjson

from compactcheck.backends import template_process
from compactcheck.base.awaiting import Awaiter
from compactcheck.base.calling import (
    FORMAT_NAMES,
    VIEW_NAMES,
    argument_of,
    described,
    oversize,
    result_of,
    waivers_of,
)
from compactcheck.base.loading import (
    LoadError,
    callable_views,
    is_adapter_object,
    load_attribute,
    signature_problem,
)

PROTOCOL_VERSION = 1
# The exit status of a worker whose compactor could not be loaded (its stderr says why).
LOAD_FAILED = 3
# Where the parent passes its import path, so that the worker imports what it would.
PATH_VARIABLE = "COMPACTCHECK_SYS_PATH"
MAX_ANSWER_BYTES = 16 * 1024 * 1024
# Marks an errored answer as the compactor's wrong answer (see Answer.wrong_answer); a field the
# protocol's readers ignore, so only compactcheck reads it.
WRONG_ANSWER = "wrongAnswer"


def _private_streams() -> tuple[BinaryIO, BinaryIO]:
    """Keep the protocol's stdin and stdout for ourselves; point fd 0 at /dev/null and fd 1 at
    stderr, so that nothing the compactor reads or writes touches the protocol."""
    protocol_in = os.fdopen(os.dup(0), "rb")
    protocol_out = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - lives as long as the worker
    sys.stdout.reconfigure(line_buffering=True)  # type: ignore[union-attr]
    return protocol_in, protocol_out


def _watch_parent(period: float = 1.0) -> None:
    """End the worker when compactcheck is gone, even while the compactor spins: an orphaned
    worker would otherwise loop on, unseen (the end of stdin is only read between calls)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(period)
            if os.getppid() != parent:
                os._exit(0)

    threading.Thread(target=watch, name="compactcheck-parent-watch", daemon=True).start()


def _limit_memory(megabytes: int) -> str:
    """Cap the worker's address space; the note a MemoryError then carries."""
    if megabytes <= 0:
        return ""
    try:
        import resource
    except ImportError:
        return ""
    wanted = megabytes * 1024 * 1024
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    soft = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
    except (ValueError, OSError):
        return ""
    return f" under the worker's limit of {megabytes} MB (--memory-limit)"


class _Compactor:
    """The loaded compactor and how to ask it for one answer."""

    def __init__(self, attribute: Any, view: str | None, name: str, memory_note: str) -> None:
        self.attribute = attribute
        self.adapter = is_adapter_object(attribute)
        self.memory_note = memory_note
        # Runs what an async def compactor answers, on one loop for the worker's life.
        self.awaiter = Awaiter()
        if self.adapter:
            implementation = attribute.implementation
            dump = getattr(implementation, "model_dump", None)
            self.implementation = dump(mode="json") if dump else dict(implementation)
        else:
            self.implementation = {
                "name": getattr(attribute, "__name__", name) or name,
                "version": "",
                "language": "python",
                "views": list(callable_views(attribute, view)),
                # A plain callable takes whichever format the run names (--format).
                "formats": list(FORMAT_NAMES),
                "waivers": waivers_of(attribute),
            }

    def answer(self, request: dict[str, Any], pristine: dict[str, Any]) -> dict[str, Any]:
        """The answer line (as data) to one compact request."""
        view, payload = request["view"], request["input"]
        answer: dict[str, Any] = {"seq": request["seq"]}
        if self.adapter:
            answer.update(self._adapter_answer(view, payload))
            left = getattr(self.attribute, "last_input", None)
            if left is not None and left != argument_of(view, pristine):
                answer["inputAfter"] = left
            return answer
        if view not in self.implementation["views"]:
            answer["skipped"] = {
                "reason": f"{self.implementation['name']} does not handle the {view} view"
            }
            return answer
        argument = argument_of(view, payload)
        try:
            output = self.awaiter.answer(self.attribute, argument)
        except BaseException as error:
            message = described(error, memory_note=self.memory_note, function=self.attribute)
            answer["errored"] = {"message": message}
            return answer
        # JSON and size are judged once, as the answer line is written (_encoded).
        result, problem = result_of(view, output, None, payload, function=self.attribute)
        if result is None:
            answer["errored"] = {"message": problem, WRONG_ANSWER: True}
        else:
            answer["result"] = result
        if argument != argument_of(view, pristine):
            answer["inputAfter"] = argument
        return answer

    def _adapter_answer(self, view: str, payload: dict[str, Any]) -> dict[str, Any]:
        try:
            reply = self.awaiter.answer(self.attribute.compact, view, payload)
        except BaseException as error:
            return {"errored": {"message": described(error, memory_note=self.memory_note)}}
        if reply.kind == "result":
            return {"result": reply.result}
        if reply.kind == "skipped":
            return {"skipped": {"reason": reply.reason}}
        if getattr(reply, "wrong_answer", False):
            return {"errored": {"message": reply.reason, WRONG_ANSWER: True}}
        return {"errored": {"message": reply.reason}}


def _encoded(answer: dict[str, Any]) -> bytes:
    """The answer as a line; an errored one instead when a result or inputAfter is not JSON
    data or makes the line longer than the cap."""
    try:
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        problem = oversize(len(text), MAX_ANSWER_BYTES)
    except (TypeError, ValueError, RecursionError) as error:
        problem = f"the answer is not JSON data: {type(error).__name__}: {error}"
    if problem:
        # Only a result or inputAfter can hold what JSON cannot carry, or be that long.
        answer.pop("inputAfter", None)
        answer.pop("result", None)
        answer["errored"] = {"message": problem, WRONG_ANSWER: True}
        text = json.dumps(answer, ensure_ascii=False, separators=(",", ":"), default=repr)
    return (text + "\n").encode()


def _serve(compactor: _Compactor, protocol_in: BinaryIO, protocol_out: BinaryIO) -> int:
    for line in protocol_in:
        try:
            request = orjson.loads(line)
        except ValueError:
            print("compactcheck worker: a request line is not JSON; ignored", file=sys.stderr)
            continue
        command = request.get("cmd") if isinstance(request, dict) else None
        if command == "stop":
            return 0
        if command == "start":
            reply: dict[str, Any] = {
                "version": PROTOCOL_VERSION,
                "implementation": compactor.implementation,
            }
        elif command == "compact" and request.get("view") in VIEW_NAMES:
            try:
                # A second parse is the pristine input to compare with after the call (faster
                # than a deep copy of the first).
                reply = compactor.answer(request, orjson.loads(line)["input"])
            except MemoryError as error:
                # Out of memory outside the call itself (copying or comparing its input).
                message = described(error, memory_note=compactor.memory_note)
                reply = {"seq": request.get("seq"), "errored": {"message": message}}
        else:
            print(f"compactcheck worker: unknown request {command!r}; ignored", file=sys.stderr)
            continue
        protocol_out.write(_encoded(reply))
        protocol_out.flush()
    return 0


def _loaded(spec: str) -> tuple[Any, str]:
    """The compactor ``spec`` names, or None and the one line that says why it cannot run."""
    try:
        attribute = load_attribute(spec)
    except LoadError as error:
        return None, str(error)
    except BaseException as error:
        return None, f"py:{spec}: loading it raised {described(error)}"
    if not is_adapter_object(attribute) and not callable(attribute):
        return None, (
            f"py:{spec}: expected a callable or an adapter object with compact() and "
            f"implementation, found {type(attribute).__name__}"
        )
    problem = "" if is_adapter_object(attribute) else signature_problem(attribute)
    if problem:
        return None, f"py:{spec}: {problem}"
    return attribute, ""


def worker_env() -> dict[str, str]:
    """The environment a worker (or a template) is started with: this process's, with the
    import path to use."""
    return {**os.environ, PATH_VARIABLE: json.dumps([entry for entry in sys.path if entry])}


def _import_path() -> None:
    extra = os.environ.get(PATH_VARIABLE)
    if extra:
        sys.path[:0] = [entry for entry in json.loads(extra) if entry not in sys.path]


def main(argv: list[str] | None = None) -> int:
    """Load the compactor, then answer requests until stop or the end of input."""
    parser = argparse.ArgumentParser(prog="python -m compactcheck.backends.isolated")
    parser.add_argument("spec", help="module:attribute or path/to/file.py:attribute")
    parser.add_argument("--view", choices=VIEW_NAMES)
    parser.add_argument("--name", default="")
    parser.add_argument("--memory-limit", type=int, default=0, help="MB of address space")
    parser.add_argument(
        "--template", type=int, default=-1, help="serve forks on this listening socket (fd)"
    )
    arguments = parser.parse_args(argv)
    if arguments.template >= 0:

        def prepare() -> tuple[Any, str, str]:
            _import_path()
            memory_note = _limit_memory(arguments.memory_limit)
            return (*_loaded(arguments.spec), memory_note)

        # Returns only in a worker forked from the template, with that worker's view and name.
        worker = template_process.serve(arguments.template, arguments.spec, prepare)
        return _run(worker.attribute, worker.view, worker.name, worker.memory_note)
    protocol_in, protocol_out = _private_streams()
    faulthandler.enable(file=sys.stderr)
    _watch_parent()
    _import_path()
    memory_note = _limit_memory(arguments.memory_limit)
    attribute, problem = _loaded(arguments.spec)
    if problem:
        print(problem, file=sys.stderr)
        return LOAD_FAILED
    name = arguments.name or arguments.spec
    compactor = _Compactor(attribute, arguments.view, name, memory_note)
    _leave(_serve(compactor, protocol_in, protocol_out))


def _run(attribute: Any, view: str | None, name: str, memory_note: str) -> int:
    """In a worker forked from a template: what ``main`` does once the compactor is loaded."""
    protocol_in, protocol_out = _private_streams()
    faulthandler.enable(file=sys.stderr)
    compactor = _Compactor(attribute, view, name, memory_note)
    _leave(_serve(compactor, protocol_in, protocol_out))


def _leave(code: int) -> NoReturn:
    """Exit once served: the compactor's exit handlers run and its output is flushed, but the
    interpreter's teardown is skipped.

    Tearing down a heap that holds the compactor and its imports collects and frees every
    object of it, which in a worker forked from a template first copies each page it shares
    with the template: most of a tenth of a second, that its requester waits for on every
    close. Nothing of the worker outlives it but what those handlers and streams write.
    """
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
