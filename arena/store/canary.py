"""Canary: the last time a worker ran the canary task, so an alert can catch a stalled consumer.

Workers can stop consuming after a Redis reconnect while looking healthy; a periodic canary task
that writes here (and a metric or alert on its age) shows it.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis

from ._codec import text_hash
from .keys import Keys


@dataclass(frozen=True)
class CanaryBeat:
    ts: float
    worker: str


class CanaryStore:
    """Write and read the canary timestamp."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys

    def beat(self, ts: float, worker: str) -> None:
        self._r.hset(self._k.canary(), mapping={"ts": repr(float(ts)), "worker": worker})

    def last(self) -> CanaryBeat | None:
        raw = self._r.hgetall(self._k.canary())
        if not raw:
            return None
        f = text_hash(raw)
        return CanaryBeat(float(f["ts"]), f.get("worker", ""))
