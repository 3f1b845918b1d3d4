"""README.md's excerpt of the console report is lines of a real run of the command it shows."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from tests.docs.markdown_pages import ROOT, blocks

README = ROOT / "README.md"


def test_the_readme_console_excerpt_is_what_its_command_prints(tmp_path: Path) -> None:
    found = blocks(README.read_text(encoding="utf-8"))
    [source] = [block for block in found if block.marker == "file: mine.py"]
    run = "example: quickstart-run"
    [at] = [i for i, block in enumerate(found) if block.marker.startswith(run)]
    command, excerpt = found[at], found[at + 1]
    assert excerpt.language == "text", "the excerpt follows the quickstart command"
    (tmp_path / "mine.py").write_text(source.text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COMPACTCHECK_"))}
    env.update(COLUMNS="80", PATH=os.pathsep.join([str(Path(sys.executable).parent), env["PATH"]]))
    done = subprocess.run(
        shlex.split(command.text.strip()),
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    printed = [line.rstrip() for line in done.stdout.splitlines()]
    missing = [line for line in excerpt.text.splitlines() if line.rstrip() not in printed]
    assert not missing, "README lines the run does not print:\n" + "\n".join(missing)
    # In the run's order, too.
    places = [printed.index(line.rstrip()) for line in excerpt.text.splitlines()]
    assert places == sorted(places)
    assert not re.search(r"\bex/n\b", excerpt.text)
