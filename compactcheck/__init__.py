"""compactcheck: find the histories on which a context compactor breaks its contract.

The library face is small::

    import compactcheck

    report = compactcheck.fuzz(my_compact, max_examples=200)   # or a target name
    judgement = compactcheck.check(before, after)               # one compaction you have
    report = compactcheck.audit("compactions.jsonl")            # a log of them
    code = compactcheck.report_exit(report)                     # the exit `run` would give
    compact = compactcheck.guard(my_compact, on_violation="log") # the laws in production

Everything else lives in subpackages (``engine``, ``targets``, ``harness``, ``report``,
``scale``, ``corpus``, ``cli``) and may change between releases.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from compactcheck.api import Judgement, ViolationError, check, fuzz
    from compactcheck.base.errors import CompactcheckError, ExitCode
    from compactcheck.engine.events import Event
    from compactcheck.invariants import Budget, Facts
    from compactcheck.invariants.formats.conversion import ConversionError, convert
    from compactcheck.observed.audit import audit
    from compactcheck.observed.guard import Guarded, GuardEvent, guard
    from compactcheck.report.model import Counterexample, InvariantResult, Report, TargetReport
    from compactcheck.verdicts import report_exit

    __version__: str

# Name -> the module that defines it. Imported on first use, so that `import compactcheck`
# (which every submodule's import runs first) stays cheap and free of import cycles.
_PUBLIC = {
    "fuzz": "compactcheck.api",
    "check": "compactcheck.api",
    "Judgement": "compactcheck.api",
    "audit": "compactcheck.observed.audit",
    "guard": "compactcheck.observed.guard",
    "Guarded": "compactcheck.observed.guard",
    "GuardEvent": "compactcheck.observed.guard",
    "ViolationError": "compactcheck.api",
    "convert": "compactcheck.invariants.formats.conversion",
    "ConversionError": "compactcheck.invariants.formats.conversion",
    "Event": "compactcheck.engine.events",
    "CompactcheckError": "compactcheck.base.errors",
    "ExitCode": "compactcheck.base.errors",
    "Report": "compactcheck.report.model",
    "TargetReport": "compactcheck.report.model",
    "InvariantResult": "compactcheck.report.model",
    "Counterexample": "compactcheck.report.model",
    "Budget": "compactcheck.invariants",
    "Facts": "compactcheck.invariants",
    "report_exit": "compactcheck.verdicts",
}

__all__ = [
    "Budget",
    "CompactcheckError",
    "ConversionError",
    "Counterexample",
    "Event",
    "ExitCode",
    "Facts",
    "GuardEvent",
    "Guarded",
    "InvariantResult",
    "Judgement",
    "Report",
    "TargetReport",
    "ViolationError",
    "audit",
    "check",
    "convert",
    "fuzz",
    "guard",
    "report_exit",
]


def _version() -> str:
    """The installed distribution's version; a placeholder when run from an uninstalled tree."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("compactcheck")
    except PackageNotFoundError:
        return "0+unknown"


def __getattr__(name: str) -> Any:
    if name == "__version__":
        # Read on first use: importlib.metadata costs more than the rest of this module.
        globals()[name] = _version()
        return globals()[name]
    module = _PUBLIC.get(name)
    if module is None:
        raise AttributeError(f"module 'compactcheck' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
