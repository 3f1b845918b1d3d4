"""Sphinx configuration of the documentation site (`./dev docs` builds it, strict and offline)."""

# Sphinx + MyST-Parser + Furo: Sphinx is maintained; MkDocs 1.x and Material for MkDocs are not.

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform

ROOT = Path(__file__).resolve().parent.parent
# The published conformance reports live at the repository's root, beside docs/: a page links to
# them as ../reports/..., which reads on a forge as in a clone; the site copies them into its own
# reports/ folder.
REPORTS = ROOT / "reports"

project = "compactcheck"
author = "the compactcheck authors"
copyright = "the compactcheck authors"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# Headings of levels 1 to 3 get anchors a link can name: [the laws](reference/laws.md#tool_pairing).
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "deflist"]
# Every reference must resolve; none is looked up on the network (no intersphinx).
nitpicky = True
# A fence without a language is shown as text, not lexed as Python.
highlight_language = "text"

html_theme = "furo"
html_title = "compactcheck"
html_copy_source = False
html_show_sourcelink = False


class ReportLinks(SphinxPostTransform):
    """Points a page's links to ../reports/NAME.md at the site's copy of that report."""

    # Before MyST's resolver (9), which would find no page of the site there.
    default_priority = 8

    def run(self, **kwargs: Any) -> None:
        """Replace each such link by one to the copied report."""
        for node in list(self.document.findall(nodes.Element)):
            if node.tagname != "pending_xref" or node.get("refdomain") != "doc":
                continue
            # MyST 5 names the document by its absolute path, MyST 4 relative to the source folder.
            target = (Path(self.env.srcdir) / str(node["reftarget"])).resolve()
            if not target.is_relative_to(REPORTS):
                continue
            name = target.relative_to(REPORTS).as_posix()
            # A report's HTML page where there is one (index.html), else its Markdown as written.
            name += ".html" if target.with_suffix(".html").is_file() else ".md"
            depth = self.env.docname.count("/")
            link = nodes.reference("", "", internal=False, refuri="../" * depth + "reports/" + name)
            link += node.children
            node.replace_self(link)


def _copy_reports(app: Sphinx, exception: BaseException | None) -> None:
    """Copy the published reports (HTML, Markdown, JSON, reproduction scripts) into the site."""
    if exception is None and app.builder.format == "html" and REPORTS.is_dir():
        shutil.copytree(REPORTS, Path(app.outdir) / "reports", dirs_exist_ok=True)


def setup(app: Sphinx) -> dict[str, Any]:
    """Register the report links and the copy of the reports."""
    app.add_post_transform(ReportLinks)
    app.connect("build-finished", _copy_reports)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
