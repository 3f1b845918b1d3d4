"""Values given in code (``fuzz()``'s keywords, the marker's) as the table's checked values.

Code may hand an option what the command line cannot: a ``Budget`` for ``budget`` (its limit
and counter are the table's ``budget`` and ``counter``) and a function for ``counter``. Both
front ends that take values in code check them here, so that they take the same values and
refuse the same ones in the same line.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from compactcheck.options.kinds import OptionError
from compactcheck.options.schema import BY_KEY


def checked_in_code(given: Mapping[str, Any], where: Callable[[str, Any], str]) -> dict[str, Any]:
    """``given`` (keyed as the table names its options) as checked values; an ``OptionError``
    naming ``where(key, value)`` for the first value an option cannot take."""
    values = dict(given)
    budget = values.get("budget")
    if budget is not None and hasattr(budget, "limit") and hasattr(budget, "counter"):
        counter = values.get("counter")
        if counter is not None and counter != budget.counter:
            raise OptionError(
                f"{where('budget', budget)}: its counter {budget.counter} differs from "
                f"{where('counter', counter)}; give the counter once"
            )
        values["budget"], values["counter"] = budget.limit, budget.counter
    if values.get("counter") is not None and callable(values["counter"]):
        values["counter"] = _named(values["counter"], where)
    return {key: BY_KEY[key].check(value, where(key, value)) for key, value in values.items()}


def _named(counter: Callable[..., Any], where: Callable[[str, Any], str]) -> str:
    # The laws hold counters of the user's own (compactcheck.invariants.counting).
    from compactcheck.base.errors import CompactcheckError, one_line
    from compactcheck.invariants.counting import counter_name

    try:
        return counter_name(counter)
    except CompactcheckError as error:
        raise OptionError(f"{where('counter', counter)}: {one_line(error)}") from None
