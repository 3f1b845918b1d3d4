"""Renderers against golden files, hostile backend text in every format, and the report loader."""

from __future__ import annotations

import io
import json
import os
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable
from html.parser import HTMLParser
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt
from rich.console import Console

from compactcheck.base.errors import InputFileError
from compactcheck.render import (
    FORMATS,
    print_report,
    render_console,
    render_html,
    render_junit,
    render_markdown,
)
from compactcheck.render.markdown import fence
from compactcheck.report.io import load_report, report_json, write_report, write_text
from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport
from compactcheck.schemas import shipped
from compactcheck.verdicts import report_exit

GOLDEN = Path(__file__).parent / "golden"
# Set by a person who changed a renderer on purpose, never by the tests or CI.
UPDATE = os.environ.get("COMPACTCHECK_UPDATE_GOLDEN") == "1"
SUFFIXES = {"markdown": "md", "html": "html", "junit": "xml", "console": "txt"}
PAYLOAD_SCRIPT = '<script>alert("xss")</script>'


_CHART = re.compile(r"<svg .*?</svg>", re.DOTALL)


def golden(name: str) -> Report:
    return load_report(GOLDEN / f"{name}.json")


@pytest.fixture(scope="module")
def hostile() -> Report:
    return golden("hostile")


@pytest.mark.parametrize("fmt", sorted(FORMATS))
@pytest.mark.parametrize("name", ["report", "hostile"])
def test_renderer_matches_its_golden_file(name: str, fmt: str) -> None:
    # The charts' SVG is matplotlib's drawing, which moves with its version: test_charts.py
    # checks the charts; the golden files keep only where each one sits.
    rendered = _CHART.sub("<svg>(chart)</svg>", FORMATS[fmt](golden(name)))
    path = GOLDEN / f"{name}.{SUFFIXES[fmt]}"
    if UPDATE:
        path.write_text(rendered, encoding="utf-8", newline="\n")
    assert path.exists(), f"{path.name} missing: run with COMPACTCHECK_UPDATE_GOLDEN=1 once"
    assert rendered == path.read_text(encoding="utf-8"), (
        f"{path.name} differs; if the change is intended, run with COMPACTCHECK_UPDATE_GOLDEN=1"
    )


def test_every_golden_input_has_every_verdict() -> None:
    report = golden("report")
    assert set(report.verdicts()) == {
        "pass", "review", "violation", "errored", "skipped", "unknown"
    }  # fmt: skip
    assert report_exit(report) == 1


# JUnit


@pytest.mark.parametrize("name", ["report", "hostile"])
def test_junit_parses_with_one_testcase_per_target_and_invariant(name: str) -> None:
    report = golden(name)
    root = ET.fromstring(render_junit(report).encode("utf-8"))
    suites = root.findall("testsuite")
    assert len(suites) == len(report.targets)
    cases = root.findall("testsuite/testcase")
    assert len(cases) == sum(len(target.results) for target in report.targets)
    assert root.get("tests") == str(len(cases))
    verdicts = [result.verdict for target in report.targets for result in target.results]
    for case, verdict in zip(cases, verdicts, strict=True):
        children = {child.tag for child in case} - {"properties"}
        expected = {
            "pass": set(),
            # Held, its items for review listed beside the passing test.
            "review": {"system-out"},
            "violation": {"failure"},
            "errored": {"error"},
            "skipped": {"skipped"},
            "unknown": {"skipped"},
        }[verdict]
        assert children == expected, (case.get("name"), verdict)
        if verdict == "review":
            shown = case.findtext("system-out") or ""
            assert "2 items for review" in shown
            assert "The public API is off-limits." in shown

    properties = {p.get("name"): p.get("value") for p in suites[0].findall("properties/property")}
    assert properties["seed"] == str(report.seed)
    assert properties["profile"] == report.profile.replace("\x1b", "")


def test_junit_fails_a_law_left_for_review_only_when_review_is_strict() -> None:
    strict = golden("report").model_copy(update={"strict_review": True})
    root = ET.fromstring(render_junit(strict).encode("utf-8"))
    [case] = [
        case
        for case in root.iter("testcase")
        if case.get("name") == "goal_preserved"
        and "drop-tool-results" in str(case.get("classname"))
    ]
    failure = case.find("failure")
    assert failure is not None
    assert failure.get("type") == "review"
    assert report_exit(strict) == 1


def test_junit_failure_carries_the_because_line_and_witness() -> None:
    root = ET.fromstring(render_junit(golden("report")).encode("utf-8"))
    failure = root.find(".//failure")
    assert failure is not None
    assert failure.get("message", "").startswith("tool_call t7 kept at index 1")
    assert '"tool_call_id": "t7"' in (failure.text or "")


def test_junit_keeps_hostile_text_as_text(hostile: Report) -> None:
    xml = render_junit(hostile)
    root = ET.fromstring(xml.encode("utf-8"))
    # The payload's "]]><evil/>" stayed text: no element of that name exists.
    assert root.find(".//evil") is None
    assert "]]><evil/>" in (root.findtext(".//failure") or "")
    allowed = re.compile("[\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]*")
    assert allowed.fullmatch(xml), "a character XML 1.0 forbids reached the document"


# HTML


class _Tags(HTMLParser):
    """Collects start tags and their attributes, and the text outside them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list[tuple[str, str | None]]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, attrs))

    def handle_data(self, data: str) -> None:
        self.text.append(data)


HTML_TAGS = {
    "html", "head", "meta", "title", "style", "body", "header", "h1", "h2", "h3", "p", "span",
    "b", "strong", "main", "section", "table", "thead", "tbody", "tr", "th", "td", "a",
    "article", "pre", "details", "summary", "ul", "li", "div", "ol", "h4", "code", "figure",
    "figcaption",
}  # fmt: skip


@pytest.mark.parametrize("name", ["report", "hostile"])
def test_html_holds_only_our_own_inert_markup(name: str) -> None:
    # The charts' inline SVG is checked on its own (test_charts.py: only drawing elements).
    page = _CHART.sub("", render_html(golden(name)))
    parser = _Tags()
    parser.feed(page)
    parser.close()
    assert {tag for tag, _ in parser.tags} <= HTML_TAGS
    for tag, attributes in parser.tags:
        for attribute, value in attributes:
            assert not attribute.startswith("on"), (tag, attribute)
            assert attribute in {"lang", "charset", "http-equiv", "content", "name", "class",
                                 "title", "href", "id"}, (tag, attribute)  # fmt: skip
            if attribute == "href":
                # A violation, or a message of its witness (a tool call's link to its result).
                assert re.fullmatch(r"#violation-\d+(-(in|out)-\d+)?", value or ""), value
    assert "<script" not in page.lower()
    assert "http://" not in page
    assert "https://evil" not in page.replace("https://evil.example", "")


def test_html_shows_the_payload_as_text(hostile: Report) -> None:
    parser = _Tags()
    parser.feed(render_html(hostile))
    text = "".join(parser.text)
    assert PAYLOAD_SCRIPT in text
    assert "]]><evil/>" in text
    assert "\x1b" not in text
    assert "\x00" not in text
    assert "\u202e" not in text
    assert "\\u202e" in text, "the bidi override is shown as an escape, not dropped silently"


def test_html_forbids_scripts_and_remote_loads_by_policy() -> None:
    page = render_html(golden("report"))
    assert "Content-Security-Policy" in page
    assert "default-src 'none'" in page
    assert "<link" not in page
    assert "src=" not in page


# Markdown


def _markdown_html(text: str) -> str:
    # CommonMark with raw HTML allowed (as GitHub allows a safe subset) and GFM tables.
    rendered: str = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    return rendered


def test_markdown_renders_the_payload_inert(hostile: Report) -> None:
    document = render_markdown(hostile)
    html = _markdown_html(document)
    parser = _Tags()
    parser.feed(html)
    tags = {tag for tag, _ in parser.tags}
    assert not {"script", "img", "a"} & tags, tags
    assert "<script" not in html
    assert "<evil" not in html
    text = "".join(parser.text)
    assert PAYLOAD_SCRIPT in text, "the payload is shown literally"
    assert "[link](javascript:alert(1))" in text


def test_markdown_table_rows_keep_their_cell_count(hostile: Report) -> None:
    html = _markdown_html(render_markdown(hostile))
    matrix, fidelity = re.findall(r"<table>(.*?)</table>", html, flags=re.S)
    # The matrix: a head and five laws, two cells each; the fidelity table: a head and six
    # measures, nine cells each (measure, mean, range, sd, n, reference, three rounds).
    for table, rows, cells in ((matrix, 1 + 5, 2), (fidelity, 1 + 6, 9)):
        found = re.findall(r"<tr>(.*?)</tr>", table, flags=re.S)
        assert len(found) == rows
        for row in found:
            assert len(re.findall(r"<t[hd][ >]", row)) == cells, row
    assert "|redlink" in html, "the pipe in the target name stays inside its cell"


def test_markdown_fences_cannot_be_closed_by_their_content(hostile: Report) -> None:
    document = render_markdown(hostile)
    html = _markdown_html(document)
    blocks = re.findall(r"<pre><code[^>]*>(.*?)</code></pre>", html, flags=re.S)
    # Witness, diff and stderr: three blocks, the witness whole with both its messages.
    assert len(blocks) == 3
    assert "&lt;/pre&gt;&lt;script&gt;alert(2)" in blocks[0]
    assert "`````" in blocks[0]


@given(st.text(alphabet="`ab\n ", max_size=40))
def test_a_fence_is_longer_than_any_backtick_run(body: str) -> None:
    block = fence(body)
    marks = block.split("\n", 1)[0]
    longest = max((len(run) for run in re.findall("`+", body)), default=0)
    assert len(marks) > longest
    assert len(marks) >= 3
    html = _markdown_html(block)
    assert html.count("<pre>") == 1


# Console


def test_console_output_has_no_escape_characters_from_the_payload(hostile: Report) -> None:
    plain = render_console(hostile, width=120)
    assert "\x1b" not in plain
    assert "\x07" not in plain
    assert "\r" not in plain
    assert "\x9b" not in plain
    assert "\u202e" not in plain
    assert "[bold red]markup[/]" in plain, "rich markup in backend text stays literal"
    assert PAYLOAD_SCRIPT in plain


def test_console_in_a_colour_terminal_emits_only_rich_s_own_styling(hostile: Report) -> None:
    output = io.StringIO()
    console = Console(file=output, force_terminal=True, color_system="truecolor", width=120)
    print_report(hostile, console)
    text = output.getvalue()
    # Rich writes SGR colour codes (ESC [ ... m) and nothing else; the payload's clear-screen,
    # window title and hyperlink sequences are gone.
    assert not re.search(r"\x1b(?!\[[0-9;]*m)", text), "a non-SGR escape sequence got through"
    assert "\x1b]0;pwned" not in text
    assert "\x1b[2J" not in text


# The JSON report


def test_written_report_validates_against_the_shipped_schema(tmp_path: Path) -> None:
    validator = jsonschema.Draft202012Validator(shipped("report"))
    for name in ("report", "hostile"):
        path = tmp_path / f"{name}.json"
        write_report(golden(name), path)
        validator.validate(json.loads(path.read_text(encoding="utf-8")))
        loaded = load_report(path)
        # The hostile report's unpaired surrogates cannot be UTF-8: they come back as U+FFFD.
        assert loaded == golden(name) or "\ufffd" in path.read_text(encoding="utf-8")
    assert load_report(tmp_path / "report.json") == golden("report")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["hostile.json", "report.json"]


def _one_violation(witness: list[object]) -> Report:
    example = Counterexample(round=1, because="b", witness=witness, input=None, history_size=1)
    result = InvariantResult(
        invariant="i", statement="s", verdict="violation", examples=1, exercised=1,
        counterexample=example,
    )  # fmt: skip
    target = TargetReport(target="t", view="messages", results=[result])
    return Report(
        toolkit_version="0", seed=1, profile="ci", max_examples=1, rounds=1, complete=True,
        started_at="now", targets=[target],
    )  # fmt: skip


def test_a_report_with_non_finite_numbers_and_lone_surrogates_is_still_valid_json(
    tmp_path: Path,
) -> None:
    report = _one_violation([float("nan"), float("inf"), "lone \ud800 half", "pair 😀"])
    path = tmp_path / "r.json"
    write_report(report, path)
    data = json.loads(path.read_bytes().decode("utf-8"))
    jsonschema.Draft202012Validator(shipped("report")).validate(data)
    witness = data["targets"][0]["results"][0]["counterexample"]["witness"]
    assert witness == [None, None, "lone \ufffd half", "pair 😀"]
    for render in FORMATS.values():
        assert render(report)  # every renderer copes too


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    write_text(path, "old\n")
    with pytest.raises(UnicodeEncodeError):
        write_text(path, "new \ud800")
    assert path.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]


def test_report_json_ends_with_a_newline_and_round_trips() -> None:
    report = golden("report")
    text = report_json(report)
    assert text.endswith("}\n")
    assert Report.model_validate_json(text) == report


# Loading bad files


def _valid_text() -> str:
    return (GOLDEN / "report.json").read_text(encoding="utf-8")


BAD_FILES: dict[str, tuple[bytes, str]] = {
    "empty": (b"", "is empty"),
    "blank": (b"  \n", "is empty"),
    "binary": (bytes(range(256)) * 4, "not UTF-8"),
    "truncated": (_valid_text()[:300].encode(), "not valid JSON"),
    "array": (b"[1, 2]", "JSON list, not an object"),
    "nan": (_valid_text().replace('"seed": 1234567', '"seed": NaN').encode(), "NaN is not JSON"),
    "newer": (b'{"schema_version": 2}', "schema_version 2"),
    "verdict": (
        _valid_text().replace('"verdict": "pass"', '"verdict": "great"', 1).encode(),
        "breaks the report schema at targets.0.results.0.verdict",
    ),
    "string seed": (
        _valid_text().replace('"seed": 1234567', '"seed": "1234567"').encode(),
        "breaks the report schema at seed",
    ),
    "extra field": (
        _valid_text().replace('"rounds": 3', '"rounds": 3, "evil": 1').encode(),
        "breaks the report schema at evil",
    ),
    "deep": (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    "huge int": (b'{"seed": ' + b"9" * 5000 + b"}", "not valid JSON"),
    "bom": (b"\xef\xbb\xbf" + _valid_text().encode(), "not valid JSON"),
}


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_each_bad_report_file_gives_one_line_naming_the_file(tmp_path: Path, case: str) -> None:
    content, expected = BAD_FILES[case]
    path = tmp_path / f"bad {case}.json"
    path.write_bytes(content)
    with pytest.raises(InputFileError) as caught:
        load_report(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(str(path) + ":")
    assert expected in message, message
    assert "expected a compactcheck JSON report" in message


def test_missing_folder_and_oversized_files_are_one_line_errors(tmp_path: Path) -> None:
    for path, expected in [
        (tmp_path / "absent.json", "cannot be read (No such file or directory)"),
        (tmp_path, "cannot be read (Is a directory)"),
    ]:
        with pytest.raises(InputFileError, match=re.escape(expected)):
            load_report(path)
    big = tmp_path / "big.json"
    big.write_text(_valid_text())
    with pytest.raises(InputFileError, match="is larger than 1000 bytes"):
        load_report(big, max_bytes=1000)
    assert load_report(big).seed == 1234567


def test_a_file_name_with_a_newline_still_gives_one_line(tmp_path: Path) -> None:
    path = tmp_path / "two\nlines.json"
    path.write_bytes(b"{")
    with pytest.raises(InputFileError) as caught:
        load_report(path)
    assert "\n" not in str(caught.value)


def _loads_or_input_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "fuzz.json"
    path.write_bytes(content)
    message = ""
    try:
        report = load_report(path)
    except InputFileError as error:
        message = str(error)
    else:
        assert isinstance(report, Report)
    assert "\n" not in message


FUZZ = settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)


@FUZZ
@given(content=st.binary(max_size=300))
def test_fuzz_random_bytes_never_escape_as_another_exception(
    tmp_path: Path, content: bytes
) -> None:
    _loads_or_input_error(tmp_path, content)


@FUZZ
@given(data=JSON)
def test_fuzz_random_json_never_escapes_as_another_exception(tmp_path: Path, data: object) -> None:
    _loads_or_input_error(tmp_path, json.dumps(data).encode())


def _paths(value: object, prefix: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    found = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*prefix, index))
    return found


VALID = json.loads(_valid_text())
VALID_PATHS = _paths(VALID)[1:]


@FUZZ
@given(where=st.sampled_from(VALID_PATHS), replacement=JSON, cut=st.integers(0, 5000))
def test_fuzz_damaged_reports_never_escape_as_another_exception(
    tmp_path: Path, where: tuple[object, ...], replacement: object, cut: int
) -> None:
    # A real report with one value swapped for random JSON reaches the model's validation,
    # and cutting its text short reaches the parser's end-of-file paths.
    data = json.loads(_valid_text())
    parent = data
    for step in where[:-1]:
        parent = parent[step]
    parent[where[-1]] = replacement
    text = json.dumps(data).encode()
    _loads_or_input_error(tmp_path, text)
    _loads_or_input_error(tmp_path, text[:cut])


def test_every_renderer_is_a_string_function() -> None:
    functions: list[Callable[[Report], str]] = [
        render_markdown, render_html, render_junit, render_console,
    ]  # fmt: skip
    assert set(FORMATS.values()) == set(functions)
