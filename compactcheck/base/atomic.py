"""Atomic file writes: a temporary file in the same folder, then a rename."""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path

from compactcheck.base.errors import OutputFileError

# What os.link raises where a file system has no hard links.
_NO_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EXDEV, errno.EMLINK})


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
        # mkstemp makes the file 0600; the result gets the mode open() would have given it.
        os.fchmod(handle, _mode_of(path))
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


def _mode_of(path: Path) -> int:
    """The mode open() would leave ``path`` with: its own if it exists, else 0666 less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        return 0o666 & ~_umask()


def _umask() -> int:
    """The process's umask, read without changing it where the system allows."""
    try:
        # Linux (4.7 and later) states it; setting it to read it would race with other threads.
        for line in Path("/proc/self/status").read_text(encoding="ascii").splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def create_text_exclusively(path: Path, text: str) -> bool:
    """Write a file atomically unless one of that name is there already; whether it wrote it.

    The text is written to a temporary file beside ``path`` and linked into place, which fails
    when the name exists: of two writers of one name, one writes it and neither replaces the
    other's file. A file that cannot be written raises OutputFileError naming it.
    """
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(
            prefix=f".{path.name}.", suffix=".tmp", dir=path.parent
        )
    except OSError as error:
        raise OutputFileError(f"{path}: cannot write here ({error.strerror or error})") from error
    try:
        os.fchmod(handle, 0o666 & ~_umask())
        with os.fdopen(handle, "w", encoding="utf-8", newline="\n") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        try:
            os.link(temporary, path)
        except FileExistsError:
            return False
        except OSError as error:
            if error.errno not in _NO_LINKS:
                raise
            # A file system without hard links: still atomic, exclusive but for a race.
            if path.exists():
                return False
            os.replace(temporary, path)
        return True
    except OSError as error:
        raise OutputFileError(f"{path}: writing failed ({error.strerror or error})") from error
    finally:
        Path(temporary).unlink(missing_ok=True)
