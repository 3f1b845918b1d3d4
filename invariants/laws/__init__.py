"""The laws, one module per view; importing this package registers them all."""

from invariants.laws import snapshot  # noqa: F401
from invariants.laws import messages  # noqa: F401
from invariants.laws import session  # noqa: F401
