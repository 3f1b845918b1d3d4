"""What every structural law of a provider format shares: a rule, breaches of it, and the law.

A provider rule is a pure function of one request that lists where the request breaks it. The
structural law of a rule judges the compactor's answer by it; the same rules, run on the input,
say whether the input was one the provider accepts (compactcheck never blames a compactor for
what the input already broke).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from pydantic import JsonValue

from compactcheck.invariants.facts import Facts
from compactcheck.invariants.law import Invariant
from compactcheck.invariants.verdict import Finding, Violation

Request = TypeVar("Request")


@dataclass(frozen=True)
class Breach:
    """One place where a request breaks a provider rule, and the parts behind it."""

    because: str
    witness: tuple[JsonValue, ...] = ()


def data(*parts: Any) -> tuple[JsonValue, ...]:
    """The JSON data of the request parts a breach names (absent ones skipped)."""
    return tuple(part.to_json_data() for part in parts if part is not None)


@dataclass(frozen=True)
class Rule(Generic[Request]):
    """A provider's structural rule: its law id, what it asks, what it mirrors, and its check.

    ``applies`` says whether a request holds what the rule is about (a request without tool
    calls cannot break a pairing rule), so that a pass is counted only where it could fail.
    """

    id: str
    format: str
    statement: str
    mirrors: str
    breaches: Callable[[Request], list[Breach]]
    applies: Callable[[Request], bool]
    restates: str = ""
    """The law of every format this rule says again for its provider ('' for none)."""

    def law(self) -> Invariant[Request, Request]:
        """The law that judges a compactor's answer by this rule."""

        def check(before: Request, after: Request, facts: Facts) -> Finding:
            del facts
            found = self.breaches(after)
            exercised = bool(found) or self.applies(before) or self.applies(after)
            return Finding(
                self.id,
                exercised,
                tuple(Violation(self.id, breach.because, breach.witness) for breach in found),
            )

        return Invariant(
            self.id,
            "messages",
            self.statement,
            check,
            formats=(self.format,),
            mirrors=self.mirrors,
            restates=self.restates,
        )


_Judge = Callable[[Request, Request], tuple[bool, list[Breach]]]


def relation(
    id: str, format: str, statement: str, mirrors: str
) -> Callable[[_Judge[Request]], Invariant[Request, Request]]:
    """Make a check of what the answer did to the input's parts a structural law of a format.

    The check returns whether the example exercised it and the breaches it found.
    """

    def declare(judge: _Judge[Request]) -> Invariant[Request, Request]:
        def check(before: Request, after: Request, facts: Facts) -> Finding:
            del facts
            exercised, found = judge(before, after)
            return Finding(
                id,
                exercised or bool(found),
                tuple(Violation(id, breach.because, breach.witness) for breach in found),
            )

        return Invariant(id, "messages", statement, check, formats=(format,), mirrors=mirrors)

    return declare


def problems(rules: Iterable[Rule[Request]], request: Request) -> list[str]:
    """Every breach of the rules in one request, as sentences naming the rule."""
    return [f"{rule.id}: {breach.because}" for rule in rules for breach in rule.breaches(request)]


def texts_holding(texts: Iterable[str], secrets: Iterable[str]) -> list[str]:
    """The opaque payloads (signatures, encrypted content) that readable text spells out."""
    joined = "\x00".join(texts)
    return [secret for secret in dict.fromkeys(secrets) if len(secret) >= 16 and secret in joined]
