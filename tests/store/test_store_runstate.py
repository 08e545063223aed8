"""Run state: one attempt of a match at a time, nothing re-created after a tournament's cleanup, failure kinds."""

from __future__ import annotations

import time

import pytest
import redis

from arena.store import Store, failure_kind
from arena.store.runstate import RunState
from arena.tournament.status import BatchStatus
from tests.support import wait_until


@pytest.fixture
def run(store: Store) -> RunState:
    store.tournaments.create("t-1", {"participants": ["a", "b"]})
    store.tournaments.add_matches("t-1", ["t-1.m0", "t-1.m1"])
    return RunState(store, "t-1")


def test_one_claim_per_match_until_released_or_expired(run: RunState) -> None:
    token = run.claim("t-1.m0", ttl=30)
    assert token is not None
    assert run.claim("t-1.m0", ttl=30) is None  # a duplicated batch must wait
    assert run.claim("t-1.m1", ttl=30) is not None  # other matches are free
    run.release("t-1.m0", "not-the-token")
    assert run.claim("t-1.m0", ttl=30) is None  # only the holder releases
    assert run.renew_all([("t-1.m0", token)], ttl=30) == 1
    assert run.renew_all([("t-1.m0", "not-the-token")], ttl=30) == 0
    run.release("t-1.m0", token)
    short = run.claim("t-1.m0", ttl=0.05)
    assert short is not None
    wait_until(lambda: run.claim("t-1.m0", ttl=30), 10, "a dead holder's claim to expire")


def test_a_heartbeat_renews_every_held_claim_in_one_call(run: RunState, store: Store) -> None:
    held = [(f"t-1.m{i}", run.claim(f"t-1.m{i}", ttl=1)) for i in range(3)]
    claims = [(match_id, token) for match_id, token in held if token is not None]
    assert len(claims) == 3
    assert run.renew_all([*claims, ("t-1.m0", "not-the-token"), ("t-1.m9", "never-claimed")], ttl=60) == 3
    assert all(store.redis.pttl(store.keys.match_claim("t-1", match_id)) > 30_000 for match_id, _ in claims)
    assert run.renew_all([], ttl=60) == 0


def test_nothing_is_recreated_after_the_cleanup(run: RunState, store: Store) -> None:
    run.add_batches({"b0": ["t-1.m0"]})
    assert run.mark("b0", "running")
    assert run.begin("t-1.m0") == (False, 1)
    run.set_once("finished_at", repr(time.time()))  # cancelled: the batches still say they stopped
    assert run.mark("b0", "stopped")
    run.cleanup()
    # A late redelivery of the batch (or a heartbeat of a duplicate) after the tournament ended:
    assert not run.mark("b0", "done")
    assert run.begin("t-1.m0") == (False, 0)
    assert not store.redis.exists(run.batch_state_key, run.attempts_key)


def test_failure_kinds() -> None:
    assert failure_kind(redis.ResponseError("MISCONF Redis is configured to save RDB snapshots")) == "misconf"
    assert failure_kind(redis.ReadOnlyError("READONLY You can't write against a read only replica.")) == "readonly"
    assert failure_kind(redis.ResponseError("OOM command not allowed when used memory > 'maxmemory'.")) == "oom"
    assert failure_kind(redis.ResponseError("Error running script: -NOREPLICAS Not enough")) == "noreplicas"
    assert failure_kind(redis.ConnectionError("Connection refused")) == "connection"
    assert failure_kind(redis.TimeoutError("Timeout reading")) == "connection"
    assert failure_kind(redis.ResponseError("WRONGTYPE Operation against a key")) == "other"


def test_a_child_with_room_adopts_the_first_queued_batch_and_its_message_is_then_dropped(run: RunState) -> None:
    run.add_batches({"b00001": ["m3", "m4"], "b00000": ["m1", "m2"], "b00002": ["m5"]}, now=100.0)
    assert run.take("b00000", fresh_s=12, now=101.0)  # delivered first: its own child plays it
    assert run.adopt(now=102.0) == ("b00001", ["m3", "m4"])  # the first batch still queued
    assert run.batch_states()["b00001"].state is BatchStatus.ADOPTED
    assert not run.take("b00001", fresh_s=12, now=110.0)  # its message comes: the adopter beats for it, dropped
    assert run.take("b00001", fresh_s=12, now=120.0)  # the adopter stopped beating: the message plays it
    assert run.batch_states()["b00001"].state is BatchStatus.RUNNING
    assert run.adopt(now=121.0) == ("b00002", ["m5"])
    assert run.adopt(now=122.0) is None  # nothing queued any more
