"""Canary: the last time a worker ran the canary task, so an alert catches workers that stopped consuming after a
Redis reconnect while looking healthy.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._codec import RecordStore, text_hash


@dataclass(frozen=True)
class CanaryBeat:
    ts: float
    worker: str


class CanaryStore(RecordStore):
    def beat(self, ts: float, worker: str) -> None:
        self._r.hset(self._k.canary(), mapping={"ts": repr(float(ts)), "worker": worker})

    def last(self) -> CanaryBeat | None:
        raw = self._r.hgetall(self._k.canary())
        if not raw:
            return None
        f = text_hash(raw)
        return CanaryBeat(float(f["ts"]), f.get("worker", ""))
