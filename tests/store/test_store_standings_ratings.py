"""Standings cache (never moves backwards), ratings (atomic per-pool updates), canary."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

from arena.store import Store
from arena.tournament.stats.ratings import Rating, RatingPool
from tests.support.records import standings_of


def test_standings_cache_keeps_the_newest(store: Store) -> None:
    assert store.standings.get("t-1") is None
    assert store.standings.put("t-1", standings_of(3), as_of=3)
    assert not store.standings.put("t-1", standings_of(1), as_of=1)
    cached = store.standings.get("t-1")
    assert cached is not None and cached.as_of == 3 and cached.standings == standings_of(3)
    assert store.standings.put("t-1", standings_of(4), as_of=4)
    assert store.standings.get("t-1").as_of == 4  # type: ignore[union-attr]


def test_ratings_updates_do_not_lose_each_other(redis_server: Any, store: Store) -> None:
    pool = "flip:3f2a9c0d1b7e4a56"
    writers = [Store.from_url(redis_server.url) for _ in range(4)]
    barrier = threading.Barrier(len(writers))

    def bump(current: RatingPool | None) -> RatingPool:
        base = current or RatingPool(key=pool)
        return replace(base, applied=base.applied + 1)

    def work(w: Store) -> None:
        barrier.wait()
        for _ in range(25):
            w.ratings.update(pool, bump)

    threads = [threading.Thread(target=work, args=(w,)) for w in writers]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for w in writers:
        w.close()
    stored = store.ratings.get(pool)
    assert stored is not None and stored.applied == 100
    assert store.ratings.pools() == [pool]


def test_ratings_put_get(store: Store) -> None:
    assert store.ratings.get("classic:x") is None
    pool = RatingPool(key="classic:x", ratings={"a": Rating(25.0, 8.3, 1)})
    store.ratings.put("classic:x", pool)
    assert store.ratings.get("classic:x") == pool


def test_canary(store: Store) -> None:
    assert store.canary.last() is None
    store.canary.beat(1234.5, "worker@host")
    beat = store.canary.last()
    assert beat is not None and beat.ts == 1234.5 and beat.worker == "worker@host"
