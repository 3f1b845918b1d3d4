"""Hypothesis example databases per profile: local, shared through Redis, or none at all.

The ``campaign`` profile multiplexes the local folder with Hypothesis's own Redis database, so
that shards on many machines and the developers who replay them share what was found. The
``dev`` profile reads the shared database but never writes to it (Hypothesis's
``ReadOnlyDatabase``), so a laptop can replay a campaign's failures without deleting them. The
``ci`` profile has no database: a deterministic gate replays our JSON corpus instead.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from hypothesis.database import (
    DirectoryBasedExampleDatabase,
    ExampleDatabase,
    MultiplexedDatabase,
    ReadOnlyDatabase,
)

from compactcheck.base.errors import CompactcheckError, one_line

REDIS_URL_VARIABLE = "COMPACTCHECK_REDIS_URL"
# Keys of compactcheck's hunts, apart from other Hypothesis users of the same server.
REDIS_KEY_PREFIX = b"compactcheck:hypothesis-example:"
_CONNECT_SECONDS = 3.0


class DatabaseError(CompactcheckError):
    """The shared example database cannot be used: no Redis client, or no server answering."""


def redacted(url: str) -> str:
    """The URL without its password, for messages."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    netloc = f"{parts.username or ''}:***@{host}" + (f":{parts.port}" if parts.port else "")
    return urlunsplit(parts._replace(netloc=netloc))


def _client(url: str) -> Any:
    try:
        import redis
    except ImportError:
        raise DatabaseError(
            "the shared example database needs the redis package: pip install 'compactcheck[dev]' "
            "or pip install redis"
        ) from None
    try:
        client = redis.Redis.from_url(
            url, socket_connect_timeout=_CONNECT_SECONDS, socket_timeout=_CONNECT_SECONDS * 5
        )
        client.ping()
    except (redis.RedisError, ValueError, OSError) as error:
        reason = one_line(error) or type(error).__name__
        raise DatabaseError(
            f"cannot reach Redis at {redacted(url)} ({reason[:200]}); start redis-server, fix "
            f"--redis / {REDIS_URL_VARIABLE}, or run without a shared database"
        ) from None
    return client


@cache
def shared_database(url: str) -> ExampleDatabase:
    """Hypothesis's Redis example database at ``url`` (one client per process and URL)."""
    from hypothesis.extra.redis import RedisExampleDatabase

    return RedisExampleDatabase(_client(url), key_prefix=REDIS_KEY_PREFIX)


def check_reachable(url: str) -> None:
    """Fail now, in one line, if the Redis server at ``url`` does not answer."""
    shared_database(url)


@cache
def _local(path: str) -> ExampleDatabase:
    return DirectoryBasedExampleDatabase(path)


def profile_database(
    profile: str, local: Path, url: str | None, *, read_only: bool = False
) -> ExampleDatabase | None:
    """The example database a profile uses.

    ``dev``: the local folder, plus the shared database read-only when a URL is given.
    ``campaign``: the local folder multiplexed with the shared database (read-only if asked).
    ``ci``: none, whatever the URL (derandomized runs must not depend on a database).
    """
    if profile == "ci":
        return None
    directory = _local(str(local))
    if url is None:
        return directory
    shared = shared_database(url)
    if read_only or profile == "dev":
        shared = ReadOnlyDatabase(shared)
    return MultiplexedDatabase(directory, shared)
