"""Atomic file writes: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from compactcheck.errors import OutputFileError


def write_text_atomically(path: Path, text: str) -> None:
    """Write a file so that a reader (or a kill) never sees it half written.

    Missing folders are created; a file that cannot be written raises OutputFileError naming it.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # The temporary file lives beside the target, so os.replace never crosses file systems.
        handle, temporary = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
        )
    except OSError as error:
        raise OutputFileError(f"{path}: cannot write here ({error.strerror or error})") from error
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except OSError as error:
        Path(temporary).unlink(missing_ok=True)
        raise OutputFileError(f"{path}: writing failed ({error.strerror or error})") from error
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
