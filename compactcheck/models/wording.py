"""A fake model that words a summary the way a model does, and keeps every fact it is shown.

It is a fake: rule-based, deterministic from its seed, local, no weights. It rewrites each
sentence of its request with the moves real summaries make (contractions, a verb and its
negation changed for a synonym, a clause moved to the front, a plural made singular with
"each" and back), and keeps every distinctive token, every number and the polarity of every
sentence, so that a law which reports a violation on its answer is reading a rewording as a loss.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable

from compactcheck.models.request import ModelRequest

# A line's frame that a summary keeps as it is: a list bullet, a constraint id, a label
# ("Goal:", "- user said:", "Constraint:"), so that only the sentence after it is reworded.
_FRAME = re.compile(r"^(\s*(?:[-*]\s+)?(?:\[[^\]\s]+\]\s+)?(?:[A-Za-z][\w ]{0,24}:\s+)*)")
# An update's note of the value it replaces: reworded on its own, kept after the new value, so
# that the value asserted still comes first on the line.
_REPLACES = re.compile(r"\s*\((replaces \[[^\]]+\]) ([^()]*)\)\s*$")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\[])")

# Contractions of a verb and "not", as models write them.
_CONTRACTIONS: tuple[tuple[str, str], ...] = (
    ("do not", "don't"),
    ("does not", "doesn't"),
    ("did not", "didn't"),
    ("is not", "isn't"),
    ("are not", "aren't"),
    ("was not", "wasn't"),
    ("cannot", "can't"),
    ("can not", "can't"),
    ("will not", "won't"),
    ("must not", "mustn't"),
    ("should not", "shouldn't"),
    ("I will", "I'll"),
)
# Verbs a summary swaps for a near synonym in a prohibition ("Write no new X" is "Don't add
# any new X"): only ones whose object keeps the meaning.
_SYNONYMS: dict[str, str] = {"write": "add", "add": "introduce", "put": "add", "create": "add"}
# Prepositions a trailing clause may open with, when it can move to the front.
_FRONTABLE = ("for", "in", "on", "before", "after", "during")
# Characters of code, data or ids in parentheses: a sentence holding one is not reordered.
_CODE = frozenset('{}()[]"=<>`')
# Opening words a moved clause may lower-case: grammar, not names.
_COMMON = frozenset(
    """the a an this that it we you they use keep push fix check write log touch start add make
    migrate speed answer patching bumping caching reverting every each do don't never""".split()  # noqa: SIM905
)


def _seeded(seed: int, text: str) -> int:
    """A hash of ``seed`` and ``text`` that is the same in every process."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x00{text}".encode()).digest()[:8], "big")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _low(text: str) -> str:
    # A name or an acronym keeps its capitals ("Python 3.12 ..."): only a common opening word's
    # capital is grammar.
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first.lower() in _COMMON else text


def _split_end(sentence: str) -> tuple[str, str]:
    end = len(sentence.rstrip(".!?"))
    return sentence[:end], sentence[end:]


def contracted(sentence: str) -> str | None:
    """The sentence with its "do not" and the like contracted; None when it has none."""
    out = sentence
    for long, short in _CONTRACTIONS:
        pattern = re.compile(rf"\b{re.escape(long)}\b", re.IGNORECASE)
        out = pattern.sub(_contraction(short), out)
    return out if out != sentence else None


def _contraction(short: str) -> Callable[[re.Match[str]], str]:
    """The replacement of a match by ``short``, capitalised where the match was."""

    def replace(match: re.Match[str]) -> str:
        return _cap(short) if match.group()[0].isupper() else short

    return replace


def never_as_dont_ever(sentence: str) -> str | None:
    """ "Never push to main" as "Don't ever push to main"."""
    match = re.match(r"Never (\w+)\b", sentence)
    if match is None:
        return None
    # The verb keeps its case: after "Never" a capital is the word's own ("Never Use" names a
    # thing the token reading keeps), not a sentence's start.
    return f"Don't ever {match.group(1)}{sentence[match.end() :]}"


def no_as_dont_any(sentence: str) -> str | None:
    """ "Write no new dependencies" as "Don't add any new dependencies"; "Log nothing that
    contains" as "Don't log anything containing"."""
    match = re.match(r"([A-Z][a-z]+) (no|nothing)\b( that (\w+?)s\b)?", sentence)
    if match is None or match.group(1).lower() in ("there", "it", "is", "the"):
        return None
    verb = match.group(1).lower()
    verb = _SYNONYMS.get(verb, verb)
    thing = "any" if match.group(2) == "no" else "anything"
    rest = sentence[match.end() :]
    if match.group(3):
        return f"Don't {verb} {thing} {match.group(4)}ing{rest}"
    rest = re.sub(r"^(.*?) into\b", r"\1 to", rest)
    return f"Don't {verb} {thing}{rest}"


def each_singular(sentence: str) -> str | None:
    """ "Keep functions under 40 lines" as "Keep each function under 40 lines", and "Every
    database change needs" as "Each database change needs"."""
    match = re.match(r"(Keep|Make|Check) ([a-z]+)s (under|below|above|within|in)\b", sentence)
    if match is not None and not match.group(2).endswith("s"):
        head = f"{match.group(1)} each {match.group(2)} {match.group(3)}"
        return head + sentence[match.end() :]
    match = re.match(r"(Keep|Make|Check) each ([a-z]+) (under|below|above|within|in)\b", sentence)
    if match is not None and not match.group(2).endswith("s"):
        head = f"{match.group(1)} {match.group(2)}s {match.group(3)}"
        return head + sentence[match.end() :]
    if sentence.startswith("Every "):
        return "Each " + sentence.removeprefix("Every ")
    if sentence.startswith("Each "):
        return "Every " + sentence.removeprefix("Each ")
    return None


def front_clause(sentence: str) -> str | None:
    """A trailing clause moved to the front: "Use Python 3.12 for ENG-4417." as "For ENG-4417,
    use Python 3.12."."""
    body, end = _split_end(sentence)
    if _CODE & set(body):
        return None
    words = body.split(" ")
    for at in range(len(words) - 1, 1, -1):
        if words[at] in _FRONTABLE and at < len(words) - 1:
            clause, main = " ".join(words[at:]), " ".join(words[:at])
            if "," in clause:
                return None
            return f"{_cap(clause)}, {_low(main)}{end}"
    return None


def keep_as_stay(sentence: str) -> str | None:
    """ "Keep test coverage above 90%" as "Test coverage must stay above 90%"."""
    match = re.match(r"Keep ([a-z][a-z ]*?) (above|below|under|over|at least|at most) ", sentence)
    if match is None or match.group(1).startswith("each "):
        return None
    return f"{_cap(match.group(1))} must stay {match.group(2)} {sentence[match.end() :]}"


def use_as_stick_with(sentence: str) -> str | None:
    """ "Use Python 3.12" as "Stick with Python 3.12"."""
    return "Stick with " + sentence.removeprefix("Use ") if sentence.startswith("Use ") else None


def only_first(sentence: str) -> str | None:
    """ "Push only to the release branch" as "Only push to the release branch"."""
    match = re.match(r"([A-Z][a-z]+) only (to|in|on|from|with)\b", sentence)
    if match is None:
        return None
    return f"Only {_low(match.group(1))} {match.group(2)}{sentence[match.end() :]}"


def id_first(sentence: str) -> str | None:
    """A task and its ticket, the ticket first: "Fix the login bug (AUTH-142)" as "AUTH-142:
    fix the login bug"."""
    match = re.fullmatch(r"(.+?) \(([A-Z][A-Z0-9]*-\d+)\)([.!]?)", sentence)
    if match is None or _CODE & set(match.group(1)):
        return None
    return f"{match.group(2)}: {_low(match.group(1))}{match.group(3)}"


# The moves, in the order tried: each names what it does, returns None where it does not apply.
MOVES: tuple[Callable[[str], str | None], ...] = (
    never_as_dont_ever,
    no_as_dont_any,
    each_singular,
    keep_as_stay,
    use_as_stick_with,
    only_first,
    id_first,
    front_clause,
    contracted,
)


def reword_sentence(sentence: str, seed: int = 0) -> str:
    """One sentence as a model might restate it, its facts kept; itself when no move applies.

    The seed picks which of the moves that apply is made first; a contraction is always made
    on top, as a model that contracts does so throughout.
    """
    options = [moved for move in MOVES if (moved := move(sentence)) is not None]
    if not options:
        return sentence
    chosen = options[_seeded(seed, sentence) % len(options)]
    return contracted(chosen) or chosen


def reword_line(line: str, seed: int = 0) -> str:
    """One line reworded sentence by sentence, its frame (bullet, id, label) kept."""
    frame = _FRAME.match(line)
    head = frame.group(1) if frame else ""
    body = line[len(head) :]
    note = ""
    replaced = _REPLACES.search(body)
    if replaced is not None:
        body = body[: replaced.start()]
        note = f" (this {replaced.group(1)}: {reword_sentence(replaced.group(2), seed)})"
    sentences = _SENTENCE_END.split(body) if body else []
    return head + " ".join(reword_sentence(s, seed) for s in sentences) + note


class WordingModel:
    """A fake model, honest about it: restates its request in a model's words, losing no fact.

    Every line it is shown comes back reworded (``reword_line``), in order, without the echo's
    role tags; which rewording a sentence gets is fixed by the seed.
    """

    name = "wording"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def answer(self, request: ModelRequest) -> str:
        """The request's lines, each reworded as a summary would put it."""
        texts = [request.system, *(turn.text for turn in request.turns)]
        lines = (line for text in texts for line in text.splitlines() if line.strip())
        return "\n".join(reword_line(line, self.seed) for line in lines)
