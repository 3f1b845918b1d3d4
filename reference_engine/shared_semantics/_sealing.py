"""Sealing a draft into a snapshot: identity, time, range and the RFC 8785 checksum."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from compactcheck.invariants import CompactionSnapshot, SnapshotDraft, SourceEventRange, sha256_hex

# Namespace for snapshot ids. The seed draws a random UUID; we derive it from the content so
# that the same history always yields the same snapshot (reports must be reproducible).
SNAPSHOT_NAMESPACE = uuid.UUID("6f1c8a52-3d0e-4b8e-9a57-2f64c1d0b7e3")


def checksum_of(snapshot_data: dict[str, Any]) -> str:
    """SHA-256 of the canonical JSON of a snapshot's data without its checksum field."""
    return sha256_hex({key: value for key, value in snapshot_data.items() if key != "checksum"})


def seal(
    draft: SnapshotDraft, source_range: SourceEventRange, created_at: datetime
) -> CompactionSnapshot:
    """Turn a draft into a snapshot over ``source_range`` with a content-derived id."""
    body = draft.to_json_data()
    body["sourceEventRange"] = source_range.to_json_data()
    body["createdAt"] = created_at.isoformat().replace("+00:00", "Z")
    body["id"] = str(uuid.uuid5(SNAPSHOT_NAMESPACE, sha256_hex(body)))
    body["checksum"] = checksum_of(body)
    return CompactionSnapshot.from_json_data(body)


def checksum_matches(snapshot: CompactionSnapshot) -> bool:
    """Whether a snapshot's checksum still matches its content."""
    return checksum_of(snapshot.to_json_data()) == snapshot.checksum
