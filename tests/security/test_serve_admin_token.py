"""`uno-arena serve` and the admin token: it refuses to start without one, serves open only when told
--insecure-no-admin-token (warned at start and in /metrics), generates one into a 0600 file when asked, and binds
127.0.0.1 unless given an address (issue 12, part 2)."""

from __future__ import annotations

import stat
import subprocess
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import grpc
import pytest

from arena.protocol import arena_pb2, arena_pb2_grpc
from arena.server.gateway import grpc_address
from tests.support import free_port, wait_until
from tests.support.bots import stop_process
from tests.support.cli import run_cli, spawn_cli
from tests.support.redis_server import PrivateRedis


def serve(redis_url: str, *args: str, **env: str) -> subprocess.Popen[str]:
    return spawn_cli("serve", "--heartbeat", "1", *args, env_extra={"REDIS_URL": redis_url, **env})


@contextmanager
def serving(redis_url: str, *args: str, **env: str) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A running `serve` on a free port (its address), stopped on exit."""
    address = f"127.0.0.1:{free_port()}"
    process = serve(redis_url, "--address", address, *args, **env)
    try:
        with grpc.insecure_channel(address) as channel:

            def listening() -> bool:
                if process.poll() is not None:
                    return False
                ready = grpc.channel_ready_future(channel)
                try:
                    ready.result(timeout=1)
                except grpc.FutureTimeoutError:
                    ready.cancel()  # else its thread fails later on the closed channel
                    return False
                return True

            wait_until(listening, 30, "serve to listen",
                       details=lambda: process.stderr.read() if process.poll() is not None else "")  # type: ignore[union-attr]
        yield process, address
    finally:
        stop_process(process)


def register(address: str, token: str | None, name: str = "somebot") -> grpc.StatusCode:
    metadata = [("authorization", f"Bearer {token}")] if token else []
    with grpc.insecure_channel(address) as channel:
        try:
            arena_pb2_grpc.ArenaServiceStub(channel).RegisterBot(arena_pb2.RegisterBotRequest(name=name),
                                                                  metadata=metadata, timeout=10)
        except grpc.RpcError as error:
            return error.code()  # type: ignore[no-any-return]
    return grpc.StatusCode.OK


def test_serve_refuses_to_start_without_an_admin_token(redis_server: PrivateRedis) -> None:
    process = serve(redis_server.url, "--address", f"127.0.0.1:{free_port()}", "--metrics-port", "-1")
    out, err = process.communicate(timeout=60)
    assert process.returncode == 2, (out, err)
    assert "no admin token" in err
    for hint in ("UNO_ARENA_ADMIN_TOKEN", "--generate-admin-token", "--insecure-no-admin-token"):
        assert hint in err


@pytest.mark.parametrize("token", ["short", "replace-me-with-a-random-token"])
def test_serve_refuses_a_placeholder_or_short_admin_token(redis_server: PrivateRedis, token: str) -> None:
    process = serve(redis_server.url, "--metrics-port", "-1", UNO_ARENA_ADMIN_TOKEN=token)
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "placeholder or shorter" in err


def test_serve_refuses_conflicting_flags(redis_server: PrivateRedis) -> None:
    process = serve(redis_server.url, "--metrics-port", "-1", "--insecure-no-admin-token",
                    UNO_ARENA_ADMIN_TOKEN="a-real-admin-token-0123456789")
    _out, err = process.communicate(timeout=60)
    assert process.returncode == 2 and "conflicts" in err


def test_serve_insecure_warns_and_exports_the_gauge(redis_server: PrivateRedis) -> None:
    metrics = free_port()
    with serving(redis_server.url, "--insecure-no-admin-token", "--metrics-port", str(metrics)) as (process, address):
        assert register(address, None) == grpc.StatusCode.OK  # open: anyone is the admin
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics}/metrics", timeout=10).read().decode()
        assert "uno_arena_insecure_no_admin_token 1.0" in text
    assert "WARNING: --insecure-no-admin-token" in process.stderr.read()  # type: ignore[union-attr]


def test_serve_with_a_token_exports_the_gauge_at_zero(redis_server: PrivateRedis) -> None:
    metrics = free_port()
    token = "a-real-admin-token-0123456789"
    with serving(redis_server.url, "--metrics-port", str(metrics), UNO_ARENA_ADMIN_TOKEN=token) as (_p, address):
        assert register(address, None) == grpc.StatusCode.UNAUTHENTICATED
        assert register(address, token) == grpc.StatusCode.OK
        text = urllib.request.urlopen(f"http://127.0.0.1:{metrics}/metrics", timeout=10).read().decode()
        assert "uno_arena_insecure_no_admin_token 0.0" in text


def test_serve_generates_an_admin_token_into_a_private_file(redis_server: PrivateRedis, tmp_path: Path) -> None:
    path = tmp_path / "admin-token"
    path.write_text("an old token\n")
    path.chmod(0o644)  # an existing file is rewritten private
    with serving(redis_server.url, "--metrics-port", "-1", "--generate-admin-token", str(path)) as (process, address):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        token = path.read_text().strip()
        assert len(token) >= 32 and token != "an old token"
        assert register(address, None) == grpc.StatusCode.UNAUTHENTICATED
        assert register(address, "not-" + token) == grpc.StatusCode.UNAUTHENTICATED
        assert register(address, token) == grpc.StatusCode.OK
        # The CLI reads it from the file the log names.
        code, out, err = run_cli("bots", "list", "--target", address,
                                 env_extra={"UNO_ARENA_ADMIN_TOKEN_FILE": str(path)}, timeout=60)
        assert code == 0 and "somebot" in out, err
    out = process.stdout.read()  # type: ignore[union-attr]
    assert str(path) in out and token not in out + process.stderr.read()  # type: ignore[union-attr]


def test_serve_binds_loopback_unless_given_an_address(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("UNO_ARENA_GRPC_ADDR", raising=False)
    assert grpc_address() == "127.0.0.1:50051"
    assert grpc_address("0.0.0.0:50051") == "0.0.0.0:50051"
    monkeypatch.setenv("UNO_ARENA_GRPC_ADDR", "0.0.0.0:6000")
    assert grpc_address() == "0.0.0.0:6000"
