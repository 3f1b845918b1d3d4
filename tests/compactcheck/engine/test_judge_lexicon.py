"""A messages run loads the lemma dictionary with its judge, before its first case is timed."""

from __future__ import annotations

import subprocess
import sys
import textwrap

# In a fresh interpreter: whether simplemma's English dictionary is loaded after building the
# judge of a view (nothing is judged yet).
_PROBE = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from simplemma.strategies.dictionaries.dictionary_factory import DEFAULT_DICTIONARY_FACTORY
    from compactcheck.engine.config import RunConfig
    from compactcheck.engine.target_run import TargetRun
    from compactcheck.targets.registry import resolve

    view = sys.argv[1]
    name = {"messages": "reference-messages", "session": "reference-session"}[view]
    target = resolve(name)
    try:
        TargetRun(target, view, RunConfig(seed=0, max_examples=1, corpus_dir=Path(sys.argv[2])))
    finally:
        target.close()
    print(DEFAULT_DICTIONARY_FACTORY._get_dictionary.cache_info().currsize)
    """
)


def _loaded_after_judge(view: str, folder: str) -> int:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, view, folder],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return int(done.stdout.split()[-1])


def test_a_messages_judge_loads_the_dictionary(tmp_path: object) -> None:
    assert _loaded_after_judge("messages", str(tmp_path)) == 1


def test_a_session_judge_leaves_it_unloaded(tmp_path: object) -> None:
    # The session laws read no prose: nothing to load.
    assert _loaded_after_judge("session", str(tmp_path)) == 0
