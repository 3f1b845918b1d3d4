"""Small file helpers shared by the commands that read what users recorded."""

from __future__ import annotations

from functools import cache
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from compactcheck.base.errors import CompactcheckError


def json_files(
    path: Path, what: str, error: type[CompactcheckError] = CompactcheckError
) -> list[Path]:
    """``path`` itself, or the ``*.json`` and ``*.jsonl`` files below a folder, sorted by path.

    ``error`` (naming ``what`` was looked for) when there is no such file or folder, or none in
    the folder.
    """
    if path.is_dir():
        found = sorted(
            p for p in path.rglob("*") if p.is_file() and p.suffix in (".json", ".jsonl")
        )
        if not found:
            raise error(f"{path}: no *.jsonl or *.json {what} in this folder")
        return found
    if not path.exists():
        raise error(f"{path}: no such file or folder")
    return [path]


# Read once: every run config asks, and the metadata does not change while we run.
@cache
def installed_version() -> str:
    """The installed version of compactcheck ("0+unknown" when it is not installed)."""
    try:
        return version("compactcheck")
    except PackageNotFoundError:
        return "0+unknown"


__all__ = ["installed_version", "json_files"]
