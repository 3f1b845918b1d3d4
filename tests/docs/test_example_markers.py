"""The examples test's own rules: what it refuses before running, and how it runs a page."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.docs.markdown_pages import blocks
from tests.docs.test_examples import missing_modules, problems, run_page

FENCE = "```"


def _page(*parts: str) -> str:
    return "\n".join(parts) + "\n"


def test_a_runnable_block_without_a_marker_is_refused_naming_its_line() -> None:
    text = _page("# Page", "", f"{FENCE}sh", "compactcheck targets", FENCE)
    assert problems("p.md", blocks(text)) == [
        "p.md:3: ```sh block has no marker; put <!-- example: NAME -->, <!-- file: PATH --> "
        "or <!-- shown: REASON --> on the line above it"
    ]


def test_a_shown_block_needs_a_reason() -> None:
    text = _page("<!-- shown: -->", f"{FENCE}python", "import redis", FENCE)
    assert problems("p.md", blocks(text)) == [
        "p.md:2: ```python block: <!-- shown: --> needs a reason (why it is not run)"
    ]


def test_a_marker_on_a_list_item_s_block_is_read() -> None:
    text = _page(
        "- one:", "", "  <!-- shown: needs a Redis server -->", f"  {FENCE}sh", "  x", f"  {FENCE}"
    )
    assert [block.marker for block in blocks(text)] == ["shown: needs a Redis server"]
    assert problems("p.md", blocks(text)) == []


def test_json_toml_and_yaml_blocks_must_parse() -> None:
    text = _page(
        f"{FENCE}json",
        '{"a": 1,}',
        FENCE,
        f"{FENCE}toml",
        "a = ",
        FENCE,
        f"{FENCE}json",
        '{"a": 1}',
        '{"b": 2}',
        FENCE,
    )
    said = problems("p.md", blocks(text))
    assert [line.split(" does not parse")[0] for line in said] == [
        "p.md:1: ```json block",
        "p.md:4: ```toml block",
    ]


def test_a_page_runs_in_order_in_one_folder_with_files_and_exit_codes(tmp_path: Path) -> None:
    text = _page(
        "<!-- file: mine.py -->",
        f"{FENCE}python",
        "def compact(messages): return messages",
        FENCE,
        "<!-- example: import -->",
        f"{FENCE}python",
        "import mine; assert mine.compact([1]) == [1]",
        FENCE,
        "<!-- example: finds exit=1 -->",
        f"{FENCE}sh",
        "test -f mine.py",
        "command -v compactcheck",
        "exit 1",
        FENCE,
    )
    assert problems("p.md", blocks(text)) == []
    assert run_page("p.md", text, tmp_path) == []


def test_an_example_that_exits_otherwise_than_marked_fails_with_its_output(tmp_path: Path) -> None:
    text = _page(
        "<!-- example: broken -->",
        f"{FENCE}sh",
        "echo it broke",
        "exit 3",
        FENCE,
        "<!-- example: quiet exit=1 -->",
        f"{FENCE}console",
        "$ true",
        "output",
        FENCE,
    )
    failed = run_page("p.md", text, tmp_path)
    assert failed == [
        "p.md:2: example broken exited 3, expected 0:\nit broke\n",
        "p.md:7: example quiet exited 0, expected 1:\n",
    ]


def test_a_yaml_block_must_parse_where_pyyaml_is_installed() -> None:
    pytest.importorskip("yaml", reason="PyYAML is not installed: YAML blocks go unparsed")
    text = _page(f"{FENCE}yaml", "a: [1, 2", FENCE)
    assert [line.split(" does not parse")[0] for line in problems("p.md", blocks(text))] == [
        "p.md:1: ```yaml block"
    ]


def test_a_page_names_the_modules_its_examples_need_and_only_missing_ones_count() -> None:
    text = _page("# Page", "<!-- needs: json no_such_module_here -->", "Text.")
    assert missing_modules(text) == ["no_such_module_here"]
    assert missing_modules(_page("# Page", "<!-- needs: json -->")) == []
    assert missing_modules(_page("# Page")) == []
