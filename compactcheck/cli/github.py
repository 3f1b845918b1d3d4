"""Where GitHub Actions users look: the step summary and error annotations."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from compactcheck.base.errors import OutputFileError, one_line
from compactcheck.render import render_markdown
from compactcheck.report.model import Report


def _escaped(text: str, property: bool = False) -> str:
    # GitHub's workflow commands: %, CR and LF always; ':' and ',' in a property too.
    out = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return out.replace(":", "%3A").replace(",", "%2C") if property else out


def step_summary(report: Report) -> None:
    """Append the Markdown report to ``$GITHUB_STEP_SUMMARY`` when it is set."""
    path = os.environ.get("GITHUB_STEP_SUMMARY")
    if not path:
        return
    try:
        with Path(path).open("a", encoding="utf-8") as handle:
            handle.write(render_markdown(report) + "\n")
    except OSError as error:
        raise OutputFileError(
            f"GITHUB_STEP_SUMMARY={path}: cannot append the report: {one_line(error)}"
        ) from None


def error_annotations(lines: Iterable[tuple[str, str]]) -> None:
    """Print each (title, message) as an ``::error`` annotation when ``GITHUB_ACTIONS`` is set."""
    if os.environ.get("GITHUB_ACTIONS") != "true":
        return
    for title, message in lines:
        print(f"::error title={_escaped(title, True)}::{_escaped(message)}", flush=True)


__all__ = ["error_annotations", "step_summary"]
