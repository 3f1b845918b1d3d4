"""compactcheck: find the histories on which a context compactor breaks its contract.

The library face is small::

    import compactcheck

    report = compactcheck.fuzz(my_compact, max_examples=200)   # or a target name
    judgement = compactcheck.check(before, after, facts)        # one compaction you have

Everything else lives in subpackages (``engine``, ``targets``, ``harness``, ``report``,
``scale``, ``corpus``, ``cli``) and may change between releases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compactcheck.api import Judgement, ViolationError, check, fuzz
    from compactcheck.convert import ConversionError, convert
    from compactcheck.engine.events import Event
    from compactcheck.errors import CompactcheckError, ExitCode
    from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport
    from invariants import Budget, Facts

# Name -> the module that defines it. Imported on first use, so that `import compactcheck`
# (which every submodule's import runs first) stays cheap and free of import cycles.
_PUBLIC = {
    "fuzz": "compactcheck.api",
    "check": "compactcheck.api",
    "Judgement": "compactcheck.api",
    "ViolationError": "compactcheck.api",
    "convert": "compactcheck.convert",
    "ConversionError": "compactcheck.convert",
    "Event": "compactcheck.engine.events",
    "CompactcheckError": "compactcheck.errors",
    "ExitCode": "compactcheck.errors",
    "Report": "compactcheck.report.model",
    "TargetReport": "compactcheck.report.model",
    "InvariantResult": "compactcheck.report.model",
    "Counterexample": "compactcheck.report.model",
    "Budget": "invariants",
    "Facts": "invariants",
}

__all__ = [
    "Budget",
    "CompactcheckError",
    "ConversionError",
    "Counterexample",
    "Event",
    "ExitCode",
    "Facts",
    "InvariantResult",
    "Judgement",
    "Report",
    "TargetReport",
    "ViolationError",
    "check",
    "convert",
    "fuzz",
]


def __getattr__(name: str) -> Any:
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'compactcheck' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
