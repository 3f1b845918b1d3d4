"""A fake model that phrases each fact the way models write summaries, and keeps every fact.

It is a fake: rule-based, deterministic from its seed, local, no weights. The wording fake
(``compactcheck.models.wording``) rewords sentence by sentence; this one restates each goal and
constraint line in a shape models give rules: the object fronted ("The public API: do not touch
it."), the passive ("The public API must not be touched."), the second person ("You must not
touch the public API."), a state ("Test coverage stays above 90%."), a label ("Rule in force:
..."), a hedge-free stress ("..., without exception"); an update as "Rule update: X, in place of
the earlier rule [c1]: Y" and the other replacement notes; runs of rules merged into one
sentence or renumbered as a list. Every distinctive token, every number and the polarity of each
fact survive; every other line is reworded as the wording fake rewords it.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass

from compactcheck.models.request import ModelRequest
from compactcheck.models.wording import reword_line

# A fact line: an optional opening tag (a prompt that wraps each message in markup), then a
# bulleted constraint with its id, or a "Constraint:" or "Goal:" label, then the fact's text up
# to a closing tag or the end of the line.
FACT_LINE = re.compile(
    r"^(?P<head>(?:\s*<[^<>]*>)?\s*(?:(?P<bullet>-\s+)\[(?P<id>[^\]\s]+)\]\s+|Constraint:\s+|"
    r"(?P<goal>Goal:)\s+))(?P<text>[^<]+?)\s*(?P<tail>(?=<).*|$)"
)
# An update's note of the value it replaces, at the end of the fact's text.
REPLACES = re.compile(r"\s*\(replaces \[(?P<id>[^\]]+)\] (?P<old>[^()]+)\)$")
# Phrases that stress a rule; none of them changes its polarity or its strength.
STRESS = (", without exception", " (mandatory)", ", in every case", " (a hard rule)")
# A line whose text holds code or data is restated only by a label or a stress.
_CODE = frozenset('{}()[]"=<>`')
# Base form and past participle of the verbs the restatements move around.
_PARTICIPLE: dict[str, str] = {
    "touch": "touched", "change": "changed", "modify": "modified", "push": "pushed",
    "use": "used", "keep": "kept", "write": "written", "log": "logged", "answer": "answered",
    "add": "added", "delete": "deleted", "deploy": "deployed", "store": "stored",
    "merge": "merged", "commit": "committed", "send": "sent", "share": "shared", "edit": "edited",
    "run": "run", "fix": "fixed", "pin": "pinned", "rotate": "rotated", "encrypt": "encrypted",
}  # fmt: skip
VERBS = frozenset(_PARTICIPLE)
"""The verbs an imperative rule may open with, as the restatements know them."""
# The words that may open the object a rule's verb takes.
_PREPOSITIONS = frozenset(
    """above below under over in into at for to within with from on""".split()  # noqa: SIM905
)
_NOT_AN_OBJECT = frozenset({"no", "nothing", "any", "anything", "none", "only", "it", "them"})
# Opening words whose capital is grammar, not a name: a restatement may lower-case them.
_OPENERS = VERBS | frozenset(
    """do don't never always the a an each every all no only test tests keep use write log push
    answer add fix make migrate speed run store send check""".split()  # noqa: SIM905
)
# Objects that are people, picked up by "them" rather than "it".
_PEOPLE = frozenset({"user", "users", "customer", "customers", "client", "clients", "team"})
# The negated verbs whose state is an adjective: "stays untouched".
_UNDONE = {"touch": "untouched", "change": "unchanged", "modify": "unmodified"}


def seeded(seed: int, text: str) -> int:
    """A hash of ``seed`` and ``text`` that is the same in every process."""
    return int.from_bytes(hashlib.sha256(f"{seed}\x01{text}".encode()).digest()[:8], "big")


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def lowered(text: str) -> str:
    """``text`` with its opening word lower-cased where its capital is only grammar."""
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if first.lower() in _OPENERS else text


def _opening(text: str) -> str:
    """``text`` with its opening word capitalised where that is grammar (never a path's)."""
    first = text.split(" ", 1)[0]
    return _cap(text) if first.isalpha() and first.islower() else text


@dataclass(frozen=True)
class Rule:
    """An imperative rule taken apart: "Never push to main" is never, push, to, main."""

    negation: str  # "", "do not" or "never"
    verb: str  # the base form, lower-case
    only: bool  # "Push only to ...": the restriction sits after the verb
    preposition: str  # "to" where the object is prepositional ("push to main"), else ""
    target: str  # the object ("the public API", "main")
    tail: str  # what follows the object ("above 90%"), or ""

    @property
    def pronoun(self) -> str:
        """The pronoun that picks the object up."""
        last = self.target.split()[-1].lower()
        return "them" if last in _PEOPLE or (last.endswith("s") and last != "this") else "it"

    def phrase(self, *, verb: str, object: str) -> str:
        """The verb phrase with ``object`` in the object's place."""
        words = [verb, "only" if self.only else "", self.preposition, object, self.tail]
        return " ".join(word for word in words if word)


def parse(text: str) -> Rule | None:
    """``text`` as a rule, where it is a plain imperative of a known verb; else None."""
    if _CODE & set(text):
        return None
    # After a negation the verb is lower-case: a capital there names something ("Never Use").
    match = re.fullmatch(r"(?:(Do not|Never) ([a-z]+)|([A-Z][a-z]+))( only)? (.+?)\.?", text)
    if match is None or (match.group(2) or match.group(3)).lower() not in _PARTICIPLE:
        return None
    negation, verb = (match.group(1) or "").lower(), (match.group(2) or match.group(3)).lower()
    words = match.group(5).split(" ")
    preposition = ""
    if words[0] == "to" and len(words) > 1:
        preposition, words = "to", words[1:]
    cut = next((at for at, word in enumerate(words) if word in _PREPOSITIONS and at), len(words))
    target, tail = " ".join(words[:cut]), " ".join(words[cut:])
    if words[0].lower() in _NOT_AN_OBJECT or cut > 5:
        return None
    return Rule(negation, verb, bool(match.group(4)), preposition, target, tail)


def fronted(rule: Rule) -> str | None:
    """ "The public API: do not touch it."."""
    verb = f"{rule.negation} {rule.verb}".strip()
    return f"{_opening(rule.target)}: {rule.phrase(verb=verb, object=rule.pronoun)}."


def passive(rule: Rule) -> str | None:
    """ "The public API must not be touched."."""
    if rule.only:
        return None
    must = {"": "must", "do not": "must not", "never": "must never"}[rule.negation]
    words = [_opening(rule.target), must, "be", _PARTICIPLE[rule.verb], rule.preposition]
    return " ".join(word for word in [*words, rule.tail] if word) + "."


def second_person(rule: Rule) -> str | None:
    """ "You must not touch the public API."."""
    must = {"": "must", "do not": "must not", "never": "must never"}[rule.negation]
    return f"You {must} {rule.phrase(verb=rule.verb, object=rule.target)}."


def as_state(rule: Rule) -> str | None:
    """ "Test coverage stays above 90%.", "The public API stays untouched."."""
    if rule.verb == "keep" and not rule.negation and rule.tail and not rule.preposition:
        return f"{_opening(rule.target)} stays {rule.tail}."
    if rule.verb in _UNDONE and rule.negation and not (rule.tail or rule.preposition):
        return f"{_opening(rule.target)} stays {_UNDONE[rule.verb]}."
    if rule.verb == "use" and not rule.negation and not rule.only:
        return f"The project uses {rule.phrase(verb='', object=rule.target).strip()}."
    return None


RESTATEMENTS: tuple[Callable[[Rule], str | None], ...] = (fronted, passive, second_person, as_state)


def restated(text: str, seed: int) -> str:
    """One rule or goal as a model restates it: a shape that applies, perhaps under a label."""
    rule = parse(text)
    options = [said for shape in RESTATEMENTS if rule and (said := shape(rule)) is not None]
    options.append(text.rstrip(".") + STRESS[seeded(seed, f"stress {text}") % len(STRESS)] + ".")
    chosen = options[seeded(seed, f"shape {text}") % len(options)]
    return f"Rule in force: {chosen}" if seeded(seed, f"label {text}") % 3 == 0 else chosen


def goal_restated(text: str, seed: int) -> str:
    """The goal as a summary states it; "Goal:" is the frame this replaces."""
    shapes = (
        f"Goal: {text}",
        f"The user's goal: {lowered(text)}.",
        f"Intent: {lowered(text)}.",
        f"You are to {lowered(text)}.",
    )
    return shapes[seeded(seed, text) % len(shapes)]


def update_restated(new: str, old_id: str, old: str, seed: int) -> str:
    """An update and the rule it replaced, in one of the ways models note a replacement."""
    old = lowered(old.strip())
    shapes = (
        f"Rule update: {new}, in place of the earlier rule [{old_id}]: {old}.",
        f"{new} (this replaces the earlier rule [{old_id}]: {old}).",
        f"{new}, instead of the earlier rule [{old_id}] ({old}).",
        f"{new}; the earlier rule [{old_id}] ({old}) no longer applies.",
    )
    return shapes[seeded(seed, new) % len(shapes)]


def merged(ids: list[str], texts: list[str]) -> str:
    """Several rules as one sentence: "Rules in force ([c2], [c3]): do not ...; and keep ..."."""
    members = [lowered(text.rstrip(".")) for text in texts]
    listed = "; ".join(members[:-1]) + f"; and {members[-1]}" if len(members) > 1 else members[0]
    return f"Rules in force ({', '.join(f'[{i}]' for i in ids)}): {listed}."


def merged_run(lines: list[str], start: int) -> int:
    """How many lines from ``start`` are constraint bullets that can merge (0 or 1: none)."""
    end = start
    while end < len(lines):
        match = FACT_LINE.match(lines[end])
        # A bullet of its own line (no tag around it), not an update: an update keeps its note.
        plain = match is not None and match.group("head").lstrip().startswith("- [")
        if not plain or match is None or match.group("tail") or REPLACES.search(match["text"]):
            break
        end += 1
    return end - start


def _bullet(line: str) -> tuple[str, str]:
    match = FACT_LINE.match(line)
    assert match is not None
    return match.group("id"), match.group("text")


def phrase_line(line: str, seed: int = 0) -> str:
    """One line as a model summary puts it: a fact restated, any other line reworded."""
    match = FACT_LINE.match(line)
    if match is None:
        return reword_line(line, seed)
    head, text, tail = match.group("head"), match.group("text"), match.group("tail")
    if match.group("goal"):
        return line[: match.start("goal")] + goal_restated(text, seed) + tail
    note = REPLACES.search(text)
    if note is not None:
        new = text[: note.start()].rstrip()
        return head + update_restated(new, note.group("id"), note.group("old"), seed) + tail
    return head + restated(text, seed) + tail


def phrase_lines(lines: list[str], seed: int = 0) -> list[str]:
    """The lines of a request as a model summary puts them, runs of rules merged by the seed."""
    out: list[str] = []
    at = 0
    while at < len(lines):
        run = merged_run(lines, at)
        if run >= 2 and seeded(seed, lines[at]) % 2 == 0:
            ids, texts = zip(*(_bullet(line) for line in lines[at : at + run]), strict=True)
            out.append("- " + merged(list(ids), list(texts)))
            at += run
        elif run >= 2 and seeded(seed, lines[at]) % 4 == 1:
            # The run as a numbered list, each rule restated.
            for number, line in enumerate(lines[at : at + run], 1):
                out.append(f"{number}. " + phrase_line(line, seed).removeprefix("- "))
            at += run
        else:
            out.append(phrase_line(lines[at], seed))
            at += 1
    return out


class PhrasingModel:
    """A fake model, honest about it: restates its request as a model's summary does, losing
    no fact.

    Every line it is shown comes back in order, without the echo's role tags: goals and
    constraints restated in the shapes models give them (``phrase_lines``), other lines
    reworded; which shape a line gets is fixed by the seed.
    """

    name = "phrasing"

    def __init__(self, seed: int = 0) -> None:
        self.seed = seed

    def answer(self, request: ModelRequest) -> str:
        """The request's lines, each phrased as a summary would put it."""
        texts = [request.system, *(turn.text for turn in request.turns)]
        lines = [line for text in texts for line in text.splitlines() if line.strip()]
        return "\n".join(phrase_lines(lines, self.seed))
