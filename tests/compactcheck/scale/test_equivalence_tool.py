"""The whole-suite equivalence tool (``./dev equivalence``) reads JUnit files and compares."""

from __future__ import annotations

from pathlib import Path

from tests.equivalence import compare, outcomes

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="tests.a" name="test_ok" time="0.1"/>
<testcase classname="tests.a" name="test_bad" time="0.1"><failure message="x">x</failure></testcase>
<testcase classname="tests.b" name="test_skip" time="0"><skipped message="y">y</skipped></testcase>
<testcase classname="tests.b" name="test_teardown" time="0"/>
<testcase classname="tests.b" name="test_teardown" time="0"><error message="z">z</error></testcase>
</testsuite></testsuites>
"""


def test_outcomes_name_every_test_with_its_worst_outcome(tmp_path: Path) -> None:
    path = tmp_path / "junit.xml"
    path.write_text(JUNIT)
    assert outcomes(path) == {
        "tests.a::test_ok": "passed",
        "tests.a::test_bad": "failure",
        "tests.b::test_skip": "skipped",
        "tests.b::test_teardown": "error",
    }


def test_compare_lists_changed_and_missing_tests() -> None:
    serial = {"a": "passed", "b": "failure", "c": "skipped"}
    parallel = {"a": "passed", "b": "passed", "d": "passed"}
    assert compare(serial, parallel) == [
        "  b: -n 0 failure, -n 2 passed",
        "  c: -n 0 skipped, -n 2 absent",
        "  d: -n 0 absent, -n 2 passed",
    ]
    assert compare(serial, dict(serial)) == []
