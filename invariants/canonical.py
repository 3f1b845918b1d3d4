"""Canonical JSON (RFC 8785) and the SHA-256 checksums built on it."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import rfc8785


def canonical_json(value: Any) -> bytes:
    """The RFC 8785 canonical encoding of JSON-shaped data."""
    return bytes(rfc8785.dumps(value))


def sha256_hex(value: Any) -> str:
    """Hex SHA-256 of the canonical JSON of a value."""
    return hashlib.sha256(canonical_json(value)).hexdigest()


def canonically_equal(left: Any, right: Any) -> bool:
    """Whether two JSON-shaped values have the same canonical encoding.

    Decided without encoding in the usual cases: values Python finds unequal encode apart
    (distinct floats have distinct shortest forms; key order counts for neither), and values
    whose sorted standard JSON is the same text encode alike. Only what Python equates but the
    two JSON texts tell apart (``true`` beside ``1``, ``1.0`` beside ``1``) is encoded.
    """
    if left != right:
        return False
    try:
        if json.dumps(left, sort_keys=True) == json.dumps(right, sort_keys=True):
            return True
    except (TypeError, ValueError):
        pass
    return canonical_json(left) == canonical_json(right)
