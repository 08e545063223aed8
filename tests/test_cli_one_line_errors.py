"""Every misstep of issue 21, item 5, seen from outside (each `uno-arena` a process of its own): one line naming the
problem and the fix, a non-zero exit status, no traceback.

- `serve` and `worker` with their metrics port in use (9100 is node_exporter's default too);
- `serve` (and `match`, which runs a gateway of its own) on an address something listens on already (no silent port
  sharing: only with --reuse-port);
- `serve` with a Redis it cannot reach: it says which one (without the password) instead of "listening";
- `worker` and `scheduler` without REDIS_URL, or with a Redis they cannot reach; a running `scheduler` whose
  Redis goes away says so in one line per tick;
- `competition list|standings` without a reachable arena;
- `demo` with a bad option: refused before anything starts;
- `bot run` refused by the arena: the arena's reason only (never gRPC's own "INTERNAL: Internal error from Core").
"""

from __future__ import annotations

import signal
import socket
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from tests.support import free_port, wait_until
from tests.support.cli import one_line_error, run_cli, spawn_cli
from tests.support.lines import Lines
from tests.support.redis_server import PrivateRedis

pytestmark = pytest.mark.integration  # starts processes (tests/support/tiers.py)


@contextmanager
def listening_socket() -> Iterator[int]:
    """A port something listens on (a plain socket, as node_exporter or another program would)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield int(sock.getsockname()[1])


def unreachable_redis_url(password: str = "") -> str:
    auth = f":{password}@" if password else ""
    return f"redis://{auth}127.0.0.1:{free_port()}/0"


@contextmanager
def serving(redis_url: str) -> Iterator[str]:
    """`uno-arena serve` in a process of its own on a free port, until the block ends; its address. (A gateway in
    the test's own process would run gRPC's threads while the test forks the CLI: gRPC's fork handlers may then
    abort the child before it runs.)"""
    address = f"127.0.0.1:{free_port()}"
    server = spawn_cli("serve", "--address", address, "--metrics-port", "-1", "--insecure-no-admin-token",
                       env_extra={"REDIS_URL": redis_url})
    out, err = Lines(server.stdout), Lines(server.stderr)
    try:
        wait_until(lambda: out.count("listening on") or server.poll() is not None, 60, "serve to listen",
                   details=err.text)
        assert server.poll() is None, err.text()
        yield address
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


# ------------------------------------------------------------------------------------------------
# metrics ports
# ------------------------------------------------------------------------------------------------


def test_serve_with_its_metrics_port_in_use(redis_server: PrivateRedis) -> None:
    with listening_socket() as port:
        code, _out, err = run_cli("serve", "--address", f"127.0.0.1:{free_port()}", "--metrics-port", str(port),
                                  "--insecure-no-admin-token", env_extra={"REDIS_URL": redis_server.url})
    line = one_line_error(code, err)
    assert f":{port}" in line and "in use" in line and "--metrics-port" in line, line


def test_worker_with_its_metrics_port_in_use(redis_server: PrivateRedis) -> None:
    with listening_socket() as port:
        code, _out, err = run_cli("worker", "--concurrency", "1", "--metrics-port", str(port),
                                  env_extra={"REDIS_URL": redis_server.url})
    line = one_line_error(code, err)
    assert f":{port}" in line and "in use" in line and "--metrics-port" in line, line


def test_a_metrics_port_variable_that_is_no_number(redis_server: PrivateRedis) -> None:
    code, _out, err = run_cli("worker", env_extra={"REDIS_URL": redis_server.url, "UNO_ARENA_METRICS_PORT": "lots"})
    line = one_line_error(code, err)
    assert "UNO_ARENA_METRICS_PORT" in line and "'lots'" in line, line


def test_an_engine_build_that_does_not_exist() -> None:
    code, _out, err = run_cli("--version", env_extra={"UNO_ARENA_ENGINE": "fast"})
    line = one_line_error(code, err)
    assert "UNO_ARENA_ENGINE='fast'" in line and "'pure'" in line, line


# ------------------------------------------------------------------------------------------------
# serve: its address and its Redis
# ------------------------------------------------------------------------------------------------


def test_serve_refuses_an_address_in_use(redis_server: PrivateRedis) -> None:
    with listening_socket() as port:
        code, _out, err = run_cli("serve", "--address", f"127.0.0.1:{port}", "--metrics-port", "-1",
                                  "--insecure-no-admin-token", env_extra={"REDIS_URL": redis_server.url})
    line = one_line_error(code, err)
    assert code == 2 and f"127.0.0.1:{port} is in use" in line and "--reuse-port" in line, line


def test_match_refuses_an_address_in_use() -> None:
    """`match` runs a gateway of its own: on the address of another arena it would share the port silently."""
    with listening_socket() as port:
        code, _out, err = run_cli("match", "--seats", "random,random", "--address", f"127.0.0.1:{port}")
    line = one_line_error(code, err)
    assert code == 2 and f"127.0.0.1:{port} is in use" in line, line


def test_bot_check_refuses_an_address_in_use() -> None:
    """`bot check` runs a gateway of its own too."""
    with listening_socket() as port:
        code, _out, err = run_cli("bot", "check", "--address", f"127.0.0.1:{port}", "--run", "true")
    line = one_line_error(code, err)
    assert code == 2 and f"127.0.0.1:{port} is in use" in line, line


def test_a_second_serve_on_the_port_of_a_gateway_is_refused(redis_server: PrivateRedis) -> None:
    """Two arenas never share one port by accident: a gateway holds the port (without port sharing asked)."""
    with serving(redis_server.url) as address:
        code, _out, err = run_cli("serve", "--address", address, "--metrics-port", "-1",
                                  "--insecure-no-admin-token", env_extra={"REDIS_URL": redis_server.url})
    line = one_line_error(code, err)
    assert f"{address} is in use" in line, line


def test_serve_names_the_redis_it_cannot_reach_without_its_password() -> None:
    url = unreachable_redis_url(password="s3cret-pw")
    code, out, err = run_cli("serve", "--address", f"127.0.0.1:{free_port()}", "--metrics-port", "-1",
                             "--insecure-no-admin-token", env_extra={"REDIS_URL": url})
    line = one_line_error(code, err)
    assert code == 2 and "cannot reach Redis at" in line and url.replace("s3cret-pw", "***") in line, line
    assert "s3cret-pw" not in err and "listening" not in out


# ------------------------------------------------------------------------------------------------
# worker and scheduler: their Redis
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["worker"], ["scheduler"]])
def test_without_redis_url(command: list[str]) -> None:
    code, _out, err = run_cli(*command)
    line = one_line_error(code, err)
    assert code == 2 and "REDIS_URL" in line and "redis://" in line, line


@pytest.mark.parametrize("command", [["worker"], ["scheduler"]])
def test_with_a_redis_it_cannot_reach(command: list[str]) -> None:
    url = unreachable_redis_url()
    code, _out, err = run_cli(*command, env_extra={"REDIS_URL": url})
    line = one_line_error(code, err)
    assert code == 2 and f"cannot reach Redis at {url}" in line, line


def test_a_running_scheduler_whose_redis_goes_away_says_so_once_per_tick(fresh_redis_server: PrivateRedis) -> None:
    scheduler = spawn_cli("scheduler", "--tick", "0.2", env_extra={"REDIS_URL": fresh_redis_server.url})
    err = Lines(scheduler.stderr)
    try:
        wait_until(lambda: err.count("scheduler started"), 60, "the scheduler to start", details=err.text)
        fresh_redis_server.stop()
        wait_until(lambda: err.count("scheduler tick failed: Redis at") >= 2, 90, "two failed ticks reported",
                   details=err.text)
    finally:
        scheduler.send_signal(signal.SIGTERM)
        try:
            scheduler.wait(30)
        except subprocess.TimeoutExpired:
            scheduler.kill()
            scheduler.wait()
        err.join()
    assert "Traceback" not in err.text(), err.text()
    failures = [line for line in err.lines if "scheduler tick failed" in line]
    assert all("retrying in 0.2 s" in line for line in failures), failures


# ------------------------------------------------------------------------------------------------
# the organizer's commands without an arena
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["competition", "list"], ["competition", "standings", "ladder"]])
def test_competition_commands_without_a_reachable_arena(command: list[str]) -> None:
    target = f"127.0.0.1:{free_port()}"
    code, _out, err = run_cli(*command, env_extra={"UNO_ARENA_TARGET": target})
    line = one_line_error(code, err)
    assert f"cannot reach the arena at {target}" in line and "uno-arena serve" in line, line


# ------------------------------------------------------------------------------------------------
# demo: every option checked before anything starts
# ------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("options", "expected"), [
    (["--deals", "-2"], "--deals must be between 1 and"),
    (["--seats", "0"], "--seats must be between 2 and 4"),
    (["--seats", "5"], "--seats must be between 2 and 4"),
    (["--target-score", "0"], "--target-score must be between 1 and"),
    (["--seed", "-1"], "--seed must be between 0 and"),
    (["--web-port", "70000"], "--web-port must be between 1 and 65535"),
])
def test_the_demo_refuses_a_bad_option_before_starting_anything(options: list[str], expected: str) -> None:
    code, out, err = run_cli("demo", *options, timeout=60)
    line = one_line_error(code, err)
    assert code == 2 and expected in line, line
    assert "output" not in out  # no folder made, nothing started


def test_the_demo_refuses_a_given_redis_it_cannot_reach() -> None:
    url = unreachable_redis_url()
    code, out, err = run_cli("demo", env_extra={"REDIS_URL": url}, timeout=60)
    line = one_line_error(code, err)
    assert code == 2 and f"cannot reach Redis at {url}" in line, line
    assert "output" not in out


def test_the_demo_refuses_a_web_port_in_use() -> None:
    with listening_socket() as port:
        code, _out, err = run_cli("demo", "--web-port", str(port), timeout=60)
    line = one_line_error(code, err)
    assert f"--web-port {port} is in use" in line, line


# ------------------------------------------------------------------------------------------------
# bot run: the arena's reason
# ------------------------------------------------------------------------------------------------


def test_bot_run_refused_prints_the_arenas_reason_only(redis_server: PrivateRedis) -> None:
    """The gateway refuses a malformed token as the stream opens, maybe while the kit's Hello is on its way: gRPC
    then fails the write with its own INTERNAL, and the kit reports the arena's status that follows."""
    with serving(redis_server.url) as address:
        for attempt in range(3):  # the race is the start-up's: a few fresh processes give it its chances
            code, _out, err = run_cli("bot", "run", "random", "--target", address,
                                      "--token", f"not-a-token-{attempt}")
            line = one_line_error(code, err)
            assert code == 1 and "UNAUTHENTICATED" in line and "malformed token" in line, line
            assert "INTERNAL" not in err


def test_bot_run_refuses_a_token_no_token_can_be() -> None:
    code, _out, err = run_cli("bot", "run", "random", "--target", f"127.0.0.1:{free_port()}", "--token", "tök.en")
    line = one_line_error(code, err)
    assert code == 2 and "the token has characters no token has" in line, line
