"""The user-facing files beside the docs (examples, the Node harness package, the published
reports) speak of the tool, never of the project's own issue numbers; links to a third party's
public issues are kept."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# "issue 6", "issues 3 and 4", "(issue": how the project's own tracker is named; a public
# issue is a link (https://github.com/OWNER/REPO/issues/N), which neither pattern matches.
ISSUE_TALK = re.compile(r"\bissues? #?\d+|\(issue\b", re.IGNORECASE)
SKIPPED_PARTS = {"node_modules", "__pycache__"}


def _user_facing() -> list[Path]:
    files = [
        path
        for folder in ("examples", "harnesses", "reports")
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and not SKIPPED_PARTS.intersection(path.relative_to(ROOT).parts)
        and path.name != "package-lock.json"
    ]
    assert files
    return sorted(files)


@pytest.mark.parametrize("path", _user_facing(), ids=lambda path: path.relative_to(ROOT).as_posix())
def test_a_user_facing_file_names_no_issue_of_the_project(path: Path) -> None:
    text = path.read_text(encoding="utf-8", errors="replace")
    found = [match.group(0) for match in ISSUE_TALK.finditer(text)]
    assert not found, f"{path.relative_to(ROOT)}: {found}"
