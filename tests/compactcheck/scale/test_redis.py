"""The shared example database against a real redis-server started for these tests."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from compactcheck.cli import main
from compactcheck.scale.database import REDIS_KEY_PREFIX, REDIS_URL_VARIABLE

redis = pytest.importorskip("redis", reason="the redis package is not installed (dev extra)")

if shutil.which("redis-server") is None:
    pytest.skip(
        "redis-server is not installed (apt-get install -y redis-server)", allow_module_level=True
    )


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    port = _free_port()
    folder = tmp_path_factory.mktemp("redis")
    server = subprocess.Popen(
        [
            "redis-server",
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                client.ping()
                break
            except redis.ConnectionError:
                if time.monotonic() > deadline or server.poll() is not None:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
        yield url
    finally:
        client.close()
        server.terminate()
        server.wait(timeout=10)


def _contents(url: str) -> dict[bytes, Any]:
    client = redis.Redis.from_url(url)
    try:
        return {key: client.smembers(key) for key in client.keys(REDIS_KEY_PREFIX + b"*")}
    finally:
        client.close()


RUN = [
    "run",
    "mutant:messages-drop-user-turns",
    "--invariants",
    "user_turn_present",
    "--max-examples",
    "30",
    "--seed",
    "1",
]


def test_campaign_writes_what_it_finds_to_redis_and_dev_only_reads(
    redis_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _contents(redis_url)
    assert (
        main(
            [
                *RUN,
                "--profile",
                "campaign",
                "--redis",
                redis_url,
                "--corpus",
                str(tmp_path / "a" / "corpus"),
            ]
        )
        == 1
    )
    shared = _contents(redis_url)
    assert len(shared) > len(before), "the campaign saved nothing to the shared database"
    # The local half of the multiplexed database got the same examples.
    assert any((tmp_path / "a" / "hypothesis").rglob("*"))

    # A developer replays through the environment variable, read-only.
    monkeypatch.setenv(REDIS_URL_VARIABLE, redis_url)
    developer = tmp_path / "b" / "corpus"
    assert main([*RUN, "--profile", "dev", "--seed", "2", "--corpus", str(developer)]) == 1
    assert _contents(redis_url) == shared, "a dev run wrote to the shared database"
    assert any((tmp_path / "b" / "hypothesis").rglob("*"))

    # An explicit read-only campaign shard writes nothing either.
    assert (
        main(
            [
                *RUN,
                "--profile",
                "campaign",
                "--seed",
                "3",
                "--redis-read-only",
                "--corpus",
                str(tmp_path / "c" / "corpus"),
            ]
        )
        == 1
    )
    assert _contents(redis_url) == shared


def test_unreachable_redis_is_one_clear_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"redis://127.0.0.1:{_free_port()}/0"
    code = main([*RUN, "--profile", "campaign", "--redis", url, "--corpus", str(tmp_path)])
    assert code == 2
    error = capsys.readouterr().err.strip()
    assert len(error.splitlines()) == 1, error
    assert "cannot reach Redis at" in error
    assert "redis-server" in error


def test_ci_profile_refuses_a_shared_database(
    redis_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main([*RUN, "--profile", "ci", "--redis", redis_url, "--corpus", str(tmp_path)])
    assert code == 2
    assert "uses no example database" in capsys.readouterr().err


def test_password_never_reaches_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"redis://user:hunter2@127.0.0.1:{_free_port()}/0"
    assert main([*RUN, "--profile", "campaign", "--redis", url, "--corpus", str(tmp_path)]) == 2
    error = capsys.readouterr().err
    assert "hunter2" not in error
    assert "user:***@127.0.0.1" in error
