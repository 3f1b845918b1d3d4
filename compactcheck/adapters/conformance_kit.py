"""The compactors bundled with compaction-conformance-kit as ``conformance-kit:<name>``.

Each kit compactor reads a list of turns and writes one text (``CompactedContext.text``); the
kit itself hands that text to the agent as a single system turn, and so does this adapter. That
shape keeps neither the newest message nor a user turn as such, which the recent-tail and
user-turn laws report: it is how the kit's compactors work, not a conversion artefact. The kit's
compactors are deterministic stand-ins that call no model. The adapter is stateless: every call
is the kit's round 1.

Parameter ranges, drawn per history (see ``compactcheck.adapters.parameters``):

- ``budget_chars``: none, or 25 %, 50 % or 75 % of the transcript's text (the kit's own
  ``[role] text`` rendering) in characters, never below what the newest turn and a leading
  system turn need plus ``HEADROOM`` for the kit's own header lines; a declared ``--budget``
  counted in characters is used as is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from compaction_kit.cli import COMPACTORS  # type: ignore[import-untyped]
from compaction_kit.compactors import (  # type: ignore[import-untyped]
    _text_to_turns,
    _turns_to_text,
)

from compactcheck.adapters.adapter import Messages, MessagesAdapter, Parameters
from compactcheck.adapters.convert_conformance_kit import from_turns, to_turns
from compactcheck.adapters.parameters import ParameterDraw
from compactcheck.invariants import Budget

FRACTIONS = (0.25, 0.5, 0.75)
# Room for the "[compacted by NAME round N]" header and section titles the kit writes first.
HEADROOM = 120


class KitCompactor(MessagesAdapter):
    """One bundled kit compactor, its text answer read back as one system message."""

    package = "compaction-conformance-kit"

    def __init__(self, name: str, budget: Budget | None = None) -> None:
        super().__init__(name, budget)
        self.kit_name = name.removeprefix("conformance-kit:")

    def parameters(self, messages: Messages) -> Parameters:
        """The character budget for this history."""
        draw = ParameterDraw(messages, self.name, self.knobs)
        if self.budget is not None and self.budget.counter == "characters":
            draw.fixed("budget_chars", self.budget.limit)
        elif draw.flag("budget_set"):
            turns = to_turns(messages)
            needed = turns[-1:]
            if len(turns) > 1 and turns[0].role == "system":
                needed = [turns[0], *needed]
            floor = len(_turns_to_text(needed)) + HEADROOM
            draw.share("budget_chars", len(_turns_to_text(turns)), FRACTIONS, floor=floor)
        else:
            draw.fixed("budget_chars", None)
        draw.fixed("round_num", 1)
        return draw.drawn

    def apply(self, messages: Messages, parameters: Parameters) -> Messages:
        """The kit compactor's text, as the kit hands it on."""
        compactor: Any = COMPACTORS[self.kit_name]()
        budget = parameters.get("budget_chars")
        compacted = compactor.compact(
            to_turns(messages),
            round_num=1,
            budget_chars=cast(int, budget) if budget is not None else None,
        )
        return from_turns(_text_to_turns(compacted.text))


ADAPTERS: Mapping[str, type[MessagesAdapter]] = {
    f"conformance-kit:{name}": KitCompactor for name in COMPACTORS
}
