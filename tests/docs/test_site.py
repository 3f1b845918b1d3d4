"""The documentation site builds strictly: a warning, a broken link or a lost page fails it.

`./dev test` builds the site before pytest and hands its folder over (``COMPACTCHECK_SITE``);
run alone, these tests build it themselves.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from docsgen.pages import PAGES
from tests.docs.markdown_pages import ROOT

# As `./dev docs` runs it: warnings are errors, every reference must resolve.
STRICT = ["-E", "-W", "--keep-going", "-n", "-q"]


def _build(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "sphinx", *STRICT, "-d", str(out / ".doctrees"), str(source)]
    return subprocess.run(
        [*command, str(out)], cwd=ROOT, capture_output=True, text=True, check=False, timeout=600
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = os.environ.get("COMPACTCHECK_SITE")
    if built:
        return ROOT / built
    out = tmp_path_factory.mktemp("site")
    done = _build(ROOT / "docs", out)
    assert done.returncode == 0, done.stdout + done.stderr
    return out


def test_the_site_has_every_section_the_reference_and_the_reports(site: Path) -> None:
    for page in ["index", "real-compactors", "reference/index"]:
        assert (site / f"{page}.html").is_file(), page
    for name in PAGES:
        assert (site / "reference" / name.replace(".md", ".html")).is_file(), name
    assert (site / "reports" / "index.html").is_file()
    assert 'href="reports/index.html"' in (site / "index.html").read_text(encoding="utf-8")


def _project(root: Path, page: str) -> Path:
    """A small clone: the site's conf.py, a home page and one other page, and a report."""
    docs = root / "docs"
    docs.mkdir()
    shutil.copy(ROOT / "docs" / "conf.py", docs / "conf.py")
    (docs / "index.md").write_text("# Home\n\n```{toctree}\nguide/page\n```\n", encoding="utf-8")
    (docs / "guide").mkdir()
    (docs / "guide" / "page.md").write_text(page, encoding="utf-8")
    (root / "reports").mkdir()
    (root / "reports" / "index.md").write_text("# Reports\n", encoding="utf-8")
    (root / "reports" / "index.html").write_text("<html></html>\n", encoding="utf-8")
    return docs


def test_links_out_of_docs_lead_to_the_site_s_copies(tmp_path: Path) -> None:
    page = "# Page\n\n## Part\n\n[r](../../reports/index.md) [n](../../NOTES.md#b) [p](#part)\n"
    docs = _project(tmp_path, page)
    (tmp_path / "NOTES.md").write_text("# Notes\n\n## B\n", encoding="utf-8")
    done = _build(docs, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    html = (tmp_path / "site" / "guide" / "page.html").read_text(encoding="utf-8")
    assert 'href="../reports/index.html"' in html
    assert 'href="../NOTES.md#b"' in html
    assert (tmp_path / "site" / "reports" / "index.html").is_file()
    assert (tmp_path / "site" / "NOTES.md").read_text(encoding="utf-8") == "# Notes\n\n## B\n"


def test_a_missing_anchor_or_page_fails_the_build_naming_it(tmp_path: Path) -> None:
    docs = _project(tmp_path, "# Page\n\n[gone](../nothing.md) [anchor](../index.md#nope)\n")
    done = _build(docs, tmp_path / "site")
    assert done.returncode != 0
    assert "nothing" in done.stderr, done.stderr
    assert "nope" in done.stderr, done.stderr
