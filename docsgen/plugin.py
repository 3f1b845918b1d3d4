"""The pytest plugin's page: its options, ini values, marker keywords and fixtures."""

from __future__ import annotations

import ast
import inspect

from compactcheck.options import BY_KEY, PLUGIN_ONLY, Option
from compactcheck.pytest import plugin as pytest_plugin
from compactcheck.pytest.law import LawCase
from compactcheck.pytest.options import _NUMBERS, MARKER_KEYWORDS, NOT_OFFERED, OPTIONS
from docsgen.library import fence, members_of, signature_of
from docsgen.markdown import cell, code, docstring, page, table, value


def _spelled(option: Option) -> str:
    """The option with its value's name, as the plugin adds it (``add_options``)."""
    if option.flag:
        return option.option
    metavar = option.metavar or ("N" if option.parse in _NUMBERS else option.key.upper())
    return f"{option.option} {metavar}"


def _default(option: Option) -> str:
    given = option.default_for("plugin")
    if given in (None, (), [], False):
        return ""
    return code(value(given))


def _help(option: Option) -> str:
    return cell(option.plugin_help or option.help)


def _options() -> str:
    rows = [
        [
            code(_spelled(option)),
            code(option.ini),
            code(option.key) if option.marker else "",
            _default(option),
            _help(option),
        ]
        for option in OPTIONS
    ]
    rows += [
        [code(_spelled(BY_KEY[key])), "", "", _default(BY_KEY[key]), _help(BY_KEY[key])]
        for key in PLUGIN_ONLY
    ]
    return table(["option", "ini value", "marker keyword", "default", "what it does"], rows)


def _marker() -> str:
    rows = [[code(key), _default(BY_KEY[key]), _help(BY_KEY[key])] for key in MARKER_KEYWORDS]
    session = [
        [code(option.key), cell(option.missing["marker"])]
        for option in OPTIONS
        if not option.marker and "marker" in option.missing
    ]
    parts = [
        "## The marker",
        "`@pytest.mark.compactcheck(TARGET, **keywords)` fuzzes TARGET and gives one test per "
        "law; a keyword wins over the option, the option over the ini value. Its keywords:",
        table(["keyword", "default", "what it does"], rows),
        "Options that hold for the whole session, not per marker:",
        table(["option", "why not a keyword"], session),
    ]
    return "\n\n".join(parts)


def _fixtures() -> str:
    """The plugin's fixtures, read from its source (the same under every pytest release)."""
    tree = ast.parse(inspect.getsource(pytest_plugin))
    rows = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and any(
            ast.unparse(each).startswith("pytest.fixture") for each in node.decorator_list
        ):
            rows.append([code(node.name), cell((ast.get_docstring(node) or "").replace("``", "`"))])
    rows.append([code("compactcheck_law"), cell(docstring(LawCase).split("\n\n")[0])])
    law = [
        "### compactcheck_law",
        "A test that asks for `compactcheck_law` is parametrised with one case per law of each "
        "target (the marker's, or `--compactcheck-target`'s). What a case offers:",
    ]
    for name, member in members_of(LawCase):
        if isinstance(member, property):
            text, doc = f"{name}  # property", docstring(member.fget)
        else:
            text, doc = signature_of(member, name), docstring(member)
        law.append(f"{fence(text)}\n\n{doc}")
    return "\n\n".join(["## Fixtures", table(["fixture", "what it is"], sorted(rows)), *law])


def render() -> str:
    """The page ``reference/pytest-plugin.md``."""
    intro = (
        "Installing compactcheck installs its pytest plugin; it costs nothing until a test, an "
        "option or an ini value asks for it. Every option below is also an ini value (in "
        "`pytest.ini`, `pyproject.toml`'s `[tool.pytest.ini_options]`, ...) and, where it may "
        "differ from one target to the next, a keyword of the marker. The command line's "
        "options are in [the command line reference](cli.md#run)."
    )
    not_offered = table(
        ["option of `compactcheck run`", "what the plugin has instead"],
        [[code(name), cell(text)] for name, text in sorted(NOT_OFFERED.items())],
    )
    return page(
        "pytest plugin",
        intro,
        "## Options",
        _options(),
        _marker(),
        _fixtures(),
        "## Not offered",
        not_offered,
    )
