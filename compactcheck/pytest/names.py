"""How the pytest plugin names a target in test ids and the corpus, and what it resolves.

A ``py:`` file is named relative to the rootdir and a ``cmd:`` command with its paths under the
rootdir made relative to it, so that test ids and corpus entries are the same on every checkout
and CI runner; each is resolved as it was given, so that pytest may run from anywhere.
"""

from __future__ import annotations

import contextlib
import shlex
from pathlib import Path

from compactcheck.base.loading import is_file_spec


def rooted(text: str, base: Path, root: Path) -> tuple[str, str]:
    """A target as named in test ids and the corpus, and as resolved.

    A ``py:`` file is named by its path relative to ``root`` (the rootdir), so that ids and
    corpus entries are the same on every checkout, and ``compactcheck replay`` run from the
    rootdir finds it; it is resolved by its absolute path, so that pytest may run from anywhere.
    A relative path is read from ``base``. A ``cmd:`` command is run as given and named with its
    absolute paths under ``root`` made relative to it, for the same reason. Other targets are
    named and resolved as given.
    """
    if text.startswith("cmd:"):
        return _rooted_command(text, root), text
    module_part, _, attribute = text.removeprefix("py:").rpartition(":")
    if not text.startswith("py:") or not module_part or not is_file_spec(module_part):
        return text, text
    absolute = (base / module_part).resolve()
    spec = f"py:{absolute}:{attribute}"
    try:
        relative = absolute.relative_to(root.resolve())
    except ValueError:
        return spec, spec
    return f"py:{relative.as_posix()}:{attribute}", spec


def _rooted_command(text: str, root: Path) -> str:
    """A ``cmd:`` target's name: its words that are absolute paths under ``root``, relative."""
    try:
        words = shlex.split(text.removeprefix("cmd:"))
    except ValueError:
        # Not a command line at all: resolving it says so.
        return text
    named = []
    for word in words:
        path = Path(word)
        if path.is_absolute():
            with contextlib.suppress(ValueError):
                word = path.resolve().relative_to(root.resolve()).as_posix()
        named.append(word)
    return text if named == words else f"cmd:{shlex.join(named)}"
