"""Match slots of remote bots, arena-wide: the leases the workers' dispatchers take before starting a match.

A worker reserves one slot of every remote bot of a match at once, all or none (one Lua script), so two matches
never each hold a slot the other waits for, and no bot is seated in more matches than its session offers. A slot
is a lease scored by its expiry (Redis' clock), renewed by the worker's heartbeat: a dead worker's slots free
themselves. A bot without a live session counts as offering one match.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import redis

from ._codec import RecordStore, ms
from .keys import Keys
from .session_store import parse_session

ABSENT_CAPACITY = 1
"""The slots of a bot with no live session."""

# KEYS: the bots' slot sets; ARGV[1]: the lease in ms; ARGV[2]: the match id; ARGV[3..]: each bot's capacity.
# All or none; a slot the match already holds counts as free for it (a re-sent reservation is harmless).
_RESERVE = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
for i, key in ipairs(KEYS) do
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now_ms)
  if not redis.call('ZSCORE', key, ARGV[2]) and redis.call('ZCARD', key) >= tonumber(ARGV[2 + i]) then
    return 0
  end
end
for _, key in ipairs(KEYS) do
  redis.call('ZADD', key, now_ms + tonumber(ARGV[1]), ARGV[2])
  redis.call('PEXPIRE', key, tonumber(ARGV[1]) * 2)
end
return 1
"""

# KEYS: slot sets; ARGV[1]: the lease in ms; ARGV[2..]: the match id holding each (renewed only if still held).
_RENEW = """
local now = redis.call('TIME')
local until_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000) + tonumber(ARGV[1])
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, 'XX', until_ms, ARGV[1 + i])
  redis.call('PEXPIRE', key, tonumber(ARGV[1]) * 2)
end
return 1
"""

# KEYS: slot sets; ARGV: none. The live leases of each set: those expiring after now (one read per set; the
# expired ones are dropped by the next reservation, so the dispatcher's frequent looks write nothing).
_COUNT = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local counts = {}
for i, key in ipairs(KEYS) do
  counts[i] = redis.call('ZCOUNT', key, '(' .. now_ms, '+inf')
end
return counts
"""


class SlotStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._reserve = client.register_script(_RESERVE)
        self._renew = client.register_script(_RENEW)
        self._count = client.register_script(_COUNT)

    def capacities(self, bots: Sequence[str]) -> dict[str, int]:
        """Each bot's offer: the capacity of its newest live session (two round trips for any number of bots)."""
        pipe = self._r.pipeline(transaction=False)
        for bot in bots:
            pipe.smembers(self._k.bot(bot, "sessions"))
        ids = [sorted(m.decode("utf-8") for m in found) for found in pipe.execute()]
        flat = [sid for group in ids for sid in group]
        raws = iter(self._r.mget([self._k.session(sid) for sid in flat]) if flat else [])
        offers: dict[str, int] = {}
        for bot, group in zip(bots, ids, strict=True):
            sessions = [parse_session(sid, raw) for sid, raw in ((sid, next(raws)) for sid in group) if raw is not None]
            offers[bot] = max(sessions, key=lambda s: s.started_at).capacity if sessions else ABSENT_CAPACITY
        return offers

    def free(self, bots: Sequence[str],
             known: Mapping[str, int] | None = None) -> tuple[dict[str, int], dict[str, int]]:
        """``(free, capacity)`` per bot: its capacity (``known``, else read) minus its live leases, at least 0."""
        capacity = dict(known) if known is not None else self.capacities(bots)
        held = self._count(keys=[self._k.bot(bot, "slots") for bot in bots]) if bots else []
        return {bot: max(0, capacity[bot] - int(n)) for bot, n in zip(bots, held, strict=True)}, capacity

    def reserve(self, match_id: str, capacity: Mapping[str, int], lease_s: float) -> bool:
        """Take one slot of every bot of ``capacity`` (bot -> its offer) for ``match_id``, all or none."""
        bots = sorted(capacity)
        if not bots:
            return True
        keys = [self._k.bot(bot, "slots") for bot in bots]
        return bool(self._reserve(keys=keys, args=[ms(lease_s), match_id, *(capacity[b] for b in bots)]))

    def renew(self, held: Iterable[tuple[str, Iterable[str]]], lease_s: float) -> None:
        """Extend the leases of ``(match_id, bots)`` still held, in one round trip."""
        leases = [(self._k.bot(bot, "slots"), match_id) for match_id, bots in held for bot in bots]
        if leases:
            self._renew(keys=[key for key, _ in leases], args=[ms(lease_s), *(match_id for _, match_id in leases)])

    def release(self, match_id: str, bots: Iterable[str]) -> None:
        pipe = self._r.pipeline(transaction=False)
        for bot in bots:
            pipe.zrem(self._k.bot(bot, "slots"), match_id)
        pipe.execute()
