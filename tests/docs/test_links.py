"""The user-facing pages link only inside the clone or to public sites, and speak to a user.

Every relative link of README.md, BENCHMARKS.md and the site's pages resolves to a file of the
clone (its #anchor to a heading or label of the page linked to); every absolute link is https to
a public host; no user-facing file points into a folder a clone does not have, or speaks of the
project's own history ("issue 3").
"""

from __future__ import annotations

import functools
import ipaddress
import itertools
import re
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from markdown_it import MarkdownIt

from tests.docs.markdown_pages import ROOT, page_id, site_pages

PAGES = [*site_pages(), ROOT / "BENCHMARKS.md"]
# What a user reads: the pages above and the published reports' Markdown.
USER_FACING = [*PAGES, *sorted((ROOT / "reports").glob("*.md"))]
# Folders a clone does not have (ignored or built), which a link must not lean on.
_NOT_IN_A_CLONE = {".venv", ".compactcheck", "node_modules", "_build", ".git"}
_PARSER = MarkdownIt("commonmark").enable("table")
# MyST's (and GitHub's) heading slug: lower case, spaces to hyphens, other punctuation dropped.
_SLUG_DROPS = re.compile(r"[^\w\u4e00-\u9fff\- ]")
# A MyST label above a heading or block: (name)=
_LABEL = re.compile(r"^\((?P<name>[^)\s]+)\)=\s*$", re.M)
_HISTORY = re.compile(r"\bissue \d+\b|\(issue \d+\)", re.I)
_NO_CLONE_HAS = ("../shared", "/work/")


def slug(title: str) -> str:
    """The anchor of a heading titled ``title``."""
    return _SLUG_DROPS.sub("", title.lower().replace(" ", "-"))


def links(text: str) -> list[tuple[int, str]]:
    """Each link and image of a Markdown text, with its line (1-based)."""
    lines = text.splitlines()
    found = []
    for token in _PARSER.parse(text):
        if token.type != "inline" or token.map is None:
            continue
        start, end = token.map
        for child in token.children or []:
            target = child.attrGet("href") if child.type == "link_open" else None
            target = str(target or (child.attrGet("src") if child.type == "image" else "") or "")
            if target:
                # The line of the block that holds it (the block's first, if written otherwise).
                at = next((n for n in range(start, end) if target in lines[n]), start)
                found.append((at + 1, target))
    return found


def anchors(text: str) -> set[str]:
    """The anchors a page offers: its headings' slugs (and -1, -2... for repeats), its labels."""
    tokens = _PARSER.parse(text)
    found = set(_LABEL.findall(text))
    repeats: dict[str, int] = {}
    for opening, inline in itertools.pairwise(tokens):
        if opening.type != "heading_open":
            continue
        kinds = ("text", "code_inline")
        title = "".join(child.content for child in inline.children or [] if child.type in kinds)
        base = slug(title)
        count = repeats.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        repeats[base] = count + 1
    return found


@functools.cache
def _anchors_of(path: Path) -> set[str]:
    """The anchors of a page (read once: a page links to itself many times)."""
    return anchors(path.read_text(encoding="utf-8"))


def _public_host(host: str) -> bool:
    if not host or host == "localhost" or host.endswith((".local", ".localhost", ".internal")):
        return False
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return "." in host
    return address.is_global


def link_problems(path: Path, root: Path = ROOT) -> list[str]:
    """What is wrong with the links of one page of the clone at ``root``: one line each."""
    text = path.read_text(encoding="utf-8")
    page = path.relative_to(root).as_posix()
    said = []
    for line, target in links(text):
        where = f"{page}:{line}: {target}"
        parts = urlsplit(target)
        if parts.scheme or target.startswith("//"):
            if parts.scheme == "mailto":
                continue
            if parts.scheme != "https" or not _public_host(parts.hostname or ""):
                said.append(f"{where}: an absolute link must be https to a public host")
            continue
        linked = path if not parts.path else (path.parent / unquote(parts.path)).resolve()
        if not linked.is_relative_to(root) or not linked.exists():
            said.append(f"{where}: no such file in the clone")
            continue
        if _NOT_IN_A_CLONE & set(linked.relative_to(root).parts):
            said.append(f"{where}: a clone does not have it (ignored or built)")
            continue
        fragment = unquote(parts.fragment)
        if fragment and linked.suffix == ".md" and fragment not in _anchors_of(linked):
            name = linked.relative_to(root).as_posix()
            said.append(f"{where}: {name} has no heading or label #{fragment}")
    return said


@pytest.mark.parametrize("path", PAGES, ids=page_id)
def test_every_link_resolves_in_the_clone_or_is_public(path: Path) -> None:
    said = link_problems(path)
    assert not said, "\n".join(said)


@pytest.mark.parametrize("path", USER_FACING, ids=page_id)
def test_a_user_facing_page_speaks_to_someone_who_cloned_the_project(path: Path) -> None:
    said = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        said += [f"{page_id(path)}:{number}: {text}" for text in _NO_CLONE_HAS if text in line]
        said += [
            f"{page_id(path)}:{number}: {found[0]!r} (the project's history is git's)"
            for found in _HISTORY.finditer(line)
        ]
    assert not said, "\n".join(said)


def test_a_broken_link_of_any_kind_is_named_with_its_line(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "other.md").write_text("# Other\n\n## The `tool_pairing` law\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "x.md").write_text("# X\n")
    page = tmp_path / "docs" / "page.md"
    page.write_text(
        "# Page\n\n## Page\n\n"
        "[ok](other.md#the-tool_pairing-law) [ok](#page-1) [ok](https://github.com/x/y)\n"
        "[missing](gone.md) [anchor](other.md#nope) [local](http://localhost:8000/)\n"
        "[plain](http://example.com/) [outside](../../elsewhere.md) [ignored](../.venv/x.md)\n"
    )
    assert link_problems(page, tmp_path) == [
        "docs/page.md:6: gone.md: no such file in the clone",
        "docs/page.md:6: other.md#nope: docs/other.md has no heading or label #nope",
        "docs/page.md:6: http://localhost:8000/: an absolute link must be https to a public host",
        "docs/page.md:7: http://example.com/: an absolute link must be https to a public host",
        "docs/page.md:7: ../../elsewhere.md: no such file in the clone",
        "docs/page.md:7: ../.venv/x.md: a clone does not have it (ignored or built)",
    ]
