"""One run option as a record: its type, default and help, and how each front end spells it."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from compactcheck.options.kinds import Front, OptionError


@dataclass(frozen=True)
class Option:
    """One run option: its type, default and help, and how each front end spells it."""

    # The option's name: the CLI's dest, the plugin's marker keyword and value key.
    key: str
    # A text (of a command line, an ini file, a marker or library keyword) as its value;
    # ArgumentTypeError if it is not one.
    parse: Callable[[str], Any]
    default: Any
    help: str
    # The spelling of `compactcheck run` (None: not offered); the plugin's derives from the key.
    cli: str | None = None
    # The keyword of ``compactcheck.fuzz`` (None: not offered).
    library: str | None = None
    # Offered by the plugin as ``--compactcheck-NAME`` and the ini value ``compactcheck_KEY``.
    plugin: bool = False
    # Also a keyword of the marker: it may differ from one target to the next. The others
    # hold for the whole session (one corpus, one model ledger, one report).
    marker: bool = False
    flag: bool = False
    choices: tuple[str, ...] | None = None
    metavar: str | None = None
    # The plugin's help, where the CLI's does not fit it.
    plugin_help: str | None = None
    # Why a front end that does not offer the option does not.
    missing: Mapping[Front, str] = field(default_factory=dict)
    # A front end's own default, where it is not ``default``.
    defaults: Mapping[Front, Any] = field(default_factory=dict)
    # A command's own default on the command line, where it is not the front end's.
    commands: Mapping[str, Any] = field(default_factory=dict)

    @property
    def option(self) -> str:
        """The plugin's command-line option: ``--compactcheck-max-examples``."""
        return "--compactcheck-" + self.key.replace("_", "-")

    @property
    def ini(self) -> str:
        """The plugin's ini value: ``compactcheck_max_examples``."""
        return "compactcheck_" + self.key

    def offered(self, front: Front) -> bool:
        """Whether ``front`` offers this option."""
        spelling = {"cli": self.cli, "library": self.library}.get(front)
        return {"plugin": self.plugin, "marker": self.marker}.get(front, spelling is not None)

    def spelled(self, front: Front) -> str:
        """How ``front`` names this option, for its messages."""
        if front == "plugin":
            return self.option
        if front == "library":
            return self.library or self.key
        if front == "marker":
            return self.key
        return self.cli or self.key

    def default_for(self, front: Front, command: str | None = None) -> Any:
        """The value ``front`` takes when none is given (the command line's ``command``'s own,
        where it has one)."""
        if front == "cli" and command is not None and command in self.commands:
            return self.commands[command]
        return self.defaults.get(front, self.default)

    def check(self, given: Any, where: str) -> Any:
        """A value given in code (a marker or library keyword) as the option's value; an
        ``OptionError`` naming ``where`` if it is not one."""
        if given is None:
            return None
        if self.flag and not isinstance(given, bool):
            raise OptionError(f"{where}: expected True or False, found {given!r}")
        if self.flag:
            return given
        text = ",".join(map(str, given)) if isinstance(given, list | tuple) else str(given)
        try:
            return self.parse(text)
        except (argparse.ArgumentTypeError, ValueError) as error:
            raise OptionError(f"{where}: {error}") from None
