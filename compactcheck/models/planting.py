"""A fake model that repeats its request with exactly one planted change, and says which.

It is a fake: rule-based, deterministic, local, no weights. Each kind of change is a loss a real
summary makes: a polarity flipped, a number, version or id changed, a restriction relaxed, a
superseded value restated as current, a fact dropped, a constraint nobody gave invented, a rule in
force stated as lapsed ("We used to ..."), a global rule narrowed to one file, a hard rule
softened by a hedge ("Where possible, ..."), or the rules merged into one sentence with one
member's number changed.
What it planted is recorded (``Plant``), so that a test can check that a checker reports that
change and no other.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

from compactcheck.models.phrasing import FACT_LINE, VERBS, lowered, merged, merged_run
from compactcheck.models.request import ModelRequest

PlantKind = Literal[
    "polarity", "number", "relax", "stale", "drop", "invent", "lapsed", "narrow", "hedge", "member"
]
PLANT_KINDS: tuple[PlantKind, ...] = get_args(PlantKind)

# A line that states a fact a summary must keep: a constraint (bulleted with its id, or
# labelled), or the goal; at the start of the line or just after a tag that opens it, as a
# prompt that wraps each message in markup has it (``<message type="human">Goal: ...``).
_FACT_LINE = re.compile(
    r"^(?:\s*<[^<>]*>)?\s*(?:-\s+\[[^\]]+\]\s+|Constraint:\s+|Goal:\s+)(?P<text>[^<]+?)\s*(?=<|$)"
)
# An update's note of the value it replaces.
_REPLACES = re.compile(r"\(replaces \[[^\]]+\] (?P<old>[^()]+)\)")
_NUMBER = re.compile(r"(?<![\w.])(\d+)(?=(?:\.\d+)*%?(?![\w.]))|(?<=-)(\d+)\b")
INVENTED = "Constraint: Use MySQL 8."
"""The constraint the ``invent`` kind adds, which no generated history ever gives."""
NARROWED_TO = "src/app.py"
"""The file the ``narrow`` kind narrows a rule to when its request names no Python file."""
_PATH = re.compile(r"(?<![\w/.-])(?:[\w-]+/)*[\w-]+\.py\b")


@dataclass(frozen=True)
class Plant:
    """One change a planting model made: its kind, which call, and the text before and after.

    ``before`` is the line it changed ('' for an invented line; for ``member``, the lines it
    merged, joined by newlines); ``after`` what stands there now ('' for a dropped line).
    """

    kind: PlantKind
    call: int
    before: str
    after: str


_ID = re.compile(r"^(?:\s*<[^<>]*>)?\s*-\s+\[([^\]]+)\]")


def _fact_lines(lines: list[str]) -> list[int]:
    """The lines of current facts, constraints before the goal (a goal has a law of its own).

    A constraint an update replaced is no longer current: changing it loses nothing.
    """
    replaced = {m.group(1) for line in lines for m in re.finditer(r"\(replaces \[([^\]]+)\]", line)}
    found = [
        index
        for index, line in enumerate(lines)
        if _FACT_LINE.match(line) and not ((m := _ID.match(line)) and m.group(1) in replaced)
    ]
    return sorted(found, key=lambda index: _is_goal(lines[index]))


def _is_goal(line: str) -> bool:
    match = _FACT_LINE.match(line)
    return match is not None and line[: match.start("text")].rstrip().endswith("Goal:")


def _split(line: str) -> tuple[str, str, str]:
    """A fact line as its frame, its fact text, and what follows it (an update note, a tag)."""
    match = _FACT_LINE.match(line)
    assert match is not None
    head, text, tail = line[: match.start("text")], match.group("text"), line[match.end("text") :]
    note = _REPLACES.search(text)
    if note is None:
        return head, text, tail
    return head, text[: note.start()].rstrip(), " " + text[note.start() :] + tail


def flipped(text: str) -> str | None:
    """The fact with its polarity turned: a negation removed, or one added."""
    rules: tuple[tuple[str, str], ...] = (
        (r"^Do not (\w)", r"Do \1"),
        (r"^Never (\w)", r"Always \1"),
        (r"^(\w+) no (\w)", r"\1 \2"),
        (r"^(\w+) nothing\b", r"\1 anything"),
        (r"^(\w+) only\b", r"\1 also"),
    )
    for pattern, replacement in rules:
        out = re.sub(pattern, replacement, text, count=1)
        if out != text:
            return out
    return f"Do not {text[:1].lower()}{text[1:]}"


def renumbered(text: str) -> str | None:
    """The fact with its first number (of a version, percentage or id) one higher."""
    match = _NUMBER.search(text)
    if match is None:
        return None
    group = 1 if match.group(1) is not None else 2
    start, end = match.span(group)
    return f"{text[:start]}{int(match.group(group)) + 1}{text[end:]}"


def relaxed(text: str) -> str | None:
    """The fact's restriction relaxed: "only" dropped, "never" as "avoid if possible"."""
    if re.search(r"\bonly ", text):
        return re.sub(r"\bonly ", "", text, count=1)
    match = re.match(r"(?:Never|Do not) (\w+)(.*)$", text)
    if match is not None:
        return f"Avoid {match.group(1)}ing{match.group(2)} if possible"
    return None


def lapsed(text: str) -> str:
    """The rule stated as one that no longer holds: "We used to never push to main"."""
    match = re.match(r"(Do not|Never) ", text)
    if match is not None:
        negation = "not" if match.group(1) == "Do not" else "never"
        return f"We used to {negation} {text[match.end() :]}"
    if text.split(" ", 1)[0].lower() in VERBS:
        return f"We used to {lowered(text)}"
    return f"It used to be the rule that {lowered(text)}"


def hedged(text: str) -> str:
    """The rule softened by a hedge, every word of it kept: "Where possible, keep ..."."""
    return f"Where possible, {lowered(text)}"


def narrowed(text: str, path: str) -> str:
    """The rule narrowed to one file: "Do not touch the public API in src/app.py"."""
    return f"{text} in {path}"


def _in_order(lines: list[str], last: bool) -> list[int]:
    """The fact lines in the order a change tries them: constraints first, the last first when
    ``last``, then the goal."""
    found = _fact_lines(lines)
    constraints = [index for index in found if not _is_goal(lines[index])]
    goals = [index for index in found if _is_goal(lines[index])]
    return [*(reversed(constraints) if last else constraints), *goals]


def _changed(
    lines: list[str],
    change: Callable[[str], str | None],
    constraints_only: bool = False,
    last: bool = False,
) -> tuple[list[str], int, str] | None:
    """The lines with the first fact line ``change`` applies to changed (the last, when
    ``last``); which line, and how."""
    for index in _in_order(lines, last):
        if constraints_only and _is_goal(lines[index]):
            continue
        head, text, note = _split(lines[index])
        out = change(text)
        if out is not None and out != text:
            new = head + out + note
            return [*lines[:index], new, *lines[index + 1 :]], index, new
    return None


class PlantingModel:
    """A fake model, honest about it: it repeats its request's lines, one change planted.

    ``kind`` is the change; ``at_call`` plants it only in that call (1-based) and repeats the
    others faithfully, so that a run of chained compactions shows the round it happened in.
    ``last`` plants it in the last constraint (or update, or run of rules) it applies to rather
    than the first: the first are often a system prompt's, which a summarising compactor keeps
    as it is beside the summary, so that only the summary's copy would change. ``planted``
    lists what it changed, one ``Plant`` per change, in call order; a request with nothing of
    the kind to change is answered unchanged, and nothing is listed.
    """

    def __init__(
        self, kind: PlantKind = "number", at_call: int | None = None, last: bool = False
    ) -> None:
        if kind not in PLANT_KINDS:
            raise ValueError(f"planting kind {kind!r}: expected one of {', '.join(PLANT_KINDS)}")
        self.kind: PlantKind = kind
        self.at_call = at_call
        self.last = last
        self.calls = 0
        self.planted: list[Plant] = []

    @property
    def name(self) -> str:
        """The slot name of this fake (``plant-number`` and so on)."""
        return f"plant-{self.kind}"

    def answer(self, request: ModelRequest) -> str:
        """The request's lines as they were, but for one planted change (see ``planted``)."""
        self.calls += 1
        texts = [request.system, *(turn.text for turn in request.turns)]
        lines = [line for text in texts for line in text.splitlines() if line.strip()]
        if self.at_call is not None and self.calls != self.at_call:
            return "\n".join(lines)
        out, plant = self.plant(lines)
        if plant is not None:
            self.planted.append(plant)
        return "\n".join(out)

    def plant(self, lines: list[str]) -> tuple[list[str], Plant | None]:
        """``lines`` with this model's change made, and what it was (None: nothing to change)."""
        if self.kind == "invent":
            return [*lines, INVENTED], Plant("invent", self.calls, "", INVENTED)
        if self.kind == "drop":
            # The last constraint, not the goal: the goal has a law of its own, and a dropped
            # fact is most often one constraint among many.
            found = _fact_lines(lines)
            constraints = [i for i in found if not _is_goal(lines[i])]
            if not constraints:
                return lines, None
            index = constraints[-1]
            return [*lines[:index], *lines[index + 1 :]], Plant(
                "drop", self.calls, lines[index], ""
            )
        if self.kind == "stale":
            for line in reversed(lines) if self.last else lines:
                note = _REPLACES.search(line)
                if note is not None:
                    restated = f"Constraint: {note.group('old').strip()}"
                    return [*lines, restated], Plant("stale", self.calls, "", restated)
            return lines, None
        if self.kind == "member":
            return self._member(lines)
        if self.kind in ("lapsed", "narrow", "hedge"):
            path = next((m.group() for line in lines for m in _PATH.finditer(line)), NARROWED_TO)
            changes: dict[str, Callable[[str], str | None]] = {
                "lapsed": lapsed,
                "narrow": lambda text: narrowed(text, path),
                "hedge": hedged,
            }
            done = _changed(lines, changes[self.kind], constraints_only=True, last=self.last)
        else:
            change = {"polarity": flipped, "number": renumbered, "relax": relaxed}[self.kind]
            done = _changed(lines, change, last=self.last)
        if done is None:
            return lines, None
        out, index, new = done
        return out, Plant(self.kind, self.calls, lines[index], new)

    def _member(self, lines: list[str]) -> tuple[list[str], Plant | None]:
        """The first run of constraint bullets (the last, when ``last``) merged into one
        sentence as the phrasing fake merges them, the number of its first current member that
        has one (the last) changed."""
        current = set(_fact_lines(lines))
        runs: list[tuple[int, int]] = []
        at = 0
        while at < len(lines):
            run = merged_run(lines, at)
            if run >= 2:
                runs.append((at, run))
            at += max(run, 1)
        for at, run in reversed(runs) if self.last else runs:
            parts = [FACT_LINE.match(line) for line in lines[at : at + run]]
            ids = [part["id"] for part in parts if part]
            texts = [part["text"] for part in parts if part]
            offsets = range(len(texts) - 1, -1, -1) if self.last else range(len(texts))
            for offset in offsets:
                changed = renumbered(texts[offset]) if at + offset in current else None
                if changed is not None:
                    texts[offset] = changed
                    said = "- " + merged(ids, texts)
                    before = "\n".join(lines[at : at + run])
                    return [*lines[:at], said, *lines[at + run :]], Plant(
                        "member", self.calls, before, said
                    )
        return lines, None


def planting(kind: PlantKind) -> Callable[[], PlantingModel]:
    """A maker of planting models of one kind, for the table of fakes by name."""

    def make() -> PlantingModel:
        return PlantingModel(kind)

    return make
