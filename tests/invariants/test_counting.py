"""Budget counters: the built-in ones, a function of the user's own, and real tokens offline."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from compactcheck.invariants import Budget
from compactcheck.invariants.counting import CounterError, counter_name, text_counter
from compactcheck.invariants.laws.messages.size import message_size
from compactcheck.invariants.messages import parse_messages

MESSAGES = parse_messages(
    [
        {"role": "user", "content": "fix the bug in parser.py"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read", "arguments": '{"path": "parser.py"}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": "def parse(): pass"},
    ]
)


def words(text: str) -> int:
    return len(text.split())


def test_the_built_in_counters_count_messages_characters_and_characters_over_four() -> None:
    characters = len("fix the bug in parser.py") + len('{"path": "parser.py"}') + 17
    assert message_size(MESSAGES, "messages") == 3
    assert message_size(MESSAGES, "characters") == characters
    assert message_size(MESSAGES, "approx_tokens") == -(-characters // 4)


def test_a_function_of_ones_own_counts_each_text_and_the_list_is_their_sum() -> None:
    name = counter_name(words)
    assert name == f"py:{__name__}:words"
    # Content and tool call arguments apart: 5 words, 2 words, 3 words (empty content: none).
    assert message_size(MESSAGES, name) == 5 + 2 + 3
    assert Budget(limit=5, counter=words).counter == name


def test_a_counter_named_py_module_function_is_imported(tmp_path: Path) -> None:
    (tmp_path / "mycounting.py").write_text("def chars(text):\n    return 2 * len(text)\n")
    sys.path.insert(0, str(tmp_path))
    try:
        budget = Budget.model_validate_json('{"limit": 9, "counter": "py:mycounting:chars"}')
        assert message_size(MESSAGES, budget.counter) == 2 * message_size(MESSAGES, "characters")
    finally:
        sys.path.remove(str(tmp_path))


@pytest.mark.parametrize(
    ("given", "said"),
    [
        ("bogus", "unknown budget counter 'bogus'; expected messages, characters, approx_tokens"),
        ("py:no_such_module_here:f", "cannot import no_such_module_here"),
        ("py:os:no_such_function", "os has no no_such_function"),
        ("py:os:sep", "sep is not a function"),
        ("py:__main__:<lambda>", "a function given in code is known only to the process"),
        ("py:os:getenv", "returned None for a text of 12 characters"),
        ("py:json:loads", "failed on a text of 12 characters (JSONDecodeError"),
        (lambda text: "many", "returned 'many' for a text of 12 characters"),
        (lambda text: -1, "a counter returns a whole number of 0 or more"),
        (lambda: 1, "a counter takes one text (str) and returns its size"),
        (3, "budget counter: expected messages"),
    ],
)
def test_a_counter_that_cannot_count_is_refused_in_one_line(given: object, said: str) -> None:
    with pytest.raises(CounterError, match="budget counter") as raised:
        counter_name(given)
    assert said in str(raised.value)
    assert "\n" not in str(raised.value)


def test_real_tokens_are_counted_with_the_network_unavailable(tmp_path: Path) -> None:
    pytest.importorskip("bpe_openai", reason="the tokens extra: pip install 'compactcheck[tokens]'")
    # A process in which opening any socket fails: the vocabularies must come from the wheel.
    script = textwrap.dedent(
        """
        import socket

        def refused(*args, **kwargs):
            raise OSError("no network in this test")

        socket.socket = refused
        socket.create_connection = refused
        from compactcheck.invariants.counting import text_counter
        print(text_counter("tokens:cl100k_base")("hello world"))
        print(text_counter("tokens:o200k_base")("Smoke tests keep releases honest."))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    # cl100k_base: [15339, 1917]; o200k_base: six tokens, the period one of them.
    assert done.stdout.split() == ["2", "6"]


def test_real_tokens_say_the_extra_or_the_encodings_they_need() -> None:
    pytest.importorskip("bpe_openai", reason="the tokens extra: pip install 'compactcheck[tokens]'")
    with pytest.raises(CounterError, match="unknown encoding; known: o200k_base"):
        text_counter("tokens:o300k_base")
