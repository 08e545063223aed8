"""The gateway's commands as a user runs them: serve, bots register, bot run, match, bot check (the gateway's
benchmark: benchmarks/tests/test_bench_gateway.py)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from arena.cli import build_parser
from arena.store import Store
from tests.support import free_port, wait_until
from tests.support.bots import stop_process
from tests.support.cli import spawn_cli
from tests.support.redis_server import PrivateRedis


def cli(*args: str, redis_url: str = "", env_extra: dict[str, str] | None = None,
        **popen: Any) -> subprocess.Popen[str]:
    """`uno-arena ARGS` in a process of its own (:func:`~tests.support.cli.spawn_cli`) on the arena at ``redis_url``."""
    return spawn_cli(*args, env_extra={"REDIS_URL": redis_url, **(env_extra or {})}, **popen)


def test_commands_parse() -> None:
    parser = build_parser()
    args = parser.parse_args(["serve", "--address", "0.0.0.0:50051", "--metrics-port", "9100"])
    assert args.address == "0.0.0.0:50051" and args.metrics_port == 9100
    args = parser.parse_args(["match", "--seats", "random,heuristic,mybot", "--wait", "5", "--variant", "classic"])
    assert args.seats == "random,heuristic,mybot" and args.variant == "classic"
    args = parser.parse_args(["bot", "run", "heuristic", "--target", "h:1", "--token", "t"])
    assert (args.kind, args.target, args.token) == ("heuristic", "h:1", "t")
    assert parser.parse_args(["bots", "register", "x"]).name == "x"
    assert parser.parse_args(["bot", "check", "--run", "cmd {target} {token}"]).run


def test_register_then_serve_then_run_then_match_over_the_relay(redis_server: PrivateRedis, tmp_path: Path) -> None:
    url = redis_server.url
    port = free_port()
    admin = tmp_path / "admin-token"
    server = cli("serve", "--address", f"127.0.0.1:{port}", "--metrics-port", "-1", "--heartbeat", "1",
                 "--generate-admin-token", str(admin), redis_url=url)
    bot = None
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=30)
            status = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(), timeout=5).status
            assert status == health_pb2.HealthCheckResponse.SERVING
        registered = cli("bots", "register", "clibot", "--target", f"127.0.0.1:{port}", redis_url=url,
                         env_extra={"UNO_ARENA_ADMIN_TOKEN_FILE": str(admin)})
        out, err = registered.communicate(timeout=30)
        assert registered.returncode == 0, err
        token = out.strip().splitlines()[-1].split()[-1]
        assert token.startswith("clibot.")
        bot = cli("bot", "run", "heuristic", "--target", f"127.0.0.1:{port}", "--token", token, redis_url=url)
        store = Store.from_url(url)
        try:
            wait_until(lambda: store.sessions.online("clibot"), 15, "clibot's session in Redis")
        finally:
            store.close()
        match = cli("match", "--seats", "clibot,random", "--relay", "--json", "--seed", "3", redis_url=url)
        out, err = match.communicate(timeout=120)
        assert match.returncode == 0, err
        record = json.loads(out.strip().splitlines()[-1])
        assert record["seats"] == ["clibot", "random"]
        assert record["end_reason"] == "target" and record["timeouts"] == [0, 0]
        assert record["bot_versions"][0] == "heuristic (python kit)"
    finally:
        if bot is not None:
            stop_process(bot)
        stop_process(server)
    assert server.returncode == 0


def test_match_starts_its_own_gateway_and_waits_for_the_bot(redis_server: PrivateRedis) -> None:
    port = free_port()
    match = cli("match", "--seats", "random,waiter,heuristic", "--register", "--address", f"127.0.0.1:{port}",
                "--wait", "60", redis_url=redis_server.url)
    assert match.stdout is not None
    line = match.stdout.readline()
    assert line.startswith("registered waiter: token "), line
    token = line.split()[-1]
    bot = cli("bot", "run", "random", "--target", f"127.0.0.1:{port}", "--token", token, redis_url=redis_server.url)
    try:
        out, err = match.communicate(timeout=120)
    finally:
        stop_process(bot)
    assert match.returncode == 0, err
    assert "seat 1 waiter [random (python kit)]" in out
    assert "end: target" in out


def test_bot_check_passes_for_the_builtin_bots(redis_server: PrivateRedis) -> None:
    check = cli("bot", "check", "--run",
                f"{sys.executable} -m arena.cli bot run heuristic --target {{target}} --token {{token}}",
                redis_url=redis_server.url)
    out, err = check.communicate(timeout=300)
    assert check.returncode == 0, out + err
    for name in ("connects", "answers-in-time", "legal-choices", "decision-kinds", "concurrent-matches", "reconnect"):
        assert f"PASS {name}" in out


def test_bot_check_fails_a_bot_that_never_connects(redis_server: PrivateRedis) -> None:
    check = cli("bot", "check", "--wait", "1", redis_url=redis_server.url)
    out, _err = check.communicate(timeout=60)
    assert check.returncode == 1
    assert "FAIL connects" in out
