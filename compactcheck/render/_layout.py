"""The Jinja2 environment every HTML page is rendered with, and the policy each page carries.

Autoescaping is on for every template and an undefined name is an error, not an empty string.
Untrusted text reaches a template raw; the filters below clean it (``untrusted``) and the
autoescaping then escapes it, so a template never marks backend text as safe.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from compactcheck.render.conversation import Conversation
from compactcheck.report.untrusted import block, json_block, passage, safe_line

# The policy forbids every script, frame, form target, font and remote fetch: even if some text
# escaped the escaping, the browser would refuse to run or load it.
CSP = (
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)

_ENVIRONMENT = Environment(
    loader=PackageLoader("compactcheck.render", "templates"),
    autoescape=True,
    undefined=StrictUndefined,
    trim_blocks=True,
    lstrip_blocks=True,
    keep_trailing_newline=True,
)
_ENVIRONMENT.filters.update(
    # One line, cut: names, because lines, header fields.
    line=safe_line,
    # Several lines, the first ones kept: message text.
    passage=passage,
    # Several lines, the last ones kept: stderr ends with the cause.
    tail=block,
    # Any JSON value, indented and cut.
    json=json_block,
)

# Which of the two pictures of a witness a template lays out.
_ENVIRONMENT.tests["conversation"] = lambda value: isinstance(value, Conversation)


def render_page(template: str, **context: Any) -> str:
    """A template of ``templates/`` rendered with ``context`` and the page's policy."""
    # The policy is our own constant with no double quote: marked safe, it reads as written.
    return _ENVIRONMENT.get_template(template).render(csp=Markup(CSP), **context)
