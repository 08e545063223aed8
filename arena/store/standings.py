"""Standings cache: the latest computed standings of a tournament, never replaced by older ones.

Standings are derived data (recomputed from the results); the cache keeps one copy with
``as_of``, the number of results they count. :meth:`StandingsStore.put` refuses a copy older than
the stored one, so two workers racing to publish cannot move the cache backwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import redis

from ._codec import dumps, loads
from .keys import Keys

_PUT = """
local cur = redis.call('HGET', KEYS[1], 'as_of')
if cur and tonumber(cur) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'as_of', ARGV[1], 'standings', ARGV[2])
return 1
"""


@dataclass(frozen=True)
class CachedStandings:
    as_of: int
    standings: Any


class StandingsStore:
    """Publish and read the standings cache."""

    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        self._r = client
        self._k = keys
        self._put = client.register_script(_PUT)

    def put(self, tournament_id: str, standings: Any, as_of: int) -> bool:
        """Cache ``standings`` (JSON-ready) computed from ``as_of`` results; ``False`` if older."""
        if as_of < 0:
            raise ValueError(f"as_of must be >= 0, got {as_of}")
        return bool(self._put(keys=[self._k.standings(tournament_id)], args=[int(as_of), dumps(standings)]))

    def get(self, tournament_id: str) -> CachedStandings | None:
        as_of, raw = self._r.hmget(self._k.standings(tournament_id), ["as_of", "standings"])
        if as_of is None or raw is None:
            return None
        return CachedStandings(int(as_of), loads(raw))
