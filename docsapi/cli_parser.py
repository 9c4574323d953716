"""The ``docsapi`` command's argument parser: each mistake is one line that says what to do.

argparse prints its usage over several lines, then the error; an unknown option given to a
subcommand is reported by the top-level parser with the top-level usage. Here every parser
reports its own mistakes in one line of at most :data:`MAX_LINE` characters: the problem, a
close match when there is one (``--output`` -> ``--out``, ``demoo`` -> ``demo``), and the
subcommand's short usage.
"""

from __future__ import annotations

import argparse
import difflib
from collections.abc import Iterable, Sequence
from typing import Any, NoReturn

__all__ = ["MAX_LINE", "CommandParser", "one_line"]

#: The longest line the command prints for a mistake.
MAX_LINE = 200


def one_line(text: str, limit: int | None = None) -> str:
    """``text`` on one line (whitespace runs become one space), cut to ``limit`` characters.

    Examples
    --------
    >>> one_line("no token.\\n  Run docsapi login.")
    'no token. Run docsapi login.'
    >>> len(one_line("x" * 300, limit=200))
    200
    """
    flat = " ".join(text.split())
    if limit is None or len(flat) <= limit:
        return flat
    return flat[: limit - 3].rstrip() + "..."


def _close_match(word: str, candidates: Iterable[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return matches[0] if matches else None


class CommandParser(argparse.ArgumentParser):
    """An :class:`argparse.ArgumentParser` whose mistakes end in one line on stderr (exit 2).

    Subcommand parsers made with ``add_subparsers()`` are of the same class, so an unknown
    option is reported by the subcommand it was given to, with that subcommand's usage.

    Examples
    --------
    >>> parser = CommandParser(prog="tool")
    >>> _ = parser.add_argument("--out")
    >>> parser.mistake(["--output", "x"])
    'unknown option --output: did you mean --out?'
    """

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        # kept so that a missing required option is not reported when the real mistake is an
        # unknown one (``--orgg X``: the user meant ``--org``, not to leave it out)
        self._given = list(args) if args is not None else None
        parsed, extras = super().parse_known_args(args, namespace)
        if extras:
            self.error(self.mistake(extras))
        return parsed, extras

    def _unknown_options(self, words: Sequence[str]) -> list[str]:
        """The words before ``--`` that look like options this parser does not know."""
        options = [o for action in self._actions for o in action.option_strings]
        unknown = []
        for word in words:
            if word == "--":
                break
            if not word.startswith("-") or self._negative_number_matcher.match(word):
                continue
            name = word.split("=", 1)[0]
            abbreviation = name.startswith("--") and any(o.startswith(name) for o in options)
            if name not in options and not abbreviation:
                unknown.append(name)
        return unknown

    def mistake(self, extras: Sequence[str]) -> str:
        """What is wrong with the arguments this parser does not know."""
        unknown = next((e for e in extras if e.startswith("-")), None)
        if unknown is None:
            return f"unexpected argument {extras[0]!r}"
        name = unknown.split("=", 1)[0]
        options = [o for action in self._actions for o in action.option_strings]
        match = _close_match(name, options)
        hint = f": did you mean {match}?" if match else ""
        return f"unknown option {name}{hint}"

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        # argparse's own check of a choice, with a close match instead of the whole list
        choices = action.choices
        if choices is None or value in choices:
            return
        names = [str(choice) for choice in choices]
        command = action.nargs == argparse.PARSER or action.metavar == "COMMAND"
        match = _close_match(str(value), names)
        listed = ", ".join(names)
        hint = f"did you mean {match}? ({listed})" if match else f"choose from {listed}"
        raise argparse.ArgumentError(
            None if command else action,
            f"{value!r} is not {'a command' if command else 'allowed'}: {hint}",
        )

    def short_usage(self) -> str:
        """The usage in a few words: what must be given, then ``[options]``."""
        words = [self.prog]
        options = False
        for action in self._actions:
            if action.option_strings:
                if action.required:
                    words.append(f"{action.option_strings[0]} {action.metavar or action.dest}")
                elif action.help is not argparse.SUPPRESS and action.dest != "help":
                    options = True
            elif action.nargs == argparse.PARSER:
                words.append(str(action.metavar or "COMMAND"))
            else:
                name = str(action.metavar or action.dest)
                words.append(f"{name}..." if action.nargs in ("+", "*") else name)
        if options:
            words.append("[options]")
        return " ".join(words)

    def error(self, message: str) -> NoReturn:
        """Print the mistake, the short usage and where the help is, in one line; exit 2.

        An unknown option is named (with a close match) before a required one is said to be
        missing: ``--orgg X`` is a misspelt ``--org``.
        """
        given = getattr(self, "_given", None)
        if message.startswith("the following arguments are required") and given:
            unknown = self._unknown_options(given)
            if unknown:
                message = self.mistake(unknown)
        line = f"{self.prog}: error: {message}"
        line += "" if line.endswith((".", "?")) else "."
        for tail in (
            f" Usage: {self.short_usage()} (see {self.prog} --help).",
            f" See {self.prog} --help.",
        ):
            if len(line + tail) <= MAX_LINE:
                line += tail
                break
        self.exit(2, one_line(line, MAX_LINE) + "\n")
