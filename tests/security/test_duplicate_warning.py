"""`tournament create` and `tournament schedule` warn when duplicate deals seat remote bots (issue 23, item 6): a
later rotation deals a bot's opponents the hands it was dealt before."""

from __future__ import annotations

import pytest

from arena.cli import main
from arena.commands.tournaments import duplicate_warning


def test_the_warning_names_the_remote_bots_of_a_duplicate_tournament_only() -> None:
    assert duplicate_warning(["random", "heuristic#2"], True) == ""
    assert duplicate_warning(["mybot", "heuristic"], False) == ""
    warning = duplicate_warning(["mybot", "heuristic", "other"], True)
    assert warning.startswith("warning: duplicate deals with remote bots (mybot, other)") and "\n" not in warning


def test_create_prints_it_before_calling_the_arena(capsys: pytest.CaptureFixture[str]) -> None:
    # No arena listens on this port: the warning is printed first, then the call fails with its own one line.
    assert main(["tournament", "create", "--bots", "mybot,heuristic", "--duplicate", "--target", "127.0.0.1:9"]) != 0
    err = capsys.readouterr().err
    assert err.startswith("warning: duplicate deals with remote bots (mybot)")
