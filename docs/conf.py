"""Sphinx configuration of the documentation site (`./dev docs` builds it, strict and offline)."""

# Sphinx + MyST-Parser + Furo: Sphinx is maintained; MkDocs 1.x and Material for MkDocs are not.

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

ROOT = Path(__file__).resolve().parent.parent
# The published conformance reports live at the repository's root, beside docs/: a page links to
# them as ../reports/...; the site copies the folder whole (JSON and scripts too) into reports/.
REPORTS = ROOT / "reports"

project = "compactcheck"
author = "the compactcheck authors"
copyright = "the compactcheck authors"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Every heading gets the anchor GitHub gives it: [x](reference/laws.md#tool_pairing) works on both.
myst_heading_anchors = 6
myst_enable_extensions = ["colon_fence", "deflist"]
# Every reference must resolve; none is looked up on the network (no intersphinx).
nitpicky = True
# A fence without a language is shown as text, not lexed as Python.
highlight_language = "text"

html_theme = "furo"
html_title = "compactcheck"
html_copy_source = False
html_show_sourcelink = False


class RepositoryLinks(SphinxPostTransform):
    """Points a page's links to a Markdown file of the clone outside docs/ (../README.md,
    ../reports/index.md) at the site's copy of it: a published report's HTML page where there is
    one, else the file as written. On a forge such a link reads as it does in a clone."""

    # Before MyST's resolver (9), which would find no page of the site there and warn.
    default_priority = 8

    def run(self, **kwargs: Any) -> None:
        """Replace each such link by one to the copy, and copy the file into the site."""
        source = Path(self.env.srcdir).resolve()
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("refdomain") != "doc":
                continue
            # MyST 5 names the document by its absolute path, MyST 4 relative to the source folder.
            target = (source / str(node["reftarget"])).resolve()
            if target.is_relative_to(source) or not target.is_relative_to(ROOT):
                continue
            page = target.with_suffix(".md")
            if target.is_relative_to(REPORTS) and target.with_suffix(".html").is_file():
                page = target.with_suffix(".html")
            if not page.is_file():
                continue  # MyST's resolver says it is missing.
            name = page.relative_to(ROOT).as_posix()
            copy = Path(self.app.outdir) / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page, copy)
            anchor = f"#{node['reftargetid']}" if node.get("reftargetid") else ""
            uri = "../" * self.env.docname.count("/") + name + anchor
            link = nodes.reference("", "", internal=False, refuri=uri)
            link += node.children
            node.replace_self(link)


def _copy_reports(app: Sphinx, exception: BaseException | None) -> None:
    """Copy the published reports (HTML, Markdown, JSON, reproduction scripts) into the site."""
    if exception is None and app.builder.format == "html" and REPORTS.is_dir():
        shutil.copytree(REPORTS, Path(app.outdir) / "reports", dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the links out of docs/ and the copy of the reports."""
    app.add_post_transform(RepositoryLinks)
    app.connect("build-finished", _copy_reports)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
