"""`uno-arena bot check` against real misbehaving bot processes (tests/bots_under_check): it always ends with a
verdict for every check and a summary, notices a bot that exited at once and shows its last output lines, stops
the bot (even one that ignores SIGTERM) and itself on Ctrl-C, authenticates a given token against the arena's
registry, and writes nothing into the arena's store (its gateway runs on a private store of its own)."""

from __future__ import annotations

import signal
import sys
from pathlib import Path

from arena.conformance.checks import CHECKS
from arena.store import Store
from tests.gateway.test_gateway_cli import cli
from tests.support import wait_until
from tests.support.redis_server import PrivateRedis

PYTHON = sys.executable
NEVER_CONNECTS_LINE = "never-connects: sleeping instead of connecting"
"""What tests/bots_under_check/never_connects.py writes, once, before it sleeps."""


def _bot(module: str, *args: str) -> str:
    return " ".join([PYTHON, "-m", f"tests.bots_under_check.{module}", *args, "--target", "{target}"])


def _check(redis_url: str, run: str, *extra: str, timeout: float = 240) -> tuple[int, str]:
    check = cli("bot", "check", "--run", run, *extra, redis_url=redis_url)
    out, err = check.communicate(timeout=timeout)
    return check.returncode, out + err


def _verdicts(output: str) -> dict[str, str]:
    """Check name -> PASS or FAIL, for every check line of the output."""
    verdicts = {}
    for line in output.splitlines():
        word, _, rest = line.partition(" ")
        if word in ("PASS", "FAIL"):
            verdicts[rest.split(":", 1)[0]] = word
    return verdicts


def _pid_of_bot(output_line: str) -> int:
    return int(output_line.rsplit("(pid ", 1)[1].rstrip(")\n"))


def _written(pid: int) -> int:
    """How many bytes the process has written so far (its ``wchar``)."""
    io = dict(line.split(": ") for line in Path(f"/proc/{pid}/io").read_text().splitlines())
    return int(io["wchar"])


def _gone(pid: int) -> bool:
    """The process has ended (no longer exists, or only its exit status is left for init to reap)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def test_a_bot_that_exits_mid_check_gets_a_verdict_for_every_check_and_its_last_words(
        redis_server: PrivateRedis) -> None:
    code, output = _check(redis_server.url, _bot("exits_at", "50"), timeout=120)
    assert code == 1
    verdicts = _verdicts(output)
    assert list(verdicts) == list(CHECKS)
    assert verdicts["connects"] == "PASS" and verdicts["answers-in-time"] == "FAIL"
    assert "FAIL answers-in-time: the bot exited with code 1 during this check" in output
    assert "FAIL reconnect: not run: the bot exited with code 1" in output
    assert "exits-at: giving up at decision 50" in output  # its last stderr line
    assert f"1 of {len(CHECKS)} checks passed" in output and "some checks failed" in output


def test_a_bot_that_crashes_on_a_signal_is_named_so(redis_server: PrivateRedis) -> None:
    code, output = _check(redis_server.url, _bot("crashes", "120"), timeout=120)
    assert code == 1
    assert "FAIL answers-in-time: the bot killed by SIGABRT during this check" in output
    assert "crashes: aborting at decision 120" in output
    assert list(_verdicts(output)) == list(CHECKS)


def test_a_bot_that_never_connects_fails_after_the_wait_and_is_killed(redis_server: PrivateRedis) -> None:
    check = cli("bot", "check", "--run", f"{PYTHON} -m tests.bots_under_check.never_connects", "--wait", "2",
                redis_url=redis_server.url)
    out, err = check.communicate(timeout=60)
    assert check.returncode == 1, out + err
    assert "FAIL connects: bot " in out and "did not connect within 2 s" in out
    assert "FAIL reconnect: not run: the bot never connected" in out
    assert "never-connects: sleeping instead of connecting" in out  # its output, shown as a check failed
    assert _gone(_pid_of_bot(next(line for line in err.splitlines() if line.startswith("started:"))))


def test_a_mistyped_bot_path_fails_at_once_with_the_bot_s_own_error(redis_server: PrivateRedis) -> None:
    code, output = _check(redis_server.url, f"{PYTHON} tests/bots_under_check/no_such_bot.py {{target}}",
                          "--wait", "60", timeout=30)
    assert code == 2  # a script that is not there is named before anything starts (issue 38)
    assert output.startswith("error: --run: 'tests/bots_under_check/no_such_bot.py' is not a file in"), output
    check = cli("bot", "check", "--run", "./no-such-program {target}", redis_url=redis_server.url)
    out, err = check.communicate(timeout=30)
    assert check.returncode == 1
    assert "FAIL connects: the bot could not be started" in out and "no-such-program" in out
    assert list(_verdicts(out)) == list(CHECKS)
    assert f"0 of {len(CHECKS)} checks passed" in out and "some checks failed" in out
    assert "error: --run: cannot start './no-such-program'" in err and "PATH" in err
    assert "Traceback" not in out + err


def test_an_empty_run_command_fails_at_once_with_one_line(redis_server: PrivateRedis) -> None:
    for run in ("", "   "):
        check = cli("bot", "check", "--run", run, redis_url=redis_server.url)
        out, err = check.communicate(timeout=30)
        assert check.returncode == 2, out + err
        assert out == "" and err.count("\n") == 1 and err.startswith("error: --run is empty"), err


def test_a_bot_whose_choose_throws_plays_on_but_fails_the_check_with_its_first_traceback(
        redis_server: PrivateRedis) -> None:
    code, output = _check(redis_server.url, _bot("throws_every", "5"), timeout=180)
    assert code == 1, output
    verdicts = _verdicts(output)
    assert list(verdicts) == list(CHECKS)
    # The kit answered the safe legal action each time: every other check passes.
    assert {name for name, verdict in verdicts.items() if verdict == "FAIL"} == {"code-errors"}
    line = next(line for line in output.splitlines() if line.startswith("FAIL code-errors: "))
    assert "the bot's code raised on" in line and "KeyError: 'missing'" in line
    shown = output.split(line + "\n", 1)[1].splitlines()
    assert shown[0] == "  | Traceback (most recent call last):"
    assert any("misbehave" in row for row in shown[:30]) and any(row == "  | KeyError: 'missing'" for row in shown)
    assert "choose() failed: KeyError: 'missing'; answered with the safe legal action" in output
    assert f"{len(CHECKS) - 1} of {len(CHECKS)} checks passed" in output and "some checks failed" in output


def test_a_bot_that_hangs_and_ignores_sigterm_fails_in_bounded_time_and_is_killed(
        redis_server: PrivateRedis) -> None:
    check = cli("bot", "check", "--run", _bot("hangs", "30"), "--deadline-ms", "300", redis_url=redis_server.url)
    out, err = check.communicate(timeout=240)
    assert check.returncode == 1, out + err
    verdicts = _verdicts(out)
    assert list(verdicts) == list(CHECKS)
    assert verdicts["connects"] == "PASS" and verdicts["answers-in-time"] == "FAIL"
    assert "timeouts" in out and "forfeited the match" in out
    assert _gone(_pid_of_bot(next(line for line in err.splitlines() if line.startswith("started:"))))


def test_a_flooding_bot_fails_in_bounded_time(redis_server: PrivateRedis) -> None:
    code, output = _check(redis_server.url, _bot("floods"), "--deadline-ms", "300", timeout=240)
    assert code == 1
    verdicts = _verdicts(output)
    assert list(verdicts) == list(CHECKS) and verdicts["decision-kinds"] == "FAIL"
    assert "RESOURCE_EXHAUSTED" in output  # the bot's own account of why its streams ended


def test_ctrl_c_stops_the_check_and_a_bot_that_ignores_sigterm(redis_server: PrivateRedis) -> None:
    check = cli("bot", "check", "--run", f"{PYTHON} -m tests.bots_under_check.never_connects", "--wait", "120",
                redis_url=redis_server.url)
    assert check.stderr is not None
    started = check.stderr.readline()
    assert started.startswith("started:"), started
    pid = _pid_of_bot(started)
    wait_until(lambda: _written(pid) >= len(NEVER_CONNECTS_LINE), 60, "the bot's line")  # the check shows it
    check.send_signal(signal.SIGINT)
    out, err = check.communicate(timeout=60)
    assert check.returncode == 130, out + err
    assert "FAIL connects: interrupted (SIGINT/SIGTERM)" in out
    assert list(_verdicts(out)) == list(CHECKS)
    assert NEVER_CONNECTS_LINE in out
    assert _gone(pid)


def test_the_check_writes_nothing_into_the_arena_and_authenticates_against_its_registry(
        redis_server: PrivateRedis) -> None:
    """The check runs on a private store of its own: a bot it registers (--name) is never in the arena's registry; a
    given token is checked against the arena's registry (only read) and works in the check under its own name."""
    store = Store.from_url(redis_server.url)
    try:
        _record, token = store.bots.register("realbot")
        code, output = _check(redis_server.url, "./no-such-program {target}", "--name", "scratchbot", timeout=30)
        assert code == 1
        assert not store.bots.exists("scratchbot") and [b.name for b in store.bots.all()] == ["realbot"]
        code, output = _check(redis_server.url, "./no-such-program {target}", "--name", "realbot", timeout=30)
        assert code == 1 and "FAIL connects" in output  # a name of the arena's is no conflict in the private store
        code, output = _check(redis_server.url, "./no-such-program {target}", "--token", token, timeout=30)
        assert code == 1 and "FAIL connects" in output
        assert not store.bots.get("realbot").deleted  # a bot checked with its own token stays as it was
        code, output = _check(redis_server.url, "./no-such-program {target}", "--token", "realbot.wrong", timeout=30)
        assert code == 2 and "invalid token" in output
    finally:
        store.close()


def test_a_registered_bot_is_checked_under_its_own_name_with_its_own_token(redis_server: PrivateRedis) -> None:
    store = Store.from_url(redis_server.url)
    try:
        _record, token = store.bots.register("ownbot")
    finally:
        store.close()
    code, output = _check(redis_server.url, _bot("exits_at", "3"), "--token", token, timeout=60)
    assert code == 1
    assert "PASS connects" in output and "exits-at: giving up at decision 3" in output
    assert token not in output  # the token never shows in what the check prints
    store = Store.from_url(redis_server.url)
    try:
        assert [bot.name for bot in store.bots.all()] == ["ownbot"]  # no other bot registered for it
        assert not store.bots.get("ownbot").deleted
    finally:
        store.close()


def test_a_whole_check_leaves_the_arena_s_store_as_it_was(redis_server: PrivateRedis) -> None:
    """Issue 38: with the arena's REDIS_URL exported, a check that passes (its reconnect check drops the bot's
    stream, an incident in any arena) writes nothing into that arena: no incident, no session, no key at all."""
    store = Store.from_url(redis_server.url)
    try:
        _record, token = store.bots.register("liveonly")
        before = sorted(redis_server.client().keys("*"))
        run = f"{PYTHON} -m arena.cli bot run heuristic --target {{target}}"
        code, output = _check(redis_server.url, run, "--token", token, timeout=240)
        assert code == 0, output
        assert "PASS reconnect" in output and "all checks passed" in output
        assert store.incidents.recent("liveonly") == []
        assert sorted(redis_server.client().keys("*")) == before
    finally:
        store.close()


def test_a_check_past_its_time_cap_ends_with_a_verdict_for_every_check_saying_so(redis_server: PrivateRedis) -> None:
    check = cli("bot", "check", "--run", _bot("hangs", "0"), "--deadline-ms", "3000", "--wait", "20",
                "--time-cap", "6", redis_url=redis_server.url)
    out, err = check.communicate(timeout=120)
    assert check.returncode == 1, out + err
    assert list(_verdicts(out)) == list(CHECKS)
    assert "(the check's time cap)" in out and "did not end within 6 s" in out, out
    bad = cli("bot", "check", "--run", "true", "--time-cap", "0", redis_url=redis_server.url)
    out, err = bad.communicate(timeout=30)
    assert bad.returncode == 2 and err.startswith("error: --time-cap must be more than 0"), out + err


def test_bad_run_templates_are_refused_with_a_clear_error(redis_server: PrivateRedis) -> None:
    code, output = _check(redis_server.url, "bot --json {\"a\": 1} {target}", timeout=30)
    assert code == 2 and "--run: only {target}, {token} and {name} are filled in" in output
    code, output = _check(redis_server.url, "bot 'unterminated", timeout=30)
    assert code == 2 and "--run:" in output
