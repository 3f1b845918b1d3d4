"""Shards: one run cut into M pieces, each with its own seed and share of the budget."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from compactcheck.base.errors import CompactcheckError

_SHARD = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


class ShardError(CompactcheckError):
    """A shard named in a form other than i/M with 1 <= i <= M."""


@dataclass(frozen=True, order=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``: its own slice of the budget and its own seed."""

    index: int = 1
    count: int = 1

    def __post_init__(self) -> None:
        if not 1 <= self.index <= self.count:
            raise ShardError(
                f"shard {self.index}/{self.count}: expected i/M with 1 <= i <= M, e.g. 1/4"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``"2/4"`` as a shard; ShardError for anything else."""
        match = _SHARD.match(text)
        if match is None:
            raise ShardError(f"shard {text!r}: expected i/M, e.g. 1/4")
        return cls(int(match[1]), int(match[2]))

    @classmethod
    def all_of(cls, count: int) -> list[Shard]:
        """Every shard of a run cut into ``count``; ShardError below 1."""
        if count < 1:
            raise ShardError(f"{count} shards: expected 1 or more")
        return [cls(index, count) for index in range(1, count + 1)]

    def split(self, parts: int) -> list[Shard]:
        """This shard cut into ``parts`` shards of the finer global numbering.

        Shard i/M cut in K is shards (i-1)K+1 .. iK of MK, so a machine running 1/2 with two
        workers does exactly what two machines running 1/4 and 2/4 would.
        """
        first = (self.index - 1) * parts
        return [Shard(first + k, self.count * parts) for k in range(1, parts + 1)]

    def seed(self, base: int) -> int:
        """The seed of this shard: the run seed itself when there is one shard."""
        if self.count == 1:
            return base
        # A hash, not base + index: neighbouring run seeds must not share shard streams.
        digest = hashlib.sha256(f"compactcheck-shard:{base}:{self.index}/{self.count}".encode())
        return int.from_bytes(digest.digest()[:4], "big")

    def budget(self, total: int) -> int:
        """This shard's share of ``total`` examples; the shares add up to ``total``."""
        share, extra = divmod(total, self.count)
        return share + (1 if self.index <= extra else 0)

    @property
    def label(self) -> str:
        """``"2/4"``."""
        return f"{self.index}/{self.count}"
