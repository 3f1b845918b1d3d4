"""The protocol page: the JSON-lines messages between compactcheck and a harness."""

from __future__ import annotations

from compactcheck.backends import protocol
from docsgen.markdown import docstring
from docsgen.schemas import schema_page

# The messages in the order a session sends them, each with its shipped schema file.
MESSAGES = {
    "start request": "protocol-start-request",
    "start response": "protocol-start-response",
    "compact request": "protocol-compact-request",
    "compact response": "protocol-compact-response",
    "stop request": "protocol-stop-request",
}


def render() -> str:
    """The page ``reference/protocol.md``."""
    return schema_page("Harness protocol", docstring(protocol), MESSAGES)
