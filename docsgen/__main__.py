"""`python -m docsgen` writes docs/reference/; `--check` exits 1 naming the stale pages."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from docsgen.pages import REFERENCE, stale, write


def main(argv: Sequence[str] | None = None) -> int:
    """Write (or with ``--check``, compare) the generated reference pages; the exit code."""
    parser = argparse.ArgumentParser(prog="python -m docsgen", description=__doc__)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if stale")
    parser.add_argument("--out", type=Path, default=REFERENCE, help="the folder of the pages")
    arguments = parser.parse_args(argv)
    if arguments.check:
        names = stale(arguments.out)
        if names:
            where = ", ".join(f"docs/reference/{name}" for name in names)
            print(f"docsgen: stale: {where}; run `python -m docsgen` (or ./dev docs --regenerate)")
            return 1
        print("docsgen: the reference pages are current")
        return 0
    changed = write(arguments.out)
    print(f"docsgen: wrote {', '.join(changed)}" if changed else "docsgen: nothing changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
