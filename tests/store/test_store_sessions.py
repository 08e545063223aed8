"""Session registry: which gateway holds which bot, with a TTL refreshed by heartbeats."""

from __future__ import annotations

import pytest

from arena.store import Store, UnknownBot


def test_open_heartbeat_close(store: Store) -> None:
    store.bots.register("Alpha")
    s = store.sessions.open("alpha", "gw-1", capacity=4, ttl=30)
    assert s.bot == "Alpha" and s.gateway == "gw-1" and s.capacity == 4
    ttl_ms = store.redis.pttl(store.keys.session(s.session_id))
    assert 0 < ttl_ms <= 30_000
    store.redis.pexpire(store.keys.session(s.session_id), 1000)
    assert store.sessions.heartbeat_many([s.session_id], ttl=60) == [True]
    assert store.redis.pttl(store.keys.session(s.session_id)) > 30_000
    assert store.sessions.get(s.session_id) == s
    assert [x.session_id for x in store.sessions.for_bot("ALPHA")] == [s.session_id]
    assert store.sessions.online("alpha")
    assert store.sessions.close(s.session_id)
    assert not store.sessions.close(s.session_id)
    assert store.sessions.for_bot("alpha") == []
    assert not store.redis.sismember(store.keys.bot("alpha", "sessions"), s.session_id)


def test_expired_sessions_disappear_and_are_pruned(store: Store) -> None:
    store.bots.register("alpha")
    a = store.sessions.open("alpha", "gw-1")
    b = store.sessions.open("alpha", "gw-2")
    store.redis.delete(store.keys.session(a.session_id))  # what the TTL does when gw-1 dies
    assert [x.gateway for x in store.sessions.for_bot("alpha")] == ["gw-2"]
    assert store.redis.smembers(store.keys.bot("alpha", "sessions")) == {b.session_id.encode()}
    assert store.sessions.heartbeat_many([a.session_id]) == [False]


def test_sessions_need_a_registered_bot(store: Store) -> None:
    with pytest.raises(UnknownBot):
        store.sessions.open("ghost", "gw-1")
    store.bots.register("alpha")
    with pytest.raises(ValueError, match="capacity"):
        store.sessions.open("alpha", "gw-1", capacity=0)
    with pytest.raises(ValueError, match="ttl"):
        store.sessions.open("alpha", "gw-1", ttl=0)
