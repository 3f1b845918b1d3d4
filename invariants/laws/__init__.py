"""The laws, one module per view; importing this package registers them all."""

# Registration order is catalogue order: snapshot, messages, session.
from invariants.laws import snapshot  # noqa: F401, I001
from invariants.laws import messages  # noqa: F401
from invariants.laws import session  # noqa: F401
