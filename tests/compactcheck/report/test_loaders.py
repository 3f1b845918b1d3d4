"""The toolkit's own loaders, fuzzed: bad files give InputFileError, never another exception."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compactcheck.base.errors import InputFileError
from compactcheck.corpus.entry import load_entry
from compactcheck.reference_engine.golden import load_case
from compactcheck.report.io import load_report

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=10),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=20,
)
# Shapes close to the real files, so the fuzzing reaches past the first key check.
NEAR = st.fixed_dictionaries(
    {
        "corpusVersion": st.sampled_from([1, 2, "1"]),
        "target": JSON,
        "view": JSON,
        "invariant": JSON,
        "round": JSON,
        "facts": JSON,
        "input": JSON,
    },
    optional={"name": JSON, "rounds": JSON, "schema_version": JSON, "targets": JSON},
)
CONTENT = st.one_of(
    st.binary(max_size=200),
    JSON.map(lambda value: json.dumps(value).encode()),
    NEAR.map(lambda value: json.dumps(value).encode()),
    st.text(max_size=50).map(lambda text: text.encode("utf-8", "surrogatepass")),
)
LOADERS: dict[str, Callable[[Path], Any]] = {
    "corpus": load_entry,
    "golden": load_case,
    "report": load_report,
}


@pytest.mark.parametrize("name", sorted(LOADERS))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=CONTENT)
def test_no_traceback_escapes_a_loader(name: str, content: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "input.json"
        path.write_bytes(content)
        try:
            LOADERS[name](path)
        except InputFileError as error:
            message = str(error)
            assert "\n" not in message
            assert str(path) in message


@pytest.mark.parametrize("name", sorted(LOADERS))
def test_a_missing_or_folder_path_is_one_line(name: str, tmp_path: Path) -> None:
    for path in (tmp_path / "missing.json", tmp_path):
        with pytest.raises(InputFileError) as raised:
            LOADERS[name](path)
        assert "\n" not in str(raised.value)
