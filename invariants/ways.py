"""The way a law was broken: the kind of its ``because``, with the facts and positions left out.

Two violations of one law that differ only in the fact involved or the index they name are one
way; two that name different things (a system message demoted, a constraint missing, a
superseded one reasserted, a message of another role) are two, and each keeps its own witness,
as Hypothesis keeps one per distinct failure of one test.
"""

from __future__ import annotations

import re

from compactcheck.invariants.verdict import Finding, Violation

MAX_WAYS = 4
"""The most distinct ways of one law a run keeps a witness for (the others are counted)."""

# A quoted fact (as ``repr`` writes one); an apostrophe inside a word (isn't) opens none.
_QUOTED = re.compile(r"""(?<!\w)(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?!\w)""")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_SPACE = re.compile(r"\s+")
# A way is a short key: a long sentence is cut (its start names its kind).
_WAY_LENGTH = 160


def way_of(because: str) -> str:
    """The way a violation broke its law, read off its ``because``: quoted text and numbers
    replaced by placeholders ("current constraint '…' (input index N) is missing ...")."""
    text = _QUOTED.sub("'…'", because)
    text = _NUMBER.sub("N", text)
    return _SPACE.sub(" ", text).strip()[:_WAY_LENGTH]


def ways(finding: Finding) -> dict[str, Finding]:
    """A failing finding once for each distinct way it holds, that way's violation first (the
    one a witness shows), in the order the law found them."""
    split: dict[str, Finding] = {}
    for violation in finding.violations:
        way = way_of(violation.because)
        if way not in split:
            split[way] = _first(finding, violation)
    return split


def _first(finding: Finding, violation: Violation) -> Finding:
    rest = tuple(v for v in finding.violations if v is not violation)
    return Finding(finding.invariant, finding.exercised, (violation, *rest), finding.review)
