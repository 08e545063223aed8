"""The argument parser of every `uno-arena` command: argparse's, except that a mistyped option is named in one line
with the option it most likely meant (``unknown option --bost: did you mean --bots?``), exit status 2, instead of a
usage text ending in "the following arguments are required" or "unrecognized arguments". ``add_subparsers`` makes
sub-command parsers of the parser's own class, so every sub-command gets this from :class:`ArenaParser` at the top.
"""

from __future__ import annotations

import argparse
import difflib
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

TYPO_CUTOFF = 0.6
"""How alike (difflib's ratio) a known option must be to a mistyped one to be offered as "did you mean"."""
TYPO_PRONE = ("the following arguments are required", "unrecognized arguments")
"""argparse's errors that a mistyped option causes: a required option taken as missing, or the typo left over."""


def unknown_options(words: Sequence[str], known: Sequence[str]) -> list[str]:
    """The options among ``words`` (before a ``--``) that are not ``known``: ``--name`` or ``--name=value``, ``-x``;
    negative numbers are values, not options."""
    found: list[str] = []
    for word in words:
        if word == "--":
            break
        if not word.startswith("-") or word == "-" or _is_number(word):
            continue
        name = word.split("=", 1)[0] if word.startswith("--") else word
        if name not in known and name not in found:
            found.append(name)
    return found


def suggestion(option: str, known: Sequence[str]) -> str | None:
    """The known option ``option`` most likely meant (None when none is alike)."""
    long_form = [name for name in known if name.startswith("--")] if option.startswith("--") else list(known)
    close = difflib.get_close_matches(option, long_form, n=1, cutoff=TYPO_CUTOFF)
    return close[0] if close else None


def typo_line(prog: str, option: str, known: Sequence[str]) -> str:
    """The one line for an unknown option of command ``prog``."""
    meant = suggestion(option, known)
    if meant is not None:
        return f"{prog}: error: unknown option {option}: did you mean {meant}?"
    return f"{prog}: error: unknown option {option} (`{prog} --help` lists the options)"


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


class ArenaParser(argparse.ArgumentParser):
    """argparse's parser that names a mistyped option (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # Options are taken only as spelled out, in every sub-command: options share prefixes (``--target`` and
        # ``--target-score``, ``--token`` and ``--token-file``), so an abbreviation could silently mean another.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)
        self._given: list[str] = []

    def parse_known_args(self, args: Sequence[str] | None = None,  # type: ignore[override]
                         namespace: argparse.Namespace | None = None) -> tuple[argparse.Namespace, list[str]]:
        self._given = list(sys.argv[1:] if args is None else args)
        parsed, extras = super().parse_known_args(args, namespace)
        self._refuse_unknown(extras)  # here, where the options it meant are known (not in the top parser)
        return parsed, extras

    def error(self, message: str) -> NoReturn:
        if message.startswith(TYPO_PRONE):
            self._refuse_unknown(self._given)
        super().error(message)

    def _refuse_unknown(self, words: Sequence[str]) -> None:
        known = list(self._option_string_actions)
        unknown = unknown_options(words, known)
        if unknown:
            self.exit(2, typo_line(self.prog, unknown[0], known) + "\n")
