"""Every code example of README.md and of the site's pages runs as its marker says.

A ```python, ```sh, ```bash or ```console block carries one marker on the line above it:

- ``<!-- example: NAME -->``: run it (python with ``python -c``, sh with ``bash -e``, console
  as its ``$ `` lines); it must exit 0, or N with ``<!-- example: NAME exit=N -->``;
- ``<!-- file: PATH -->``: write its text to PATH (any language), for the examples after it;
- ``<!-- shown: REASON -->``: not run, for the REASON given.

The blocks of a page run in order, in one fresh folder holding a copy of examples/, with this
environment's ``compactcheck``, ``python`` and ``pytest`` first on PATH. JSON, TOML and YAML
blocks must parse (YAML when PyYAML is installed). A page whose examples need an optional extra
says so in a line ``<!-- needs: MODULE [MODULE ...] -->``: where one of those modules is not
installed (``./dev lowest`` installs no framework extra), its examples are skipped, naming it;
its markers are still checked.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from tests.docs.markdown_pages import ROOT, Block, blocks, page_id, site_pages

# PyYAML is not a dependency of ours: without it, YAML blocks go unparsed.
_YAML: ModuleType | None
try:
    _YAML = importlib.import_module("yaml")
except ImportError:
    _YAML = None

RUN = {"python": "python", "py": "python", "sh": "bash", "bash": "bash", "shell": "bash"}
# Languages whose blocks must carry a marker: those that can be run.
MARKED = (*RUN, "console")
_EXAMPLE = re.compile(r"^example: (?P<name>[\w.-]+)(?: exit=(?P<exit>\d+))?$")
_FILE = re.compile(r"^file: (?P<path>\S+)$")
_SHOWN = re.compile(r"^shown:(?P<reason>.*)$")
# A run's output past this is cut in a failure message, keeping its end.
_TAIL = 4000
_TIMEOUT = 300


def _json(text: str) -> None:
    try:
        json.loads(text)
    except json.JSONDecodeError:
        # JSON Lines: one value per line.
        for line in text.splitlines():
            if line.strip():
                json.loads(line)


def _yaml(text: str) -> None:
    if _YAML is not None:
        list(_YAML.safe_load_all(text))


PARSERS: dict[str, Callable[[str], object]] = {
    "json": _json,
    "toml": tomllib.loads,
    "yaml": _yaml,
    "yml": _yaml,
}


def problems(page: str, found: list[Block]) -> list[str]:
    """What is wrong with a page's blocks, before any is run: one line each."""
    said = []
    for block in found:
        where = f"{page}:{block.line}: ```{block.language} block"
        marker = block.marker
        known = _EXAMPLE.match(marker) or _FILE.match(marker) or _SHOWN.match(marker)
        if block.language in MARKED and not known:
            said.append(
                f"{where} has no marker; put <!-- example: NAME -->, <!-- file: PATH --> or "
                "<!-- shown: REASON --> on the line above it"
                + (f" (found <!--{marker}-->)" if marker else "")
            )
        shown = _SHOWN.match(marker)
        if shown and not shown["reason"].strip():
            said.append(f"{where}: <!-- shown: --> needs a reason (why it is not run)")
        if _EXAMPLE.match(marker) and block.language not in (*RUN, "console"):
            said.append(f"{where}: only python, sh, bash and console blocks can be run")
        written = _FILE.match(marker)
        if written and (Path(written["path"]).is_absolute() or ".." in Path(written["path"]).parts):
            said.append(
                f"{where}: <!-- file: {written['path']} --> must name a path inside the folder"
            )
        parse = PARSERS.get(block.language)
        if parse is not None:
            try:
                parse(block.text)
            except Exception as error:
                said.append(f"{where} does not parse: {error}")
    return said


_NEEDS = re.compile(r"^<!-- needs: (?P<modules>[\w. ]+) -->$", re.M)


def missing_modules(text: str) -> list[str]:
    """The modules a page's examples need (its ``needs:`` lines) that are not installed here."""
    needed = [name for match in _NEEDS.finditer(text) for name in match["modules"].split()]
    return [name for name in needed if importlib.util.find_spec(name.split(".")[0]) is None]


def _console(text: str) -> str:
    """A console block's commands: its ``$ `` lines, without the prompt."""
    return "\n".join(line[2:] for line in text.splitlines() if line.startswith("$ "))


def _command(block: Block) -> list[str]:
    if block.language == "console":
        return ["bash", "-e", "-c", _console(block.text)]
    if RUN[block.language] == "python":
        return [sys.executable, "-c", block.text]
    return ["bash", "-e", "-c", block.text]


def _environment() -> dict[str, str]:
    """This environment's executables first on PATH; nothing of the test session's own."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTEST_", "COMPACTCHECK_", "COV_", "HYPOTHESIS_"))
    }
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def run_page(page: str, text: str, folder: Path) -> list[str]:
    """Run a page's blocks in order in ``folder``; a line per block that did not do as marked."""
    failed = []
    for block in blocks(text):
        written = _FILE.match(block.marker)
        if written:
            path = folder / written["path"]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(block.text, encoding="utf-8")
            continue
        example = _EXAMPLE.match(block.marker)
        if not example:
            continue
        expected = int(example["exit"] or 0)
        done = subprocess.run(
            _command(block),
            cwd=folder,
            env=_environment(),
            capture_output=True,
            text=True,
            check=False,
            timeout=_TIMEOUT,
        )
        if done.returncode != expected:
            output = (done.stdout + done.stderr)[-_TAIL:]
            failed.append(
                f"{page}:{block.line}: example {example['name']} exited {done.returncode}, "
                f"expected {expected}:\n{output}"
            )
    return failed


@pytest.mark.parametrize("path", site_pages(), ids=page_id)
def test_the_examples_of_a_page_run_as_marked(path: Path, tmp_path: Path) -> None:
    page = page_id(path)
    text = path.read_text(encoding="utf-8")
    said = problems(page, blocks(text))
    assert not said, "\n".join(said)
    missing = missing_modules(text)
    if missing:
        pytest.skip(f"{page}: its examples need {', '.join(missing)}, not installed here")
    shutil.copytree(ROOT / "examples", tmp_path / "examples")
    failed = run_page(page, text, tmp_path)
    assert not failed, "\n\n".join(failed)
