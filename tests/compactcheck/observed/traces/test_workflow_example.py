"""The nightly GitHub Actions job of the traces how-to is the one shipped in examples/."""

from __future__ import annotations

from pathlib import Path

from tests.docs.markdown_pages import blocks

ROOT = Path(__file__).resolve().parents[4]


def test_the_how_to_shows_the_shipped_workflow() -> None:
    page = (ROOT / "docs" / "how-to" / "traces.md").read_text(encoding="utf-8")
    [shown] = [b for b in blocks(page) if b.marker == "file: compactions-nightly.yml"]
    shipped = ROOT / "examples" / "github-actions" / "compactions-nightly.yml"
    assert shown.text == shipped.read_text(encoding="utf-8")
    assert "compactcheck audit" in shown.text
    assert 'cron: "0 3 * * *"' in shown.text
