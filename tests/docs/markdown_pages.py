"""The project's Markdown pages as the docs tests read them: which pages, and their code blocks."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parents[2]
# Where the site is built to (./dev docs, or sphinx-build by hand): not pages of ours.
_BUILT = ("_build",)


def site_pages() -> list[Path]:
    """README.md and every page of docs/, sorted; the site's build output left out."""
    docs = [
        path
        for path in sorted((ROOT / "docs").rglob("*.md"))
        if not any(part in _BUILT for part in path.relative_to(ROOT).parts)
    ]
    return [ROOT / "README.md", *docs]


def page_id(path: Path) -> str:
    """A page as a test id: its path in the clone."""
    return path.relative_to(ROOT).as_posix()


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language, text, first line (1-based) and the marker above it."""

    language: str
    text: str
    line: int
    # The HTML comment on the last non-blank line before the fence ("" if none).
    marker: str


_COMMENT = re.compile(r"^\s*<!--(?P<body>.*?)-->\s*$")


def blocks(text: str) -> list[Block]:
    """The fenced code blocks of a Markdown text, in order (list items' too)."""
    lines = text.splitlines()
    found = []
    for token in MarkdownIt("commonmark").parse(text):
        if token.type != "fence" or token.map is None:
            continue
        start = token.map[0]
        above = next((lines[at] for at in range(start - 1, -1, -1) if lines[at].strip()), "")
        comment = _COMMENT.match(above)
        language = token.info.strip().split(maxsplit=1)[0] if token.info.strip() else ""
        found.append(
            Block(language, token.content, start + 1, comment["body"].strip() if comment else "")
        )
    return found
