"""A ruling the reading cannot settle is the verdict review everywhere a user looks: `check`,
`run` and the plugin list its items; it fails nothing unless --strict-review; a `cmd:` judge
settles it (a real program, answering one JSON line per item)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from compactcheck.report.io import load_report
from tests.compactcheck.commandline import cli, pytest_in

BEFORE = [
    {"role": "system", "content": "You are a coding agent."},
    {
        "role": "user",
        "content": "Goal: Fix the login bug (AUTH-142)\n\nConstraints:\n"
        "- [c1] Do not touch the public API\n- [c2] Use Python 3.11",
    },
    {"role": "assistant", "content": "Reading the code."},
    {"role": "user", "content": "Go on."},
    {"role": "assistant", "content": "Found the bug in auth.py."},
    {"role": "user", "content": "Fix it now."},
]
# A hedge no mechanical evidence proves a softening: the reading leans to "weakened" and says
# it is not sure.
AFTER = [
    BEFORE[0],
    {
        "role": "user",
        "content": "Summary so far: fix the login bug (AUTH-142). Generally, try not to touch "
        "the public API. The project uses Python 3.11. The bug is in auth.py.",
    },
    BEFORE[-1],
]

# A judge of the user's own: every item it is asked about is a loss.
JUDGE = """
import json, sys
for line in sys.stdin:
    asked = json.loads(line)
    print(json.dumps({"id": asked["id"], "verdict": "loss", "reason": "a hedge softens it"}),
          flush=True)
"""


def _pair(tmp_path: Path) -> tuple[str, str]:
    before, after = tmp_path / "before.json", tmp_path / "after.json"
    before.write_text(json.dumps(BEFORE))
    after.write_text(json.dumps(AFTER))
    return str(before), str(after)


def test_check_lists_items_for_review_and_passes_unless_review_is_strict(tmp_path: Path) -> None:
    before, after = _pair(tmp_path)
    done = cli("check", before, after, cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "review constraints_not_weakened" in done.stdout
    assert "for review constraint 'Do not touch the public API', leaning weakened" in done.stdout
    assert "0 violations; 1 law left for review" in done.stdout
    strict = cli("check", before, after, "--strict-review", cwd=tmp_path)
    assert strict.returncode == 1, strict.stdout + strict.stderr


def test_a_cmd_judge_settles_the_item_and_a_loss_becomes_a_violation(tmp_path: Path) -> None:
    before, after = _pair(tmp_path)
    program = tmp_path / "judge.py"
    program.write_text(JUDGE)
    judged = cli("check", before, after, "--judge", f"cmd:{sys.executable} {program}", cwd=tmp_path)
    assert judged.returncode == 1, judged.stdout + judged.stderr
    assert "violation constraints_not_weakened" in judged.stdout
    said = " ".join(judged.stdout.split())
    assert f"settled loss, by cmd:{sys.executable} {program}: a hedge softens it" in said


def test_a_bad_judge_name_is_one_line(tmp_path: Path) -> None:
    before, after = _pair(tmp_path)
    done = cli("check", before, after, "--judge", "oracle:best", cwd=tmp_path)
    assert done.returncode == 2
    assert "expected openai:MODEL, anthropic:MODEL or cmd:PROGRAM" in done.stderr
    assert "Traceback" not in done.stderr


# A summariser of the user's own, worded as a model hedges: every constraint line comes back
# after "Generally," (its facts all kept, its force softened).
HEDGING = """
def compact(messages):
    system = [m for m in messages if m["role"] == "system"]
    rest = [m for m in messages if m["role"] != "system"]
    users = [i for i, m in enumerate(rest) if m["role"] == "user"]
    if len(users) < 2:
        return messages
    text = "\\n".join(m["content"] for m in rest if isinstance(m.get("content"), str))
    lines = []
    for line in text.splitlines():
        body = line.strip().lstrip("-").strip()
        if body.startswith("[c"):
            rule = body.split("]", 1)[1].strip()
            lines.append("Generally, " + rule[0].lower() + rule[1:] + ".")
        elif body:
            lines.append(body)
    tail = rest[users[-1]:]
    return [*system, {"role": "user", "content": "Summary: " + " ".join(lines)}, *tail]
"""


def test_run_reports_review_with_its_items_and_strict_review_fails_it(tmp_path: Path) -> None:
    (tmp_path / "hedging.py").write_text(HEDGING)
    common = (
        "run",
        "py:hedging.py:compact",
        "--max-examples",
        "20",
        "--seed",
        "1",
        "--invariants",
        "constraints_not_weakened",
        "--in-process",
    )
    done = cli(*common, "--json", "report.json", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    results = load_report(tmp_path / "report.json").targets[0].results
    [result] = [r for r in results if r.invariant == "constraints_not_weakened"]
    assert result.verdict == "review", result
    assert result.reviewed >= 1
    assert "review 1: constraints_not_weakened" in done.stdout
    strict = cli(*common, "--strict-review", "--json", "strict.json", cwd=tmp_path)
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert load_report(tmp_path / "strict.json").strict_review


def test_the_plugin_passes_a_law_left_for_review_with_a_warning(tmp_path: Path) -> None:
    (tmp_path / "hedging.py").write_text(HEDGING)
    (tmp_path / "test_mine.py").write_text(
        "import pytest\n\n"
        '@pytest.mark.compactcheck("py:hedging.py:compact", max_examples=20)\n'
        "def test_compactor(compactcheck_law):\n"
        "    compactcheck_law.check()\n"
    )
    options = ("--compactcheck-invariants", "constraints_not_weakened", "-rA", "-W", "default")
    done = pytest_in(tmp_path, *options)
    text = done.stdout + done.stderr
    assert done.returncode == 0, text
    assert "ReviewWarning" in text
    assert "items for review" in text or "item for review" in text
    strict = pytest_in(tmp_path, *options, "--compactcheck-strict-review")
    assert strict.returncode == 1, strict.stdout + strict.stderr
    assert "--compactcheck-strict-review: an item for review fails its law" in strict.stdout
