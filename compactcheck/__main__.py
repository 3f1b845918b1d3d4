"""`python -m compactcheck` runs the command line."""

import sys

from compactcheck.cli import main

sys.exit(main())
