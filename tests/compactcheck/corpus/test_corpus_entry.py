"""The crash corpus entry: today's files keep loading, bad ones fail in one line naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from compactcheck.base.errors import CompactcheckError
from compactcheck.corpus.entry import CorpusEntry, load_entry, read_entry, write_entry
from compactcheck.corpus.replay import recorded_rounds
from compactcheck.invariants.formats import CHAT
from compactcheck.schemas import shipped

# An entry exactly as compactcheck 0.x writes it (corpusVersion 1), kept literal so that a change
# of the model cannot quietly change what counts as a loadable file.
TODAY = """{
 "corpusVersion": 1,
 "target": "mutant:drop-first-user",
 "view": "messages",
 "invariant": "user_turn_present",
 "seed": 1234,
 "toolkitVersion": "0.1.0",
 "round": 2,
 "shrunk": true,
 "because": "the first user message was dropped",
 "facts": {
  "budget": null,
  "constraints": [],
  "goal": "fix the build"
 },
 "input": {
  "messages": [
   {
    "role": "user",
    "content": "fix the build"
   }
  ],
  "knobs": [
   0
  ]
 },
 "output": {
  "messages": []
 }
}"""


ABSENT = object()
"""A key left out of the file."""


def _changed(**changes: Any) -> str:
    data = json.loads(TODAY)
    for key, value in changes.items():
        if value is ABSENT:
            del data[key]
        else:
            data[key] = value
    return json.dumps(data)


def _file(folder: Path, text: str, name: str = "entry.json") -> Path:
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def _entry(**changes: Any) -> CorpusEntry:
    fields: dict[str, Any] = {
        "target": "t",
        "view": "messages",
        "invariant": "tool_pairing",
        "seed": 7,
        "toolkit_version": "0.1.0",
        "round": 1,
        "input": {"messages": [{"role": "user", "content": "hi"}]},
        "facts": {"budget": None},
        "because": "an orphan tool result",
    }
    return CorpusEntry(**{**fields, **changes})


def test_an_entry_in_todays_format_loads(tmp_path: Path) -> None:
    path = _file(tmp_path, TODAY)
    entry = read_entry(path)
    assert (entry.target, entry.view, entry.invariant) == (
        "mutant:drop-first-user",
        "messages",
        "user_turn_present",
    )
    assert (entry.seed, entry.toolkit_version, entry.round, entry.shrunk) == (
        1234,
        "0.1.0",
        2,
        True,
    )
    # The loader's JSON data is the file's data: same keys, same values, same order.
    assert list(load_entry(path).items()) == list(json.loads(TODAY).items())


def test_an_entry_read_and_written_again_is_the_same_file(tmp_path: Path) -> None:
    written = write_entry(tmp_path / "corpus", read_entry(_file(tmp_path, TODAY)))
    assert written.read_text(encoding="utf-8") == TODAY


def test_output_and_shrunk_have_defaults_and_are_always_written() -> None:
    data = _entry().to_json_data()
    assert (data["corpusVersion"], data["output"], data["shrunk"]) == (1, None, False)


# Every shape the loader of corpusVersion 1 has always taken: it checked the version and the keys
# a replay needs (target, view, invariant, round, facts, input), and nothing else.
@pytest.mark.parametrize(
    "changes",
    [
        {"seed": ABSENT, "toolkitVersion": ABSENT, "because": ABSENT},
        {"shrunk": ABSENT, "output": ABSENT},
        {"input": None, "output": None},
        {"facts": {}, "view": "a view from a later version"},
        {"comment": "unknown keys are ignored"},
    ],
)
def test_entries_the_old_loader_took_still_load(tmp_path: Path, changes: dict[str, Any]) -> None:
    entry = load_entry(_file(tmp_path, _changed(**changes)))
    assert entry["target"] == "mutant:drop-first-user"
    assert "comment" not in entry


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"corpusVersion": 2}, "corpusVersion 1"),
        ({"corpusVersion": ABSENT}, "corpusVersion 1"),
        ({"round": "2"}, "round"),
        ({"round": True}, "round"),
        ({"target": 3}, "target"),
        ({"facts": []}, "facts"),
        ({"seed": "1234"}, "seed"),
        ({"invariant": ABSENT}, "invariant"),
        ({"input": ABSENT}, "input"),
    ],
)
def test_a_malformed_entry_is_one_line_naming_the_file(
    tmp_path: Path, changes: dict[str, Any], named: str
) -> None:
    path = _file(tmp_path, _changed(**changes), "bad entry.json")
    with pytest.raises(CompactcheckError) as raised:
        load_entry(path)
    message = str(raised.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: ")
    assert named in message


def test_todays_format_and_written_entries_match_the_shipped_schema(tmp_path: Path) -> None:
    validator = jsonschema.Draft202012Validator(shipped("corpus-entry"))
    validator.validate(json.loads(TODAY))
    written = write_entry(tmp_path, _entry(output={"messages": []}, shrunk=True))
    validator.validate(json.loads(written.read_text(encoding="utf-8")))
    # The schema refuses what the loader refuses.
    refused: list[dict[str, Any]] = [
        {"round": "2"},
        {"corpusVersion": 2},
        {"corpusVersion": ABSENT},
        {"facts": []},
    ]
    for changes in refused:
        assert not validator.is_valid(json.loads(_changed(**changes)))


def test_the_entries_run_ahead_skip_one_that_names_an_unknown_format(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    kept = write_entry(corpus, _entry(model="echo"))
    other = write_entry(corpus, _entry(invariant="goal_preserved"))
    write_entry(corpus, _entry(invariant="order_preserved", input={"format": "telex"}))
    write_entry(corpus, _entry(target="someone-else"))
    rounds = recorded_rounds(corpus, "t", "messages", CHAT, ("echo",))
    # The entry recorded with the run's model comes first; the unreadable one is left out.
    assert [r["invariant"] for r in rounds] == ["tool_pairing", "goal_preserved"]
    assert {kept.name, other.name} <= {p.name for p in corpus.iterdir()}
