"""Debian's headless Chromium, as the browser tests of the HTML pages run it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="needs Debian's chromium at /usr/bin/chromium (apt-get install -y chromium)",
)


def chromium(page: str, folder: Path, *flags: str) -> str:
    """Write ``page`` into ``folder`` and open it in headless Chromium with ``flags``; stdout."""
    path = folder / "page.html"
    path.write_text(page, encoding="utf-8")
    done = subprocess.run(
        [
            str(CHROMIUM),
            "--headless=new",
            "--no-sandbox",  # the tests may run as root in a container
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            f"--user-data-dir={folder / 'profile'}",
            *flags,
            path.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=90,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout
