"""A witness as the console shows it: each long content cut, and the block held to a screenful.

A goal message with dozens of ticket notes or a long tool result would otherwise fill hundreds
of lines of a terminal; the JSON and HTML reports, and the corpus entry, keep the whole text.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from compactcheck.report.untrusted import clean, json_block

CONTENT_LIMIT = 400
"""The characters of one string (a message's content, a tool result) the console shows."""
BLOCK_LINES = 60
"""The lines of one witness or diff block the console shows: the first ones and the last."""
_TAIL_LINES = 8
# The report formats that show a witness whole.
_WHOLE = ("json", "html")


@dataclass(frozen=True)
class Excerpt:
    """A JSON value as an indented block, with what was left out of it."""

    text: str
    characters: int = 0
    """Characters left out of the strings cut."""
    contents: int = 0
    """Strings cut."""
    lines: int = 0
    """Lines of the block left out after that."""

    @property
    def cut(self) -> bool:
        """Whether anything was left out."""
        return bool(self.characters or self.lines)


def excerpt(value: object, *, limit: int = CONTENT_LIMIT, lines: int = BLOCK_LINES) -> Excerpt:
    """``value`` as the console shows it: each string past ``limit`` characters cut (its first
    ones kept, with a mark of how many follow), then the block cut to ``lines`` lines."""
    counts = [0, 0]

    def shorten(item: object) -> object:
        if isinstance(item, str):
            # Counted as the reader sees them: escapes cleaned first.
            text = clean(item)
            if len(text) <= limit:
                return item
            counts[0] += len(text) - limit
            counts[1] += 1
            return text[:limit] + f" … [{len(text) - limit} more characters]"
        if isinstance(item, list):
            return [shorten(element) for element in item]
        if isinstance(item, dict):
            return {key: shorten(element) for key, element in item.items()}
        return item

    shown = json_block(shorten(value)).split("\n")
    dropped = 0
    if len(shown) > lines:
        head = lines - _TAIL_LINES - 1
        dropped = len(shown) - head - _TAIL_LINES
        shown = [*shown[:head], f"… [{dropped} more lines]", *shown[-_TAIL_LINES:]]
    return Excerpt("\n".join(shown), counts[0], counts[1], dropped)


def left_out_line(what: Excerpt, reports: Mapping[str, Path] | None = None) -> str:
    """The line under a cut block: what was left out and which files hold it whole.

    ``reports`` are the report files the run wrote, by format name ("json", "html", ...).
    """
    said = []
    if what.characters:
        plural = "s" if what.contents != 1 else ""
        said.append(f"{what.characters} characters of {what.contents} long content{plural}")
    if what.lines:
        said.append(f"{what.lines} lines")
    kept = [str((reports or {})[name]) for name in _WHOLE if name in (reports or {})]
    where = (
        " and ".join(kept) + (" hold" if len(kept) > 1 else " holds")
        if kept
        else "the JSON and HTML reports (--json FILE, --html FILE) and the corpus file hold"
    )
    return f"(cut here: {' and '.join(said)} left out; {where} it whole)"
