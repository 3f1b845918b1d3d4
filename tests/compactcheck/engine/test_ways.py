"""A law broken in two distinct ways keeps a shrunk witness of each, with a corpus entry each,
shown in the console and the JSON report, and kept when shards are merged."""

from __future__ import annotations

import json
from pathlib import Path

from compactcheck.scale.merge import merge_results
from tests.compactcheck.commandline import cli, load

# A system prompt that states constraints is demoted into a user message; one that states none
# is dropped: two distinct failures of constraints_preserved, on distinct histories.
TWO_WAYS = """
def compact(messages):
    out = [dict(m) for m in messages]
    for i, m in enumerate(out):
        if m.get("role") == "system":
            if "Constraints:" in str(m.get("content")):
                out[i]["role"] = "user"
            else:
                del out[i]
            break
    return out
"""
DEMOTED = "its text was demoted into the user message"
MISSING = "is missing from the output"


def test_two_ways_of_one_law_get_two_witnesses_and_two_entries(tmp_path: Path) -> None:
    (tmp_path / "two.py").write_text(TWO_WAYS)
    done = cli(
        "run",
        "py:two.py:compact",
        "--seed",
        "2",
        "--max-examples",
        "20",
        "--invariants",
        "constraints_preserved",
        "--corpus",
        "corpus",
        "--json",
        "report.json",
        cwd=tmp_path,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    [target] = load(tmp_path / "report.json").targets
    [result] = [r for r in target.results if r.invariant == "constraints_preserved"]
    assert result.verdict == "violation"
    assert result.ways == 2
    assert result.counterexample is not None
    [other] = result.other_ways
    shown = [result.counterexample, other]
    # One way each, and each witness is its way's: demoted in one, dropped in the other.
    assert {DEMOTED in e.because for e in shown} == {True, False}
    assert all(MISSING in e.because for e in shown if DEMOTED not in e.because)
    # The ways are the kinds the law gave the violations, not their sentences, in the order
    # the law declares them (whichever the run met first).
    assert [e.way for e in shown] == ["system missing", "system demoted"]
    data = json.loads((tmp_path / "report.json").read_text())
    [raw] = [r for r in data["targets"][0]["results"] if r["invariant"] == "constraints_preserved"]
    assert {raw["counterexample"]["way"], raw["other_ways"][0]["way"]} == {e.way for e in shown}
    assert all(e.failed > 0 for e in shown)
    assert sum(e.failed for e in shown) <= result.exercised

    # Two corpus entries, each the one its counterexample names, each witness shrunk small.
    entries = sorted((tmp_path / "corpus").iterdir())
    assert len(entries) == 2
    assert {str(e.corpus_file) for e in shown} == {str(path) for path in entries}
    for example in shown:
        entry = json.loads(Path(str(example.corpus_file)).read_text())
        assert entry["because"] == example.because
        assert entry["way"] == example.way
        # Found at 21 messages for this seed (--no-shrink): each way had its own hunt.
        assert example.history_size <= 5

    # Both in the console, each with its own panel, its way, and its corpus file.
    out = done.stdout.replace("\n", "").replace("│", "").replace(" ", "")
    assert "seeviolations1-2" in out
    assert "violation1:constraints_preserved" in out
    assert "violation2:constraints_preserved" in out
    assert "way1of2(system" in out
    assert "way2of2(system" in out
    assert "(systemmissing)" in out
    assert "(systemdemoted)" in out
    for path in entries:
        assert path.name.replace(" ", "") in out
    # The count line says why the entries outnumber the laws.
    assert "(constraints_preservedbrokein2ways,awitnesseach)" in out

    # Shards that each found one way merge into both, whichever order they are named in.
    one = result.model_copy(update={"other_ways": [], "ways": 1})
    two = result.model_copy(update={"counterexample": other, "other_ways": [], "ways": 1})
    merged = [merge_results([one, two]), merge_results([two, one])]
    assert merged[0] == merged[1]
    assert merged[0].ways == 2
    assert merged[0].counterexample is not None
    ways = [merged[0].counterexample.way, *(e.way for e in merged[0].other_ways)]
    assert ways == [e.way for e in shown]

    # Replay finds both entries again, grouped under their law.
    replayed = cli("replay", "corpus", cwd=tmp_path)
    assert "constraints_preserved (2)" in replayed.stdout, replayed.stdout
    assert replayed.stdout.count("STILL FAILING") == 2, replayed.stdout


def test_a_witness_keeps_its_way_while_it_shrinks(tmp_path: Path) -> None:
    # The same run unshrunk: the ways first found are the ways of the shrunk witnesses, none
    # grew, and the one found large (21 messages for this seed) shrank.
    (tmp_path / "two.py").write_text(TWO_WAYS)
    sizes: list[dict[str, int]] = []
    for name, extra in (("found", ["--no-shrink"]), ("shrunk", [])):
        done = cli(
            "run",
            "py:two.py:compact",
            "--seed",
            "2",
            "--max-examples",
            "20",
            "--invariants",
            "constraints_preserved",
            "--corpus",
            name,
            "--json",
            f"{name}.json",
            *extra,
            cwd=tmp_path,
        )
        assert done.returncode == 1, done.stdout + done.stderr
        [result] = [r for r in load(tmp_path / f"{name}.json").targets[0].results if r.ways]
        assert result.counterexample is not None
        shown = [result.counterexample, *result.other_ways]
        sizes.append({e.way: e.history_size for e in shown})
    found, shrunk = sizes
    assert set(found) == set(shrunk) == {"system demoted", "system missing"}
    assert all(shrunk[way] <= found[way] for way in found), (found, shrunk)
    assert shrunk["system demoted"] < found["system demoted"], (found, shrunk)
