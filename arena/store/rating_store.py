"""Ratings: one JSON document per rating pool, updated with optimistic transactions (``WATCH`` and retry), so two
workers updating one pool never lose each other's update; beside each pool, a cache of its batch ratings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import cast

import redis

from arena.tournament.stats.plackett_luce import BatchRating
from arena.tournament.stats.ratings import RatingPool
from arena.tournament.stats.verdicts import Verdicts

from ._codec import RecordStore, dumps, loads

MAX_TRIES = 50


@dataclass(frozen=True)
class CachedBatch:
    """A pool's cached batch ratings, the pool's version they were computed at, and when (epoch seconds)."""

    version: str
    computed_at: float
    ratings: list[BatchRating]
    verdicts: Verdicts = field(default_factory=Verdicts)


class RatingStore(RecordStore):
    def get(self, pool: str) -> RatingPool | None:
        raw = self._r.get(self._k.ratings(pool))
        return None if raw is None else RatingPool.from_dict(loads(raw))

    def put(self, pool: str, ratings: RatingPool) -> None:
        self._r.set(self._k.ratings(pool), dumps(ratings.to_dict()))

    def batch(self, pool: str, version: str) -> list[BatchRating] | None:
        """The cached batch ratings of ``pool`` when they were computed at ``version``, else None."""
        found = self.cached_batch(pool)
        return None if found is None or found.version != version else found.ratings

    def cached_batch(self, pool: str) -> CachedBatch | None:
        """The cached batch ratings of ``pool``, at whatever version."""
        raw = self._r.get(self._k.batch_ratings(pool))
        if raw is None:
            return None
        data = loads(raw)
        return CachedBatch(str(data.get("version")), float(data.get("computed_at") or 0.0),
                           [BatchRating.from_dict(item) for item in data.get("ratings") or ()],
                           Verdicts.from_dict(data.get("verdicts")))

    def put_batch(self, pool: str, version: str, ratings: list[BatchRating], computed_at: float,
                  verdicts: Verdicts | None = None) -> None:
        self._r.set(self._k.batch_ratings(pool), dumps({"version": version, "computed_at": computed_at,
                                                        "ratings": [r.to_dict() for r in ratings],
                                                        "verdicts": (verdicts or Verdicts()).to_dict()}))

    def pools(self) -> list[str]:
        head = f"{self._k.prefix}ratings:"
        return sorted(k.decode("utf-8")[len(head) :] for k in self._r.scan_iter(match=head + "*", count=1000))

    def update(self, pool: str, fn: Callable[[RatingPool | None], RatingPool]) -> RatingPool:
        """Apply ``fn(current or None) -> new`` atomically; the new pool. ``fn`` may run more than once (on
        contention) and must not have side effects."""
        key = self._k.ratings(pool)
        for _ in range(MAX_TRIES):
            with self._r.pipeline(transaction=True) as pipe:
                try:
                    pipe.watch(key)
                    raw = cast("bytes | None", pipe.get(key))  # immediate while watching
                    current = None if raw is None else RatingPool.from_dict(loads(raw))
                    new = fn(current)
                    pipe.multi()
                    pipe.set(key, dumps(new.to_dict()))
                    pipe.execute()
                    return new
                except redis.WatchError:
                    continue
        raise RuntimeError(f"ratings of pool {pool!r} kept changing; gave up after {MAX_TRIES} tries")
