"""Replays are stored zlib-compressed, come back identical, and older stored forms still read."""

from __future__ import annotations

import json
import zlib

import pytest

from arena.store import Replay, Store
from arena.store.replay_store import compress, decompress
from tests.support.records import stored_replay


def sample_replay(n: int = 400) -> Replay:
    moves = ["play red-9/teal-6", "draw", "pass", "play wild/pink-4 color=blue uno"]
    replay = stored_replay("t-1.m0", seed=2**62 + 11, actions=[(i % 4, moves[i % 4]) for i in range(n)],
                           seats=("alpha", "beta", "γάμμα", "delta"), outcomes="a" * n)
    return Replay.from_dict({**replay.to_dict(), "refused": {"3": [1, ["illegal index 9"]]}, "declined": [5],
                             "clock_us": {"7": [1500, 0]}, "detail": "ended: 500 points"})


def test_round_trip(store: Store) -> None:
    replay = sample_replay()
    assert store.replays.save("t-1.m0", replay)
    assert store.replays.load("t-1.m0") == replay
    raw = store.redis.get(store.keys.replay("t-1.m0"))
    assert raw is not None and decompress(raw) == replay
    plain = len(json.dumps(replay.to_dict()).encode())
    assert store.replays.size("t-1.m0") == len(raw) < plain / 5


def test_the_stored_json_is_the_replays_own_form(store: Store) -> None:
    replay = sample_replay()
    store.replays.save("t-1.m0", replay)
    raw = store.redis.get(store.keys.replay("t-1.m0"))
    assert raw is not None
    data = json.loads(zlib.decompress(raw))
    assert data == json.loads(json.dumps(replay.to_dict()))
    assert data["format"] == 1 and data["replay"]["actions"][1] == [1, "draw"] and data["outcomes"] == "a" * 400
    notes = replay.decisions()
    assert notes[3].reasons == ("illegal index 9",) and not notes[5].applied and notes[7].lag_ms == 1.5


def test_written_once_and_missing(store: Store) -> None:
    assert store.replays.load("nothing") is None
    assert store.replays.size("nothing") == 0
    assert store.replays.save("m", stored_replay("m", seed=1))
    assert not store.replays.save("m", stored_replay("m", seed=2))
    assert store.replays.load("m") == stored_replay("m", seed=1)


def test_ttl(store: Store) -> None:
    store.replays.save("m", stored_replay("m"), ttl=3600)
    assert 0 < store.redis.pttl(store.keys.replay("m")) <= 3_600_000


def test_compress_is_canonical() -> None:
    replay = sample_replay(5)
    assert compress(replay) == compress(Replay.from_dict(dict(reversed(replay.to_dict().items()))))


def test_corrupt_data_is_reported(store: Store) -> None:
    store.redis.set(store.keys.replay("bad"), b"not zlib")
    with pytest.raises(ValueError, match="stored replay is corrupt"):
        store.replays.load("bad")
    store.redis.set(store.keys.replay("bad"), zlib.compress(b'{"seed": 1}'))
    with pytest.raises(ValueError, match="stored replay is malformed"):
        store.replays.load("bad")
