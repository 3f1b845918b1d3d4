"""The command-line page: every command and option, read from the `compactcheck` parser."""

from __future__ import annotations

import argparse

from compactcheck.cli import _DESCRIPTION, _parser
from docsgen.markdown import cell, code, page, table, value


def _commands(parser: argparse.ArgumentParser) -> list[tuple[str, str, argparse.ArgumentParser]]:
    """Each command's name, help and parser, in the order `compactcheck --help` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            helps = {each.dest: each.help or "" for each in action._choices_actions}
            return [(name, helps.get(name, ""), sub) for name, sub in action.choices.items()]
    return []


def _positional(action: argparse.Action) -> str:
    """A positional argument as a usage line shows it: NAME, [NAME], NAME [NAME ...]."""
    name = str(action.metavar or action.dest).upper()
    return {
        "?": f"[{name}]",
        "*": f"[{name} ...]",
        "+": f"{name} [{name} ...]",
    }.get(str(action.nargs), name)


def _option(action: argparse.Action) -> str:
    """An option with its value's name: ``--max-examples MAX_EXAMPLES``, or a flag alone."""
    spelled = ", ".join(action.option_strings)
    if action.nargs == 0:
        return spelled
    return f"{spelled} {action.metavar or action.dest.upper()}"


def _default(action: argparse.Action) -> str:
    if action.nargs == 0 or action.default in (None, argparse.SUPPRESS, (), []):
        return ""
    return code(value(action.default))


def _choices(action: argparse.Action) -> str:
    if not action.choices:
        return ""
    return ", ".join(code(value(each)) for each in action.choices)


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if action.option_strings and action.nargs != 0 and action.default is not None:
        # argparse's own %(default)s, should a help text use it.
        text = text.replace("%(default)s", value(action.default))
    return cell(text)


def _command(name: str, summary: str, parser: argparse.ArgumentParser) -> str:
    """One command's section: what it does, its usage, its arguments and options."""
    arguments = [each for each in parser._actions if not each.option_strings]
    options = [
        each
        for each in parser._actions
        if each.option_strings and not isinstance(each, argparse._HelpAction)
    ]
    usage = " ".join(["compactcheck", name, "[OPTIONS]", *map(_positional, arguments)])
    parts = [f"## {name}", summary[:1].upper() + summary[1:] + "." if summary else "", code(usage)]
    if arguments:
        rows = [[code(_positional(each)), _help(each)] for each in arguments]
        parts.append(table(["argument", "what it is"], rows))
    if options:
        rows = [
            [code(_option(each)), _default(each), _choices(each), _help(each)] for each in options
        ]
        parts.append(table(["option", "default", "choices", "what it does"], rows))
    return "\n\n".join(part for part in parts if part)


def render() -> str:
    """The page ``reference/cli.md``."""
    parser = _parser()
    commands = _commands(parser)
    listing = table(
        ["command", "what it does"],
        [[f"[{name}](#{name})", cell(summary)] for name, summary, _ in commands],
    )
    intro = (
        f"{_DESCRIPTION} Every command takes `--help`; `compactcheck --version` prints the "
        "installed version. What each exit status means is in [exit codes](exit-codes.md)."
    )
    return page(
        "Command line",
        intro,
        listing,
        *(_command(name, summary, sub) for name, summary, sub in commands),
    )
