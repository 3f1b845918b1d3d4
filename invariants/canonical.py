"""Canonical JSON (RFC 8785) and the SHA-256 checksums built on it."""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 canonical encoding of JSON-shaped data."""
    return bytes(rfc8785.dumps(value))


def sha256_hex(value: Any) -> str:
    """Hex SHA-256 of the canonical JSON of a value."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def canonically_equal(left: Any, right: Any) -> bool:
    """Whether two JSON-shaped values have the same canonical encoding."""
    return canonical_json(left) == canonical_json(right)
