"""`audit --phoenix` against a real Phoenix server, recorded into by a real instrumentation.

The server is arize-phoenix from its own environment (``./dev phoenix-env``, .venv-phoenix),
started as a subprocess on a free loopback port with its SQLite working folder in a temporary
folder and its telemetry and outside requests off. The agent runs in a fresh process of the
main environment, under OpenInference's OpenAI instrumentation, exporting OTLP/HTTP to it, with
LangChain's ``trim_messages`` between calls; the framework's own record is the oracle.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest

from compactcheck.observed.traces.calls import is_model_call
from compactcheck.observed.traces.phoenix import pull
from compactcheck.observed.traces.records import Span

ROOT = Path(__file__).resolve().parents[4]
PHOENIX = ROOT / ".venv-phoenix" / "bin" / "phoenix"
PROJECT = "coding-agent"
_START_SECONDS = 180

pytestmark = pytest.mark.skipif(
    not PHOENIX.exists(),
    reason="Phoenix is not installed: `./dev phoenix-env` makes its environment (.ci/run does)",
)
pytest.importorskip("openinference.instrumentation.openai", reason="needs compactcheck[traces]")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _up(url: str) -> bool:
    try:
        with urlopen(f"{url}/healthz", timeout=2) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


@pytest.fixture(scope="module")
def phoenix(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The URL of a Phoenix server of our own, for this module."""
    folder = tmp_path_factory.mktemp("phoenix")
    port = _free_port()
    env = {
        **os.environ,
        "PHOENIX_WORKING_DIR": str(folder),
        "PHOENIX_HOST": "127.0.0.1",
        "PHOENIX_PORT": str(port),
        "PHOENIX_GRPC_PORT": str(_free_port()),
        # No phone-home: no telemetry pixels, no web fonts or downloads of its own.
        "PHOENIX_TELEMETRY_ENABLED": "false",
        "PHOENIX_ALLOW_EXTERNAL_RESOURCES": "false",
    }
    log = (folder / "server.log").open("w")
    server = subprocess.Popen(
        [str(PHOENIX), "serve"], cwd=folder, env=env, stdout=log, stderr=subprocess.STDOUT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + _START_SECONDS
        while not _up(url):
            if server.poll() is not None or time.monotonic() > deadline:
                tail = (folder / "server.log").read_text()[-1500:]
                pytest.skip(f"the Phoenix server did not start (exit {server.poll()}): {tail}")
            time.sleep(0.5)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.close()


@pytest.fixture(scope="module")
def recorded(phoenix: str) -> dict[str, Any]:
    """What the framework did in the run recorded into the server, once it holds every span."""
    done = subprocess.run(
        [sys.executable, "-m", "tests.data.traces.recording", "phoenix", phoenix, PROJECT],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    expected: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    # Phoenix inserts spans in the background: wait until it holds every span sent.
    deadline = time.monotonic() + 60
    while True:
        try:
            held = sum(1 for _ in pull(phoenix, PROJECT))
        except Exception:
            held = 0
        if held >= expected["spans"] or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert held == expected["spans"]
    return expected


def _cli(*arguments: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "compactcheck", "audit", *arguments],
        capture_output=True, text=True, cwd=ROOT, timeout=300, check=False,
    )  # fmt: skip


def test_audit_finds_every_compaction_the_framework_made_in_a_live_phoenix(
    phoenix: str, recorded: dict[str, Any], tmp_path: Path
) -> None:
    assert recorded["compacted"], "the recording must compact for this test to mean much"
    out = tmp_path / "report.json"
    done = _cli("--phoenix", phoenix, "--project", PROJECT, "--quiet", "--json", str(out))
    assert done.returncode in (0, 1), done.stdout + done.stderr
    reading = json.loads(out.read_text())["targets"][0]["traces"]
    # The agent's calls in the order they started, read straight from the server.
    calls = sorted(
        (r.start_ns, r.span_id)
        for r in pull(phoenix, PROJECT)
        if isinstance(r, Span) and is_model_call(r)
    )
    numbers = {span: number for number, (_, span) in enumerate(calls)}
    assert len(numbers) == recorded["calls"]
    assert sorted(numbers[p["span_id"]] for p in reading["points"]) == recorded["compacted"]
    assert reading["sources"] == [f"{phoenix} project {PROJECT}"]
    assert reading["skipped"] == {}


def test_an_unknown_project_is_one_line_naming_the_projects(
    phoenix: str, recorded: dict[str, Any]
) -> None:
    del recorded
    done = _cli("--phoenix", phoenix, "--project", "no-such-project")
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 2, said
    assert len(said.splitlines()) == 1
    assert "no project 'no-such-project'" in said
    assert PROJECT in said
    assert "Traceback" not in said


def test_an_unreachable_url_is_one_line_and_exit_2() -> None:
    done = _cli("--phoenix", f"http://127.0.0.1:{_free_port()}")
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 2, said
    assert len(said.splitlines()) == 1
    assert "cannot reach a Phoenix server" in said


class _NotPhoenix(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        body = b'{"detail": "Not Found"}'
        self.send_response(404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        del format, args


def test_a_server_that_is_not_phoenix_is_one_line_and_exit_2() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _NotPhoenix)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        done = _cli("--phoenix", f"http://127.0.0.1:{server.server_address[1]}")
    finally:
        server.shutdown()
        server.server_close()
    said = (done.stdout + done.stderr).strip()
    assert done.returncode == 2, said
    assert len(said.splitlines()) == 1
    assert "is not Phoenix" in said
