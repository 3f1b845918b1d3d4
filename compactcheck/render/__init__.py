"""Renderers of the JSON report; each output format is its own module with one entry point."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from compactcheck.render.console import (
    print_regressions,
    print_report,
    print_summary,
    render_console,
)
from compactcheck.render.html import render_html
from compactcheck.render.junit import render_junit
from compactcheck.render.markdown import render_markdown, render_summary_markdown
from compactcheck.report.model import Report

FORMATS: Mapping[str, Callable[[Report], str]] = {
    "markdown": render_markdown,
    "html": render_html,
    "junit": render_junit,
    "console": render_console,
}
"""Every file format by name, for `--markdown PATH` and friends."""

__all__ = [
    "FORMATS",
    "print_regressions",
    "print_report",
    "print_summary",
    "render_console",
    "render_html",
    "render_junit",
    "render_markdown",
    "render_summary_markdown",
]
