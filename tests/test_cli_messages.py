"""The `uno-arena` command's own words, seen from outside (each command a process of its own), issue 38 items 2, 6
and 7:

- a mistyped option is named with the one it meant, in one line, exit status 2, for every sub-command (no usage
  text ending in "the following arguments are required");
- the organizer's refusals say each thing once and name commands, not RPCs: an unknown entrant, an unknown rating
  pool, a malformed cron expression, a token that is neither the bot's nor the admin's;
- a bot that cannot reach its arena (`uno-arena bot run`, the kit's ``play``) says so in one line naming the address
  it dials (``$UNO_ARENA_TARGET`` when no target is given) and how to get an arena there, and keeps trying.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from arena.cli import build_parser
from tests.support import free_port, wait_until
from tests.support.cli import REPO, cli_environment, one_line_error, run_cli, spawn_cli, subcommands
from tests.support.lines import Lines
from tests.support.redis_server import PrivateRedis

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)


# ------------------------------------------------------------------------------------------------
# typos
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "expected"), [
    (["tournament", "create", "--bost", "random,heuristic"],
     "uno-arena tournament create: error: unknown option --bost: did you mean --bots?"),
    (["tournament", "create", "--bots", "random,heuristic", "--seat", "2"],
     "uno-arena tournament create: error: unknown option --seat: did you mean --seats?"),
    (["tournament", "create", "--bots", "random,heuristic", "--seat=2"],
     "uno-arena tournament create: error: unknown option --seat: did you mean --seats?"),
    (["play", "--playrs", "3"], "uno-arena play: error: unknown option --playrs: did you mean --players?"),
    (["bot", "run", "random", "--targte", "x:1"], "uno-arena bot run: error: unknown option --targte: did you mean "
                                                   "--target?"),
    (["competition", "create", "c", "--entrant", "a,b"], "unknown option --entrant: did you mean --entrants?"),
    (["--verison"], "uno-arena: error: unknown option --verison: did you mean --version?"),
    (["tournament", "create", "--bots", "a,b", "--zzzzzz"],
     "unknown option --zzzzzz (`uno-arena tournament create --help` lists the options)"),
])
def test_a_mistyped_option_is_named_with_the_one_it_meant(args: list[str], expected: str) -> None:
    code, out, err = run_cli(*args)
    line = one_line_error(code, err)
    assert code == 2 and expected in line, line
    assert out == ""


def test_every_sub_command_names_a_mistyped_option() -> None:
    """Each parser of the CLI (every sub-command, however deep) is one that names typos: the behaviour above holds
    for commands added later too."""
    from arena.commands.parser import ArenaParser

    pending = [build_parser()]
    seen = 0
    while pending:
        parser = pending.pop()
        assert isinstance(parser, ArenaParser), parser.prog
        seen += 1
        pending.extend(subcommands(parser).values())
    assert seen > 40


# ------------------------------------------------------------------------------------------------
# the organizer's refusals
# ------------------------------------------------------------------------------------------------


@contextmanager
def serving(redis_url: str, folder: Path) -> Iterator[tuple[str, Path]]:
    """`uno-arena serve` with an admin token (written to a file) in a process of its own: address, token file."""
    address = f"127.0.0.1:{free_port()}"
    admin = folder / "admin.token"
    server = spawn_cli("serve", "--address", address, "--metrics-port", "-1", "--generate-admin-token", str(admin),
                       env_extra={"REDIS_URL": redis_url})
    out, err = Lines(server.stdout), Lines(server.stderr)
    try:
        wait_until(lambda: out.count("listening on") or server.poll() is not None, 60, "serve to listen",
                   details=err.text)
        assert server.poll() is None, err.text()
        yield address, admin
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture
def arena(redis_server: PrivateRedis, tmp_path: Path) -> Iterator[dict[str, str]]:
    """The environment that points a command at a running `serve` as its admin."""
    with serving(redis_server.url, tmp_path) as (address, admin):
        yield {"UNO_ARENA_TARGET": address, "UNO_ARENA_ADMIN_TOKEN_FILE": str(admin)}


def test_an_unknown_entrant_is_told_to_register_once(arena: dict[str, str]) -> None:
    code, _out, err = run_cli("competition", "create", "c2", "--entrants", "nosuch,heuristic", env_extra=arena)
    line = one_line_error(code, err)
    assert "'nosuch'" in line and line.count("register it first") == 1, line


def test_an_unknown_pool_names_the_command_that_lists_them(arena: dict[str, str]) -> None:
    code, _out, err = run_cli("leaderboard", "nosuch", env_extra=arena)
    line = one_line_error(code, err)
    assert "`uno-arena pools` lists them" in line and "ListRatingPools" not in line, line


def test_a_malformed_cron_expression_is_named_once(arena: dict[str, str]) -> None:
    code, _out, err = run_cli("tournament", "schedule", "--cron", "0 3 * *", "--bots", "random,heuristic",
                              env_extra=arena)
    line = one_line_error(code, err)
    assert "has 4 fields" in line and not re.search(r"cron: cron", line), line


def test_a_wrong_token_for_a_bot_s_log_is_called_so(arena: dict[str, str], tmp_path: Path) -> None:
    code, _out, err = run_cli("bots", "register", "mybot", "--output", str(tmp_path / "mybot.token"),
                              env_extra=arena)
    assert code == 0, err
    (tmp_path / "wrong.token").write_text("mybot.not-its-token\n")
    target = {"UNO_ARENA_TARGET": arena["UNO_ARENA_TARGET"]}
    code, _out, err = run_cli("bot", "log", "mybot", "--token-file", str(tmp_path / "wrong.token"), env_extra=target)
    line = one_line_error(code, err)
    assert (f"the token in {tmp_path / 'wrong.token'} is neither the admin token nor bot 'mybot''s own token"
            in line), line
    assert "give the admin token with --token-file" not in line
    code, out, err = run_cli("bot", "log", "mybot", "--token-file", str(tmp_path / "mybot.token"), env_extra=target)
    assert code == 0 and "no incidents logged for bot 'mybot'" in out, err


# ------------------------------------------------------------------------------------------------
# a bot that cannot reach its arena
# ------------------------------------------------------------------------------------------------


UNREACHABLE_WAIT_S = 120.0
"""A bound only a bot that never says so reaches (it says so after the kit's 5 s)."""


def _says_unreachable(process: subprocess.Popen[str], target: str) -> str:
    """Wait for the bot's one line about ``target``; stop the bot (SIGTERM) and return its whole stderr."""
    err = Lines(process.stderr)
    try:
        wait_until(lambda: err.count("cannot reach an arena") or process.poll() is not None, UNREACHABLE_WAIT_S,
                   "the bot to say it cannot reach its arena", details=err.text)
        assert process.poll() is None, err.text()  # still trying: an arena started later is found
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    err.join()
    text = err.text()
    lines = [line for line in text.splitlines() if "cannot reach an arena" in line]
    assert len(lines) == 1, text
    assert f"cannot reach an arena at {target}" in lines[0] and "uno-arena demo --keep-running" in lines[0]
    assert "UNO_ARENA_TARGET" in lines[0]
    assert "reconnecting" not in text and "Traceback" not in text, text
    return text


def test_bot_run_takes_its_target_from_the_environment_and_says_it_is_unreachable() -> None:
    target = f"127.0.0.1:{free_port()}"
    bot = spawn_cli("bot", "run", "random", "--token", "mybot.x", env_extra={"UNO_ARENA_TARGET": target})
    _says_unreachable(bot, target)
    assert bot.returncode == 0


def test_the_kit_s_play_takes_its_target_from_the_environment(tmp_path: Path) -> None:
    target = f"127.0.0.1:{free_port()}"
    (tmp_path / "mybot.py").write_text("from bots.kit import play\n\nplay(lambda observation, legal: 0, "
                                       "token='mybot.x')\n")
    bot = subprocess.Popen([sys.executable, "mybot.py"], cwd=tmp_path, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True,
                           env=cli_environment(UNO_ARENA_TARGET=target, PYTHONPATH=str(REPO)))
    _says_unreachable(bot, target)


# ------------------------------------------------------------------------------------------------
# duplicate deals: the record says what is played
# ------------------------------------------------------------------------------------------------


def test_duplicate_deals_no_table_can_share_are_not_claimed(arena: dict[str, str], tmp_path: Path) -> None:
    """3 bots at 3 seats with a remote bot: one table, so no deal can be shared ("across" duplicates): the CLI says
    why, and the tournament's record (what the web's badge reads) says no duplicate deals."""
    import json

    code, _out, err = run_cli("bots", "register", "mybot", "--output", str(tmp_path / "mybot.token"),
                              env_extra=arena)
    assert code == 0, err
    code, out, err = run_cli("tournament", "create", "--name", "nodup", "--bots", "random,heuristic,mybot",
                             "--seats", "3", "--deals", "1", "--duplicate", env_extra=arena)
    assert code == 0, err
    assert "note: --duplicate: no duplicate deals are played" in err and "twice as many bots as seats" in err, err
    code, out, err = run_cli("tournament", "list", "--json", env_extra=arena)
    assert code == 0, err
    listed = json.loads(out)
    rows = listed if isinstance(listed, list) else next(v for v in listed.values() if isinstance(v, list))
    (row,) = [r for r in rows if r["tournament_id"] == "nodup"]
    assert row["spec"]["duplicate_deals"] is False, row
