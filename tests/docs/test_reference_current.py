"""The committed reference pages (docs/reference/) are what the code makes of itself now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from docsgen.pages import REFERENCE, write
from tests.docs.markdown_pages import ROOT

_FIX = "run `./dev docs --regenerate` (or `python -m docsgen`) and commit docs/reference/"


def test_every_reference_page_is_current(tmp_path: Path) -> None:
    write(tmp_path)
    made = {path.name: path.read_bytes() for path in tmp_path.iterdir()}
    committed = {path.name: path.read_bytes() for path in REFERENCE.iterdir() if path.is_file()}
    stale = sorted(name for name in made if committed.get(name) != made[name])
    extra = sorted(set(committed) - set(made))
    assert not stale, f"stale: {', '.join(f'docs/reference/{name}' for name in stale)}; {_FIX}"
    assert not extra, (
        f"not generated: {', '.join(f'docs/reference/{name}' for name in extra)}; the reference "
        "is generated whole (docsgen/pages.py lists its pages)"
    )


def test_the_generator_s_check_names_a_stale_page_and_exits_1(tmp_path: Path) -> None:
    write(tmp_path)
    (tmp_path / "laws.md").write_text("# Laws\n\nwritten by hand\n", encoding="utf-8")
    command = [sys.executable, "-m", "docsgen", "--check", "--out", str(tmp_path)]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "docs/reference/laws.md" in done.stdout
    assert "docs/reference/cli.md" not in done.stdout


def test_the_pages_are_the_same_whatever_the_terminal_and_hash_seed(tmp_path: Path) -> None:
    # Made in a process of its own: another hash seed, a narrow terminal, another folder.
    script = "import sys, pathlib, docsgen.pages as p; p.write(pathlib.Path(sys.argv[1]))"
    env = {"PYTHONHASHSEED": "12345", "COLUMNS": "40", "PATH": "/usr/bin:/bin"}
    subprocess.run([sys.executable, "-c", script, str(tmp_path)], cwd=ROOT, env=env, check=True)
    for path in sorted(tmp_path.iterdir()):
        assert path.read_bytes() == (REFERENCE / path.name).read_bytes(), path.name
