"""Repairs of a compactor's answer: the smallest change that makes it lawful, or why none does.

``repair(before, after)`` judges the answer, mends each broken law that has a mechanical repair
(``catalogue.REPAIRS``: each repair one named, pure function of the input, the answer and the
facts), judges the repaired answer again by the same laws, and returns it only if every law
holds, it is no larger than the input, and it fits a declared budget. The guard's
``on_violation="repair"`` and the fix hint of every report's counterexamples are made by it.
"""

from compactcheck.observed.repair.catalogue import COVERED, REPAIRS
from compactcheck.observed.repair.change import Change, Edit, Repair
from compactcheck.observed.repair.mend import Mended, repair

__all__ = ["COVERED", "REPAIRS", "Change", "Edit", "Mended", "Repair", "repair"]
