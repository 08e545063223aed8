"""Replays are stored zlib-compressed and come back identical."""

from __future__ import annotations

import json

import pytest

from arena.store import Store
from arena.store.replays import compress, decompress


def sample_replay(n: int = 400) -> dict[str, object]:
    moves = ["play red-9/teal-6", "draw", "pass", "play wild/pink-4 color=blue uno"]
    actions = [moves[i % 4] for i in range(n)]
    return {
        "rules": {"variant": "flip", "bluffing": True, "target": 500},
        "players": 4,
        "seed": 2**62 + 11,
        "actions": actions,
        "seats": ["alpha", "beta", "γάμμα", "delta"],
        "events": [{"type": "play", "seat": i % 4, "count": 1, "detail": None} for i in range(n)],
    }


def test_round_trip(store: Store) -> None:
    replay = sample_replay()
    assert store.replays.save("t-1.m0", replay)
    assert store.replays.load("t-1.m0") == replay
    raw = store.redis.get(store.keys.replay("t-1.m0"))
    assert raw is not None and decompress(raw) == replay
    plain = len(json.dumps(replay).encode())
    assert store.replays.size("t-1.m0") == len(raw) < plain / 5


def test_written_once_and_missing(store: Store) -> None:
    assert store.replays.load("nothing") is None
    assert store.replays.size("nothing") == 0
    assert store.replays.save("m", {"seed": 1})
    assert not store.replays.save("m", {"seed": 2})
    assert store.replays.load("m") == {"seed": 1}


def test_ttl(store: Store) -> None:
    store.replays.save("m", {"seed": 1}, ttl=3600)
    assert 0 < store.redis.pttl(store.keys.replay("m")) <= 3_600_000


def test_compress_is_canonical() -> None:
    assert compress({"b": 1, "a": [1, 2]}) == compress({"a": [1, 2], "b": 1})


def test_corrupt_data_is_reported(store: Store) -> None:
    store.redis.set(store.keys.replay("bad"), b"not zlib")
    with pytest.raises(ValueError, match="stored replay is corrupt"):
        store.replays.load("bad")
