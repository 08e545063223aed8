"""Standings cache: the latest computed standings of a tournament, never replaced by older ones (``as_of``, the
results they count, only goes forward, so two workers racing to publish cannot move it backwards).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import redis

from arena.tournament.standings import HeadToHead, StandingRow
from arena.tournament.stats.plackett_luce import BatchRating

from ._codec import RecordStore, dumps, loads
from .keys import Keys

_PUT = """
local cur = redis.call('HGET', KEYS[1], 'as_of')
if cur and tonumber(cur) > tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'as_of', ARGV[1], 'standings', ARGV[2])
return 1
"""


@dataclass(frozen=True)
class TournamentStandings:
    """The standings of a tournament with the per-bot counters the API shows. ``table``: the standings' JSON
    (:meth:`arena.tournament.Standings.to_dict` without the rating pool)."""

    final: bool
    table: dict[str, Any]
    timeouts: dict[str, int] = field(default_factory=dict)
    refusals: dict[str, int] = field(default_factory=dict)
    decisions: dict[str, int] = field(default_factory=dict)
    batch: tuple[BatchRating, ...] = ()
    """The batch Plackett-Luce ratings of the scored matches, best first."""

    @property
    def rows(self) -> tuple[StandingRow, ...]:
        return tuple(StandingRow.from_dict(row) for row in self.table.get("rows") or ())

    @property
    def head_to_head(self) -> tuple[HeadToHead, ...]:
        """Every ordered pair's cell when every match had 2 seats; empty otherwise."""
        cells = self.table.get("head_to_head") or {}
        return tuple(HeadToHead.from_dict(cell) for by_opponent in cells.values() for cell in by_opponent.values())

    def to_dict(self) -> dict[str, Any]:
        return {"final": self.final, "standings": dict(self.table), "timeouts": dict(self.timeouts),
                "refusals": dict(self.refusals), "decisions": dict(self.decisions),
                "batch": [rating.to_dict() for rating in self.batch]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> TournamentStandings:
        def counts(name: str) -> dict[str, int]:
            return {str(bot): int(n) for bot, n in dict(data.get(name) or {}).items()}

        return cls(bool(data.get("final")), dict(data.get("standings") or {}), counts("timeouts"),
                   counts("refusals"), counts("decisions"),
                   tuple(BatchRating.from_dict(item) for item in data.get("batch") or ()))


@dataclass(frozen=True)
class CachedStandings:
    as_of: int
    standings: TournamentStandings


class StandingsStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._put = client.register_script(_PUT)

    def put(self, tournament_id: str, standings: TournamentStandings, as_of: int) -> bool:
        """Cache ``standings`` computed from ``as_of`` results; ``False`` if older than the cached ones."""
        if as_of < 0:
            raise ValueError(f"as_of must be >= 0, got {as_of}")
        key = self._k.tournament(tournament_id, "standings")
        return bool(self._put(keys=[key], args=[int(as_of), dumps(standings.to_dict())]))

    def get(self, tournament_id: str) -> CachedStandings | None:
        as_of, raw = self._r.hmget(self._k.tournament(tournament_id, "standings"), ["as_of", "standings"])
        if as_of is None or raw is None:
            return None
        return CachedStandings(int(as_of), TournamentStandings.from_dict(loads(raw)))
