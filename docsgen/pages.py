"""The generated pages of the reference, by file name, and what writes or checks them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

from docsgen import cli, exit_codes, laws, library, plugin, protocol, schemas
from docsgen.markdown import ROOT, page

REFERENCE = ROOT / "docs" / "reference"

# Each page of docs/reference/ and the function that writes it, in the order the index lists them.
PAGES: Mapping[str, Callable[[], str]] = {
    "cli.md": cli.render,
    "library.md": library.render,
    "pytest-plugin.md": plugin.render,
    "laws.md": laws.render,
    "protocol.md": protocol.render,
    "exit-codes.md": exit_codes.render,
    "report-schema.md": schemas.report_page,
    "corpus-schema.md": schemas.corpus_page,
}


def index() -> str:
    """The page ``reference/index.md``: what the reference is, and its toctree."""
    intro = (
        "Generated from the code, so that it says what the installed version does: the "
        "command line from its parser, the library from its docstrings, the laws from their "
        "catalogue, the protocol and the file formats from the JSON Schemas the package ships."
    )
    toctree = (
        "```{toctree}\n:maxdepth: 1\n\n"
        + "".join(f"{name.removesuffix('.md')}\n" for name in PAGES)
        + "```"
    )
    return page("Reference", intro, toctree)


def render_all() -> dict[str, str]:
    """Every page's text by file name, the index first."""
    return {"index.md": index(), **{name: render() for name, render in PAGES.items()}}


def write(folder: Path = REFERENCE) -> list[str]:
    """Write every page into ``folder``; the names of those whose text changed."""
    folder.mkdir(parents=True, exist_ok=True)
    changed = []
    for name, text in render_all().items():
        path = folder / name
        if not path.is_file() or path.read_bytes() != text.encode("utf-8"):
            path.write_bytes(text.encode("utf-8"))
            changed.append(name)
    return changed


def stale(folder: Path = REFERENCE) -> list[str]:
    """The pages of ``folder`` that differ from what the code makes now (or are missing)."""
    return [
        name
        for name, text in render_all().items()
        if not (folder / name).is_file() or (folder / name).read_bytes() != text.encode("utf-8")
    ]
