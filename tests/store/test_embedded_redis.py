"""The embedded Redis of the demo and the test server: real process, URLs for redis-py and kombu, cleanup."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from kombu import Connection

from arena.store import Store, StoreConfigError, kombu_url, redis_py_url
from arena.store.embedded import RedisServer, RedisServerError, ensure_redis_url, find_redis_server


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is not alive either
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.exists() and stat.read_text().split(") ")[1].startswith("Z"))


def test_binary_is_found() -> None:
    path = find_redis_server()
    assert os.access(path, os.X_OK) and path.endswith("redis-server")


def test_binary_override_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("UNO_ARENA_REDIS_SERVER", "/nonexistent/redis-server")
    with pytest.raises(RedisServerError, match="not an executable"):
        find_redis_server()


@pytest.mark.integration
def test_ensure_redis_url_starts_an_embedded_server_when_unset() -> None:
    env: dict[str, str] = {}
    url, server = ensure_redis_url(env)
    assert server is not None
    try:
        assert url.startswith("redis://127.0.0.1:") and url.endswith("/0")
        assert env["REDIS_URL"] == url
        store = Store.from_url(url)
        store.bots.register("alpha")
        assert store.bots.get("alpha").name == "alpha"
        store.close()
        with Connection(url) as conn:  # kombu (Celery's transport) accepts the same URL
            conn.ensure_connection(max_retries=3)
            queue = conn.SimpleQueue("probe")
            queue.put({"hello": 1})
            assert queue.get(timeout=5).payload == {"hello": 1}
            queue.close()
        pid, data_dir = server.pid, server.data_dir
    finally:
        server.close()
    assert pid is not None and not pid_alive(pid)
    assert not data_dir.exists()  # no leftovers


def test_ensure_redis_url_uses_redis_url_when_set() -> None:
    url, server = ensure_redis_url({"REDIS_URL": "redis://db.example:6379/3"})
    assert (url, server) == ("redis://db.example:6379/3", None)


@pytest.mark.integration
def test_unix_socket_server_for_redis_py_and_kombu() -> None:
    with RedisServer(unix_socket=True) as server:
        assert server.url.startswith("redis+socket://")
        store = Store.from_url(server.url)
        assert store.ping()
        store.close()
        with Connection(server.url) as conn:
            conn.ensure_connection(max_retries=3)
        sock = server.socket_path
        assert sock.exists()
    assert not sock.exists()


def test_url_conversions() -> None:
    assert redis_py_url("redis://h:1/2") == "redis://h:1/2"
    assert redis_py_url("redis+socket:///tmp/r.sock?virtual_host=3") == "unix:///tmp/r.sock?db=3"
    assert redis_py_url("socket:///tmp/r.sock") == "unix:///tmp/r.sock?db=0"
    assert kombu_url("unix:///tmp/r.sock?db=2") == "redis+socket:///tmp/r.sock?virtual_host=2"
    assert kombu_url("rediss://h:1/0") == "rediss://h:1/0"
    with pytest.raises(StoreConfigError, match="unsupported Redis URL scheme 'http'"):
        redis_py_url("http://h/")
    with pytest.raises(StoreConfigError, match="set REDIS_URL"):
        Store.from_url("")


@pytest.mark.integration
def test_start_failure_is_reported(tmp_path: Path) -> None:
    server = RedisServer(data_dir=tmp_path, extra_args=["--no-such-option", "1"])
    with pytest.raises(RedisServerError, match="did not start"):
        server.start()
    server.close()
    assert tmp_path.exists()  # not ours to delete


@pytest.mark.integration
def test_fixed_port_restart_and_close(tmp_path: Path) -> None:
    server = RedisServer(data_dir=tmp_path, appendonly=True)
    with server:
        port = server.port
        client = server.client()
        client.set("k", "v")
        client.close()
        server.stop()
        server.start()
        assert server.port == port
        client = server.client()
        assert client.get("k") == b"v"
        client.close()
    assert not server.running
    with pytest.raises(RedisServerError, match="closed"):
        server.start()
