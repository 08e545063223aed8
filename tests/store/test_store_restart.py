"""Persistence: a Redis restart (clean or a hard kill) keeps the data, and clients reconnect."""

from __future__ import annotations

import os

import pytest

from arena.store import CreateResult, Store
from tests.support.records import stored_replay, stored_result
from tests.support.redis_server import PrivateRedis, private_redis

pytestmark = pytest.mark.integration


def fill(store: Store) -> str:
    _, token = store.bots.register("alpha", owner="ann")
    store.tournaments.create("t-1", {"participants": ["alpha", "beta"]}, idempotency_key="req-1")
    store.tournaments.add_matches("t-1", ["t-1.m0", "t-1.m1"])
    store.results.record("t-1", "t-1.m0", stored_result("t-1.m0", seats=("alpha", "beta")),
                         replay=stored_replay("t-1.m0", seed=5, actions=[(0, "draw")]))
    return token


def check(store: Store, token: str) -> None:
    assert store.bots.verify_token(token).owner == "ann"
    retry = store.tournaments.create("t-9", {"participants": ["alpha", "beta"]}, idempotency_key="req-1")
    assert retry == CreateResult("t-1", created=False)
    assert store.results.get("t-1", "t-1.m0") == stored_result("t-1.m0", seats=("alpha", "beta"))
    assert not store.results.record("t-1", "t-1.m0", stored_result("t-1.m0", seats=("alpha", "beta"), winner=1))
    assert store.results.missing("t-1") == {"t-1.m1"}
    assert store.replays.load("t-1.m0") == stored_replay("t-1.m0", seed=5, actions=[(0, "draw")])


def test_clean_restart_keeps_data_and_the_client_reconnects(fresh_redis_server: PrivateRedis) -> None:
    store = Store.from_url(fresh_redis_server.url)
    token = fill(store)
    old_pid = fresh_redis_server.pid
    port = fresh_redis_server.port
    fresh_redis_server.stop()
    fresh_redis_server.start()
    assert fresh_redis_server.pid != old_pid and fresh_redis_server.port == port
    check(store, token)  # the same Store object, its connections broken by the restart
    store.close()


def test_hard_kill_loses_nothing_with_fsync_always(fresh_redis_server: PrivateRedis) -> None:
    store = Store.from_url(fresh_redis_server.url)
    token = fill(store)
    fresh_redis_server.kill()
    assert not fresh_redis_server.running
    fresh_redis_server.start()
    check(store, token)
    store.close()


def test_data_dir_survives_a_new_server_object(tmp_path: os.PathLike[str]) -> None:
    with private_redis(data_dir=tmp_path) as first:
        store = Store.from_url(first.url)
        token = fill(store)
        store.close()
    # A caller's directory is kept (Redis 7 writes its append-only file as a folder).
    assert any(os.path.exists(os.path.join(tmp_path, name)) for name in ("appendonly.aof", "appendonlydir"))
    with private_redis(data_dir=tmp_path) as second:
        store = Store.from_url(second.url)
        check(store, token)
        store.close()


def test_without_persistence_a_restart_starts_empty() -> None:
    with private_redis(persistence=False) as server:
        store = Store.from_url(server.url)
        store.bots.register("alpha")
        server.stop()
        server.start()
        assert store.bots.all() == []
        store.close()
