"""Competitions in Redis: their spec and status, the ladder's entries (current and retired), the blocks in flight,
the rate limit's bucket and the round counter (see :mod:`arena.tournament.competition` for what they mean; the keys
are listed in docs/operations.md).
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import redis

from arena.tournament.competition import Entry
from arena.tournament.status import CompetitionStatus

from ._codec import RecordStore, enum_member, release_lock, take_lock, text_hash
from .keys import Keys, bot_key, check_name

MAX_RETIRED = 1000

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'spec', ARGV[1], 'status', 'active', 'created_at', ARGV[2], 'updated_at', ARGV[2],
           'rounds', 0, 'blocks', 0)
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return 1
"""

# Change the status unless the competition is closed (closed is final); returns the old status, or false.
_SET_STATUS = """
local old = redis.call('HGET', KEYS[1], 'status')
if not old then return false end
if old == 'closed' and ARGV[1] ~= 'closed' then return old end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'updated_at', ARGV[2])
return old
"""


class UnknownCompetition(KeyError):
    def __str__(self) -> str:
        return f"unknown competition {self.args[0]!r}"


class DuplicateCompetition(ValueError):
    """A competition of that id exists already."""


@dataclass(frozen=True)
class CompetitionRecord:
    competition_id: str
    spec: dict[str, Any]
    status: CompetitionStatus
    created_at: float
    updated_at: float
    rounds: int
    blocks: int
    rate: dict[str, Any] | None


class CompetitionStore(RecordStore):
    def __init__(self, client: redis.Redis, keys: Keys) -> None:
        super().__init__(client, keys)
        self._create = client.register_script(_CREATE)
        self._set_status = client.register_script(_SET_STATUS)

    def _key(self, cid: str, part: str = "") -> str:
        return f"{self._k.prefix}competition:{check_name(cid, 'competition id', 48)}{':' + part if part else ''}"

    def create(self, cid: str, spec: dict[str, Any]) -> None:
        """Record a new, active competition; :class:`DuplicateCompetition` when the id is taken."""
        if not self._create(keys=[self._key(cid), f"{self._k.prefix}competitions"],
                            args=[json.dumps(spec, sort_keys=True), repr(time.time()), cid]):
            raise DuplicateCompetition(f"a competition {cid!r} exists already")

    def get(self, cid: str) -> CompetitionRecord:
        raw = self._r.hgetall(self._key(cid))
        if not raw:
            raise UnknownCompetition(cid)
        fields = text_hash(raw)
        rate = json.loads(fields["rate"]) if fields.get("rate") else None
        return CompetitionRecord(cid, json.loads(fields["spec"]), CompetitionStatus(fields["status"]),
                                 float(fields["created_at"]), float(fields["updated_at"]), int(fields.get("rounds", 0)),
                                 int(fields.get("blocks", 0)), rate)

    def ids(self) -> list[str]:
        return [m.decode() for m in self._r.zrange(f"{self._k.prefix}competitions", 0, -1)]

    def set_status(self, cid: str, status: CompetitionStatus) -> CompetitionStatus:
        """Set the status (``closed`` is final: a closed competition stays closed); returns the old one."""
        word = enum_member(CompetitionStatus, status, "competition status").value
        old = self._set_status(keys=[self._key(cid)], args=[word, repr(time.time())])
        if old is None:
            raise UnknownCompetition(cid)
        return CompetitionStatus(old.decode() if isinstance(old, bytes) else old)

    # -- the ladder ------------------------------------------------------------------------------------------
    def entries(self, cid: str) -> dict[str, Entry]:
        """The current entry of each bot (by its name as first entered)."""
        entries = (Entry.from_dict(json.loads(raw)) for raw in self._r.hvals(self._key(cid, "entries")))
        return {entry.bot: entry for entry in entries}

    def retired(self, cid: str, limit: int = 100) -> list[Entry]:
        return [Entry.from_dict(json.loads(raw))
                for raw in self._r.lrange(self._key(cid, "retired"), 0, max(0, limit - 1))]

    def save_entries(self, cid: str, started: Iterable[Entry], retired: Iterable[Entry]) -> None:
        """Keep the entries a round retired and started (in one transaction)."""
        pipe = self._r.pipeline(transaction=True)
        for entry in retired:
            pipe.lpush(self._key(cid, "retired"), json.dumps(entry.to_dict(), sort_keys=True))
        pipe.ltrim(self._key(cid, "retired"), 0, MAX_RETIRED - 1)
        for entry in started:
            pipe.hset(self._key(cid, "entries"), bot_key(entry.bot), json.dumps(entry.to_dict(), sort_keys=True))
        pipe.execute()

    def blocks(self, cid: str) -> set[str]:
        return {m.decode() for m in self._r.smembers(self._key(cid, "blocks"))}

    def forget_blocks(self, cid: str, block_ids: Iterable[str]) -> None:
        ids = list(block_ids)
        if ids:
            self._r.srem(self._key(cid, "blocks"), *ids)

    def next_round(self, cid: str) -> int:
        return int(self._r.hincrby(self._key(cid), "rounds", 1))

    def add_blocks(self, cid: str, count: int) -> int:
        """Reserve ``count`` block numbers; returns the first."""
        return int(self._r.hincrby(self._key(cid), "blocks", count)) - count + 1

    def block_started(self, cid: str, block_id: str) -> None:
        self._r.sadd(self._key(cid, "blocks"), block_id)

    def save_rate(self, cid: str, rate: dict[str, Any]) -> None:
        self._r.hset(self._key(cid), "rate", json.dumps(rate))

    def lock(self, cid: str, ttl_s: float) -> str | None:
        """Take the competition's round lock for ``ttl_s`` seconds; its token, or None while another holds it."""
        return take_lock(self._r, self._key(cid, "lock"), ttl_s)

    def unlock(self, cid: str, token: str) -> None:
        release_lock(self._r, self._key(cid, "lock"), token)
