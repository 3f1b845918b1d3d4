"""The readable text of one unit in any format, and the same unit with that text rewritten.

The content repairs write into a summary (a line that states a lost constraint) or take a
sentence out of one; what holds the text differs per format: a chat message's content or
text parts, an Anthropic message's string or text blocks, a Responses message's string or
text parts, a Gemini content's text parts (thought parts are not read, and not written).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from compactcheck.invariants.formats import Format
from compactcheck.observed.repair.side import Unit

Rewrite = Callable[[str], str]


def _container(format: Format) -> str:
    """The key of a unit that holds its text (or its parts holding text)."""
    return "parts" if format == "gemini" else "content"


def _is_text_part(format: Format, part: Any) -> bool:
    if not isinstance(part, dict) or not isinstance(part.get("text"), str):
        return False
    if format == "gemini":
        return not part.get("thought")
    if format in ("anthropic", "openai-chat"):
        return part.get("type") == "text"
    return True


def texts(format: Format, unit: Unit) -> list[str]:
    """The unit's readable texts, in order."""
    held = unit.get(_container(format))
    if isinstance(held, str):
        return [held]
    if isinstance(held, list):
        return [part["text"] for part in held if _is_text_part(format, part)]
    return []


def rewritten(format: Format, unit: Unit, rewrite: Rewrite, *, last_only: bool = False) -> Unit:
    """The unit with ``rewrite`` applied to each of its texts (or to its last one only)."""
    key = _container(format)
    held = unit.get(key)
    if isinstance(held, str):
        return {**unit, key: rewrite(held)}
    if not isinstance(held, list):
        return unit
    places = [at for at, part in enumerate(held) if _is_text_part(format, part)]
    if last_only:
        places = places[-1:]
    parts = list(held)
    for at in places:
        parts[at] = {**parts[at], "text": rewrite(parts[at]["text"])}
    return {**unit, key: parts}


def with_line(format: Format, unit: Unit, line: str) -> Unit:
    """The unit with ``line`` added at the end of its last text."""
    return rewritten(format, unit, lambda text: f"{text}\n{line}" if text else line, last_only=True)


def holds_text(format: Format, unit: Unit) -> bool:
    """Whether the unit says anything in text (a summary can take a line)."""
    return any(text.strip() for text in texts(format, unit))


__all__ = ["holds_text", "rewritten", "texts", "with_line"]
