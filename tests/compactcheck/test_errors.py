"""One error root for the toolkit, and one way to put an error on one line."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ValidationError

from compactcheck.adapters import MissingExtraError
from compactcheck.backends.harness_process import HarnessStartError
from compactcheck.backends.protocol import ProtocolError
from compactcheck.base.errors import CompactcheckError, InputFileError, OutputFileError, one_line
from compactcheck.corpus.entry import CorpusEntry
from compactcheck.scale.database import DatabaseError
from compactcheck.scale.merge import MergeError
from compactcheck.targets.registry import TargetError


class _Pair(BaseModel):
    left: int
    right: int


@pytest.mark.parametrize(
    "error",
    [
        DatabaseError,
        HarnessStartError,
        InputFileError,
        MergeError,
        MissingExtraError,
        OutputFileError,
        ProtocolError,
        TargetError,
    ],
)
def test_every_user_facing_error_has_the_one_root(error: type[Exception]) -> None:
    assert issubclass(error, CompactcheckError)


def test_a_validation_error_is_where_and_what_of_its_first_problem_and_how_many_more() -> None:
    with pytest.raises(ValidationError) as raised:
        _Pair.model_validate({"left": "x\ny", "right": []})
    assert one_line(raised.value) == (
        "left: Input should be a valid integer, unable to parse string as an integer "
        "(and 1 more problems)"
    )


def test_a_problem_at_the_top_level_says_so() -> None:
    with pytest.raises(ValidationError) as raised:
        CorpusEntry.model_validate([])
    assert one_line(raised.value).startswith("(top level): ")


def test_any_other_error_or_text_loses_its_line_breaks() -> None:
    assert one_line(ValueError("first\n  second\tthird")) == "first second third"
    assert one_line("a\r\nb") == "a b"
