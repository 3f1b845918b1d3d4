"""The words an agent run is made of: small pools of text, shortest first so shrinking shortens."""

from __future__ import annotations

from typing import Final

# Each goal carries a ticket id, as real tasks do: what a summary that rewords the goal must keep
# (the messages laws read facts by such distinctive tokens; see invariants/tokens.py).
GOALS: Final = (
    "Fix the login bug (AUTH-142)",
    "Add a CSV export to the report page (REP-77)",
    "Migrate the settings loader to pydantic (CFG-31)",
    "Speed up the nightly import job by half (OPS-205)",
    "Make the payment retry logic idempotent (PAY-9)",
)

# Constraint texts are taken in rotation, so the texts of one run never repeat: a checker can tell
# a current constraint from the one it superseded by text alone.
CONSTRAINTS: Final = (
    "Use Python 3.11",
    "Do not touch the public API",
    "Never push to main",
    "Keep test coverage above 90%",
    "Write no new dependencies into pyproject.toml",
    "Log nothing that contains a user's email",
    "Every database change needs a migration",
    "Keep each function under 40 lines",
    "Use Python 3.12",
    "Push only to the release branch",
    "Keep test coverage above 80%",
    "Answer the user in French",
)

USER_TEXTS: Final = (
    "Go on.",
    "Please continue.",
    "Start with the failing test.",
    "Check the logs from yesterday first.",
    "The CI run on my branch is red, can you look?",
)

ASSISTANT_TEXTS: Final = (
    "Done.",
    "Looking into it.",
    "The failure comes from a stale cache key.",
    "I will read the module before changing it.",
    "The import job spends most of its time parsing dates.",
)

STEP_TITLES: Final = (
    "Reproduce",
    "Write a failing test",
    "Fix the code",
    "Run the full suite",
    "Update the changelog",
)

CRITERIA: Final = (
    "Tests pass",
    "No new lint warnings",
    "The bug no longer reproduces",
    "The export opens in a spreadsheet",
    "Coverage does not drop",
)

EVIDENCE: Final = (
    "pytest ok",
    "diff reviewed",
    "log shows the fix",
    "reproduced before, gone after",
)

PATHS: Final = (
    "app.py",
    "README.md",
    "src/auth/login.py",
    "src/report/export.py",
    "tests/test_login.py",
    "src/settings/loader.py",
)

READ_TOOLS: Final = ("read_file", "grep", "list_dir", "web_search")

COMMANDS: Final = ("pytest", "ruff check .", "mypy --strict src", "pytest -k login")

OUTPUTS: Final = (
    "ok",
    "3 matches",
    "def login(user): ...",
    "README.md  app.py  src/  tests/",
    "Found 2 results: the retry decorator and its test",
)

ERRORS: Final = (
    "error: timeout",
    "error: file not found",
    "error: permission denied",
    "error: command exited with status 2",
)

VALIDATION_SUMMARIES: Final = ("ok", "1 failed", "12 passed", "2 errors, 40 passed")

ATTEMPTS: Final = (
    "Bumping the timeout did not help",
    "Caching the parser broke two tests",
    "Reverting the last commit did not fix it",
    "Patching the date format failed on leap years",
)

SKILLS: Final = (
    ("git", "Commit, branch and rebase"),
    ("pytest", "Run and read test suites"),
    ("docs", "Write user documentation"),
    ("sql", "Write and review migrations"),
)

QUESTIONS: Final = (
    "Which branch?",
    "May I add a dependency?",
    "Should the export include archived rows?",
    "Is it fine to rename the settings module?",
    "Do you want the fix backported to 2.x?",
)

ANSWERS: Final = ("Yes.", "No.", "main", "Only the last 30 days.", "Ask me again tomorrow.")

# The words bulky contents (file bodies, logs, listings) are built from. None of them, alone or
# joined by "_" or a space, spells a constraint, goal, question or a step id such as "s1".
BODY_WORDS: Final = (
    "cache",
    "date",
    "row",
    "user",
    "token",
    "parser",
    "export",
    "ledger",
    "invoice",
    "payload",
    "retry",
    "header",
    "loader",
    "queue",
    "schema",
    "worker",
    "record",
    "field",
    "entry",
    "limit",
    "batch",
    "config",
    "column",
    "report",
)

DIRECTORIES: Final = (".", "src", "tests", "src/auth", "src/report", "src/settings")

# The read-only calls an agent makes between its real work, in the order a routine read uses them.
ROUTINE_TOOLS: Final = ("read_file", "grep", "list_dir")

# Files an agent reads around its work but never edits: apart from PATHS (no entry holds one), so
# that a changed file's path shows only where the run really touched it.
ROUTINE_PATHS: Final = (
    "pyproject.toml",
    "docs/index.md",
    "src/cli.py",
    "src/db/models.py",
    "src/util/dates.py",
    "tests/conftest.py",
)
