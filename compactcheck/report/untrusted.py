"""Untrusted text made harmless before any renderer formats it.

Everything a backend produced (messages, because lines, witnesses, stderr, target names) may carry
terminal escape sequences, control characters, bidirectional overrides or unpaired surrogates.
Each renderer escapes for its own format; this module removes what no format can show safely.
"""

from __future__ import annotations

import json
import re

# Whole escape sequences go, not just their ESC byte: a stray "[31m" left behind is noise, and an
# OSC 8 hyperlink would otherwise leave its URL in the text as if the report had written it.
_ANSI = re.compile(
    r"""
      \x1b\[[0-?]*[ -/]*[@-~]                 # CSI: colours, cursor moves, screen clears
    | \x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?      # OSC: titles, hyperlinks; ends in BEL or ST
    | \x1b[PX^_][^\x1b]*(?:\x1b\\)?           # DCS, SOS, PM, APC strings
    | \x1b[ -/]*[0-~]                         # two- and three-byte escapes
    | \x9b[0-?]*[ -/]*[@-~]                   # 8-bit CSI
    """,
    re.VERBOSE,
)

# What is left is shown as a visible \uXXXX escape so the reader still sees that it was there:
# C0 controls but tab and newline (XML 1.0 forbids most of them, terminals act on them), DEL and
# C1 controls, bidirectional controls (text that reads differently from what it is), unpaired
# surrogates (not encodable as UTF-8) and the non-characters U+FFFE and U+FFFF (forbidden in XML).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
    "\ud800-\udfff\ufeff\ufffe\uffff]"
)

# Renderers show at most this much of one witness, input, output or stderr; the JSON report keeps
# everything, and a backend that answers with megabytes must not make the report unreadable.
BLOCK_LIMIT = 20_000
LINE_LIMIT = 500


def _visible(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def clean(text: str) -> str:
    """Text without escape sequences, its other unsafe characters shown as \\uXXXX escapes."""
    return _UNSAFE.sub(_visible, _ANSI.sub("", text))


def safe_line(text: str, limit: int = LINE_LIMIT) -> str:
    """Cleaned text on one line (tabs and newlines become spaces), cut at `limit` characters."""
    flat = " ".join(clean(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def passage(text: str, limit: int = LINE_LIMIT * 4) -> str:
    """Cleaned multi-line text, keeping its first `limit` characters (a message reads on)."""
    text = clean(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f" … ({len(text) - limit} more characters in the JSON report)"


def block(text: str, limit: int = BLOCK_LIMIT) -> str:
    """Cleaned multi-line text, keeping its last `limit` characters (stderr ends with the cause)."""
    text = clean(text)
    if len(text) <= limit:
        return text
    return f"… ({len(text) - limit} earlier characters left out)\n" + text[-limit:]


def json_block(value: object, limit: int = BLOCK_LIMIT) -> str:
    """A JSON value as indented, cleaned text, cut after `limit` characters."""
    try:
        # json.dumps escapes C0 controls itself; clean() then catches C1, bidi and surrogates.
        text = json.dumps(value, indent=2, ensure_ascii=False, default=repr)
    except (ValueError, RecursionError) as error:
        # Integers past Python's digit limit, absurd nesting: say so rather than fail the report.
        return f"(this value cannot be shown as JSON: {safe_line(str(error))})"
    text = clean(text)
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n… ({len(text) - limit} more characters in the JSON report)"
