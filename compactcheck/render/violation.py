"""A violation as every renderer shows it: the because line, the failing round, the witness,
what the compactor returned and its corpus entry; as styled parts, or as one plain text."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from compactcheck.invariants import dump_messages
from compactcheck.render.conversation import reading
from compactcheck.render.excerpt import excerpt, left_out_line
from compactcheck.report.model import Counterexample, InvariantResult, TargetReport
from compactcheck.report.untrusted import BLOCK_LIMIT, json_block, safe_line


def input_problems_line(example: Counterexample) -> str | None:
    """The provider rules a witness's input breaks, or None when a provider accepts it."""
    if not example.input_problems:
        return None
    return (
        "input a provider would reject (from --malformed or the target's own earlier answer): "
        + ("; ".join(example.input_problems))
    )


def fix_lines(example: Counterexample) -> list[str]:
    """A witness's fix: a head line, then one line per repair; empty when it has none."""
    fix = example.fix
    if fix is None:
        return []
    sizes = f"{fix.size_answer} -> {fix.size_repaired} {fix.counter}, the input {fix.size_input}"
    if fix.lawful:
        head = f"{len(fix.changes)} repair(s) make this answer lawful ({sizes})"
        if fix.note:
            head += f"; but {fix.note}"
    else:
        head = f"no lawful repair: {fix.note}"
        if fix.changes:
            head += f" (after {len(fix.changes)} repair(s): {sizes})"
    return [
        head,
        *(
            f"{c.law}: {c.what} ({c.repair}; {c.size_before} -> {c.size_after})"
            for c in fix.changes
        ),
    ]


_RETURNED_KEYS = ("messages", "input", "contents", "rawTail", "appended")
RETURNED_LINES = 12


def _one_line(item: object) -> str:
    """A message, item or event as one short line: its role or type, then its text."""
    if not isinstance(item, dict):
        return str(item)[:70]
    kind = item.get("role") or item.get("type") or "?"
    calls = item.get("tool_calls")
    if isinstance(calls, list) and calls:
        ids = ", ".join(str(c.get("id")) for c in calls if isinstance(c, dict))
        return f"{kind}: calls {ids}"
    if item.get("tool_call_id"):
        return f"{kind} for {item['tool_call_id']}: {_text(item.get('content'))}"
    for key in ("content", "parts", "text", "output", "payload"):
        if key in item:
            return f"{kind}: {_text(item[key])}"
    return str(kind)


def _text(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = " ".join(text.split())
    return text if len(text) <= 60 else text[:59] + "…"


def history_count(example: Counterexample, target: TargetReport) -> int:
    """How many messages the failing round's input held, counted as its indexes are.

    In the messages view, the messages as the laws read them (a provider's system prompt is
    one, each tool result is one), so that "output index N" and the witness's "#N" agree with
    it; elsewhere the events or log records handed in.
    """
    if target.view == "messages":
        messages, _ = reading(example.input, target.format)
        if messages:
            return len(messages)
    return example.history_size


def history_text(example: Counterexample, target: TargetReport | None = None) -> str:
    """The failing round's input size as every renderer says it ("history of 6 messages");
    without the target, as the witness counted it."""
    if target is None:
        return f"history of {example.history_size}"
    unit = " messages" if target.view == "messages" else ""
    return f"history of {history_count(example, target)}{unit}"


def returned_lines(example: Counterexample, target: TargetReport | None = None) -> list[str] | None:
    """What the compactor answered in the failing round, a line per message (None if unknown).

    In the messages view each line is numbered as the laws index the output ("output index N"),
    with the provider request's path beside it where the format has one ("3 (messages.2)").
    At most RETURNED_LINES lines: the first ones and the last, with how many are left out.
    """
    if target is not None and target.view == "messages":
        messages, paths = reading(example.output, target.format)
        if messages:
            return _cut(
                [
                    f"{index}{f' ({path})' if path else ''}: {_one_line(item)}"
                    for index, (item, path) in enumerate(
                        zip(dump_messages(messages), paths, strict=True)
                    )
                ]
            )
    output = example.output
    if isinstance(output, dict) and isinstance(output.get("request"), dict):
        output = output["request"]
    if not isinstance(output, dict):
        return None
    found = next((output[k] for k in _RETURNED_KEYS if isinstance(output.get(k), list)), None)
    listed: list[Any] | None = found if isinstance(found, list) else None
    if listed is None:
        return None
    return _cut([f"{index}: {_one_line(item)}" for index, item in enumerate(listed)])


def _cut(lines: list[str]) -> list[str]:
    if len(lines) > RETURNED_LINES:
        kept = RETURNED_LINES - 2
        lines = [*lines[:kept], f"... {len(lines) - kept - 1} more", lines[-1]]
    return lines


@dataclass(frozen=True)
class Part:
    """One line (or block) of a violation: a label shown bold, its text, the style of the whole."""

    label: str
    text: str = ""
    style: str = ""

    def plain(self) -> str:
        """The part as plain text, its label first."""
        return self.label + self.text


def violation_parts(
    example: Counterexample,
    target: TargetReport | None = None,
    *,
    seed: str = "",
    limit: int = BLOCK_LIMIT,
    corpus: str | None = None,
    replay: str | None = None,
    cut: bool = False,
    reports: Mapping[str, Path] | None = None,
    also: Sequence[InvariantResult] = (),
    way: str = "",
) -> list[Part]:
    """What a violation shows, from its because line to its corpus entry, in that order.

    ``target`` numbers the compactor's answer as the laws index it (messages view) and counts
    the history as they do; ``seed`` opens the round's line where a reader needs it to draw the
    history again; ``limit`` cuts each JSON block; ``corpus`` and ``replay`` say where the entry
    is and how to replay it (by default the counterexample's own corpus file, no command);
    ``cut`` shortens long contents of the witness and diff as a terminal shows them, with a line
    naming the ``reports`` written (by format name) that hold them whole; ``also`` are the
    results of other laws that found the same cause, each said with its own because line;
    ``way`` (``_digest.way_note``) opens it, in the panel rather than a title a narrow terminal
    would cut.
    """
    found = (
        f"round {example.round} · {history_text(example, target)} · "
        f"reproduced: {example.reproduced}"
    )
    parts = [
        *([Part("", safe_line(way), "bold")] if way else []),
        Part("because: ", safe_line(example.because, 2000)),
        *same_cause_parts(also),
        Part("", f"{seed} · {found}" if seed else found, "dim"),
        Part(f"witness ({len(example.witness)} item(s)):", style="bold"),
        *_block(example.witness, limit, cut, reports),
    ]
    if example.diff:
        parts += [Part("diff:", style="bold"), *_block(example.diff, limit, cut, reports)]
    returned = returned_lines(example, target)
    if returned is not None:
        parts.append(Part("the compactor returned:", style="bold"))
        parts += [Part("", f"  {safe_line(line)}") for line in returned]
    rejected = input_problems_line(example)
    if rejected:
        parts.append(Part("", safe_line(rejected), "yellow"))
    fix = fix_lines(example)
    if fix:
        parts.append(Part("fix: ", safe_line(fix[0], 2000)))
        parts += [Part("", safe_line(f"- {line}"), "green") for line in fix[1:]]
    shown = corpus if corpus is not None else example.corpus_file
    if shown:
        parts.append(Part("corpus file: ", safe_line(shown)))
    if replay:
        parts.append(Part("replay: ", replay))
    return parts


def same_cause_parts(also: Sequence[InvariantResult]) -> list[Part]:
    """A line for each other law that found the same cause: its id and its own because."""
    parts = []
    for other in also:
        example = other.counterexample
        because = example.because if example is not None else (other.because or "")
        parts.append(Part(f"{other.invariant} (the same cause): ", safe_line(because, 2000)))
    return parts


def _block(value: object, limit: int, cut: bool, reports: Mapping[str, Path] | None) -> list[Part]:
    """A witness or diff as a block: whole up to ``limit``, or cut, with what was left out."""
    if not cut:
        return [Part("", json_block(value, limit))]
    shown = excerpt(value)
    if not shown.cut:
        return [Part("", shown.text)]
    if reports and "html" in reports and len(json_block(value, limit)) > limit:
        # The HTML report cuts a block past the limit too: only the JSON one holds it whole.
        reports = {name: path for name, path in reports.items() if name != "html"}
    return [Part("", shown.text), Part("", left_out_line(shown, reports), "dim")]


def violation_text(
    title: str,
    example: Counterexample,
    target: TargetReport | None = None,
    *,
    seed: str = "",
    limit: int = BLOCK_LIMIT,
    corpus: str | None = None,
    replay: str | None = None,
) -> str:
    """A violation as plain text under its title line (the pytest plugin's failure message);
    the rest as ``violation_parts`` takes it."""
    parts = violation_parts(example, target, seed=seed, limit=limit, corpus=corpus, replay=replay)
    return "\n".join([safe_line(title), *(part.plain() for part in parts)])
